#include "voxen/render/textures.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "voxen/core/hash.h"

namespace voxen::render {
namespace {

constexpr int N = kTextureSize;

struct Rgb {
  float r = 0, g = 0, b = 0;
};
Rgb operator*(Rgb c, float k) { return {c.r * k, c.g * k, c.b * k}; }
Rgb operator+(Rgb a, Rgb b) { return {a.r + b.r, a.g + b.g, a.b + b.b}; }
Rgb mix(Rgb a, Rgb b, float t) { return a * (1.0f - t) + b * t; }
Rgb from_argb(uint32_t c) {
  return {static_cast<float>((c >> 16) & 255) / 255.0f, static_cast<float>((c >> 8) & 255) / 255.0f,
          static_cast<float>(c & 255) / 255.0f};
}
float alpha_of(uint32_t c) { return static_cast<float>(c >> 24) / 255.0f; }

// A texture being painted: colour and alpha per pixel, level 0.
struct Canvas {
  std::array<Rgb, N * N> rgb{};
  std::array<float, N * N> a{};
  Rgb& at(int x, int y) { return rgb[static_cast<size_t>(((y & (N - 1)) * N) + (x & (N - 1)))]; }
  float& alpha(int x, int y) { return a[static_cast<size_t>(((y & (N - 1)) * N) + (x & (N - 1)))]; }
  void fill(Rgb c, float alpha_value) {
    rgb.fill(c);
    a.fill(alpha_value);
  }
};

uint64_t name_seed(std::string_view name) {
  return mix64(fnv1a(kFnv1aOffset, name));  // FNV-1a over the name, then mixed
}

// Per-pixel white noise in [0, 1).
float white(uint64_t seed, int x, int y, int k = 0) {
  return static_cast<float>(hash_to_unit(hash3(seed, x & (N - 1), y & (N - 1), k)));
}

float smooth(float t) { return t * t * (3.0f - 2.0f * t); }

// Value noise on a lattice of `cell` pixels that wraps every 16 pixels (tileable), in [0, 1).
float lattice(uint64_t seed, int x, int y, int cell, int k = 0) {
  const int n = N / cell;
  const int gx = (x & (N - 1)) / cell, gy = (y & (N - 1)) / cell;
  const float fx = smooth((static_cast<float>((x & (N - 1)) % cell) + 0.5f) / static_cast<float>(cell));
  const float fy = smooth((static_cast<float>((y & (N - 1)) % cell) + 0.5f) / static_cast<float>(cell));
  auto v = [&](int ix, int iy) {
    return static_cast<float>(hash_to_unit(hash3(seed, (ix % n + n) % n, (iy % n + n) % n, 1000 + k)));
  };
  const float top = v(gx, gy) * (1 - fx) + v(gx + 1, gy) * fx;
  const float bottom = v(gx, gy + 1) * (1 - fx) + v(gx + 1, gy + 1) * fx;
  return top * (1 - fy) + bottom * fy;
}

// Tileable Worley (cellular) noise: one feature point per cell of a grid of `cell` pixels. Returns the distances
// to the nearest and second-nearest points (pixels) and the id of the nearest cell.
struct Worley {
  float d1, d2;
  int id;
};
Worley worley(uint64_t seed, int x, int y, int cell) {
  const int n = N / cell;
  const float px = static_cast<float>(x & (N - 1)) + 0.5f, py = static_cast<float>(y & (N - 1)) + 0.5f;
  Worley w{1e9f, 1e9f, 0};
  for (int cy = 0; cy < n; ++cy)
    for (int cx = 0; cx < n; ++cx) {
      const float fx = static_cast<float>(cx * cell) + static_cast<float>(hash_to_unit(hash3(seed, cx, cy, 77))) * static_cast<float>(cell);
      const float fy = static_cast<float>(cy * cell) + static_cast<float>(hash_to_unit(hash3(seed, cx, cy, 78))) * static_cast<float>(cell);
      for (int oy = -1; oy <= 1; ++oy)
        for (int ox = -1; ox <= 1; ++ox) {
          const float dx = fx + static_cast<float>(ox * N) - px, dy = fy + static_cast<float>(oy * N) - py;
          const float d = std::sqrt(dx * dx + dy * dy);
          if (d < w.d1) {
            w.d2 = w.d1;
            w.d1 = d;
            w.id = cy * n + cx;
          } else if (d < w.d2) {
            w.d2 = d;
          }
        }
    }
  return w;
}

bool has(std::string_view name, std::string_view word) { return name.find(word) != std::string_view::npos; }
bool ends_with(std::string_view name, std::string_view suffix) {
  return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
}

// What the texture's owner (the first block using it) says about it.
struct Owner {
  Rgb color{1, 0, 1};
  float alpha = 1.0f;
  Rgb top{1, 0, 1}, side{1, 0, 1}, bottom{1, 0, 1};
  Transparency transparency = Transparency::kOpaque;
  Shape shape = Shape::kCube;
  bool emits = false;
  bool tinted = false;  // BlockDef::tinted: plain white, the colour comes from the layer's tint on the GPU
};

void grainy(Canvas& c, uint64_t seed, Rgb base, float coarse, float fine, float alpha = 1.0f) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const float k = 1.0f + coarse * (lattice(seed, x, y, 4) - 0.5f) * 2.0f + fine * (white(seed, x, y) - 0.5f) * 2.0f;
      c.at(x, y) = base * k;
      c.alpha(x, y) = alpha;
    }
}

