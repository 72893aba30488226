// One frame's job schedule in the incremental mode (stream::ColumnStreamer::update): which of the jobs in flight the
// frame integrated and how many it submitted. Live streaming decides these from what the workers have finished
// and from its budgets, so they differ from run to run; `voxen play` records them (play/recording.h, `jobs` lines)
// and a replay hands each frame's schedule back to update(), which then does exactly the same: a live session
// replays to the same world and pixels on any machine and pool size.
// Which jobs are submitted follows from the counts: the candidates are ranked by priority every frame (a function
// of the world, the eye and the columns' states), and update() takes the best `gen` generation and best `mesh`
// mesh candidates, interleaved by priority (live mode's order).
#pragma once

#include <cstdint>
#include <vector>

namespace voxen::stream {

/// Most jobs live mode keeps submitted and not yet integrated: 64 per worker (the adaptive depth's ceiling) for the
/// most workers a pool may have (256, the CLI's --threads range). A replayed schedule that would hold more, or
/// names more jobs in one frame, has diverged (or is hostile): refused rather than let memory grow with the frames.
inline constexpr uint32_t kMaxJobsInFlight = 64 * 256;

struct FrameSchedule {
  /// The jobs integrated, in order: their positions (0 = oldest) in the queue of jobs submitted and not yet
  /// integrated as it stood when the frame began, ascending.
  std::vector<uint32_t> integrated;
  uint32_t gen = 0;   // generation jobs submitted
  uint32_t mesh = 0;  // mesh jobs submitted
  /// Far-view nodes integrated (FarView::update: the oldest this many results, in submission order); its requests
  /// follow from the world, the eye and the nodes' states, like the candidates above.
  uint32_t far = 0;
  bool empty() const { return integrated.empty() && gen == 0 && mesh == 0 && far == 0; }
  friend bool operator==(const FrameSchedule&, const FrameSchedule&) = default;
};

}  // namespace voxen::stream
