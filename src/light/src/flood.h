// The world-level flood fill behind stitch, apply_edit and unload_column: light crosses column borders freely,
// unloaded columns are dark and opaque.
//
// Cells are packed into a uint32 "cell reference": slot << 17 | (y - kMinY) << 8 | z << 4 | x, where a slot is
// a loaded column this Flood has met (slot 0 is the first one asked for). Bits 12-16 are the section index and
// bits 0-11 the section-local index, so reads and writes go straight to Column::section / light_section.
// Every write is logged with the cell's value before the first write (a 4096-bit mark per touched section), so
// changes() reports exactly the cells whose light differs at the end.
//
// Queues: FIFO vectors with a read index (packed cell references; the removal queue pairs one with the light
// being removed). Scratch is thread_local and reused, so an edit allocates nothing once warm.
// Threads: the thread that owns the World; one Flood at a time per thread.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "voxen/light/light.h"
#include "voxen/world/block_registry.h"

namespace voxen::light::detail {


/// A loaded column a Flood has met.
struct FloodSlot {
  Column* column = nullptr;
  ColumnPos pos;
  std::array<int, 6> neighbour{-2, -2, -2, -2, -2, -2};  // slot beside it per horizontal Face (the Y entries are
                                                         // unused): -2 not looked up yet, -1 not loaded
  std::array<int, kSectionsPerColumn> mark{};     // 1 + index of the section's write marks, 0 = none yet
  std::array<int, kSectionsPerColumn> box{};      // 1 + index of the section's entry in changes(), 0 = none yet
};

struct FloodScratch;

class Flood {
 public:
  Flood(World& world, const LightTable& table);
  ~Flood();
  Flood(const Flood&) = delete;
  Flood& operator=(const Flood&) = delete;

  /// Slot of a loaded column (added on first use), or -1 when it is not loaded.
  int slot_of(ColumnPos pos);
  /// Slot of the column beside `slot` on `side`, or -1 when not loaded.
  int neighbour_slot(int slot, Face side);
  Column& column(int slot);

  static uint32_t ref(int slot, int x, int y_index, int z) {
    return static_cast<uint32_t>(slot) << 17 | static_cast<uint32_t>(y_index) << 8 | static_cast<uint32_t>(z) << 4 |
           static_cast<uint32_t>(x);
  }
  static int slot_bits(uint32_t c) { return static_cast<int>(c >> 17); }
  static int section_bits(uint32_t c) { return static_cast<int>((c >> 12) & 31u); }
  static int index_bits(uint32_t c) { return static_cast<int>(c & 4095u); }
  static int y_index(uint32_t c) { return static_cast<int>((c >> 8) & 511u); }

  /// The neighbour of cell c in direction dir; false when it is outside the world or in an unloaded column.
  bool neighbour(uint32_t c, Face dir, uint32_t& out);

  Light get(uint32_t c);
  /// Writes a light value, remembering the value before the first write of this Flood.
  void set(uint32_t c, Light l);
  uint16_t block(uint32_t c);
  uint8_t opacity(uint32_t c) { return m_table.opacity(block(c)); }
  Light source(uint32_t c) { return m_table.source(block(c), kMinY + y_index(c)); }

  void push_relight(uint32_t c);
  void push_removal(uint32_t c, Light removed);
  /// Removal step for one neighbour `n` of a cell whose light `old` (only the channels being removed are
  /// non-zero) is going away; `down` when n lies directly below. Channels of n that may have come from that light
  /// (n's value below old, or sky 15 carried straight down) are cleared to n's own source and queued for removal;
  /// brighter channels make n a re-flood seed when `seed_boundary`.
  void remove_into(uint32_t n, Light old, bool down, bool seed_boundary);
  /// Runs the removal queue to completion.
  void run_removal();
  /// Runs the re-flood queue to completion (only increases).
  void run_relight();
  /// Tries to raise n with the light of a neighbour holding `from` (`down` when n lies directly below it);
  /// queues n when it rose.
  void offer(uint32_t n, Light from, bool down);

  /// The cells whose light now differs from before this Flood's first write to them.
  LightChanges changes();

 private:
  World& m_world;
  const LightTable& m_table;
  FloodScratch& m_s;
};

}  // namespace voxen::light::detail