void paint_stone(Canvas& c, uint64_t seed, Rgb base) {
  grainy(c, seed, base, 0.10f, 0.07f);
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x)
      if (lattice(seed, x, y, 8, 3) > 0.62f && white(seed, x, y, 5) < 0.6f) c.at(x, y) = c.at(x, y) * 0.82f;
}

void paint_dirt(Canvas& c, uint64_t seed, Rgb base) {
  grainy(c, seed, base, 0.08f, 0.16f);
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const float w = white(seed, x, y, 9);
      if (w < 0.08f) c.at(x, y) = base * 0.68f;
      else if (w > 0.95f) c.at(x, y) = base * 1.25f;
    }
}

void paint_grass_top(Canvas& c, uint64_t seed, Rgb base) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const float blade = white(seed, x, y) > 0.8f ? 1.15f : 1.0f;
      c.at(x, y) = base * ((0.86f + 0.22f * lattice(seed, x, y, 4)) * blade * (0.94f + 0.12f * white(seed, x, y, 2)));
      c.alpha(x, y) = 1.0f;
    }
}

void paint_grass_side(Canvas& c, uint64_t seed, const Owner& o) {
  paint_dirt(c, seed, o.bottom);
  for (int x = 0; x < N; ++x) {
    const int depth = 2 + static_cast<int>(white(seed, x, 0, 11) * 3.0f);  // 2..4 px of turf hanging over dirt
    for (int y = 0; y < depth; ++y) c.at(x, y) = o.top * (0.82f + 0.2f * white(seed, x, y, 12));
  }
}

void paint_log_side(Canvas& c, uint64_t seed, Rgb base, bool birch) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      if (birch) {
        // White bark with short dark dashes.
        const bool dash = lattice(seed, x, y / 2, 4, 21) > 0.7f && white(seed, x / 3, y, 22) > 0.35f;
        c.at(x, y) = dash ? Rgb{0.16f, 0.15f, 0.14f} : base * (0.92f + 0.1f * white(seed, x, y));
      } else {
        // Vertical bark ridges: noise varies fast across x and slowly along y.
        const float ridge = lattice(seed, x * 4, y / 2, 4, 23);
        c.at(x, y) = base * (0.72f + 0.42f * ridge + 0.08f * (white(seed, x, y) - 0.5f));
      }
      c.alpha(x, y) = 1.0f;
    }
}

void paint_log_top(Canvas& c, uint64_t seed, const Owner& o) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const float dx = static_cast<float>(x) - 7.5f, dy = static_cast<float>(y) - 7.5f;
      const float r = std::sqrt(dx * dx + dy * dy);
      Rgb col;
      if (x == 0 || y == 0 || x == N - 1 || y == N - 1) col = o.side * (0.9f + 0.2f * white(seed, x, y));
      else col = o.top * (0.88f + 0.14f * std::cos(r * 2.1f) + 0.05f * (white(seed, x, y) - 0.5f));
      c.at(x, y) = col;
      c.alpha(x, y) = 1.0f;
    }
}

