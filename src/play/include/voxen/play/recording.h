// Input recordings: a header saying which world and view the events were made in, then the events with their
// frame numbers (format below and in docs/ARCHITECTURE.md, Play). `voxen play --record FILE` writes one as it goes
// (flushed every frame, so a crash leaves a replayable file without the closing `end` line); `voxen replay FILE`
// reads one and plays it back through the same InputHandler and frame loop; the fuzzer keeps one on a failure.
//
// Text, one record per line, '#' starts a comment:
//   voxen-input-recording 1                  format and version (first line)
//   seed 42                                  world seed (decimal uint64)
//   generator default                        generator name
//   render_distance 6                        columns
//   size 320x180                             frame size in pixels
//   fov 70                                   vertical field of view, degrees
//   step 0.016666666666666666                default simulated seconds per frame (the physics takes fixed
//                                            kPhysicsStep steps within them, player.h)
//   stream LAG GEN MESH                      deterministic streaming: frames from a job's submission to its
//                                            integration, generation and mesh jobs submitted per frame at most
//   stream live                              (version 2) live streaming: each frame's job schedule is in the
//                                            recording's `jobs` lines (stream/schedule.h); a frame without one
//                                            integrated and submitted nothing
//   far_distance D                           (version 3) the far view (LOD) to D blocks (0..65536; absent: 0, off;
//                                            on only beyond the render distance, stream/far_view.h); above 0
//                                            needs version 4: from it the far view's results include the real
//                                            columns' jobs (FarView::add_real_column), so a version-3 far view's
//                                            counts would replay a different far view and are refused
//   start BX BY BZ FX FY FZ YAW PITCH FLY    the player's feet: int64 block (|BX|, |BZ| <= 2^62) + fraction in
//                                            [0,1) per axis, look (degrees) and 1 when flying
//   <frame> <kind> <arguments>               an event (kinds and arguments below), frames non-decreasing, each
//                                            below kMaxRecordingFrames
//   <frame> jobs GEN MESH [P ...]            (version 2, `stream live` only; at most one per frame, after the
//                                            frame's events) the frame's streaming: GEN generation and MESH mesh
//                                            jobs submitted (each 0..kMaxJobsInFlight, stream/schedule.h),
//                                            the jobs at queue positions P (ascending, each below
//                                            kMaxJobsInFlight) integrated; a line has at most 4 +
//                                            kMaxJobsInFlight words; (version 3) it may end with `far N`:
//                                            the far view integrated its N oldest results (0..kMaxJobsInFlight)
//   end <frames>                             the number of frames the recording covers (last line), at most
//                                            kMaxRecordingFrames
// Event arguments: key_down/key_up KEY; button_down/button_up BUTTON; mouse DX DY; scroll DY; frame_time SECONDS;
// teleport X Y Z (finite; |X|, |Z| <= kMaxTeleportCoord); look YAW PITCH; set_fly 0|1; fly_speed BLOCKS_PER_S;
// blast X Y Z RADIUS (the centre as teleport's, RADIUS a whole number 1..kMaxBlastRadius). The key `b` and the
// `blast` event are newer than the version numbers: a build from before them refuses such a recording naming the
// line ("unknown key 'b'", "unknown event kind 'blast'").
// Numbers are written with 17 significant digits, so every double reads back bit for bit. A recording without live
// streaming is written as version 1 and one with live streaming but no far view as version 2, so older voxen
// builds read them; one with a far view is version 4.
// Each header field appears at most once. Errors name the file, the line and what is wrong, quoting at most
// kMaxQuotedToken characters of the offending text; nothing is half-read.
// Threads: plain functions; a RecordingWriter belongs to one thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/play/input.h"
#include "voxen/stream/schedule.h"

