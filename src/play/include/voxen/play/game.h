// The frame loop shared by `voxen play` (a window), `voxen replay`, `voxen fuzz-play` and `voxen tour` (headless or
// windowed): one Game::frame() per frame, fed the frame's input events.
//
// A frame, in order:
//   1. input: InputHandler::handle for each event of the frame (the only way input reaches the game), then the
//      one-shot requests (teleport, fly toggles) and the player's look;
//   2. clicks, at the frame's start: the voxel DDA from the eye (pick.h), then remove the targeted block, or place
//      the selected block against the targeted face (refused inside the player's box, outside the world, into a
//      solid cell, or on bedrock's removal), each through stream::ColumnStreamer::apply_edits (light, remesh and upload
//      of what the edit dirtied, this frame, then the column source records it: a saved world's journal); then the
//      blasts (the B key at the targeted block, or a script's kBlast at a given centre): every cell within the
//      radius (dx^2 + dy^2 + dz^2 <= r^2 + r) holding a block other than bedrock or a fluid becomes air, all in one
//      batch with one light update (an edit storm: radius 13 underground is about 10,000 edits);
//   3. simulation: Controls::frame_seconds (the recording's step unless kFrameTime events say otherwise; the
//      simulation never reads the wall clock) goes into a StepClock, and the player takes every fixed step of
//      kPhysicsStep (1/240 s) now due (player.h), with the frame's controls; a step holds the player still while
//      its own column or one of the 8 around it is not loaded; then the target is picked again for the HUD;
//   4. streaming: stream::ColumnStreamer::update around the simulated eye (integrate, unload, schedule); then, with a
//      sound sink (set_sound_sink), the frame's sounds: the listener, ambience and wind (play/sound.h; footsteps are
//      told after each physics step of 3, digs and places after each click of 2 that applied);
//   5. drawing (not while the platform's window is minimised): Renderer::render from the eye interpolated
//      between the last two steps by the clock's remainder, the observers (FrameObserver), the HUD, present.
// Observers: tools that watch the loop without the game knowing them (the holes measurement, src/playtest) attach a
// FrameObserver, called at fixed points: after each applied edit, after the frame's streaming, and after the world
// is rendered (the GPU having finished it) and before the HUD. Their time is FrameReport::observer_ms, left out of
// frame_ms.
// Frame pacing: the player's path is a function of the events and their simulation times, not of how the time
// is cut into frames: events at times that are whole numbers of steps meet the same state at any frame pacing,
// so a recording's positions and edits are the same whether it was played at 30 or 144 frames a second.
// Determinism: with deterministic streaming (stream::StreamConfig::deterministic), or with live streaming replayed
// from each frame's recorded schedule (frame()'s `schedule`), everything a frame does is a function of the events
// (and schedules) up to it and the start state, so a recording replays to the same world and the same pixels. The
// F3 overlay shows wall-clock frame times only when `overlay_wall_times` is set (live play); otherwise it shows
// figures that are themselves deterministic.
// Threads: the GL context's thread; the JobPool runs the streamer's jobs.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/play/creatures.h"
#include "voxen/play/hud.h"
#include "voxen/play/input.h"
#include "voxen/play/pick.h"
#include "voxen/play/player.h"
#include "voxen/play/sound.h"
#include "voxen/sim/scenario.h"
#include "voxen/sim/simulator.h"
#include "voxen/stream/far_view.h"
#include "voxen/stream/streamer.h"
#include "voxen/render/image.h"
#include "voxen/render/overlay.h"
#include "voxen/render/platform.h"
#include "voxen/render/renderer.h"
#include "voxen/world/edit.h"
#include "voxen/world/world.h"