void paint_leaves(Canvas& c, uint64_t seed, Rgb base) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const float cluster = lattice(seed, x, y, 4);
      c.at(x, y) = base * (0.7f + 0.5f * cluster + 0.15f * (white(seed, x, y, 2) - 0.5f));
      // Holes: about a quarter of the pixels, more where the cluster noise is low.
      c.alpha(x, y) = white(seed, x, y, 3) < 0.12f + 0.3f * (1.0f - cluster) * 0.6f ? 0.0f : 1.0f;
    }
}

void paint_ore(Canvas& c, uint64_t seed, Rgb base) {
  const Rgb stone{0.49f, 0.49f, 0.49f};
  paint_stone(c, seed ^ 0x51, stone);
  // The block's colour is the ore's average: push it away from grey to get the speck colour.
  const Rgb speck{std::clamp(stone.r + (base.r - stone.r) * 3.0f, 0.05f, 1.0f),
                  std::clamp(stone.g + (base.g - stone.g) * 3.0f, 0.05f, 1.0f),
                  std::clamp(stone.b + (base.b - stone.b) * 3.0f, 0.05f, 1.0f)};
  const int blobs = 4 + static_cast<int>(hash_to_unit(hash1(seed, 5)) * 3.0);
  for (int i = 0; i < blobs; ++i) {
    HashStream hs(hash2(seed, i, 99));
    const int cx = static_cast<int>(hs.below(N)), cy = static_cast<int>(hs.below(N));
    const int size = 3 + static_cast<int>(hs.below(3));
    int x = cx, y = cy;
    for (int k = 0; k < size; ++k) {
      c.at(x, y) = speck * (0.85f + 0.3f * static_cast<float>(hs.unit()));
      if (hs.below(2)) x += hs.below(2) ? 1 : -1;
      else y += hs.below(2) ? 1 : -1;
    }
  }
}

void paint_planks(Canvas& c, uint64_t seed, Rgb base) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const int board = y / 4;
      const int joint = static_cast<int>(white(seed, board, 0, 31) * N);  // where this board's end is
      const float grain = lattice(seed, x / 2, y * 4, 4, board);
      Rgb col = base * (0.86f + 0.22f * grain + 0.06f * (white(seed, x, y) - 0.5f));
      if (y % 4 == 3 || x == joint) col = base * 0.62f;
      c.at(x, y) = col;
      c.alpha(x, y) = 1.0f;
    }
}

void paint_cobble(Canvas& c, uint64_t seed, Rgb base) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const Worley w = worley(seed, x, y, 4);
      const float shade = 0.85f + 0.3f * static_cast<float>(hash_to_unit(hash1(seed, w.id)));
      const bool mortar = w.d2 - w.d1 < 1.1f;
      c.at(x, y) = mortar ? base * 0.55f : base * (shade + 0.08f * (white(seed, x, y) - 0.5f) - 0.04f * w.d1);
      c.alpha(x, y) = 1.0f;
    }
}

void paint_bricks(Canvas& c, uint64_t seed, Rgb base) {
  const Rgb mortar{0.72f, 0.70f, 0.66f};
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const int row = y / 4;
      const int shifted = x + (row % 2) * 4;
      const bool line = y % 4 == 3 || shifted % 8 == 7;
      const float brick = 0.88f + 0.2f * static_cast<float>(hash_to_unit(hash2(seed, row, shifted / 8)));
      c.at(x, y) = line ? mortar * (0.95f + 0.1f * white(seed, x, y)) : base * (brick + 0.08f * (white(seed, x, y) - 0.5f));
      c.alpha(x, y) = 1.0f;
    }
}

