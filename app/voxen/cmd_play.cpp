// voxen play: the game in a window. Mouse look (cursor captured; Esc releases it, a click captures it again), WASD,
// Space jump / fly up, Shift crouch / fly down, a Space double tap or F toggles flying, Ctrl sprints; left click
// removes the targeted block, right click places the hotbar's block (wheel or 1-9: stone, dirt, planks, glass, torch,
// water, sand, glowstone, stairs facing the player); F2 saves a screenshot (screenshot-FRAME.png), F3 toggles the
// debug overlay.
//
// The window's callbacks only queue InputEvents (play/window_input.h); each frame hands them, with the frame's
// measured time step (a kFrameTime event when it changes), to the one InputHandler inside Game::frame, and
// --record writes the same events, so `voxen replay` reproduces the session. Streaming is live by default: it
// follows what the workers finish and the frame's time (stream/streamer.h), and --record writes each frame's job
// schedule (which jobs were integrated, how many were submitted: `jobs` lines, play/recording.h) so a replay
// integrates and submits exactly the same and sees the same world at every frame. --stream deterministic streams
// as replays of older recordings do (the jobs of frame N integrated at frame N + 2, 6 of each kind a frame). Frames are paced
// with vsync off: sleep, then spin the last 1.5 ms, to the monitor's rate or --fps. While the window is minimised
// (its framebuffer 0 x 0) nothing is drawn and the loop waits for window events, up to one frame period, instead
// of polling and pacing; the simulation and the streaming still run a frame each time. --minimised-frames A,B is
// the test hook for that: frames A to B - 1 run as if the window were minimised.
// With --world DIR the world is a saved one (created with --seed when missing): columns load through the store
// (generation + saved edits), edits are saved as they happen (write-behind, committed after each edit) and when
// columns unload, and everything is flushed on exit; the HUD's status line says "SAVING N EDITS" until the batches
// holding them are committed (durable), then "ALL EDITS SAVED". Without it the world is ephemeral and the HUD says so.
// With --connect HOST:PORT --name NAME the world is a server's (voxen serve): its seed, generator and spawn come with
// the Welcome, its columns arrive on demand and edits go through it (play/remote.h); the server runs the simulation
// (RemoteWorld::simulates), other players are drawn as boxes with their names, and the HUD's status line names the
// server. The client asks for the render distance + 1 columns (a drawn column needs its neighbours); a server
// granting less draws less. Losing the connection ends play with the server's reason (exit 1). Recording and --world
// do not combine with it. SIGINT (Ctrl-C) or SIGTERM ends play as closing the window does (summary, Leave, saved edits
// committed). Chat: lines typed on play's standard input (the terminal it was started from) are sent; chat
// received, and players joining and leaving, show above the hotbar for 10 s.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include <poll.h>
#include <unistd.h>

#include "cli_util.h"
#include "culling_cli.h"
#include "commands.h"
#include "play_cli.h"
#include "voxen/audio/mixer.h"
#include "voxen/audio/synth.h"
#include "voxen/net/client.h"
#include "voxen/net/transport.h"
#include "voxen/play/recording.h"
#include "voxen/play/remote.h"
#include "voxen/play/session.h"
#include "voxen/play/sound.h"
#include "voxen/play/spawn.h"
#include "voxen/play/window_input.h"
#include "world_open.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

std::atomic<bool> g_quit{false};  // SIGINT or SIGTERM: leave the frame loop as when the window closes
extern "C" void on_quit_signal(int) { g_quit.store(true); }

struct PlayOptions {
  WorldFlags world;
  WorldDirFlag world_dir;
  int render_distance = 8;
  FrameSize size{1280, 720};
  double fps = 0;
  double fov = 70;
  std::string record;
  int threads = 0;
  std::array<int64_t, 2> spawn{0, 0};
  uint64_t frames = 0;           // quit after this many frames (0: when the window closes)
  std::string final_screenshot;  // PNG of the last frame, written on exit
  std::string minimised_frames;  // "A,B": frames A..B-1 run as if minimised (a test hook)
  std::string stream = "live";   // live | deterministic
  double far_distance = 4096;    // the far view, blocks (0 or at most the render distance: off)
  double tick_rate = 20;         // --tick-rate: world simulation ticks a second (0: off)
  std::string culling = "all";   // --culling
  RenderFlags render;            // --render-path, --shadows, --no-beam, --no-clouds
  SkyFlags sky{10.0, 20.0};      // --time-of-day, --day-minutes: a day lasts 20 minutes, as in Minecraft
  std::string connect;           // HOST:PORT of a server (voxen serve); empty: play alone
  std::string name;              // the player's name on the server
  bool no_audio = false;         // --no-audio: the silent mixer whatever the machine has
};

