// One 64 x 64 tile of the flat world, in tile coordinates u = x mod 64, v = z mod 64 (floor modulo, so the
// pattern continues unbroken across negative coordinates):
//   y = -128            bedrock
//   y = -127 .. -4      stone
//   y = -3 .. -1        dirt
//   y = 0               grass_block, except:
//     u, v in [0, 16)   a checkerboard of planks and cobblestone (alternating per block)
//     u, v in [40, 48)  a pond: water at y 0 and -1 over a sand floor at y -2
//   y >= 1              air, except:
//     pillars at v = 6: u = 20 stone x1, u = 24 bricks x3, u = 28 oak_log x5, u = 32 glowstone x2,
//                       u = 36 cobblestone x8
//     a torch on the ground at (50, 1, 20)
//     a bottom stone_slab at (54, 1, 20), a top stone_slab at (56, 1, 20)
//     stone_stairs facing east at (58, 1, 20) and facing north, upside-down, at (60, 1, 20)
#include "flat_generator.h"

#include "voxen/core/coords.h"

namespace voxen::gen {
namespace {

class FlatGenerator final : public Generator {
 public:
  FlatGenerator(uint64_t seed, const BlockRegistry& r) : m_seed(seed) {
    m_bedrock = r.id("bedrock");
    m_stone = r.id("stone");
    m_dirt = r.id("dirt");
    m_grass = r.id("grass_block");
    m_planks = r.id("planks");
    m_cobble = r.id("cobblestone");
    m_water = r.id("water");
    m_sand = r.id("sand");
    m_bricks = r.id("bricks");
    m_log = r.id("oak_log");
    m_glowstone = r.id("glowstone");
    m_torch = r.id("torch");
    m_slab = r.id("stone_slab");
    m_stairs = r.id("stone_stairs");
  }

  std::string_view name() const override { return "flat"; }
  uint64_t seed() const override { return m_seed; }

  int64_t surface_y(int64_t x, int64_t z) const override {
    const int u = static_cast<int>(floor_mod(x, 64)), v = static_cast<int>(floor_mod(z, 64));
    int64_t top = 0;
    for (int64_t y = 1; y <= 8; ++y) {
      const Cell c = cell_at(u, y, v);
      if (c.id != kAirId && c.id != m_torch) top = y;
    }
    if (in_pond(u, v)) top = -2;
    return top;
  }

  void generate(Column& out) const override {
    uint32_t buf[kSectionVolume];
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const int base = section_base_y(s);
      if (base > 15) {  // above every feature of the tile: air
        out.section(s).fill(kAir);
        continue;
      }
      if (base + 15 < -3 && base > kMinY) {  // deep stone
        out.section(s).fill(Cell{m_stone, 0});
        continue;
      }
      for (int y = 0; y < 16; ++y)
        for (int z = 0; z < 16; ++z)
          for (int x = 0; x < 16; ++x) {
            const int u = static_cast<int>(floor_mod(out.pos().min_x() + x, 64));
            const int v = static_cast<int>(floor_mod(out.pos().min_z() + z, 64));
            buf[section_index(x, y, z)] = cell_at(u, base + y, v).packed();
          }
      out.section(s).pack(buf);
    }
  }

 private:
  static bool in_pond(int u, int v) { return u >= 40 && u < 48 && v >= 40 && v < 48; }

  Cell cell_at(int u, int64_t y, int v) const {
    if (y == kMinY) return {m_bedrock, 0};
    if (y <= -4) return {m_stone, 0};
    if (in_pond(u, v)) {
      if (y == -2) return {m_sand, 0};
      if (y == -1 || y == 0) return {m_water, 0};
      if (y < -2) return {m_dirt, 0};
      return kAir;
    }
    if (y <= -1) return {m_dirt, 0};
    if (y == 0) {
      if (u < 16 && v < 16) return {((u + v) & 1) ? m_cobble : m_planks, 0};
      return {m_grass, 0};
    }
    // y >= 1
    if (v == 6) {
      struct Pillar { int u; uint16_t id; int height; };
      const Pillar pillars[] = {{20, m_stone, 1}, {24, m_bricks, 3}, {28, m_log, 5}, {32, m_glowstone, 2}, {36, m_cobble, 8}};
      for (const auto& p : pillars)
        if (u == p.u && y <= p.height) return {p.id, 0};
    }
    if (v == 20 && y == 1) {
      if (u == 50) return {m_torch, 0};
      if (u == 54) return {m_slab, 0};
      if (u == 56) return {m_slab, state::kHalfBit};
      if (u == 58) return {m_stairs, state::make_facing(state::kEast, false)};
      if (u == 60) return {m_stairs, state::make_facing(state::kNorth, true)};
    }
    return kAir;
  }

  uint64_t m_seed;
  uint16_t m_bedrock, m_stone, m_dirt, m_grass, m_planks, m_cobble, m_water, m_sand, m_bricks, m_log, m_glowstone,
      m_torch, m_slab, m_stairs;
};

}  // namespace

std::unique_ptr<Generator> make_flat_generator(uint64_t seed, const BlockRegistry& registry) {
  return std::make_unique<FlatGenerator>(seed, registry);
}

}  // namespace voxen::gen
