// The perf tour: drives the real frame loop (play::Game::frame, the same InputHandler and streaming as play) along
// scripted paths and reports what each cost. Scripts produce input events from the game's state, like a player
// would: keys held and released, clicks, looks, and the scripting events (teleport, fly speed) to reach each place.
//
// Segments, in order (each after `walk` starts with a teleport; each but the first with a warm-up that waits,
// unmeasured, for the first complete view (with a far view, also nothing it selects missing or in flight), at most
// warmup_frames; `walk` starts where `spawn` left the player):
//   spawn      stand at the spawn point from an empty world (the first load is measured here)
//   walk       sprint forward, jumping when blocked
//   fly_low    fly at 40 blocks/s about 14 blocks over the highest ground ahead, over the highest terrain found
//              near the spawn (the VoxelBlox seed's "jet low over mountains")
//   jet        fly a straight line at 112 blocks/s (TourOptions::jet_speed) above the highest ground on the line (the
//              seed's jet)
//   dig        look straight down and remove the block below, one click a frame, until 60 blocks down
//   place      place 100 blocks round the player, cycling the hotbar (torches, glowstone, water, stairs ...), ten at
//              a standing spot, then a teleport to the next spot 7 blocks east (so the player never walls itself in)
//   cave       stand in a cave (an enclosed spot with no sky light, found in the loaded world) and look around
//   storm      an edit storm: hover 12 blocks over the ground and blast a ball of radius 14 centred 10 blocks
//              under the ground 20 blocks east (a kBlast event: about 12,000 blocks removed in one frame, the
//              crater open to the sky),
//              then watch the crater (the "the frame after it is under 250 ms")
//   village    stand in the nearest village (gen/structures.h; open grass when none is within 2,048 blocks) and
//              add 200 creatures round the player (play/creatures.h: about 50 of each kind
//              within 32 blocks, on its grass), then turn slowly for the segment: their ticks (AI and physics at 20 a second, the
//              resting ones skipped), their column bookkeeping and their posing into boxes, per frame
//   flood      hover 10 blocks over the ground and build the dam-break scenario (sim/scenario.h: an 11 x 11 lake
//              on a platform, its east wall open) 24 blocks east with one kScenario event, then watch it flow: the
//              world simulation's ticks (GameConfig::tick_rate) and their edits in the frame time
// Per segment: frame time p50/p95/p99/max (wall clock, whole frame, less the holes measurement, whose own cost
// per frame is reported apart: the tour attaches a HolesObserver, holes.h, to the game for its run, and the game
// leaves an observer's time out of frame_ms), CPU per system per frame (generate, light,
// mesh, upload, cull, draw: workers' thread CPU time plus the main thread's share, defined in docs/ARCHITECTURE.md,
// Play; a recorded run is in docs/PERFORMANCE.md), holes
// (holes.h: mean and worst share of the view, and frames with holes within 4 columns), columns loaded and drawn,
// edits' remesh + upload times, and every frame over 250 ms with the part of the frame that took the most time.
// A near hole whose ground lies in a drawn column (holes.h) is not streaming lagging behind but ground a drawn
// column left out: each segment counts the frames with one and names the first (frame, pixels, column), and
// `voxen tour` fails (exit 1) on any.
// Threads: the GL context's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "voxen/gen/generator.h"
#include "voxen/play/game.h"
#include "voxen/playtest/holes.h"
#include "voxen/world/block_registry.h"

