// Holes: the share of the view where generated ground should be visible within the render distance but the frame
// shows sky, measured from the depth buffer against the generator's height map (the VoxelBlox seed's "holes pass"
// metric, where a jet outran the streaming).
//
// Method: after the terrain is rendered, the depth buffer is read back (the sky writes no depth, so a pixel whose
// depth is still the cleared 1.0 shows sky). For each such pixel (every `stride`-th in x and y), the view ray
// through the pixel centre is marched across the (x, z) grid of blocks (a 2D DDA) and, where it dips under the
// generated height map of opaque ground (per block column, the top of the highest opaque full cube), down the block
// levels it crosses in that column, until it meets an opaque full cube (leaves, glass, fluids, plants and
// part-cell shapes are looked through, since the frame can show sky through or past them; overhangs and cave
// mouths let it pass): if it meets one at a horizontal distance under the render distance, ground should be drawn
// there, and the pixel is a hole. The cells are the World's for the columns it holds (the generated cells plus the
// player's edits: HolesObserver tells the cache of every edit and unload the frame loop reports) and the
// generator's for the others (generated here on the calling thread and cached), so where the World is loaded
// nothing is generated again.
// Pixels showing terrain are never holes, so trees and buildings cannot create false holes.
// Speed (the answers are those of the plain march; tests/playtest/holes_test.cpp checks them against it): the columns
// the frame's rays can reach (within the radius and, horizontally, within the view) are read once per frame, with
// the highest top per 4 x 4 blocks, per column, per 4 x 4 columns, overall, and per sector of directions from the
// eye by distance (1024 sectors); a ray starts where it first goes under the highest top of its sector, stops once
// it rises above everything its sector holds farther on, and passes over any cell whose highest top stays under
// it without looking at its blocks. Most sky rays thus end at once, and those near the horizon touch few blocks.
// Near holes in drawn columns: a near hole whose ground lies in a column the caller says is drawn (its meshes are
// in the renderer), as do the ground its four neighbouring rays meet (a pixel's margin, as for edges: on the rim of
// drawn ground beside undrawn ground a pixel can round either way), is not streaming lagging behind but ground a
// drawn column left out; the tour fails on one.
// When the eye is below the height map of its own block column (in a shaft or a cave) the frame is not measured
// (HolesResult::measured is false): there, what the view should show is the caves, not the height map.
// Cracks: a sky pixel whose neighbours (the 8 around it, those inside the frame on its border) all show terrain is
// not missing ground but a sub-pixel gap inside drawn geometry (where the edges of merged quads meet, T-junctions);
// such pixels are counted apart as crack_pixels and are not holes. Missing ground is never a single pixel
// surrounded by drawn ground.
// Edges: the march runs in double precision through pixel centres while the GPU rasterises in float with its own
// edge rules, so along a silhouette (a ridge against the sky) a pixel can flip either way. A sky pixel is therefore
// a hole only when the rays one pixel to its left, right, top and bottom meet ground too (ground with a pixel's
// margin all round); otherwise it is counted as an edge_pixel. Missing ground (an undrawn column, a section not yet
// uploaded) is an area, so only its one-pixel rim goes uncounted.
// Far holes (the far view, issue 15): with a far view drawn (FrameParams::far), a sky pixel is also marched beyond
// the render distance, out to the far fog end less 64 blocks, against the generator's height function
// (Generator::surface_y, sampled on a lattice of 8 blocks within 1,024 blocks of the eye, 32 to 4,096 and 128 beyond,
// cached; the ground under a ray point is taken as the lowest of the 4 lattice heights round it, so a thin peak
// between lattice points never counts, and the coarser lattices far out only lower it): a pixel whose ray passes more
// than a margin (2 blocks, or one LOD cell at that distance when larger: cell_pixels / pixels per block) under
// that ground is a far hole (FarHolesMeter), unless it is already under the ground at the render radius (it met the
// ground in the near field: the near measurement's matter). The ray advances by 1/64 of its distance a step (at least 1 block)
// and stops once it is above the world's top and rising.
// The depth values come from render::Renderer::read_depth (the GL lives in render); this file holds the measurement
// and HolesObserver, which attaches it to a play::Game's frame loop (play::FrameObserver): the game itself does not
// know it.
// Threads: any for measure_holes; pure given the generator and the World (which must not change during a
// measurement). HolesObserver: the game's thread.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <unordered_map>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/gen/generator.h"
#include "voxen/play/game.h"
#include "voxen/render/camera.h"
#include "voxen/stream/streamer.h"
#include "voxen/world/column.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::playtest {

