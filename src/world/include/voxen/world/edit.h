// An edit is a value: the position, the cell before, the cell after and a sequence number. One function
// (World::apply) applies it; the journal, the network log, undo and replays are lists of them.
#pragma once

#include <cstdint>

#include "voxen/core/coords.h"
#include "voxen/world/cell.h"

namespace voxen {

struct Edit {
  BlockPos pos;        // world block position
  Cell before;         // the cell that was there
  Cell after;          // the cell placed
  uint64_t seq = 0;    // order of application, per world, starting at 1
  friend bool operator==(const Edit&, const Edit&) = default;
};

}  // namespace voxen
