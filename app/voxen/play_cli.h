// Helpers shared by the play-family subcommands (play, replay, fuzz-play, tour): argument checks with one-line
// errors, the recording header from the flags, and the summary printed at the end of a run.
#pragma once

#include <cstdint>
#include <string>

#include "voxen/play/game.h"
#include "voxen/play/recording.h"
#include "voxen/render/image.h"

namespace voxen::app {

/// 64-bit hash of an image's size and pixels (to print and compare frames without files).
uint64_t image_hash(const render::Image& image);
/// Creates a directory (and parents) if missing; throws RunError naming it on failure.
void ensure_dir(const std::string& dir, const std::string& arg);
/// "X Y Z" of the player's feet with 3 decimals.
std::string feet_text(const play::PlayerState& p);

}  // namespace voxen::app