/// Columns and their height map of opaque ground, cached. With a `world`, a column it holds is read from it (its
/// cells are the generated ones plus the player's edits; the caller says when they change: forget after an edit,
/// forget_unloaded after the World let columns go); any other column is generated (on the calling thread) the first
/// time one of its blocks is asked for. Bounded: cleared when it holds more than `max_columns`.
class HeightCache {
 public:
  HeightCache(const gen::Generator& generator, const BlockRegistry& registry, size_t max_columns = 1024,
              const World* world = nullptr)
      : m_gen(generator), m_registry(registry), m_max(max_columns), m_world(world) {}
  /// World y of the top face of the highest opaque full cube at block (x, z) (kMinY if none).
  int64_t top(int64_t x, int64_t z);
  /// The highest top() of the column's 256 blocks (kMinY if none).
  int64_t column_top(ColumnPos c);
  /// True if the cell at (x, y, z) is an opaque full cube.
  bool ground(int64_t x, int64_t y, int64_t z);
  /// Forgets what was read of a column from the World (its cells changed: an edit). Cheap.
  void forget(ColumnPos c);
  /// Forgets every column read from the World that it no longer holds. Linear in the columns cached.
  void forget_unloaded();
  /// Brackets a measurement; begin() is called when the World may have changed since the last one (columns
  /// loaded or unloaded). begin() clears the cache when it holds max_columns or more; between the two it is never
  /// cleared (it may outgrow max_columns), so the views it hands out stay valid until end().
  void begin() {
    m_last = nullptr;
    if (m_columns.size() >= m_max) m_columns.clear();
    m_holding = true;
  }
  void end() { m_holding = false; }
  /// A column's height map (256 tops, index z * 16 + x), its highest top and its cells (the World's or generated).
  struct View {
    const int32_t* top = nullptr;
    const int32_t* quad = nullptr;  // the highest top of each 4 x 4 blocks, index (z / 4) * 4 + x / 4
    const Column* cells = nullptr;
    int32_t max_top = kMinY;
  };
  /// The column's view; with `generate` false, an empty view (top null) unless it is loaded or already cached.
  View view(ColumnPos c, bool generate);
  const BlockRegistry& registry() const { return m_registry; }
  size_t columns() const { return m_columns.size(); }
  /// Columns generated since construction (not read from the World).
  uint64_t generated() const { return m_generated; }

 private:
  struct Entry {
    std::unique_ptr<Column> column;  // generated; null when read from the World
    std::array<int32_t, 256> top;
    std::array<int32_t, 16> quad;
    int32_t max_top = kMinY;
  };
  using Map = std::unordered_map<ColumnPos, std::unique_ptr<Entry>, ColumnPosHash>;
  const Entry& entry(ColumnPos c);
  /// `it`: the column's place in the map (or end), `loaded`: the World's column (or null).
  const Entry& entry(ColumnPos c, Map::iterator it, const Column* loaded);
  const Entry& entry(int64_t x, int64_t z) { return entry(ColumnPos{column_of(x), column_of(z)}); }
  void fill_tops(const Column& col, Entry& e) const;
  const gen::Generator& m_gen;
  const BlockRegistry& m_registry;
  size_t m_max;
  const World* m_world;
  uint64_t m_generated = 0;
  bool m_holding = false;  // between begin() and end()
  Map m_columns;
  ColumnPos m_last_pos{INT64_MIN, INT64_MIN};
  const Entry* m_last = nullptr;
};

/// Whether a column is drawn (the streamer's state), for HolesResult::drawn_hole_pixels.
using DrawnFn = std::function<bool(ColumnPos)>;

/// One frame's measurement.
struct HolesResult {
  bool measured = false;       // false when the eye is below the height map (see the file comment)
  uint64_t pixels = 0;         // pixels sampled
  uint64_t sky_pixels = 0;     // of those, showing sky (depth 1.0)
  uint64_t crack_pixels = 0;   // of those, single sky pixels inside drawn terrain (see the file comment)
  uint64_t edge_pixels = 0;    // of the other sky pixels, silhouette pixels whose ray meets ground (file comment)
  uint64_t hole_pixels = 0;    // of the other sky pixels, where ground should be visible within the render distance
  uint64_t near_hole_pixels = 0;  // holes whose ground lies within `near_blocks` (horizontally) of the eye
  uint64_t drawn_hole_pixels = 0; // near holes whose ground, and their 4 neighbouring rays', lies in drawn columns
  uint64_t far_hole_pixels = 0;   // sky pixels whose ray passes under the ground beyond the render distance and
                                  // before the far fog end (FarHolesMeter; 0 without a far view)
  BlockPos first_hole;            // the opaque block the first hole's ray met (for reports)
  BlockPos first_drawn_hole;      // the ground of the first near hole in a drawn column
  std::vector<std::pair<int, int>> hole_at;  // the first 4096 hole pixels (x, y; y = 0 at the bottom row)
  std::vector<std::pair<int, int>> far_hole_at;  // the first 4096 far-hole pixels, as hole_at
  /// hole_pixels / pixels (0 when nothing was sampled).
  double fraction() const { return pixels ? static_cast<double>(hole_pixels) / static_cast<double>(pixels) : 0.0; }
};