void paint_glass(Canvas& c, uint64_t seed, Rgb base, float alpha) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const bool frame = x == 0 || y == 0 || x == N - 1 || y == N - 1;
      const bool streak = (x + y == 5 || x + y == 6 || x + y == 11) && x > 1 && y > 1 && x < N - 2 && y < N - 2;
      c.at(x, y) = frame ? base * 0.85f : (streak ? Rgb{1, 1, 1} : base);
      c.alpha(x, y) = frame ? 0.85f : (streak ? std::min(1.0f, alpha + 0.25f) : alpha * 0.6f);
      (void)seed;
    }
}

void paint_ice(Canvas& c, uint64_t seed, Rgb base, float alpha) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const Worley w = worley(seed, x, y, 8);
      const bool crack = w.d2 - w.d1 < 0.8f;
      c.at(x, y) = crack ? Rgb{0.95f, 0.97f, 1.0f} : base * (0.92f + 0.12f * lattice(seed, x, y, 8));
      c.alpha(x, y) = crack ? std::min(1.0f, alpha + 0.15f) : alpha;
    }
}

void paint_water(Canvas& c, uint64_t seed, Rgb base, float alpha) {
  // Wavy bands across the texture's rows: when the shader scrolls and turns the texture along the flow
  // direction, the bands visibly move with the current.
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const float band = 0.5f + 0.5f * std::sin((static_cast<float>(y) + 1.5f * std::sin(static_cast<float>(x) * 0.785398f)) * 0.785398f);
      c.at(x, y) = base * (0.86f + 0.22f * band + 0.06f * (lattice(seed, x, y, 4) - 0.5f));
      c.alpha(x, y) = alpha;
    }
}

void paint_lava(Canvas& c, uint64_t seed, Rgb base) {
  const Rgb hot{1.0f, 0.86f, 0.3f}, crust{0.35f, 0.08f, 0.02f};
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const float n = lattice(seed, x, y, 4) * 0.7f + lattice(seed, x, y, 8, 1) * 0.3f;
      Rgb col = base;
      if (n > 0.62f) col = mix(base, hot, std::min(1.0f, (n - 0.62f) * 4.0f));
      else if (n < 0.3f) col = mix(base, crust, (0.3f - n) * 2.5f);
      c.at(x, y) = col;
      c.alpha(x, y) = 1.0f;
    }
}

void paint_cracked_glow(Canvas& c, uint64_t seed, Rgb base, Rgb glow, int cell) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const Worley w = worley(seed, x, y, cell);
      const float edge = std::clamp(1.0f - (w.d2 - w.d1) / 1.6f, 0.0f, 1.0f);
      c.at(x, y) = mix(base * (0.85f + 0.25f * static_cast<float>(hash_to_unit(hash1(seed, w.id)))), glow, edge);
      c.alpha(x, y) = 1.0f;
    }
}

void paint_lamp(Canvas& c, uint64_t seed, Rgb base) {
  const Rgb frame{0.25f, 0.22f, 0.2f};
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const bool edge = x <= 1 || y <= 1 || x >= N - 2 || y >= N - 2;
      const bool bar = x == 7 || x == 8 || y == 7 || y == 8;
      c.at(x, y) = edge ? frame * (0.9f + 0.2f * white(seed, x, y)) : (bar ? base * 0.7f : mix(base, Rgb{1, 1, 1}, 0.25f));
      c.alpha(x, y) = 1.0f;
    }
}

void paint_cactus(Canvas& c, uint64_t seed, Rgb base, bool top) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      Rgb col = base * (0.92f + 0.12f * white(seed, x, y));
      if (top) {
        const float dx = static_cast<float>(x) - 7.5f, dy = static_cast<float>(y) - 7.5f;
        if (std::sqrt(dx * dx + dy * dy) > 6.0f) col = base * 0.75f;
      } else {
        if (x % 4 == 1) col = base * 0.72f;
        if (x % 4 == 3 && (y * 7 + x) % 5 == 0) col = Rgb{0.9f, 0.9f, 0.7f};  // spines
      }
      c.at(x, y) = col;
      c.alpha(x, y) = 1.0f;
    }
}

void paint_checker(Canvas& c, Rgb base) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      c.at(x, y) = ((x / 8 + y / 8) & 1) ? base : Rgb{0.05f, 0.05f, 0.05f};
      c.alpha(x, y) = 1.0f;
    }
}