/// A connection to a server and the world as it arrives (--connect).
struct Connection {
  std::string where;  // HOST:PORT as given
  net::NetIo io;
  std::unique_ptr<net::Client> client;
  std::unique_ptr<play::RemoteWorld> world;
};

/// Chat typed on play's standard input while connected: each complete line is sent, at most 4 a second (the server
/// drops a client saying more than 5). Reads without blocking; stops at the end of the input (none: /dev/null).
class StdinChat {
 public:
  void poll(play::RemoteWorld& world) {
    pollfd p{0, POLLIN, 0};
    while (m_open && ::poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
      char buf[512];
      const ssize_t n = ::read(0, buf, sizeof buf);
      if (n <= 0) {
        m_open = false;
        break;
      }
      m_partial.append(buf, static_cast<size_t>(n));
      for (size_t nl; (nl = m_partial.find('\n')) != std::string::npos;) {
        std::string line = m_partial.substr(0, nl);
        m_partial.erase(0, nl + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (line.size() > net::kMaxChatBytes || !net::valid_text(line))
          std::fprintf(stderr, "voxen play: not sent: a chat line is 1..%zu bytes of UTF-8 without control characters\n", net::kMaxChatBytes);
        else
          m_lines.push_back(std::move(line));
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (!m_lines.empty() && now - m_last >= std::chrono::milliseconds(250)) {
      world.say(m_lines.front());
      m_lines.pop_front();
      m_last = now;
    }
  }

 private:
  bool m_open = true;
  std::string m_partial;
  std::deque<std::string> m_lines;
  std::chrono::steady_clock::time_point m_last{};
};

/// Connects as o.name, asking for the render distance + 1 columns, and waits (up to 10 s) for the columns around the
/// server's spawn, where the player starts: the nearest standing spot there in the server's cells.
std::unique_ptr<Connection> connect_to_server(const PlayOptions& o, const BlockRegistry& reg, BlockPos& spawn) {
  if (o.world_dir.given()) throw UsageError("--world", "plays a world of its own; with --connect the world is the server's (voxen serve --world)");
  if (!o.record.empty()) throw UsageError("--record", "records play on a world of its own, not on a server (--connect)");
  if (o.name.empty()) throw UsageError("--name", "is needed with --connect: your name on the server");
  if (!net::valid_name(o.name)) throw UsageError("--name", "'" + o.name + "' must be 1..32 characters of A-Z a-z 0-9 _ -");
  auto hp = net::parse_host_port(o.connect);
  if (!hp) throw UsageError("--connect", hp.error().to_string());
  auto c = std::make_unique<Connection>();
  c->where = o.connect;
  net::ClientOptions co;
  co.name = o.name;
  co.view_radius = std::min(net::kMaxViewRadius, o.render_distance + 1);
  auto client = net::Client::connect(c->io, hp->first, hp->second, co, reg);
  if (!client) throw RunError("connecting to " + o.connect + ": " + client.error().to_string());
  c->client = std::move(*client);
  c->world = std::make_unique<play::RemoteWorld>(*c->client);
  const net::Welcome& w = c->client->welcome();
  net::Pose start;
  start.x = w.spawn_x;
  start.y = w.spawn_y;
  start.z = w.spawn_z;
  c->client->set_pose(start);
  const int64_t sx = static_cast<int64_t>(std::floor(w.spawn_x)), sz = static_cast<int64_t>(std::floor(w.spawn_z));
  const auto around_held = [&] {
    for (int64_t dx = -1; dx <= 1; ++dx)
      for (int64_t dz = -1; dz <= 1; ++dz)
        if (!c->client->world().find({column_of(sx) + dx, column_of(sz) + dz})) return false;
    return true;
  };
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!around_held() && std::chrono::steady_clock::now() < until)
    if (!c->client->poll(std::chrono::milliseconds(20)))
      throw RunError("the server " + o.connect + " closed the connection: " + c->client->closed_reason());
  if (!around_held()) throw RunError("the server " + o.connect + " sent no columns around its spawn within 10 s");
  const auto found = play::find_world_spawn(c->client->world(), reg, sx, sz, 1);
  spawn = found ? *found : BlockPos{sx, static_cast<int64_t>(std::floor(w.spawn_y)), sz};
  std::printf("voxen play: connected to %s as %s: world '%s', seed %llu (%s), view radius %d granted\n", o.connect.c_str(),
              o.name.c_str(), w.world_name.c_str(), static_cast<unsigned long long>(w.seed),
              w.generator.empty() ? "imported, no generator" : w.generator.c_str(), static_cast<int>(w.view_radius));
  return c;
}

int run_play(const PlayOptions& o) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is printed (a log file keeps the order with stderr)
  play::RecordingHeader h;
  h.seed = o.world.seed;
  h.generator = o.world.generator;
  h.width = o.size.width;
  h.height = o.size.height;
  h.render_distance = o.render_distance;
  h.far_distance = o.far_distance;
  h.tick_rate = o.tick_rate;
  h.time_of_day = o.sky.time_of_day;
  h.day_minutes = o.sky.day_minutes;
  h.clouds = !o.render.no_clouds;
  if (!(o.fov >= 10 && o.fov <= 150)) throw UsageError("--fov", "must be 10..150 degrees");
  if (o.fps < 0 || o.fps > 1000) throw UsageError("--fps", "must be 0 (the monitor's rate) .. 1000");
  int64_t min_from = -1, min_to = -1;  // frames [min_from, min_to) reported minimised
  if (!o.minimised_frames.empty()) {
    const auto v = parse_ints(o.minimised_frames, 2);
    if (!v) throw UsageError("--minimised-frames", v.error().message);
    if ((*v)[0] < 0 || (*v)[1] < (*v)[0])
      throw UsageError("--minimised-frames", "'" + o.minimised_frames + "' must be A,B with 0 <= A <= B (frames A to B - 1)");
    min_from = (*v)[0];
    min_to = (*v)[1];
  }
  h.fov = o.fov;
  const int64_t sx = o.spawn[0], sz = o.spawn[1];
  const BlockRegistry reg = load_registry();
  std::optional<BlockPos> spawn;
  std::unique_ptr<Connection> conn;
  if (!o.name.empty() && o.connect.empty()) throw UsageError("--name", "names you on a server: give --connect HOST:PORT too");
  if (!o.connect.empty()) {
    BlockPos at;
    conn = connect_to_server(o, reg, at);
    spawn = at;
    const net::Welcome& w = conn->client->welcome();
    h.seed = w.seed;
    h.generator = w.generator.empty() ? "flat" : w.generator;  // imported: never generated (the far view is off)
    if (w.generator.empty()) h.far_distance = 0;
    if (w.view_radius < 2)
      throw RunError("the server " + o.connect + " grants a view radius of " + std::to_string(w.view_radius) +
                     " column: play needs 2 or more (a drawn column needs the columns around it)");
    h.render_distance = std::min<int>(o.render_distance, w.view_radius - 1);
    if (h.render_distance < o.render_distance)
      std::fprintf(stderr, "voxen play: the server grants a view radius of %d columns: drawing %d\n", static_cast<int>(w.view_radius),
                   h.render_distance);
  }
  // The world: generated only, or a saved one (--world) whose seed and generator win over the flags.
  CommandWorld cw(o.world_dir, o.world, reg);
  stream::SavedWorld* saved = cw.saved();
  if (!conn) h.seed = cw.seed();
  const bool imported = saved && !saved->session().generated();
  if (saved) h.generator = imported ? "flat" : saved->session().meta().generator;  // imported: never generated
  if (imported && h.far_distance > 0) {
    // The far view is built from a generator's terrain model; an imported world has none (the "flat" above only
    // names a generator for the header and is never run), so beyond the render distance there is nothing to show.
    h.far_distance = 0;
    std::fprintf(stderr, "voxen play: %s is an imported world: no far view (it shows to the render distance)\n",
                 o.world_dir.display().c_str());
  }
  if (!conn && cw.generator()) spawn = play::find_generated_spawn(*cw.generator(), reg, sx, sz);
  if (saved) {
    // Ask the saved world itself for room and ground near there: its edits may have covered the generated spot.
    const int64_t wx = spawn ? spawn->x : sx, wz = spawn ? spawn->z : sz;
    std::vector<ColumnPos> around;
    for (int64_t dx = -1; dx <= 1; ++dx)
      for (int64_t dz = -1; dz <= 1; ++dz) around.push_back({column_of(wx) + dx, column_of(wz) + dz});
    cw.load(around, nullptr, wx, wz);
    spawn = play::find_world_spawn(cw.world(), reg, wx, wz, 1);
    for (const ColumnPos& c : around) cw.unload(c);  // the game's streamer loads its own (one owner per column)
  }
  if (!spawn)
    throw RunError("no place to stand found near " + std::to_string(sx) + "," + std::to_string(sz) +
                   (imported ? " (an imported world is air outside its import: give --spawn X,Z inside it; voxen "
                               "import-anvil prints the imported area and a spawn)"
                             : ""));
  h.start_block = *spawn;
  h.start_frac = {0.5, 0.0, 0.5};
  h.stream_lag = 2;  // deterministic: a frame of slack for the workers in a window
  h.stream_live = o.stream == "live";

  play::SessionOptions so;
  so.window = true;
  so.threads = o.threads;
  so.game.status = "EPHEMERAL WORLD: EDITS ARE NOT SAVED";
  if (conn) {
    so.source = conn->world.get();
    so.game.bulk_edits = false;  // a blast is thousands of edits: past the server's edit rate
    so.game.status_source = [c = conn.get()] { return "SERVER " + c->where + ": " + c->world->status(); };
  } else if (saved) {
    so.source = saved;
    // Said saved only once committed (durable), not when queued: the source follows the batches' tickets.
    so.game.status_source = [b = saved, dir = o.world_dir.display()] {
      return std::string("WORLD ").append(dir).append(": ").append(b->save_status());
    };
  }
  so.game.overlay_wall_times = true;
  so.game.culling = *render::parse_cull_mode(o.culling);
  o.render.validate();
  so.game.render_path = o.render.render_path();
  so.game.shadows = o.render.shadow_mode();
  so.game.beam = !o.render.no_beam;
  so.game.creatures = !o.sky.no_creatures;
  auto session = play::PlaySession::open(h, so, reg);
  if (!session) throw RunError(session.error().to_string());
  play::Game& game = (*session)->game();
  // Sound (docs/ARCHITECTURE.md, Sound): the bank is synthesised now (about 0.2 s) and played through OpenAL Soft
  // when a device opens; else the silent mixer, and one line says audio is off and why.
  const audio::SoundBank sound_bank = audio::SoundBank::generate(h.seed);
  const std::unique_ptr<audio::Mixer> mixer = audio::open_mixer(sound_bank, audio::MixerOptions{!o.no_audio});
  play::MixerSoundSink sound_sink(*mixer);
  game.set_sound_sink(&sound_sink);
  std::printf("voxen play: %s\n", mixer->description().c_str());
  play::WindowInput input;
  if (!input.attach()) throw RunError("play: the window has no GLFW context");
  input.set_captured(true);
  const int hz = input.refresh_rate();
  play::FramePacer pacer(o.fps > 0 ? o.fps : (hz > 0 ? hz : 60));

  play::RecordingWriter writer;
  if (!o.record.empty()) {
    h.step = game.controls().frame_seconds;
    const std::string note = saved ? "recorded on the saved world " + o.world_dir.display() +
                                         "; replays run on the generated world, without its saved edits"
                                   : "";
    if (auto s = writer.open(o.record, h, note); !s.ok()) throw RunError(s.error().to_string());
  }
  const std::string what = conn ? "the world of " + conn->where
                           : imported ? std::string("imported world, no generator")
                                      : "seed " + std::to_string(h.seed) + " (" + h.generator + ")";
  std::printf("voxen play: %s, spawn %lld %lld %lld, render distance %d; Esc releases the mouse, close the window to quit\n",
              what.c_str(), static_cast<long long>(spawn->x),
              static_cast<long long>(spawn->y), static_cast<long long>(spawn->z), h.render_distance);

  std::optional<double> view_complete_ms;  // connected: from connecting to every drawn column drawn
  StdinChat stdin_chat;
  Stopwatch frame_clock;  // the measured time step
  bool first = true;
  render::Platform& platform = (*session)->platform();
  bool minimised = false;
  uint64_t drawn = 0, minimised_count = 0, gl_error_frames = 0;
  std::string first_gl_error;
  // Ctrl-C in the terminal (where a connected player types chat) or a kill ends play as closing the window does: the
  // summary, Leave to the server, a saved world's edits committed.
  std::signal(SIGINT, on_quit_signal);
  std::signal(SIGTERM, on_quit_signal);
  for (;;) {
    if (g_quit.load()) break;
    // Minimised, nothing is drawn: wait for the window's events (a restore among them) up to one frame period
    // instead of polling and pacing; the frame below still simulates and streams.
    if (!(minimised ? platform.wait_events(pacer.period_ms() / 1000.0) : platform.poll_events())) break;
    const uint64_t f = game.frame_number();
    if (o.frames > 0 && f >= o.frames) break;
    if (min_from >= 0) {
      if (static_cast<int64_t>(f) >= min_from && static_cast<int64_t>(f) < min_to) platform.override_shown_size(0, 0);
      else platform.clear_shown_size();
    }
    std::vector<play::InputEvent> events = input.take(f);
    // The frame's time step, measured and rounded to the microsecond, as an event (so replays simulate it too).
    double dt = frame_clock.lap_seconds();
    dt = first ? game.controls().frame_seconds : std::round(std::clamp(dt, 0.0, 0.1) * 1e6) / 1e6;
    first = false;
    if (dt != game.controls().frame_seconds) {
      play::InputEvent e;
      e.frame = f;
      e.kind = play::EventKind::kFrameTime;
      e.x = dt;
      events.insert(events.begin(), e);
    }
    for (const play::InputEvent& e : events) writer.append(e);
    if (conn) stdin_chat.poll(*conn->world);
    if (conn && !conn->world->sync(game))
      throw RunError("the server " + conn->where + " closed the connection: " + conn->client->closed_reason());
    const play::FrameReport rep = game.frame(events);
    if (conn && !view_complete_ms && game.streamer().view_complete())  // every drawn column in: the joiner's figure
      view_complete_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - conn->client->connected_at()).count();
    if (h.stream_live) writer.append_schedule(f, rep.stream.schedule);  // after the frame's events
    writer.end_frame();
    if (!rep.stream_error.empty()) throw RunError("the saved world: " + rep.stream_error);
    if (saved && (rep.edits_applied > 0 || f % 600 == 0)) {
      if (auto s = saved->commit(); !s.ok()) throw RunError("saving the world: " + s.error().to_string());
    }
    minimised = rep.minimised;
    drawn += rep.rendered ? 1 : 0;
    minimised_count += rep.minimised ? 1 : 0;
    if (rep.gl_error != 0 && gl_error_frames++ == 0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "GL error 0x%04x first at frame %llu", rep.gl_error, static_cast<unsigned long long>(f));
      first_gl_error = buf;
    }
    input.set_captured(game.controls().cursor_captured);
    if (rep.screenshot && rep.rendered) {
      const std::string path = "screenshot-" + std::to_string(rep.frame) + ".png";
      if (auto s = render::save_png(game.read_pixels(), path); !s.ok()) std::fprintf(stderr, "voxen play: %s\n", s.error().to_string().c_str());
      else std::printf("saved %s\n", path.c_str());
    }
    if (!minimised) pacer.wait();
  }
  std::printf("played %llu frames: %llu drawn, %llu minimised (not drawn); %s\n",
              static_cast<unsigned long long>(game.frame_number()), static_cast<unsigned long long>(drawn),
              static_cast<unsigned long long>(minimised_count),
              gl_error_frames ? (first_gl_error + " (" + std::to_string(gl_error_frames) + " frames)").c_str() : "no GL error");
  if (!o.final_screenshot.empty()) {
    if (auto s = render::save_png(game.read_pixels(), o.final_screenshot); !s.ok()) throw RunError(s.error().to_string());
    std::printf("saved %s\n", o.final_screenshot.c_str());
  }
  if (writer.is_open()) {
    if (auto s = writer.finish(game.frame_number()); !s.ok()) throw RunError(s.error().to_string());
    std::printf("recorded %llu frames to %s (voxen replay %s)\n", static_cast<unsigned long long>(game.frame_number()),
                o.record.c_str(), o.record.c_str());
  }
  if (conn) {
    const play::RemoteStats& rs = conn->world->stats();
    const net::ClientCounters& cc = conn->client->counters();
    std::printf("on %s: %llu edits sent (%llu accepted, %llu refused and rolled back), %llu columns arrived; %s\n",
                conn->where.c_str(), static_cast<unsigned long long>(rs.edits_sent),
                static_cast<unsigned long long>(cc.edits_accepted), static_cast<unsigned long long>(cc.edits_refused),
                static_cast<unsigned long long>(rs.columns_arrived),
                view_complete_ms ? ("the view was complete " + std::to_string(static_cast<long long>(std::lround(*view_complete_ms))) +
                                    " ms after connecting (render distance " + std::to_string(h.render_distance) + ")").c_str()
                                 : "the view never completed");
    conn->client->leave(std::chrono::seconds(1));  // Leave and the last edits written before the process ends
  }
  session->reset();  // the game (its streamer and GL objects) before the saved world closes
  cw.close();
  if (saved) std::printf("saved the world in %s\n", o.world_dir.display().c_str());
  return 0;
}

}  // namespace