namespace voxen::play {

struct GameConfig {
  int render_distance = 6;        // columns
  double fov = 70.0;              // vertical, degrees
  double step = 1.0 / 60.0;       // default simulation seconds per frame
  double reach = 8.0;             // picking reach, blocks
  double time_of_day = 10.0;      // hours 0..24 at the start (simulation time 0)
  double day_minutes = 0.0;       // a whole day-night cycle takes this many minutes of simulation time (0: the
                                  // time of day stays put): the sun, moon, stars and sky light follow it
  bool clouds = true;             // the drifting cloud layer (render::FrameParams::clouds)
  bool creatures = true;          // animals spawn in drawn columns, live and are drawn (creatures.h)
  stream::StreamConfig stream;            // render_distance is copied from above
  int far_viewport_width = 0, far_viewport_height = 0;  // the far view selects for this viewport (the recording's
                                                       // size, so a resized window replays the same); 0: the window's
  stream::FarConfig far;                  // the far view (LOD) beyond the render distance: on when far.far_distance
                                          // exceeds the render distance in blocks; deterministic when stream is
  PlayerConfig player;
  HandlerConfig handler;
  std::string status;             // the HUD's status line (e.g. whether edits are saved)
  std::function<std::string()> status_source;  // when set, asked for the status line each time the HUD is drawn
                                               // (after the frame's edits): a live save indicator
  render::CullMode culling = render::CullMode::kAll;  // the culling stages (`--culling`; the picture is the same)
  render::RenderPath render_path = render::RenderPath::kMultiDrawIndirect;  // `--render-path`
  render::Shadows shadows = render::Shadows::kNone;                         // `--shadows`
  bool beam = true;  // the ray march starts rays at the beam pre-pass's distance (`--no-beam`: at the eye)
  bool hud = true;                // draw the HUD
  bool overlay_wall_times = false;  // F3 shows wall-clock frame times (live play only; see the file comment)
  double tick_rate = sim::kDefaultTickRate;  // world simulation ticks a second (fluids, falling blocks, smoke;
                                             // sim/simulator.h); 0: the world never moves by itself
  bool bulk_edits = true;         // the B (blast) and G (scenario) keys and events; off for a server's client (one
                                  // blast is thousands of edits, past a server's edit rate: play/remote.h)
};

/// Something drawn in the world that is not a block: another player (play/remote.h), as the 12 edges of its box
/// (depth-tested against the terrain) with a name tag above it (not depth-tested).
struct Figure {
  BlockPos block;             // world block holding the feet, the centre of the box's bottom face
  glm::dvec3 frac{0.0};       // the feet within that block, blocks in [0, 1)
  glm::dvec3 size{0.6, 1.8, 0.6};  // the box, blocks (x, y up, z)
  uint32_t color = 0xFFFFFFFF;     // 0xAARRGGBB
  std::string label;               // the name tag (empty: none)
};

/// What one frame did and cost (wall-clock milliseconds on the main thread unless named otherwise).
struct FrameReport {
  uint64_t frame = 0;
  bool rendered = false;   // drawn and presented
  bool minimised = false;  // the platform's window showed nothing (Platform::minimised), so nothing was drawn
  int steps = 0;           // fixed physics steps taken (kPhysicsStep each)
  double frame_ms = 0;      // the whole frame
  double input_ms = 0;      // handler and requests
  double physics_ms = 0;    // player steps
  double pick_ms = 0;       // target DDA (every pick of the frame)
  double edit_light_ms = 0, edit_remesh_ms = 0, edit_upload_ms = 0;  // the frame's edits
  double stream_ms = 0;     // stream::ColumnStreamer::update (its parts in `stream`)
  double render_ms = 0;     // Renderer::render (its parts in `render`)
  CreatureTickStats creatures;  // the frame's creature ticks (creatures.h; ms: AI and physics)
  double creature_sync_ms = 0;  // creatures spawned, stashed and restored for the frame's drawn columns
  double creature_pose_ms = 0;  // posing every creature into boxes (one batched pass)
  size_t creatures_live = 0;    // creatures in drawn columns after the frame
  double hud_ms = 0;
  double present_ms = 0;    // Platform::present (glFinish headless: waits for the GPU); with observers attached
                            // also the GPU's finishing the world before they run (Renderer::finish)
  double observer_ms = 0;   // the FrameObservers' callbacks (not part of frame_ms)
  double sound_ms = 0;      // the sound sink's frame update (SoundDirector::frame: listener, ambience scan, wind;
                            // 0 without a sink)
  stream::StreamFrameStats stream;
  double far_ms = 0;        // stream::FarView::update (its parts in `far`)
  stream::FarFrameStats far;
  render::FrameStats render;
  int edits_applied = 0;
  int edits_refused = 0;
  int blasts = 0;           // blasts done (each a batch of edits, counted in edits_applied)
  int scenarios = 0;        // scenarios built (the G key, kScenario events; counted in edits_applied)
  int source_edits = 0;     // edits from the column source applied this frame (queue_source_edits; counted in
                            // edits_applied when they changed a cell)
  int sim_ticks = 0;        // world simulation ticks run this frame (GameConfig::tick_rate of simulated time)
  double sim_ms = 0;        // their sim::Simulator::step time (the changes' light, remesh and upload are in edit_*)
  size_t sim_sections = 0;  // active sections they stepped
  uint64_t sim_cells = 0;   // active cells they evaluated (4096 a section)
  int sim_changes = 0;      // cells they changed (edits, counted in edits_applied)
  int sections_remeshed = 0;
  bool frozen = false;      // the player was held still (its columns not loaded yet)
  uint32_t gl_error = 0;    // the first GL error code the frame raised (render::take_gl_error; 0: none)
  std::string stream_error; // a column backend's load/save error (the saved world cannot be read or written)
  bool screenshot = false;  // F2 asked for a screenshot of this frame
};

/// A drawn frame as FrameObserver::world_rendered sees it: the world is rendered and the GPU has finished it
/// (Renderer::finish, counted in FrameReport::present_ms), so a read-back does not wait for the frame; the HUD is
/// not drawn yet.
struct RenderedFrame {
  uint64_t frame;                         // Game::frame_number() of the frame
  const render::FrameParams& params;      // what the world was rendered with: params.camera is the drawn eye's,
                                          // params.fog_end the render radius (blocks)
  int width, height;                      // the framebuffer, pixels
  const render::Renderer& renderer;       // read_depth / read_pixels give this frame's world
  const stream::ColumnStreamer& streamer; // which columns are loaded and drawn now
  double far_cell_pixels = 0;             // the far view's selection threshold (FarConfig::cell_pixels; 0: off)
};

/// Watches the frame loop at fixed points (Game::add_observer), without the game knowing what it does: the
/// measuring tools (src/playtest) are observers. Callbacks run on the game's thread, inside Game::frame, in the
/// order observers were added; their wall time is FrameReport::observer_ms. They must not edit the World or drive
/// the game. Each default does nothing.
class FrameObserver {
 public:
  virtual ~FrameObserver() = default;
  /// After an edit of frame `frame` was applied (lit, remeshed, uploaded and recorded; refused edits are not told):
  /// the cell that changed, before and after.
  virtual void edit_applied(uint64_t /*frame*/, const Edit& /*edit*/) {}
  /// After frame `frame`'s streaming update (every frame, drawn or not): what it did (columns integrated,
  /// unloaded, ...) and the streamer in its new state.
  virtual void streamed(uint64_t /*frame*/, const stream::StreamFrameStats& /*stats*/,
                        const stream::ColumnStreamer& /*streamer*/) {}
  /// After the world of a drawn frame is rendered, before the HUD (not on frames that are not drawn).
  virtual void world_rendered(const RenderedFrame& /*frame*/) {}
};

class Game {
 public:
  /// Builds the renderer, HUD and streamer on the platform's current context. `world` is where the columns live
  /// (empty at start); they come from `source` (a saved world, stream/saved_world.h), or, when null, from
  /// `generator` (stream::GeneratedSource). `source` must outlive the game.
  /// Errors: renderer or HUD creation, a registry without the hotbar's blocks.
  static Result<std::unique_ptr<Game>> create(const GameConfig& config, render::Platform& platform,
                                              const BlockRegistry& registry, const gen::Generator& generator,
                                              JobPool& pool, World& world, stream::ColumnSource* source = nullptr);
  ~Game();
  Game(const Game&) = delete;
  Game& operator=(const Game&) = delete;