// Cross-shaped plants: transparent background.
void paint_blades(Canvas& c, uint64_t seed, Rgb base) {
  c.fill(base, 0.0f);
  for (int i = 0; i < 7; ++i) {
    HashStream hs(hash2(seed, i, 7));
    const float x0 = 1.0f + static_cast<float>(hs.unit()) * 13.0f;
    const float lean = (static_cast<float>(hs.unit()) - 0.5f) * 0.6f;
    const int height = 6 + static_cast<int>(hs.below(9));
    for (int k = 0; k < height; ++k) {
      const int y = N - 1 - k;
      const int x = static_cast<int>(x0 + lean * static_cast<float>(k));
      if (x < 0 || x >= N) break;
      c.at(x, y) = base * (0.7f + 0.5f * static_cast<float>(k) / static_cast<float>(height));
      c.alpha(x, y) = 1.0f;
    }
  }
}

void paint_flower(Canvas& c, uint64_t seed, Rgb petals) {
  c.fill(Rgb{0.25f, 0.5f, 0.15f}, 0.0f);
  const Rgb stem{0.25f, 0.52f, 0.16f};
  for (int y = 7; y < N; ++y) {
    c.at(7, y) = stem;
    c.alpha(7, y) = 1.0f;
  }
  for (int k = 0; k < 3; ++k) {  // two leaves
    c.at(6 - k, 12 - k) = stem * 1.1f;
    c.alpha(6 - k, 12 - k) = 1.0f;
    c.at(8 + k, 11 - k) = stem * 1.1f;
    c.alpha(8 + k, 11 - k) = 1.0f;
  }
  for (int y = 3; y <= 7; ++y)
    for (int x = 5; x <= 9; ++x) {
      const int dx = x - 7, dy = y - 5;
      if (dx * dx + dy * dy > 5) continue;
      c.at(x, y) = (dx == 0 && dy == 0) ? Rgb{0.95f, 0.85f, 0.3f} : petals * (0.9f + 0.2f * white(seed, x, y));
      c.alpha(x, y) = 1.0f;
    }
}

void paint_torch(Canvas& c, Rgb flame) {
  c.fill(Rgb{0.4f, 0.3f, 0.15f}, 0.0f);
  for (int y = 6; y < N; ++y)
    for (int x = 7; x <= 8; ++x) {
      c.at(x, y) = Rgb{0.42f, 0.3f, 0.16f} * (x == 7 ? 1.0f : 0.8f);
      c.alpha(x, y) = 1.0f;
    }
  for (int y = 3; y <= 5; ++y)
    for (int x = 7; x <= 8; ++x) {
      c.at(x, y) = y == 3 ? Rgb{1.0f, 0.95f, 0.7f} : flame;
      c.alpha(x, y) = 1.0f;
    }
}

Owner owner_of(const BlockRegistry& reg, uint16_t texture) {
  Owner o;
  for (size_t id = 0; id < reg.size(); ++id) {
    const BlockDef& def = reg[static_cast<uint16_t>(id)];
    if (!def.defined) continue;
    for (int f = 0; f < 6; ++f) {
      if (def.face_texture_index[static_cast<size_t>(f)] != texture) continue;
      o.color = from_argb(def.face_color[static_cast<size_t>(f)]);
      o.alpha = alpha_of(def.face_color[static_cast<size_t>(f)]);
      o.top = from_argb(def.face_color[kFacePosY]);
      o.side = from_argb(def.face_color[kFacePosX]);
      o.bottom = from_argb(def.face_color[kFaceNegY]);
      o.transparency = def.transparency;
      o.shape = def.shape;
      o.emits = def.emits();
      o.tinted = def.tinted;
      return o;
    }
  }
  return o;
}

