#include "flood.h"

#include <algorithm>

#include "voxen/core/error.h"

namespace voxen::light::detail {

struct FloodScratch {
  struct Logged {
    uint32_t cell;
    Light before;
  };
  std::vector<FloodSlot> slots;
  std::unordered_map<ColumnPos, int, ColumnPosHash> slot_index;  // -1 cached for unloaded positions
  std::vector<std::array<uint64_t, kSectionVolume / 64>> marks;   // one bit per cell of a touched section
  size_t marks_used = 0;
  std::vector<Logged> log;
  std::vector<uint32_t> relight;
  size_t relight_head = 0;
  std::vector<uint64_t> removal;  // cell << 16 | light being removed
  size_t removal_head = 0;
  bool busy = false;

  void reset() {
    slots.clear();
    slot_index.clear();
    marks_used = 0;
    log.clear();
    relight.clear();
    relight_head = 0;
    removal.clear();
    removal_head = 0;
  }
};

namespace {
FloodScratch& thread_scratch() {
  thread_local FloodScratch s;
  return s;
}
constexpr uint32_t kLowBits = 0x01010101u;
constexpr uint32_t kAllLanes = 0x0F0F0F0Fu;
constexpr uint32_t kSkyLane = 0x0F000000u;

/// 0x0F in every byte lane of v (lanes 0..15) that is non-zero.
constexpr uint32_t nonzero_lanes(uint32_t v) { return ((v | v >> 1 | v >> 2 | v >> 3) & kLowBits) * 0x0Fu; }
}  // namespace

Flood::Flood(World& world, const LightTable& table) : m_world(world), m_table(table), m_s(thread_scratch()) {
  VOXEN_ASSERT(!m_s.busy);  // one Flood at a time per thread
  m_s.busy = true;
  m_s.reset();
}

Flood::~Flood() {
  m_s.reset();
  m_s.busy = false;
}

int Flood::slot_of(ColumnPos pos) {
  auto it = m_s.slot_index.find(pos);
  if (it != m_s.slot_index.end()) return it->second;
  Column* c = m_world.find(pos);
  int slot = -1;
  if (c) {
    VOXEN_ASSERT(m_s.slots.size() < (1u << 15));  // the slot must fit in 15 bits of a cell reference
    slot = static_cast<int>(m_s.slots.size());
    FloodSlot fs;
    fs.column = c;
    fs.pos = pos;
    m_s.slots.push_back(fs);
  }
  m_s.slot_index.emplace(pos, slot);
  return slot;
}

int Flood::neighbour_slot(int slot, Face side) {
  const int known = m_s.slots[static_cast<size_t>(slot)].neighbour[static_cast<size_t>(side)];
  if (known != -2) return known;
  const ColumnPos p = m_s.slots[static_cast<size_t>(slot)].pos;
  const int n = slot_of({p.x + kFaceStep[side][0], p.z + kFaceStep[side][2]});  // may grow m_s.slots
  m_s.slots[static_cast<size_t>(slot)].neighbour[static_cast<size_t>(side)] = n;
  if (n >= 0) m_s.slots[static_cast<size_t>(n)].neighbour[static_cast<size_t>(opposite(side))] = slot;
  return n;
}

Column& Flood::column(int slot) { return *m_s.slots[static_cast<size_t>(slot)].column; }

bool Flood::neighbour(uint32_t c, Face dir, uint32_t& out) {
  const uint32_t x = c & 15u, z = (c >> 4) & 15u;
  int ns;
  switch (dir) {
    case kFacePosX:
      if (x < 15) { out = c + 1; return true; }
      ns = neighbour_slot(slot_bits(c), kFacePosX);
      if (ns < 0) return false;
      out = static_cast<uint32_t>(ns) << 17 | (c & 0x1FFF0u);
      return true;
    case kFaceNegX:
      if (x > 0) { out = c - 1; return true; }
      ns = neighbour_slot(slot_bits(c), kFaceNegX);
      if (ns < 0) return false;
      out = static_cast<uint32_t>(ns) << 17 | (c & 0x1FFF0u) | 15u;
      return true;
    case kFacePosZ:
      if (z < 15) { out = c + 16; return true; }
      ns = neighbour_slot(slot_bits(c), kFacePosZ);
      if (ns < 0) return false;
      out = static_cast<uint32_t>(ns) << 17 | (c & 0x1FF0Fu);
      return true;
    case kFaceNegZ:
      if (z > 0) { out = c - 16; return true; }
      ns = neighbour_slot(slot_bits(c), kFaceNegZ);
      if (ns < 0) return false;
      out = static_cast<uint32_t>(ns) << 17 | (c & 0x1FF0Fu) | 0xF0u;
      return true;
    case kFacePosY:
      if (y_index(c) >= kColumnHeight - 1) return false;
      out = c + 256;
      return true;
    default:  // kFaceNegY
      if (y_index(c) == 0) return false;
      out = c - 256;
      return true;
  }
}

Light Flood::get(uint32_t c) {
  return m_s.slots[static_cast<size_t>(slot_bits(c))].column->light_section(section_bits(c)).get(index_bits(c));
}

uint16_t Flood::block(uint32_t c) {
  return m_s.slots[static_cast<size_t>(slot_bits(c))].column->section(section_bits(c)).get(index_bits(c)).id;
}

void Flood::set(uint32_t c, Light l) {
  FloodSlot& slot = m_s.slots[static_cast<size_t>(slot_bits(c))];
  const int s = section_bits(c), i = index_bits(c);
  LightSection& ls = slot.column->light_section(s);
  int& mark = slot.mark[static_cast<size_t>(s)];
  if (mark == 0) {
    if (m_s.marks_used == m_s.marks.size()) m_s.marks.emplace_back();
    m_s.marks[m_s.marks_used].fill(0);
    mark = static_cast<int>(++m_s.marks_used);
  }
  uint64_t& word = m_s.marks[static_cast<size_t>(mark - 1)][static_cast<size_t>(i >> 6)];
  const uint64_t bit = uint64_t{1} << (i & 63);
  if (!(word & bit)) {
    word |= bit;
    m_s.log.push_back({c, ls.get(i)});
  }
  ls.set(i, l);
}

void Flood::push_relight(uint32_t c) { m_s.relight.push_back(c); }

void Flood::push_removal(uint32_t c, Light removed) {
  m_s.removal.push_back(static_cast<uint64_t>(c) << 16 | removed);
}

void Flood::remove_into(uint32_t n, Light old, bool down, bool seed_boundary) {
  const Light nl = get(n);
  if (nl == 0) return;
  const uint32_t sn = spread(nl), so = spread(old);
  const uint32_t ge = (((sn | 0x10101010u) - so) >> 4 & kLowBits) * 0x0Fu;  // lanes where n >= old
  uint32_t rm = ~ge & kAllLanes & nonzero_lanes(sn);                       // 0 < n < old: may be derived
  if (down && (so & kSkyLane) == kSkyLane && (sn & kSkyLane) == kSkyLane) rm |= kSkyLane;
  const uint32_t removed = sn & rm;
  if (removed) {
    const uint32_t src = spread(source(n));
    set(n, unspread((sn & ~rm) | (src & rm)));
    push_removal(n, unspread(removed));
    if (src & rm) push_relight(n);
  }
  // Brighter than what is being removed, in a channel being removed: n lights the cleared cells again.
  if (seed_boundary && (sn & ~rm & nonzero_lanes(so))) push_relight(n);
}

void Flood::run_removal() {
  while (m_s.removal_head < m_s.removal.size()) {
    const uint64_t e = m_s.removal[m_s.removal_head++];
    const uint32_t c = static_cast<uint32_t>(e >> 16);
    const Light old = static_cast<Light>(e & 0xFFFF);
    for (int d = 0; d < 6; ++d) {
      const Face dir = static_cast<Face>(d);
      uint32_t n;
      if (neighbour(c, dir, n)) remove_into(n, old, dir == kFaceNegY, true);
    }
  }
}

void Flood::offer(uint32_t n, Light from, bool down) {
  const Light cur = get(n);
  // Even through a clear cell n would gain nothing (the usual case when looking back the way light came): skip
  // reading its block.
  if (!any_greater(propagate(from, 0, down), cur)) return;
  const int o = opacity(n);
  if (o >= kOpaque) return;
  const Light next = light_max(cur, propagate(from, o, down));
  if (next != cur) {
    set(n, next);
    push_relight(n);
  }
}

void Flood::run_relight() {
  while (m_s.relight_head < m_s.relight.size()) {
    const uint32_t c = m_s.relight[m_s.relight_head++];
    const Light l = get(c);
    if ((spread(l) & 0x0E0E0E0Eu) == 0) continue;  // every channel <= 1: gives nothing
    for (int d = 0; d < 6; ++d) {
      const Face dir = static_cast<Face>(d);
      uint32_t n;
      if (neighbour(c, dir, n)) offer(n, l, dir == kFaceNegY);
    }
  }
}

LightChanges Flood::changes() {
  LightChanges out;
  for (const auto& e : m_s.log) {
    if (get(e.cell) == e.before) continue;
    ++out.cells;
    const int slot = slot_bits(e.cell), s = section_bits(e.cell);
    FloodSlot& fs = m_s.slots[static_cast<size_t>(slot)];
    int& box = fs.box[static_cast<size_t>(s)];
    if (box == 0) {
      SectionLightChange ch;
      ch.section = {fs.pos.x, s, fs.pos.z};
      out.sections.push_back(ch);
      box = static_cast<int>(out.sections.size());
    }
    SectionLightChange& b = out.sections[static_cast<size_t>(box - 1)];
    const auto x = static_cast<uint8_t>(e.cell & 15u), z = static_cast<uint8_t>((e.cell >> 4) & 15u),
               y = static_cast<uint8_t>((e.cell >> 8) & 15u);
    b.min_x = std::min(b.min_x, x), b.max_x = std::max(b.max_x, x);
    b.min_y = std::min(b.min_y, y), b.max_y = std::max(b.max_y, y);
    b.min_z = std::min(b.min_z, z), b.max_z = std::max(b.max_z, z);
  }
  std::sort(out.sections.begin(), out.sections.end(),
            [](const SectionLightChange& a, const SectionLightChange& b) { return a.section < b.section; });
  return out;
}

}  // namespace voxen::light::detail
