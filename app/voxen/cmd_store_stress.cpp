// voxen store-stress (hidden): the child process of the crash test. Opens (or creates) --world, loads the stress
// area (store/stress.h), and applies the seeded stream of edit batches from --start on, one commit per batch. After
// each batch is committed (in the WAL, through write(2)) it writes "committed <b>\n" to --report-fd; after each
// batch is handed to the writer, "submitted <b>\n". With --batches 0 it runs until killed; otherwise it flushes,
// closes and writes "done\n". Lines are written with one write(2) each, so a kill never leaves half a line.
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <mutex>
#include <string>

#include "cli_util.h"
#include "commands.h"
#include "voxen/store/stress.h"
#include "world_open.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct StressOptions {
  WorldFlags world;
  WorldDirFlag world_dir;
  uint64_t start = 0;
  uint64_t batches = 0;
  int report_fd = 1;
};

void report(int fd, const std::string& line) {
  const std::string s = line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(fd, s.data(), s.size());
}

int run_store_stress(const StressOptions& o) {
  if (!o.world_dir.given()) throw UsageError("--world", "store-stress needs --world DIR");
  const BlockRegistry reg = load_registry();
  CommandWorld cw(o.world_dir, o.world, reg);
  store::WorldSession& s = cw.saved()->session();
  cw.load(store::stress_columns(), nullptr, 0, 0);

  // Batches waiting for their ticket: (ticket, batch). A batch that changed nothing rides on the previous ticket.
  std::mutex mu;
  std::deque<std::pair<uint64_t, uint64_t>> waiting;
  auto drain = [&](uint64_t committed) {  // under mu
    while (!waiting.empty() && waiting.front().first <= committed) {
      report(o.report_fd, "committed " + std::to_string(waiting.front().second));
      waiting.pop_front();
    }
  };
  s.set_commit_listener([&](uint64_t ticket) {
    std::lock_guard lock(mu);
    drain(ticket);
  });
  report(o.report_fd, "ready " + std::to_string(o.start));
  uint64_t last_ticket = 0;
  for (uint64_t b = o.start; o.batches == 0 || b < o.start + o.batches; ++b) {
    for (const auto& e : store::stress_batch(cw.seed(), b, reg))
      if (auto edit = cw.world().make_edit(e.pos, e.cell); !edit || !cw.apply(*edit))
        throw RunError("stress edit outside the loaded area");
    auto t = s.commit();
    if (!t) throw RunError(t.error().to_string());
    {
      std::lock_guard lock(mu);
      if (*t) last_ticket = *t;
      waiting.emplace_back(last_ticket, b);
      drain(s.committed());  // the writer may have committed it before it was queued here
    }
    report(o.report_fd, "submitted " + std::to_string(b));
  }
  cw.close();
  report(o.report_fd, "done");
  return 0;
}

}  // namespace

void add_store_stress_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<StressOptions>();
  CLI::App* cmd = app.add_subcommand("store-stress", "crash-test child: apply a seeded stream of edit batches to --world");
  cmd->group("");  // hidden from --help: a test tool
  o->world.add_to(*cmd);
  o->world_dir.add_to(*cmd);
  cmd->add_option("--start", o->start, "first batch of the stream");
  cmd->add_option("--batches", o->batches, "number of batches (0: until killed)");
  cmd->add_option("--report-fd", o->report_fd, "file descriptor for 'committed <b>' lines (default stdout)");
  cmd->callback([o, &run] { run = [o] { return run_store_stress(*o); }; });
}

}  // namespace voxen::app