namespace voxen::playtest {

struct TourOptions {
  uint64_t frames = 120;         // measured frames per segment (dig and place run until done, up to 5x this)
  uint64_t warmup_frames = 600;  // at most, per segment, waiting for the first complete view after a teleport
  int holes_stride = 2;          // holes sampled every k-th pixel in x and y (HolesOptions::stride)
  double jet_speed = 112.0;      // the jet segment's speed, blocks/s
  bool paced = false;            // frames paced to the simulation step (real time, as in play: with live streaming
                                 // the workers then get the wall time a real session gives them)
  std::vector<std::string> only; // run only these segments (empty: all)
  std::string hole_shots;        // a directory: each segment's first frame with holes near the player is saved
                                 // there (SEGMENT-holes-FRAME.png, hole pixels marked red) to check the instrument
};

/// A frame that took longer than the spike threshold.
struct Spike {
  uint64_t frame = 0;
  double ms = 0;
  std::string part;     // the part of the frame that took the most time
  double part_ms = 0;
};

/// The frame of a segment with the most edits (a blast's storm; a click's single edit elsewhere) and what it cost.
struct EditBurst {
  uint64_t edits = 0;        // edits applied in that frame
  uint64_t frame = 0;        // its number
  double frame_ms = 0;       // that frame, whole (wall clock)
  double next_frame_ms = 0;  // the frame after it (0 when the segment ended first)
  double light_ms = 0, remesh_ms = 0, upload_ms = 0;  // the edits' light update, remeshing and upload in it
  uint64_t sections_remeshed = 0;
};

/// Summary statistics of one value over a segment's frames.
struct Stat {
  double p50 = 0, p95 = 0, p99 = 0, max = 0, mean = 0, total = 0;
};

struct SegmentReport {
  std::string name;
  uint64_t warmup_frames = 0;        // frames spent reaching the first complete view (not measured)
  double warmup_ms = 0;              // their wall time
  bool warmup_complete = true;       // the view was complete when measuring began
  uint64_t frames = 0;               // measured frames
  uint64_t first_complete_frame = 0; // spawn: the frame (from 0) at which the view was first complete
  Stat frame_ms;
  // CPU milliseconds per frame by system (docs/ARCHITECTURE.md, Play): mean and total in the Stat.
  Stat generate, light, mesh, upload, cull, draw, wait;
  // Holes over frames the measurement applies to (eye above the height map).
  uint64_t holes_frames = 0;
  double holes_mean = 0, holes_max = 0;
  Stat holes_ms;                     // the measurement's own cost per drawn frame (depth read-back + rays; not in frame_ms)
  uint64_t near_hole_frames = 0;     // frames with a hole whose ground is within 4 columns
  std::string first_near_hole;       // the first such frame: where the ground was and what the column's state was
  uint64_t drawn_hole_frames = 0;    // frames with a near hole whose ground lies in a drawn column (a failure)
  std::string first_drawn_hole;      // the first such frame: its number, the pixels, the column, the ground
  size_t columns_loaded = 0, columns_drawn = 0;
  uint64_t edits = 0, edits_refused = 0;
  Stat edit_ms;                      // per edit: remesh + upload (main thread)
  EditBurst edit_burst;              // the frame with the most edits
  // The far view (zero when it is off): main-thread ms per frame (FarView::update), its request queue after each
  // frame, new requests and worker CPU of the nodes integrated per frame, LOD sections and quads drawn, those of
  // the quads that faced away from the eye (not submitted: render::FrameStats::lod_quads_facing_away), the most
  // LOD bytes (GPU arena + CPU), and frames whose far holes measurement found sky where the terrain has ground.
  Stat far_ms, far_queue, far_requests, far_build, lod_sections, lod_quads, lod_quads_facing_away;
  // Culling per drawn frame (render::FrameStats; docs/ARCHITECTURE.md, Visibility): sections in the frustum and the
  // fog, of those hidden by cave culling, then by occlusion, the sections drawn, each stage's milliseconds and both
  // together (wall clock, on the pool), and the LOD sections occlusion hid.
  struct Culling {
    Stat in_frustum, hidden_by_caves, hidden_by_occlusion, drawn, caves_ms, occlusion_ms, culling_ms, lod_hidden_by_occlusion;
  } culling;
  uint64_t lod_bytes_max = 0;
  uint64_t far_hole_frames = 0;
  uint64_t far_holes_max = 0;        // most far-hole pixels in one frame
  uint64_t far_real_columns_max = 0; // most real columns the far view held (FarFrameStats::real_columns)
  uint64_t far_rebuilds = 0;         // built nodes requested again because real columns changed under them
  double distance = 0;               // blocks the player moved (horizontal + vertical)
  // The world simulation (zero when it is off): ticks run, the cells they changed, and per tick its step time
  // (sim::Simulator::step, main thread and pool) and active sections.
  uint64_t sim_ticks = 0, sim_changes = 0;
  Stat sim_tick_ms, sim_sections;
  // Creatures (zero when they are off): per frame, their ticks' ms (FrameReport::creatures.ms), the column
  // bookkeeping and posing ms, all three together, the live creatures, and per tick the share resting.
  Stat creature_tick_ms, creature_sync_ms, creature_pose_ms, creature_ms, creatures_live;
  double creature_resting_share = 0;
  std::vector<Spike> spikes;         // frames over the threshold
  std::string note;                  // where it ran, what it did
};

struct TourReport {
  std::vector<SegmentReport> segments;
  double spike_threshold_ms = 250.0;
};

/// Runs the tour on `game` (freshly created, player at the spawn; `generator` the one its columns come from), with a
/// HolesObserver attached for the run. `progress` is called with each segment's name before it starts.
/// Errors: an unknown segment in `only`, a segment's place could not be found (no mountain, no cave), named.
Result<TourReport> run_tour(play::Game& game, const gen::Generator& generator, const TourOptions& options,
                            const std::function<void(const std::string&)>& progress = nullptr);

/// The segment names in order.
const std::vector<std::string>& tour_segment_names();

}  // namespace voxen::playtest