namespace voxen::play {

/// The newest recording format version this voxen reads and writes (it reads 1 to 4; 3 only without a far view).
inline constexpr int kRecordingVersion = 6;

/// Most frames a recording may cover: `end N` and every event's frame are below this (an event on frame
/// kMaxRecordingFrames - 1 at the latest). `voxen fuzz-play --frames` has the same cap.
inline constexpr uint64_t kMaxRecordingFrames = 10'000'000;
/// Largest |x| and |z| a `teleport` may name, in blocks: the world's reach (kWorldReach, 2^62), so the feet's
/// int64 block (and the few blocks physics moves it per frame) cannot overflow. y keeps its own, narrower bound
/// (the world's height, kMinY - 64 .. kMaxY + 256).
inline constexpr double kMaxTeleportCoord = static_cast<double>(kWorldReach);
/// Largest recording file read_recording reads, in bytes (1 GiB: ten million frames of ordinary play stay far
/// below); larger files, and anything that is not a regular file (a directory, /dev/zero, a FIFO), are refused
/// before reading.
inline constexpr uint64_t kMaxRecordingBytes = uint64_t{1} << 30;
/// Longest part of an offending token an error message quotes; longer tokens are cut with "...".
inline constexpr size_t kMaxQuotedToken = 80;

/// Where and how a recording starts.
struct RecordingHeader {
  uint64_t seed = 1;
  std::string generator = "default";
  int render_distance = 6;        // columns, 1..64
  int width = 320, height = 180;  // pixels, 16..8192
  double fov = 70.0;              // degrees, 10..150
  double step = 1.0 / 60.0;       // seconds per frame, (0, 1]
  int stream_lag = 1;             // streaming (stream::StreamConfig): lag_frames, 0..16
  int stream_gen = 6;             //   gen_jobs_per_frame, 1..1024
  int stream_mesh = 6;            //   mesh_jobs_per_frame, 1..1024
  bool stream_live = false;       // live streaming, its schedule recorded per frame (`stream live`; the three
                                  // deterministic fields above are then unused)
  double far_distance = 0;        // the far view, blocks (0..65536; 0 off); version 3
  double tick_rate = 20.0;        // the world simulation's ticks per second (0..1000; 0 off); version 5: a recording
                                  // of an older version had no simulation and replays with 0
  double time_of_day = 10.0;      // `sky HOURS DAY_MINUTES CLOUDS` (version 6): the time of day at the start, 0..24,
  double day_minutes = 0.0;       //   minutes of simulation time a day lasts (0..100000; 0: it stays put),
  bool clouds = true;             //   the cloud layer (1 on, 0 off); older recordings: 10, 0, 1
  BlockPos start_block;           // the player's feet: integer part (world blocks)
  glm::dvec3 start_frac{0.5, 0.0, 0.5};  // fractional part, each in [0, 1)
  double start_yaw = 0.0, start_pitch = 0.0;
  bool start_flying = false;
  friend bool operator==(const RecordingHeader&, const RecordingHeader&) = default;
};

/// A whole recording.
struct Recording {
  RecordingHeader header;
  std::vector<InputEvent> events;  // frame order
  std::map<uint64_t, stream::FrameSchedule> schedules;  // by frame, `stream live` only: the frames' `jobs` lines
  uint64_t frames = 0;             // frames covered: from `end`, else (no `end`: cut short) last event frame + 1
  bool complete = false;           // the file had its `end` line
};

/// One event as its recording line (without the newline), e.g. "12 key_down w".
std::string format_event(const InputEvent& e);
/// A frame's schedule as its `jobs` line (without the newline), e.g. "12 jobs 3 1 0 2".
std::string format_schedule(uint64_t frame, const stream::FrameSchedule& schedule);
/// The header lines (with newlines).
std::string format_header(const RecordingHeader& h);
/// The whole file text of a recording (header, events and each frame's `jobs` line after its events, `end`).
std::string format_recording(const Recording& r);

/// Parses recording text; `path` names the file in errors ("FILE:LINE: what").
Result<Recording> parse_recording(std::string_view text, const std::string& path);
/// Reads and parses a recording file. Errors (naming the file): missing or unreadable, not a regular file, larger
/// than kMaxRecordingBytes; then as parse_recording.
Result<Recording> read_recording(const std::string& path);
/// Writes a whole recording file.
Status write_recording(const std::string& path, const Recording& r);

/// Writes a recording as the frames happen: the header at open(), each event at once, flushed at the end of every
/// frame (end_frame), and the `end` line at finish(). A file cut short by a crash keeps every flushed frame.
class RecordingWriter {
 public:
  RecordingWriter() = default;
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  /// Creates (truncates) the file and writes the header, then `note` as a comment line if not empty. Errors name
  /// the file.
  Status open(const std::string& path, const RecordingHeader& header, const std::string& note = "");
  bool is_open() const { return m_file != nullptr; }
  /// Appends one event line.
  void append(const InputEvent& e);
  /// Appends a frame's `jobs` line (live streaming; nothing when the schedule is empty). Call after the frame's
  /// events.
  void append_schedule(uint64_t frame, const stream::FrameSchedule& schedule);
  /// Flushes what the frame wrote to the OS.
  void end_frame();
  /// Writes `end <frames>` and closes. Errors name the file (a full disk, say).
  Status finish(uint64_t frames);

 private:
  std::FILE* m_file = nullptr;
  std::string m_path;
  bool m_failed = false;
};

}  // namespace voxen::play
