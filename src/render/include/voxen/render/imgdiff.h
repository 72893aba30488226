// Image comparison for golden images and render checks: `voxen imgdiff` and the tests use this.
//
// Modes:
//   strict  the two images have the same size and identical bytes (every channel of every pixel, alpha too).
//   look    Quantum's rule: a pixel FAILS when any channel differs by more than 6/255; the pair passes when
//           at most 0.05% of the pixels fail AND no 4-connected blob of failing pixels is larger than 32 pixels.
// Images of different sizes never pass (size_mismatch is set).
// Blobs: 4-connected components (up, down, left, right neighbours) of failing pixels, found by an iterative flood
// fill over a visited mask (no recursion, so a full-frame blob cannot overflow the stack).
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "voxen/render/image.h"

namespace voxen::render {

enum class DiffMode { kStrict, kLook };

/// The look mode's thresholds (Quantum's rule), named so tests can derive their cases from them.
struct LookRule {
  int channel_tolerance = 6;       // a channel difference above this (out of 255) makes the pixel fail
  double max_failing_fraction = 0.0005;  // 0.05% of the pixels
  int max_blob_pixels = 32;        // the largest allowed 4-connected blob of failing pixels
  /// Whether the pixel pair (RGBA8 each) fails: some channel, alpha included, differs by more than the tolerance.
  bool fails(const uint8_t* p, const uint8_t* q) const;
};

struct DiffResult {
  bool size_mismatch = false;
  uint64_t pixels = 0;            // pixels compared (width * height of A)
  uint64_t pixels_differing = 0;  // pixels with any channel different at all
  uint64_t pixels_failing = 0;    // pixels with a channel off by more than the tolerance
  uint64_t largest_blob = 0;      // pixels in the largest 4-connected blob of failing pixels
  int max_channel_delta = 0;      // the largest difference of any channel
  bool pass = false;              // by the mode's rule
};

/// Compares a with b by `mode` (strict: byte identity; look: LookRule). The blob search is done in both modes
/// (over failing pixels) so reports always carry it.
DiffResult compare_images(const Image& a, const Image& b, DiffMode mode, const LookRule& rule = {});

/// A picture of the differences, same size as a: a's pixels greyed and dimmed, pixels that differ a little in
/// yellow, failing pixels in red. For images of different sizes, an image of a's size in red.
Image diff_image(const Image& a, const Image& b, const LookRule& rule = {});

/// "strict" or "look" (nullopt-like: returns false for other text).
bool parse_diff_mode(std::string_view text, DiffMode& out);

}  // namespace voxen::render