void paint(Canvas& c, std::string_view name, const Owner& o) {
  const uint64_t seed = name_seed(name);
  const Rgb base = o.color;
  if (o.shape == Shape::kNone) return c.fill(base, 0.0f);  // air: never drawn
  // Tinted (a .vox palette colour): white, so the texel seen is exactly the tint (Renderer::set_layer_tint), the
  // block's colour; the alpha is the colour's (translucent palette colours keep theirs). Every mip is white too.
  if (o.tinted) return c.fill(Rgb{1.0f, 1.0f, 1.0f}, o.alpha);
  if (o.shape == Shape::kCross) {
    if (has(name, "torch")) return paint_torch(c, base);
    if (has(name, "grass") || has(name, "fern") || has(name, "bush")) return paint_blades(c, seed, base);
    return paint_flower(c, seed, base);
  }
  if (has(name, "grass") && has(name, "side")) return paint_grass_side(c, seed, o);
  if (has(name, "grass")) return paint_grass_top(c, seed, base);
  if (has(name, "log_top") || has(name, "wood_top")) return paint_log_top(c, seed, o);
  if (ends_with(name, "_log") || ends_with(name, "_wood")) return paint_log_side(c, seed, base, has(name, "birch"));
  if (has(name, "leaves")) return paint_leaves(c, seed, base);
  if (ends_with(name, "_ore")) return paint_ore(c, seed, base);
  if (has(name, "planks")) return paint_planks(c, seed, base);
  if (has(name, "cobble")) return paint_cobble(c, seed, base);
  if (has(name, "brick")) return paint_bricks(c, seed, base);
  if (has(name, "glass")) return paint_glass(c, seed, base, o.alpha);
  if (has(name, "ice")) return paint_ice(c, seed, base, o.alpha);
  if (has(name, "water")) return paint_water(c, seed, base, o.alpha);
  if (has(name, "lava")) return paint_lava(c, seed, base);
  if (has(name, "magma")) return paint_cracked_glow(c, seed, base * 0.7f, Rgb{1.0f, 0.55f, 0.12f}, 8);
  if (has(name, "glowstone")) return paint_cracked_glow(c, seed, base, Rgb{1.0f, 0.97f, 0.8f}, 4);
  if (ends_with(name, "_lamp")) return paint_lamp(c, seed, base);
  if (has(name, "cactus")) return paint_cactus(c, seed, base, has(name, "top"));
  if (name == "unknown") return paint_checker(c, base);
  if (has(name, "dirt") || has(name, "clay") || has(name, "mud")) return paint_dirt(c, seed, base);
  if (has(name, "gravel")) {
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x) {
        const Worley w = worley(seed, x, y, 4);
        c.at(x, y) = base * (0.75f + 0.45f * static_cast<float>(hash_to_unit(hash1(seed, w.id))) - 0.04f * w.d1);
        c.alpha(x, y) = 1.0f;
      }
    return;
  }
  if (has(name, "sandstone")) {
    grainy(c, seed, base, 0.03f, 0.05f);
    for (int x = 0; x < N; ++x) c.at(x, 4) = c.at(x, 4) * 0.88f, c.at(x, 11) = c.at(x, 11) * 0.9f;
    return;
  }
  if (has(name, "sand") || has(name, "snow")) return grainy(c, seed, base, 0.04f, 0.07f);
  if (has(name, "smooth")) {
    grainy(c, seed, base, 0.03f, 0.03f);
    for (int i = 0; i < N; ++i) c.at(i, 0) = c.at(0, i) = base * 0.8f;
    return;
  }
  if (has(name, "stone") || has(name, "slate") || has(name, "rock")) return paint_stone(c, seed, base);
  if (o.transparency == Transparency::kCutout) return paint_leaves(c, seed, base);
  grainy(c, seed, base, 0.06f, 0.08f, o.transparency == Transparency::kTranslucent ? o.alpha : 1.0f);
}

uint8_t to_byte(float v) { return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); }