  /// Places the player (feet at block + frac) with a look and fly state; call before the first frame.
  void start(const BlockPos& block, const glm::dvec3& frac, double yaw, double pitch, bool flying);

  /// Runs one frame with the events of this frame (their `frame` fields should equal frame_number()). With
  /// render = false, or while the platform is minimised, the frame is simulated and streamed but not drawn (the
  /// fuzzer's every-k-th frame).
  /// With `schedule`, the frame's streaming integrates and submits exactly what it says (replaying a recording of
  /// live play, stream/schedule.h); the report's stream.schedule is what the frame did either way.
  FrameReport frame(std::span<const InputEvent> events, bool render = true,
                    const stream::FrameSchedule* schedule = nullptr);

  /// Cells the column source changed on its own (a server's edits and simulation, play/remote.h), applied at the
  /// start of the next frame, before its clicks, in the order queued, like the player's edits (light, remesh,
  /// upload, the far view, the observers) but not recorded back to the source. A cell whose column is not loaded,
  /// or that already holds the cell, is skipped.
  void queue_source_edits(std::vector<stream::CellEdit> edits);
  /// What the world shows besides blocks from now on (replaces the last list): other players.
  void set_figures(std::vector<Figure> figures) { m_figures = std::move(figures); }
  /// A line for the HUD's message area (chat, players joining and leaving): shown for kMessageSeconds of
  /// simulated time, the newest kMaxMessages at most, newest at the bottom.
  void show_message(std::string line);
  static constexpr double kMessageSeconds = 10.0;
  static constexpr size_t kMaxMessages = 6;