/// `depth`: a frame's depth buffer as render::Renderer::read_depth gives it (width x height floats in [0, 1], row 0
/// at the bottom, GL's order).
/// Measures holes (see the file comment). `camera` must be the camera the frame was rendered with (its aspect is
/// set from width / height); `radius_blocks` the render distance in blocks; `near_blocks` the distance under which
/// holes are also counted in near_hole_pixels; `drawn`, when given, says which columns are drawn, for
/// drawn_hole_pixels.
HolesResult measure_holes(const std::vector<float>& depth, int width, int height, const render::Camera& camera,
                          double radius_blocks, HeightCache& heights, int stride = 1, double near_blocks = 64.0,
                          const DrawnFn& drawn = nullptr);

/// The far holes measurement (see the file comment): the generator's surface heights on an 8-block lattice, cached
/// (bounded: cleared past max_points), and the ray march beyond the render distance.
class FarHolesMeter {
 public:
  explicit FarHolesMeter(const gen::Generator& generator, size_t max_points = size_t{1} << 20)
      : m_gen(generator), m_max(max_points) {}
  /// Far-hole pixels of a frame: `depth` as measure_holes takes it; `near_blocks` where the march starts (the
  /// render radius), `fog_end` the far view's fog end, `cell_pixels` the far view's selection threshold; `at`, when
  /// given, gets the first 4096 far-hole pixels (x, y; y = 0 at the bottom row).
  uint64_t measure(const std::vector<float>& depth, int width, int height, const render::Camera& camera,
                   double near_blocks, double fog_end, double cell_pixels, int stride,
                   std::vector<std::pair<int, int>>* at = nullptr);
  /// The ground height at world block (x, z) the measurement uses: the lowest surface_y of the 4 points round it of the
  /// lattice of `level` (spacing 8 << 2 * level blocks: 8, 32, 128).
  int64_t ground(int64_t x, int64_t z, int level = 0);
  /// The lattice level the march uses at horizontal distance `distance` from the eye (blocks): 0 within 1,024, 1
  /// within 4,096, else 2.
  static int lattice_level(double distance);

 private:
  int64_t lattice(int level, int64_t lx, int64_t lz);
  const gen::Generator& m_gen;
  size_t m_max;
  std::unordered_map<ColumnPos, int32_t, ColumnPosHash> m_points;  // lattice point (world x, z) -> surface_y
};

/// What HolesObserver samples and counts apart.
struct HolesOptions {
  int stride = 1;             // pixels sampled: every stride-th in x and y (1..)
  double near_blocks = 64.0;  // holes whose ground lies within this horizontal distance (blocks) are near holes
};

/// The holes measurement attached to a game's frame loop (play::Game::add_observer). It owns the HeightCache over
/// the game's World: after each edit the loop applies it forgets the edited column, after the frame's streaming the
/// columns the World let go; after the world of a drawn frame is rendered (the GPU has finished it, so the depth
/// read-back does not wait for the frame; the game leaves an observer's time out of frame_ms) it reads the depth
/// back and measures the frame, the columns the streamer has drawn counting for drawn_hole_pixels. A frame's result
/// and the observer's own wall time in it are kept until the first callback of a later frame.
/// Threads: the game's (the GL context's) thread.
class HolesObserver final : public play::FrameObserver {
 public:
  /// `world`: the game's World (play::Game::world()); `render_distance`: the game's, in columns (the cache holds
  /// every column within it and its ring, twice over, before it is cleared). The generator, registry and World
  /// must outlive the observer.
  HolesObserver(const gen::Generator& generator, const BlockRegistry& registry, const World& world, int render_distance,
                HolesOptions options = {});
  void edit_applied(uint64_t frame, const Edit& edit) override;
  void streamed(uint64_t frame, const stream::StreamFrameStats& stats, const stream::ColumnStreamer& streamer) override;
  void world_rendered(const play::RenderedFrame& frame) override;
  /// Frame `frame`'s measurement; `measured` is false when that frame was not drawn, its eye was below the height
  /// map, or a later frame has been observed since.
  const HolesResult& result(uint64_t frame) const { return frame == m_frame ? m_result : m_none; }
  /// Wall-clock milliseconds this observer took in frame `frame` (forgetting columns, the depth read-back and the
  /// rays); 0 when a later frame has been observed since.
  double ms(uint64_t frame) const { return frame == m_frame ? m_ms : 0.0; }
  HeightCache& heights() { return m_heights; }

 private:
  /// Starts frame `frame`'s record when it is not the current one.
  void begin(uint64_t frame);
  HeightCache m_heights;
  FarHolesMeter m_far;
  HolesOptions m_options;
  uint64_t m_frame = UINT64_MAX;  // the frame of the last callback
  HolesResult m_result;
  double m_ms = 0;
  HolesResult m_none;
};

}  // namespace voxen::playtest