void add_play_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<PlayOptions>();
  CLI::App* cmd = app.add_subcommand("play", "walk, fly, dig and build in a window");
  o->world.add_to(*cmd);
  o->world_dir.add_to(*cmd);
  cmd->add_option("--render-distance", o->render_distance, "columns drawn around the player, 1..64 (default 8)")->check(CLI::Range(1, 64));
  add_culling_option(*cmd, o->culling);
  add_render_options(*cmd, o->render);
  add_sky_options(*cmd, o->sky, "20");
  cmd->add_option("--far-distance", o->far_distance,
                  "blocks of far view (LOD) beyond the render distance, 0..65536; 0 or at most the render distance: off (default 4096)")
      ->check(finite_range(0.0, 65536.0));
  cmd->add_option("--tick-rate", o->tick_rate,
                  "world simulation ticks a second (fluids flow, sand falls, smoke rises), 0..1000; 0: off (default 20)")
      ->check(finite_range(0.0, 1000.0));
  add_frame_size_option(*cmd, o->size, "window size WxH (default 1280x720)");
  cmd->add_option("--fps", o->fps, "frame rate to pace to (default: the monitor's)");
  cmd->add_option("--fov", o->fov, "vertical field of view in degrees (default 70)");
  cmd->add_option("--record", o->record, "write every input event to this file (voxen replay plays it back)");
  add_threads_option(*cmd, o->threads, "worker threads (default: cores - 1)");
  add_int_pair_option(*cmd, "--spawn", o->spawn, "X,Z near which to start (default 0,0)");
  cmd->add_option("--frames", o->frames, "quit after this many frames (default 0: when the window is closed)");
  cmd->add_option("--final-screenshot", o->final_screenshot, "write the last frame as this PNG on exit");
  cmd->add_option("--stream", o->stream,
                  "live (default: follows what the workers finish; --record keeps each frame's schedule) or "
                  "deterministic (fixed jobs per frame)")
      ->check(CLI::IsMember({"live", "deterministic"}));
  cmd->add_option("--connect", o->connect, "play on a server (voxen serve): HOST:PORT; its world, edits shared");
  cmd->add_option("--name", o->name, "your name on the server (with --connect; 1..32 of A-Z a-z 0-9 _ -)");
  cmd->add_option("--minimised-frames", o->minimised_frames,
                  "A,B: frames A to B - 1 run as if the window were minimised (0 x 0; a test hook)");
  cmd->add_flag("--no-audio", o->no_audio, "no sound, even where an audio device exists (VOXEN_AUDIO=off does the same)");
  cmd->callback([o, &run] { run = [o] { return run_play(*o); }; });
}

}  // namespace voxen::app