  uint64_t frame_number() const { return m_frame; }
  double sim_time() const { return m_sim_time; }
  /// The creatures (null with GameConfig::creatures off).
  Creatures* creatures() { return m_creatures.get(); }
  const Creatures* creatures() const { return m_creatures.get(); }
  /// The time of day now, hours in [0, 24): GameConfig::time_of_day advanced by the simulation time over the day's
  /// length (GameConfig::day_minutes; 0: the start's time). What the frame draws (sun, moon, stars, sky light).
  double time_of_day() const;
  /// The simulated player: its state after the last physics step.
  const PlayerState& player() const { return m_player; }
  /// The player as drawn: between the states before and after the last step, by the step clock's remainder.
  PlayerState drawn_player() const;
  /// Physics steps taken since the start.
  uint64_t steps() const { return m_steps; }
  /// Called after every physics step with the step's number (from 1) and the player's state (tests, tools).
  using StepObserver = std::function<void(uint64_t step, const PlayerState& player)>;
  void set_step_observer(StepObserver observer) { m_step_observer = std::move(observer); }
  /// Attaches a frame observer, called after those attached before it. The game does not own it: it must stay
  /// alive while frames run until it is removed. Attaching one twice calls it twice.
  void add_observer(FrameObserver& observer) { m_observers.push_back(&observer); }
  /// Sends the game's sounds to `sink` from now on (play/sound.h: footsteps, digging and placing, ambience,
  /// wind, the listener), or to nothing when null (the default: replays, tours and the fuzzer are silent). The
  /// game does not own the sink: it must stay alive while frames run until it is replaced.
  void set_sound_sink(SoundSink* sink, SoundConfig config = {});
  /// The sound director, or null without a sink.
  const SoundDirector* sound() const { return m_sound.get(); }
  /// Detaches an observer (every attachment of it; nothing when it is not attached).
  void remove_observer(const FrameObserver& observer) { std::erase(m_observers, &observer); }
  const Controls& controls() const { return m_handler.controls(); }
  InputHandler& handler() { return m_handler; }
  const std::optional<PickHit>& target() const { return m_target; }
  World& world() { return m_world; }
  stream::ColumnStreamer& streamer() { return *m_streamer; }
  /// The world simulation, or null when GameConfig::tick_rate is 0.
  const sim::Simulator* simulator() const { return m_sim.get(); }
  /// The far view, or null when it is off.
  const stream::FarView* far_view() const { return m_far.get(); }
  const stream::ColumnStreamer& streamer() const { return *m_streamer; }
  render::Renderer& renderer() { return *m_renderer; }
  const render::Renderer& renderer() const { return *m_renderer; }
  const BlockRegistry& registry() const { return m_registry; }
  const GameConfig& config() const { return m_config; }
  /// The camera of the drawn player's eye (drawn_player(); aspect from the platform's framebuffer).
  render::Camera camera() const;
  /// The frame's pixels (after the HUD), top row first.
  render::Image read_pixels() const { return m_renderer->read_pixels(); }
  /// Invariant failures now: the player's box inside a loaded solid cell, a non-finite position or velocity, the
  /// player below the world. Empty when all hold.
  std::vector<std::string> check_invariants() const;
  /// The hotbar's cell for a slot (stairs face `yaw`; upside-down when `top`).
  Cell hotbar_cell(int slot, double yaw, bool top) const;