// Level 0 bytes: cutout alpha is exactly 0 or 255; transparent texels take the mean visible colour.
std::vector<uint8_t> finish(Canvas& c, const Owner& o) {
  Rgb sum{};
  float weight = 0;
  for (int i = 0; i < N * N; ++i) {
    float& a = c.a[static_cast<size_t>(i)];
    if (o.transparency != Transparency::kTranslucent) a = a >= 0.5f ? 1.0f : 0.0f;
    sum = sum + c.rgb[static_cast<size_t>(i)] * a;
    weight += a;
  }
  const Rgb mean = weight > 0 ? sum * (1.0f / weight) : o.color;
  std::vector<uint8_t> out(static_cast<size_t>(N * N * 4));
  for (int i = 0; i < N * N; ++i) {
    const Rgb col = c.a[static_cast<size_t>(i)] > 0 ? c.rgb[static_cast<size_t>(i)] : mean;
    out[static_cast<size_t>(i) * 4 + 0] = to_byte(col.r);
    out[static_cast<size_t>(i) * 4 + 1] = to_byte(col.g);
    out[static_cast<size_t>(i) * 4 + 2] = to_byte(col.b);
    out[static_cast<size_t>(i) * 4 + 3] = to_byte(c.a[static_cast<size_t>(i)]);
  }
  return out;
}

// One mip level down: each texel is the alpha-weighted mean colour and the mean alpha of its 2x2 parents.
std::vector<uint8_t> downsample(const std::vector<uint8_t>& src, int size) {
  const int half = size / 2;
  std::vector<uint8_t> out(static_cast<size_t>(half * half * 4));
  for (int y = 0; y < half; ++y)
    for (int x = 0; x < half; ++x) {
      int sum[3] = {0, 0, 0}, plain[3] = {0, 0, 0}, alpha = 0;
      for (int k = 0; k < 4; ++k) {
        const size_t i = static_cast<size_t>(((2 * y + k / 2) * size + 2 * x + k % 2) * 4);
        const int a = src[i + 3];
        for (int ch = 0; ch < 3; ++ch) {
          sum[ch] += src[i + static_cast<size_t>(ch)] * a;
          plain[ch] += src[i + static_cast<size_t>(ch)];
        }
        alpha += a;
      }
      const size_t o = static_cast<size_t>((y * half + x) * 4);
      for (int ch = 0; ch < 3; ++ch)
        out[o + static_cast<size_t>(ch)] = static_cast<uint8_t>(alpha > 0 ? (sum[ch] + alpha / 2) / alpha : (plain[ch] + 2) / 4);
      out[o + 3] = static_cast<uint8_t>((alpha + 2) / 4);
    }
  return out;
}

}  // namespace

TextureSet generate_textures(const BlockRegistry& registry) {
  TextureSet set;
  const auto& names = registry.textures();
  set.layers.resize(names.size());
  for (size_t t = 0; t < names.size(); ++t) {
    TextureLayer& layer = set.layers[t];
    layer.name = names[t];
    const Owner owner = owner_of(registry, static_cast<uint16_t>(t));
    Canvas canvas;
    canvas.fill(owner.color, 1.0f);
    paint(canvas, layer.name, owner);
    layer.mips[0] = finish(canvas, owner);
    for (int l = 1; l < kTextureMipLevels; ++l) layer.mips[static_cast<size_t>(l)] = downsample(layer.mips[static_cast<size_t>(l - 1)], N >> (l - 1));
  }
  return set;
}

Image texture_sheet(const TextureSet& set, int scale, int columns) {
  const int count = static_cast<int>(set.layers.size());
  const int rows = std::max(1, (count + columns - 1) / columns);
  const int cell = N * scale + 4;
  Image img(columns * cell, rows * cell, 0xFF202020u);
  for (int t = 0; t < count; ++t) {
    const auto& px = set.layers[static_cast<size_t>(t)].mips[0];
    const int ox = (t % columns) * cell + 2, oy = (t / columns) * cell + 2;
    for (int y = 0; y < N * scale; ++y)
      for (int x = 0; x < N * scale; ++x) {
        const uint8_t* s = &px[static_cast<size_t>(((y / scale) * N + x / scale) * 4)];
        const int check = ((x / 8 + y / 8) & 1) ? 150 : 100;
        uint8_t* d = img.at(ox + x, oy + y);
        for (int ch = 0; ch < 3; ++ch) d[ch] = static_cast<uint8_t>((s[ch] * s[3] + check * (255 - s[3]) + 127) / 255);
        d[3] = 255;
      }
  }
  return img;
}

}  // namespace voxen::render
