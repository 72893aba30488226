#include "voxen/play/game.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "voxen/core/clock.h"
#include "voxen/mesh/shapes.h"

namespace voxen::play {
namespace {


std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The eye (feet + eye height) as block + fraction in [0, 1).
void eye_of(const PlayerState& p, double eye_height, BlockPos& block, glm::dvec3& frac) {
  PlayerState e = p;
  e.frac.y += eye_height;
  e.normalise();
  block = e.block;
  frac = e.frac;
}

const char* compass(double yaw) {
  const double y = std::fmod(std::fmod(yaw, 360.0) + 360.0, 360.0);
  static const char* kNames[4] = {"NORTH (-Z)", "EAST (+X)", "SOUTH (+Z)", "WEST (-X)"};
  return kNames[static_cast<int>(std::floor((y + 45.0) / 90.0)) % 4];
}

// Calls `call` on every observer, in order, adding the wall time they take to `ms`.
template <class Call>
void tell(const std::vector<FrameObserver*>& observers, double& ms, Call&& call) {
  if (observers.empty()) return;
  const double t = wall_ms();
  for (FrameObserver* o : observers) call(*o);
  ms += wall_ms() - t;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least p of the values at or below it.
  const double rank = std::ceil(p * static_cast<double>(v.size()));
  const size_t i = rank < 1.0 ? 0 : std::min(v.size() - 1, static_cast<size_t>(rank) - 1);
  return v[i];
}

}  // namespace

Game::Game(const GameConfig& config, render::Platform& platform, const BlockRegistry& registry,
           const gen::Generator& generator, JobPool& pool, World& world)
    : m_config(config),
      m_platform(platform),
      m_registry(registry),
      m_generator(generator),
      m_pool(pool),
      m_world(world),
      m_light(registry),
      m_handler(config.handler) {}

Game::~Game() {
  // Jobs in flight hold pointers into the streamer and the far view; each waits for them in its destructor.
  m_far.reset();
  m_streamer.reset();
}

Result<std::unique_ptr<Game>> Game::create(const GameConfig& config, render::Platform& platform,
                                           const BlockRegistry& registry, const gen::Generator& generator, JobPool& pool,
                                           World& world, stream::ColumnSource* source) {
  std::unique_ptr<Game> g(new Game(config, platform, registry, generator, pool, world));
  for (int i = 0; i < kHotbarSlots; ++i) {
    const auto id = registry.find(kHotbarBlocks[static_cast<size_t>(i)]);
    if (!id) return Error{"the block registry has no '" + std::string(kHotbarBlocks[static_cast<size_t>(i)]) + "' (a hotbar block)"};
    g->m_hotbar[static_cast<size_t>(i)] = *id;
  }
  g->m_bedrock = registry.find("bedrock").value_or(0xFFFF);
  auto baked = mesh::BakedBlocks::bake(registry);
  if (!baked) return Error{"mesh: " + baked.error().to_string()};
  g->m_baked = std::make_unique<mesh::BakedBlocks>(std::move(*baked));
  platform.make_current();
  render::RendererOptions ro;
  ro.path = config.render_path;
  ro.trace = config.shadows == render::Shadows::kTraced;
  auto renderer = render::Renderer::create(platform, registry, ro);
  if (!renderer) return Error{"renderer: " + renderer.error().to_string()};
  g->m_renderer = std::move(*renderer);
  if (config.hud) {
    auto hud = render::Overlay::create();
    if (!hud) return Error{"HUD: " + hud.error().to_string()};
    g->m_hud = std::move(*hud);
  }
  stream::StreamConfig sc = config.stream;
  sc.render_distance = config.render_distance;
  if (!source) {
    g->m_own_source = std::make_unique<stream::GeneratedSource>(generator);
    source = g->m_own_source.get();
  }
  g->m_source = source;
  g->m_streamer = std::make_unique<stream::ColumnStreamer>(world, *g->m_renderer, *source, g->m_light, *g->m_baked, pool, sc);
  if (config.tick_rate > 0 && !source->simulates()) {  // a server's world simulates on the server
    // The simulation resumes what a saved world left pending; its sections wait for their columns to load.
    g->m_sim = std::make_unique<sim::Simulator>(registry, generator.seed());
    g->m_tick_clock = StepClock(1.0 / config.tick_rate);
    auto state = source->sim_state();
    if (!state) return Error{"the world's pending simulation: " + state.error().to_string()};
    if (*state) {
      if (Status s = g->m_sim->load_state(**state); !s.ok())
        return Error{"the world's pending simulation: " + s.error().to_string()};
      g->m_sim_saved_quiet = g->m_sim->quiet();
    }
  }
  // The far view needs the multi-draw-indirect or ray-march path (the per-chunk path draws no far pass).
  if (config.far.far_distance > render::render_radius_blocks(config.render_distance) &&
      g->m_renderer->path() != render::RenderPath::kPerChunk) {
    stream::FarConfig fc = config.far;
    fc.deterministic = sc.deterministic;
    // Real columns are kept at least as far as the streamer keeps columns loaded (the loaded ring and its margin).
    fc.real_distance = std::max(fc.real_distance, render::render_radius_blocks(config.render_distance + 3) + 32.0);
    g->m_far = std::make_unique<stream::FarView>(generator, registry, pool, *g->m_renderer, fc);
    g->m_far->set_store(source->far_store());  // a saved world keeps the far view's nodes beside its columns
  }
  if (config.creatures) {
    g->m_creatures = std::make_unique<Creatures>(generator.seed(), registry);
    if (Status s = g->m_renderer->set_box_skins(Creatures::skins()); !s.ok())
      return Error{"creature skins: " + s.error().to_string()};
    // A saved world's creatures, as its last session left them. A damaged record does not stop the game: the
    // store has kept its bytes aside, the HUD says so, and the creatures spawn afresh from the seed.
    auto saved = source->creature_state();
    Status loaded = saved ? Status(Ok{}) : Status(saved.error());
    if (saved && *saved) loaded = g->m_creatures->load_state(**saved);
    if (!loaded.ok()) g->show_message("creatures not loaded: " + loaded.error().to_string());
  }
  g->m_handler.begin_frame(0, 0.0);
  // The default frame step; kFrameTime events change it.
  InputEvent step;
  step.kind = EventKind::kFrameTime;
  step.x = config.step;
  g->m_handler.handle(step);
  return g;
}

double Game::time_of_day() const {
  if (!(m_config.day_minutes > 0.0)) return m_config.time_of_day;
  const double hours = m_config.time_of_day + m_sim_time / (m_config.day_minutes * 60.0) * 24.0;
  return hours - 24.0 * std::floor(hours / 24.0);
}

void Game::start(const BlockPos& block, const glm::dvec3& frac, double yaw, double pitch, bool flying) {
  m_player = PlayerState{};
  m_player.block = block;
  m_player.frac = frac;
  m_player.normalise();
  m_player.flying = flying;
  m_handler.set_look(yaw, pitch);
  m_player.yaw = m_handler.controls().yaw;
  m_player.pitch = m_handler.controls().pitch;
  m_drawn_from = m_player;
}

render::Camera Game::camera_of(const PlayerState& p) const {
  BlockPos eb;
  glm::dvec3 ef;
  eye_of(p, m_config.player.eye_height, eb, ef);
  render::Camera cam = render::Camera::at(eb, ef);
  cam.yaw_deg = p.yaw;
  cam.pitch_deg = p.pitch;
  cam.fov_y_deg = m_config.fov;
  cam.aspect = static_cast<double>(m_platform.width()) / std::max(1, m_platform.height());
  const double radius = m_config.render_distance * static_cast<double>(kColumnWidth);
  cam.far_plane = std::sqrt((radius + 24.0) * (radius + 24.0) + 400.0 * 400.0) + 16.0;
  return cam;
}

PlayerState Game::drawn_player() const {
  // The state at the frame's end less one step: between the state before the last step and the last, by the
  // clock's remainder (Fiedler's interpolation; a step behind the simulation, never ahead of it).
  PlayerState d = m_player;
  const glm::dvec3 back(static_cast<double>(render::coord_delta(m_drawn_from.block.x, m_player.block.x)),
                        static_cast<double>(render::coord_delta(m_drawn_from.block.y, m_player.block.y)),
                        static_cast<double>(render::coord_delta(m_drawn_from.block.z, m_player.block.z)));
  d.frac += (back + m_drawn_from.frac - m_player.frac) * (1.0 - m_clock.fraction());
  d.normalise();
  return d;
}

render::Camera Game::camera() const { return camera_of(drawn_player()); }

bool Game::player_columns_loaded() const {
  const ColumnPos c{column_of(m_player.block.x), column_of(m_player.block.z)};
  for (int64_t dx = -1; dx <= 1; ++dx)
    for (int64_t dz = -1; dz <= 1; ++dz)
      if (!m_streamer->loaded({c.x + dx, c.z + dz})) return false;
  return true;
}

void Game::apply_requests(const Requests& req) {
  if (req.any_teleport()) {
    m_player.set_feet({*req.teleport[0], *req.teleport[1], *req.teleport[2]});
    m_player.velocity = glm::dvec3(0.0);
    m_player.on_ground = false;
    m_drawn_from = m_player;  // drawn at the new place at once, not slid there
  }
  if (req.fly_speed) m_player.fly_speed = *req.fly_speed;
  if (req.set_fly) m_player.flying = *req.set_fly;
  if (req.toggle_fly) m_player.flying = !m_player.flying;
  if (req.set_fly || req.toggle_fly) m_player.velocity = glm::dvec3(0.0);
}

Cell Game::hotbar_cell(int slot, double yaw, bool top) const {
  const uint16_t id = m_hotbar[static_cast<size_t>(std::clamp(slot, 0, kHotbarSlots - 1))];
  const BlockDef& def = m_registry[id];
  if (def.shape == Shape::kStairs || def.shape == Shape::kSlope) {
    // "Facing the player": the tall back lies the way the player looks, the low step toward the player.
    const double y = std::fmod(std::fmod(yaw, 360.0) + 360.0, 360.0);
    const int quadrant = static_cast<int>(std::floor((y + 45.0) / 90.0)) % 4;  // 0 north, 1 east, 2 south, 3 west
    return {id, state::make_facing(quadrant, top)};
  }
  if (def.shape == Shape::kSlab) return {id, top ? state::kHalfBit : uint8_t{0}};
  return {id, 0};
}

void Game::hand_over_real_columns() {
  // Real columns win in the far view (FarView::add_real_column). Handed over: each column loaded since the last
  // frame (a ring ahead of drawing, so the far nodes beside it hold its cells by the time it is drawn and masked
  // out of the far pass, and seams face the ground it really has), again when first drawn (its light is final once
  // its neighbours are loaded; unchanged mips rebuild nothing), and each column an edit changed (the edited one
  // kept: it stays after leaving the near field). After FarView::update, so the jobs integrate next frame like the
  // node requests; copies, in a fixed order (replays match).
  std::vector<ColumnPos> loaded = m_streamer->loaded_columns();
  std::vector<ColumnPos> fresh, drawn_now, handover;
  std::set_difference(loaded.begin(), loaded.end(), m_far_loaded.begin(), m_far_loaded.end(), std::back_inserter(fresh));
  std::set_difference(m_near.begin(), m_near.end(), m_far_drawn.begin(), m_far_drawn.end(), std::back_inserter(drawn_now));
  std::set_union(fresh.begin(), fresh.end(), drawn_now.begin(), drawn_now.end(), std::back_inserter(handover));
  // A column with saved edits is kept like one edited now: its cells must stay in the far view (and its stored levels).
  for (const ColumnPos& p : handover)
    if (m_far_edited.count(p) == 0)
      if (const Column* col = m_world.find(p))
        m_far->add_real_column(std::make_shared<const Column>(*col), m_source != nullptr && m_source->edited(p));
  for (const auto& [p, keep] : m_far_edited)
    if (const Column* col = m_world.find(p)) m_far->add_real_column(std::make_shared<const Column>(*col), keep);
  m_far_edited.clear();
  m_far_loaded = std::move(loaded);
  m_far_drawn = m_near;
}

void Game::update_target() {
  BlockPos eb;
  glm::dvec3 ef;
  eye_of(m_player, m_config.player.eye_height, eb, ef);
  m_target = pick(m_world, m_registry, eb, ef, look_direction(m_player.yaw, m_player.pitch), m_config.reach);
}

void Game::set_sound_sink(SoundSink* sink, SoundConfig config) {
  m_sound = sink ? std::make_unique<SoundDirector>(*sink, m_registry, config) : nullptr;
}

void Game::show_message(std::string line) {
  m_messages.emplace_back(m_sim_time, std::move(line));
  while (m_messages.size() > kMaxMessages) m_messages.pop_front();
}

void Game::queue_source_edits(std::vector<stream::CellEdit> edits) {
  m_source_edits.insert(m_source_edits.end(), edits.begin(), edits.end());
}

int Game::run_edits(std::span<const Edit> edits, FrameReport& rep, bool wake_sim, bool record) {
  // Light (one update for the batch), remesh, upload, then the source records each applied edit.
  const stream::EditReport er = m_streamer->apply_edits(edits, record);
  for (size_t i = 0; i < edits.size(); ++i) {
    if (!er.applied_each[i]) continue;
    // An edit wakes the simulation around it (its own changes wake their neighbourhood themselves), and the
    // creatures resting beside it.
    if (m_sim && wake_sim) m_sim->wake(edits[i].pos);
    if (m_creatures) m_creatures->cells_changed(std::span<const BlockPos>(&edits[i].pos, 1));
    tell(m_observers, rep.observer_ms, [&](FrameObserver& o) { o.edit_applied(m_frame, edits[i]); });
    // The far view takes the changed columns at the frame's end: those the player edited kept, those whose light
    // changed, or that the source changed (a server's), not kept: else every column a busy server touches would stay.
    if (m_far) {
      if (record) m_far_edited[column_pos_of(edits[i].pos)] = true;
      else m_far_edited.emplace(column_pos_of(edits[i].pos), false);
    }
  }
  if (er.applied && m_far)
    for (const SectionPos& sp : er.remeshed) m_far_edited.emplace(ColumnPos{sp.x, sp.z}, false);
  rep.edit_light_ms += er.light_ms;
  rep.edit_remesh_ms += er.remesh_ms;
  rep.edit_upload_ms += er.upload_ms;
  rep.sections_remeshed += er.sections_remeshed;
  rep.edits_applied += er.edits_applied;
  rep.edits_refused += static_cast<int>(edits.size()) - er.edits_applied;
  return er.edits_applied;
}

bool Game::overlaps_player(const BlockPos& cell) const {
  const glm::dvec3 lo{static_cast<double>(coord_delta(cell.x, m_player.block.x)),
                      static_cast<double>(coord_delta(cell.y, m_player.block.y)),
                      static_cast<double>(coord_delta(cell.z, m_player.block.z))};
  return Aabb{lo, lo + glm::dvec3(1.0)}.overlaps(m_player.local_box(m_config.player));
}

void Game::do_scenario(const Requests::Scenario& scenario, FrameReport& rep) {
  int64_t x = 0, z = 0;
  if (scenario.site) {
    x = (*scenario.site)[0];
    z = (*scenario.site)[1];
  } else if (m_target) {
    x = m_target->cell.x;
    z = m_target->cell.z;
  } else {
    return;  // the G key with nothing in reach
  }
  const auto& names = sim::scenario_names();
  if (scenario.index < 0 || static_cast<size_t>(scenario.index) >= names.size()) return;
  auto plan = sim::make_scenario(names[static_cast<size_t>(scenario.index)], m_registry, m_world, x, z);
  if (!plan) {
    ++rep.edits_refused;  // its site is not loaded, or no room above the ground
    return;
  }
  // As a placed block, never a solid cell in the player's box: the whole scenario is refused.
  for (const sim::CellChange& c : plan->cells) {
    if (m_registry[c.after.id].solid && overlaps_player(c.pos)) {
      ++rep.edits_refused;
      return;
    }
  }
  ++rep.scenarios;
  const std::vector<Edit> edits = sim::to_edits(m_world, plan->cells);
  if (!edits.empty()) run_edits(edits, rep);
}

void Game::run_world_ticks(double dt, FrameReport& rep) {
  if (!m_sim) return;
  rep.sim_ticks = m_tick_clock.advance(dt);
  for (int i = 0; i < rep.sim_ticks; ++i) {
    sim::TickReport tr = m_sim->step(m_world, &m_pool);
    rep.sim_ms += tr.ms;
    rep.sim_sections += tr.sections_stepped;
    rep.sim_cells += tr.cells_evaluated;
    if (tr.changes.empty()) continue;
    rep.sim_changes += run_edits(sim::to_edits(m_world, tr.changes), rep, false);
  }
  // The pending updates go out with the edits recorded so far (a saved world's next commit); a world that stays
  // quiet is not told again.
  const bool quiet = m_sim->quiet();
  if (!(quiet && m_sim_saved_quiet)) m_source->set_sim_state(m_sim->save_state());
  m_sim_saved_quiet = quiet;
}

void Game::do_blast(const Requests::Blast& blast, FrameReport& rep) {
  BlockPos c;
  if (blast.centre) c = {(*blast.centre)[0], (*blast.centre)[1], (*blast.centre)[2]};
  else if (m_target) c = m_target->cell;
  else return;  // the B key with nothing in reach
  ++rep.blasts;
  const int64_t r = blast.radius, limit = r * r + r;  // a ball rounded as a drawn circle is (radius 1: the 6 faces)
  std::vector<Edit> edits;
  for (int64_t dy = -r; dy <= r; ++dy) {
    if (!y_in_range(c.y + dy)) continue;
    for (int64_t dz = -r; dz <= r; ++dz)
      for (int64_t dx = -r; dx <= r; ++dx) {
        if (dx * dx + dy * dy + dz * dz > limit) continue;
        const BlockPos p{c.x + dx, c.y + dy, c.z + dz};
        const Cell cell = m_world.get(p);  // air where the column is not loaded: left alone
        if (cell.id == 0 || cell.id == m_bedrock || m_registry[cell.id].shape == Shape::kFluid) continue;
        if (auto e = m_world.make_edit(p, kAir)) edits.push_back(*e);
      }
  }
  if (!edits.empty()) run_edits(edits, rep);
}

void Game::do_break(FrameReport& rep) {
  if (!m_target) return;
  const Cell c = m_world.get(m_target->cell);
  if (c.id == m_bedrock) {
    ++rep.edits_refused;
    return;
  }
  auto edit = m_world.make_edit(m_target->cell, kAir);
  if (!edit) {
    ++rep.edits_refused;
    return;
  }
  if (run_edits(std::span<const Edit>(&*edit, 1), rep) > 0 && m_sound) m_sound->dug(*edit);
}

void Game::do_place(FrameReport& rep) {
  if (!m_target) return;
  const BlockPos at = m_target->adjacent();
  if (!y_in_range(at.y)) {
    ++rep.edits_refused;
    return;
  }
  // Only into air, fluid or a plant: never over a block, and never into the player's box.
  const BlockDef& there = m_registry[m_world.get(at).id];
  const bool replaceable = there.is_air() || there.shape == Shape::kFluid || (there.shape == Shape::kCross && !there.solid);
  if (!replaceable || overlaps_player(at)) {
    ++rep.edits_refused;
    return;
  }
  const bool top = m_target->face == kFaceNegY || (m_target->face != kFacePosY && m_target->point.y > 0.5);
  const Cell cell = hotbar_cell(m_handler.controls().slot, m_player.yaw, top);
  auto edit = m_world.make_edit(at, cell);
  if (!edit) {
    ++rep.edits_refused;
    return;
  }
  if (run_edits(std::span<const Edit>(&*edit, 1), rep) > 0 && m_sound) m_sound->placed(*edit);
}

FrameReport Game::frame(std::span<const InputEvent> events, bool render, const stream::FrameSchedule* schedule) {
  FrameReport rep;
  rep.frame = m_frame;
  const double t_frame = wall_ms();
  render::take_gl_error();  // start clean: the frame reports only the errors it raised

  // 1. Input: every event through the one handler.
  double t = wall_ms();
  m_handler.begin_frame(m_frame, m_sim_time);
  for (const InputEvent& e : events) m_handler.handle(e);
  const Requests req = m_handler.take_requests();
  apply_requests(req);
  rep.screenshot = req.screenshot;
  const Controls& c = m_handler.controls();
  m_player.yaw = c.yaw;
  m_player.pitch = c.pitch;
  const double dt = c.frame_seconds;
  rep.input_ms = wall_ms() - t;

  // 2. The source's own edits (a server's), then the frame's clicks, at the frame's start (the state the events
  // meet), re-targeting after each edit.
  if (!m_source_edits.empty()) {
    // Only each cell's last change counts (a cell changed twice ends as the second says), and only where it
    // changes what the world holds; then one batch: one light update, each dirtied section remeshed once.
    rep.source_edits = static_cast<int>(m_source_edits.size());
    std::stable_sort(m_source_edits.begin(), m_source_edits.end(), [](const stream::CellEdit& a, const stream::CellEdit& b) { return a.pos < b.pos; });
    std::vector<Edit> batch;
    for (size_t i = 0; i < m_source_edits.size(); ++i) {
      const stream::CellEdit& ce = m_source_edits[i];
      if (i + 1 < m_source_edits.size() && m_source_edits[i + 1].pos == ce.pos) continue;  // a later one wins
      if (!m_world.find(column_pos_of(ce.pos)) || m_world.get(ce.pos) == ce.cell) continue;
      if (auto e = m_world.make_edit(ce.pos, ce.cell)) batch.push_back(*e);
    }
    m_source_edits.clear();
    if (!batch.empty()) run_edits(batch, rep, true, false);
  }
  t = wall_ms();
  update_target();
  rep.pick_ms = wall_ms() - t;
  for (int i = 0; i < req.breaks; ++i) {
    do_break(rep);
    t = wall_ms();
    update_target();
    rep.pick_ms += wall_ms() - t;
  }
  for (int i = 0; i < req.places; ++i) {
    do_place(rep);
    t = wall_ms();
    update_target();
    rep.pick_ms += wall_ms() - t;
  }
  for (const Requests::Blast& b : req.blasts) {
    if (!m_config.bulk_edits) break;
    do_blast(b, rep);
    t = wall_ms();
    update_target();
    rep.pick_ms += wall_ms() - t;
  }
  for (const Requests::Scenario& sc : req.scenarios) {
    if (!m_config.bulk_edits) break;
    do_scenario(sc, rep);
    t = wall_ms();
    update_target();
    rep.pick_ms += wall_ms() - t;
  }

  // 3. Simulation: the fixed steps the frame's time makes due.
  t = wall_ms();
  MoveIntent intent;
  intent.forward = (c.held_key(Key::kW) ? 1.0 : 0.0) - (c.held_key(Key::kS) ? 1.0 : 0.0);
  intent.strafe = (c.held_key(Key::kD) ? 1.0 : 0.0) - (c.held_key(Key::kA) ? 1.0 : 0.0);
  intent.jump = c.held_key(Key::kSpace);
  intent.descend = c.held_key(Key::kShift);
  intent.sprint = c.held_key(Key::kCtrl);
  const CollisionWorld cw(m_world, m_registry);
  rep.steps = m_clock.advance(dt);
  for (int i = 0; i < rep.steps; ++i) {
    m_drawn_from = m_player;
    if (player_columns_loaded()) {
      step_player(m_player, intent, m_clock.step(), cw, m_config.player);
      if (m_sound) m_sound->stepped(m_drawn_from, m_player, m_world);
    } else {
      rep.frozen = true;
    }
    ++m_steps;
    if (m_step_observer) m_step_observer(m_steps, m_player);
  }
  rep.physics_ms = wall_ms() - t;
  // The world's own ticks (fluids, falling blocks, smoke) at the fixed tick rate, from the same simulated time.
  run_world_ticks(dt, rep);
  if (rep.steps > 0 || rep.sim_changes > 0) {
    t = wall_ms();
    update_target();
    rep.pick_ms += wall_ms() - t;
  }

  // 4. Streaming around the simulated eye.
  t = wall_ms();
  const render::Camera sim_cam = camera_of(m_player);
  rep.stream = m_streamer->update(m_frame, sim_cam.block, sim_cam.frac, sim_cam.forward(), schedule);
  rep.stream_ms = wall_ms() - t;
  if (m_streamer->error()) rep.stream_error = m_streamer->error()->to_string();
  if (m_far) {
    // The far view around the simulated eye, outside the columns drawn at full detail.
    t = wall_ms();
    m_near = m_streamer->drawn_columns();
    // Selected for the configured viewport (the recording's size), not the window's current one.
    render::Camera far_cam = sim_cam;
    const int fw = m_config.far_viewport_width > 0 ? m_config.far_viewport_width : m_platform.width();
    const int fh = m_config.far_viewport_height > 0 ? m_config.far_viewport_height : m_platform.height();
    far_cam.aspect = static_cast<double>(fw) / std::max(1, fh);
    rep.far = m_far->update(far_cam, fh, m_near,
                            schedule ? std::optional<uint32_t>(schedule->far) : std::nullopt);
    rep.stream.schedule.far = rep.far.integrated;  // what a live recording keeps (`jobs ... far N`)
    hand_over_real_columns();
    if (!m_far->error().empty() && rep.stream_error.empty()) rep.stream_error = "replay diverged: " + m_far->error();
    rep.far_ms = wall_ms() - t;
  }
  tell(m_observers, rep.observer_ms, [&](FrameObserver& o) { o.streamed(m_frame, rep.stream, *m_streamer); });
  if (m_sound) {
    // The sounds of the frame's state: the listener at the simulated eye, what is near it.
    t = wall_ms();
    m_sound->frame(m_player, m_config.player.eye_height, m_world);
    rep.sound_ms = wall_ms() - t;
  }

  // 4b. Creatures: in line with the drawn columns, then their ticks for the frame's time.
  if (m_creatures) {
    t = wall_ms();
    m_creatures->sync_columns(m_world, m_streamer->drawn_columns());
    rep.creature_sync_ms = wall_ms() - t;
    rep.creatures = m_creatures->advance(dt, cw);
    rep.creatures_live = m_creatures->all().size();
    // A saved world keeps them with its edits: handed over once a second of their time (20 ticks), so what a
    // commit writes is at most that old.
    m_creature_ticks_unsaved += rep.creatures.ticks;
    if (m_creature_ticks_unsaved >= 20) {
      m_source->set_creature_state(m_creatures->save_state());
      m_creature_ticks_unsaved = 0;
    }
  }

  // 5. Drawing, from the eye interpolated between the last two steps; nothing while the window is minimised.
  rep.minimised = m_platform.minimised();
  if (render && !rep.minimised) {
    rep.rendered = true;
    const render::Camera cam = camera();
    t = wall_ms();
    render::FrameParams fp;
    fp.camera = cam;
    fp.time_of_day = time_of_day();
    fp.clouds = m_config.clouds;
    fp.fog_end = render::render_radius_blocks(m_config.render_distance);
    if (m_far) {
      fp.far.draw = m_far->draw();
      fp.far.fog_end = m_far->fog_end();
      fp.far.near_columns = m_near;
    }
    fp.anim_seconds = m_sim_time;
    fp.eye_sky_light = light_sky(m_world.light(cam.block));
    // At most 32,768 translucent quads re-sorted a frame (about 3 ms on llvmpipe; docs/PERFORMANCE.md, Rendering):
    // sections beyond that keep their order a few frames longer, nearest first.
    fp.sort_budget_quads = 32768;
    fp.culling.mode = m_config.culling;
    fp.shadows = m_config.shadows;
    fp.beam = m_config.beam;
    fp.culling.store = &m_streamer->visibility();
    fp.culling.pool = &m_pool;
    m_boxes.clear();
    if (m_creatures) {
      const double tp = wall_ms();
      m_creatures->pose(cam, m_world, m_boxes);
      rep.creature_pose_ms = wall_ms() - tp;
      fp.boxes = m_boxes;
    }
    rep.render = m_renderer->render(fp);
    rep.render_ms = wall_ms() - t;
    if (!m_observers.empty()) {
      // The GPU finishes the frame first, counted as presenting it would be: a read-back would otherwise wait for
      // it inside an observer, whose time is left out of frame_ms.
      t = wall_ms();
      m_renderer->finish();
      rep.present_ms += wall_ms() - t;
      const RenderedFrame rf{m_frame, fp, m_platform.width(), m_platform.height(), *m_renderer, *m_streamer,
                             m_far ? m_far->config().cell_pixels : 0.0};
      tell(m_observers, rep.observer_ms, [&](FrameObserver& o) { o.world_rendered(rf); });
    }
    t = wall_ms();
    if (m_hud) draw_hud(rep);
    rep.hud_ms = wall_ms() - t;
    t = wall_ms();
    m_platform.present();
    rep.present_ms += wall_ms() - t;
  }
  rep.gl_error = render::take_gl_error();

  rep.frame_ms = wall_ms() - t_frame - rep.observer_ms;
  m_frame_times.push_back(rep.frame_ms);
  if (m_frame_times.size() > 240) m_frame_times.pop_front();
  m_sim_time += dt;
  ++m_frame;
  m_last = rep;
  return rep;
}

std::vector<std::string> Game::overlay_lines(const FrameReport& rep) const {
  std::vector<std::string> out;
  const glm::dvec3 f = m_player.feet();
  char buf[256];
  if (m_config.overlay_wall_times) {
    const std::vector<double> times(m_frame_times.begin(), m_frame_times.end());
    std::snprintf(buf, sizeof buf, "FRAME P50 %.1f MS  P99 %.1f MS", percentile(times, 0.5), percentile(times, 0.99));
  } else {
    std::snprintf(buf, sizeof buf, "FRAME %llu  SIM %.2f S (REPLAY: NO WALL TIMES)", static_cast<unsigned long long>(m_frame), m_sim_time);
  }
  out.push_back(buf);
  std::snprintf(buf, sizeof buf, "POS %.2f %.2f %.2f %s%s", f.x, f.y, f.z, m_player.flying ? "FLYING" : "WALKING",
                m_player.on_ground ? " ON GROUND" : "");
  out.push_back(buf);
  std::snprintf(buf, sizeof buf, "COLUMN %lld %lld  SECTION %d  FACING %s YAW %.1f PITCH %.1f",
                static_cast<long long>(column_of(m_player.block.x)), static_cast<long long>(column_of(m_player.block.z)),
                y_in_range(m_player.block.y) ? section_of_y(m_player.block.y) : -1, compass(m_player.yaw), m_player.yaw,
                m_player.pitch);
  out.push_back(buf);
  std::snprintf(buf, sizeof buf, "COLUMNS LOADED %zu  DRAWN %zu / %zu", m_streamer->loaded_count(), m_streamer->drawn_count(),
                m_streamer->draw_set_size());
  out.push_back(buf);
  std::snprintf(buf, sizeof buf, "QUADS %llu  SECTIONS %u / %u  DRAWS %u", static_cast<unsigned long long>(rep.render.quads_drawn),
                rep.render.sections_visible, rep.render.sections_loaded, rep.render.draw_calls);
  out.push_back(buf);
  out.push_back("ARENA " + fmt("%.1f", static_cast<double>(m_renderer->arena_used_bytes()) / 1048576.0) + " / " +
                fmt("%.1f MIB", static_cast<double>(m_renderer->arena_capacity_bytes()) / 1048576.0));
  std::snprintf(buf, sizeof buf, "QUEUES GEN %zu+%zu  MESH %zu+%zu (IN FLIGHT+WAITING)", m_streamer->gen_in_flight(),
                m_streamer->gen_waiting(), m_streamer->mesh_in_flight(), m_streamer->mesh_waiting());
  out.push_back(buf);
  if (m_target) {
    std::snprintf(buf, sizeof buf, "TARGET %s %lld %lld %lld", m_registry[m_world.get(m_target->cell).id].name.c_str(),
                  static_cast<long long>(m_target->cell.x), static_cast<long long>(m_target->cell.y),
                  static_cast<long long>(m_target->cell.z));
    out.push_back(buf);
  }
  return out;
}

void Game::draw_hud(FrameReport& rep) {
  HudFrame h;
  h.width = m_platform.width();
  h.height = m_platform.height();
  for (int i = 0; i < kHotbarSlots; ++i) h.hotbar_colors[static_cast<size_t>(i)] = m_registry[m_hotbar[static_cast<size_t>(i)]].face_color[kFacePosY];
  h.slot = m_handler.controls().slot;
  h.status = m_config.status_source ? m_config.status_source() : m_config.status;
  if (m_handler.controls().overlay) h.overlay = overlay_lines(rep);
  while (!m_messages.empty() && m_messages.front().first + kMessageSeconds <= m_sim_time) m_messages.pop_front();
  for (const auto& [at, line] : m_messages) h.messages.push_back(line);
  // The camera of the drawn eye, with the HUD frame's aspect, places the outline and the figures.
  render::Camera cam = camera();
  cam.aspect = static_cast<double>(h.width) / std::max(1, h.height);
  h.view_projection = cam.view_projection();
  if (m_target) {
    // The outline is the bounding box of the targeted cell's pick boxes (a slab's half, a plant's box).
    const Cell tc = m_world.get(m_target->cell);
    const CellBoxes boxes = pick_boxes(m_registry[tc.id], tc.state);
    glm::dvec3 lo(0.0), hi(1.0);
    if (boxes.count > 0) {
      lo = boxes.box[0].min;
      hi = boxes.box[0].max;
      for (int i = 1; i < boxes.count; ++i) {
        lo = glm::min(lo, boxes.box[static_cast<size_t>(i)].min);
        hi = glm::max(hi, boxes.box[static_cast<size_t>(i)].max);
      }
    }
    h.outline = std::make_pair(cam.relative(m_target->cell) + lo, hi - lo);
  }
  for (const Figure& fig : m_figures) {
    HudFigure hf;
    hf.min = cam.relative(fig.block) + fig.frac - glm::dvec3(fig.size.x / 2, 0.0, fig.size.z / 2);
    hf.size = fig.size;
    hf.color = fig.color;
    hf.label = fig.label;
    h.figures.push_back(std::move(hf));
  }
  m_hud->draw(layout_hud(h), m_platform.framebuffer());
}

std::vector<std::string> Game::check_invariants() const {
  std::vector<std::string> out;
  const glm::dvec3 f = m_player.feet();
  if (!std::isfinite(m_player.frac.x) || !std::isfinite(m_player.frac.y) || !std::isfinite(m_player.frac.z) ||
      !std::isfinite(m_player.velocity.x) || !std::isfinite(m_player.velocity.y) || !std::isfinite(m_player.velocity.z))
    out.push_back("the player's position or velocity is not finite");
  const CollisionWorld cw(m_world, m_registry);
  if (player_inside_solid(m_player, cw, m_config.player)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the player's box (feet %.6f %.6f %.6f) is inside a solid block", f.x, f.y, f.z);
    out.push_back(buf);
  }
  if (m_player.block.y < kMinY) out.push_back("the player fell below the world");
  return out;
}

}  // namespace voxen::play