 private:
  Game(const GameConfig& config, render::Platform& platform, const BlockRegistry& registry,
       const gen::Generator& generator, JobPool& pool, World& world);
  void apply_requests(const Requests& req);
  render::Camera camera_of(const PlayerState& p) const;
  bool player_columns_loaded() const;
  void do_break(FrameReport& rep);
  void do_place(FrameReport& rep);
  /// True when the cell's block box (world block `cell`) overlaps the player's box: nothing solid goes there.
  bool overlaps_player(const BlockPos& cell) const;
  /// Applies a batch of edits (one click's, or a blast's) through ColumnStreamer::apply_edits and tells the
  /// observers and the far view; returns how many applied (the rest count as refused).
  /// `record` false: not told to the source (its own edits, queue_source_edits).
  int run_edits(std::span<const Edit> edits, FrameReport& rep, bool wake_sim = true, bool record = true);
  /// Builds a scenario (sim/scenario.h) at its site, or at the targeted block for the G key, as one batch of edits.
  void do_scenario(const Requests::Scenario& scenario, FrameReport& rep);
  /// Runs the world simulation's ticks the frame's time makes due; their changes go through run_edits.
  void run_world_ticks(double dt, FrameReport& rep);
  /// Clears the ball of a blast request (centre given, or the targeted block): see the file comment.
  void do_blast(const Requests::Blast& blast, FrameReport& rep);
  void update_target();
  /// Hands the far view the columns loaded, first drawn or edited since the last call (FarView::add_real_column).
  void hand_over_real_columns();
  void draw_hud(FrameReport& rep);
  std::vector<std::string> overlay_lines(const FrameReport& rep) const;

  GameConfig m_config;
  render::Platform& m_platform;
  const BlockRegistry& m_registry;
  const gen::Generator& m_generator;
  JobPool& m_pool;
  World& m_world;
  light::LightTable m_light;
  std::unique_ptr<mesh::BakedBlocks> m_baked;
  std::unique_ptr<render::Renderer> m_renderer;
  std::unique_ptr<render::Overlay> m_hud;  // draws the HUD's layout (hud.h); null when GameConfig::hud is off
  std::unique_ptr<stream::GeneratedSource> m_own_source;  // when create() was given no source
  std::unique_ptr<stream::ColumnStreamer> m_streamer;
  std::unique_ptr<stream::FarView> m_far;  // null: the far view is off
  std::unique_ptr<sim::Simulator> m_sim;   // null: tick_rate 0
  StepClock m_tick_clock{1.0 / sim::kDefaultTickRate};
  bool m_sim_saved_quiet = true;           // the last state handed to m_source was quiet
  std::vector<ColumnPos> m_near;           // the streamer's drawn columns this frame (the far view's near field)
  std::map<ColumnPos, bool> m_far_edited;  // columns edits changed this frame -> kept (the edited one) or not
  std::vector<ColumnPos> m_far_loaded;     // the streamer's loaded columns at the last hand-over (sorted)
  std::vector<ColumnPos> m_far_drawn;      // and its drawn columns
  stream::ColumnSource* m_source = nullptr;  // where columns come from (saved edits: ColumnSource::edited; the
                                             // simulation's pending updates: ColumnSource::set_sim_state)
  InputHandler m_handler;
  PlayerState m_player;
  PlayerState m_drawn_from;          // the player before the last physics step (drawing interpolates from it)
  StepClock m_clock;
  uint64_t m_steps = 0;
  StepObserver m_step_observer;
  std::vector<FrameObserver*> m_observers;  // in the order added
  std::unique_ptr<SoundDirector> m_sound;   // null: no sound sink
  std::optional<PickHit> m_target;
  std::vector<stream::CellEdit> m_source_edits;  // queue_source_edits, applied next frame
  std::vector<Figure> m_figures;
  std::deque<std::pair<double, std::string>> m_messages;  // (sim time shown from, line), oldest first
  std::array<uint16_t, kHotbarSlots> m_hotbar{};
  uint16_t m_bedrock = 0;
  uint64_t m_frame = 0;
  double m_sim_time = 0.0;
  std::unique_ptr<Creatures> m_creatures;         // GameConfig::creatures
  std::vector<render::BoxInstance> m_boxes;        // this frame's posed creatures
  int m_creature_ticks_unsaved = 0;                // creature ticks since their state went to the source
  std::deque<double> m_frame_times;  // last frames' wall ms (overlay)
  FrameReport m_last;                // the previous frame's report (overlay)
};

}  // namespace voxen::play
