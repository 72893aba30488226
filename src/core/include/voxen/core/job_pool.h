// A small job system over std::thread with a priority queue: the job with the lowest priority value runs
// first (callers use distance from the viewer, so work nearest the viewer goes first). Ties run in submission
// order, so a pool's schedule is reproducible given the same submissions.
//
// Threads: submit() and wait_idle() may be called from any thread; jobs run on the pool's workers. Jobs must not
// touch shared state without their own synchronisation; voxen's jobs are pure functions of their inputs that
// return results for the main thread to integrate, which is what keeps parallel output byte-identical to
// single-threaded output.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace voxen {

class JobPool {
 public:
  /// Starts one worker thread running `body` and returns it; throws std::system_error when the system cannot make
  /// the thread (what std::thread's constructor does, e.g. EAGAIN past the process's thread limit).
  using ThreadStarter = std::function<std::thread(std::function<void()> body)>;

  /// Starts `threads` workers (0 or less means default_thread_count()) with std::thread. If one cannot be started,
  /// the ones already running are stopped and joined and std::system_error is thrown, its what() reading
  /// "cannot start N worker threads: <reason>" (the CLI prints it and exits 1); no thread is left behind.
  explicit JobPool(int threads = 0);
  /// As above, starting each worker through `start` (tests inject failures with it).
  JobPool(int threads, const ThreadStarter& start);
  /// Waits for queued jobs to finish, then joins the workers.
  ~JobPool();
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;

  /// Queues a job. Lower priority runs sooner.
  void submit(double priority, std::function<void()> job);
  /// Blocks until the queue is empty and no job is running.
  void wait_idle();
  /// Number of jobs queued but not started.
  size_t queued() const;
  /// Number of worker threads.
  int thread_count() const { return static_cast<int>(m_workers.size()); }

  /// hardware cores - 1, at least 1.
  static int default_thread_count();

 private:
  struct Item {
    double priority;
    uint64_t order;
    std::function<void()> job;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const {
      return a.priority != b.priority ? a.priority > b.priority : a.order > b.order;
    }
  };
  void worker_loop();
  /// Tells the workers to finish the queue and return, then joins them.
  void stop_and_join();

  mutable std::mutex m_mutex;
  std::condition_variable m_work_cv;
  std::condition_variable m_idle_cv;
  std::priority_queue<Item, std::vector<Item>, Later> m_queue;
  std::vector<std::thread> m_workers;
  uint64_t m_next_order = 0;
  int m_running = 0;
  bool m_stop = false;
};

/// The calling thread and those of a pool's workers that come free as one team for a few parallel steps in a row
/// (a frame's culling): each worker joins once and waits spinning between steps, so a step does not pay for waking
/// a sleeping thread (tens of microseconds, the size of a step). The helpers are queued before every other job,
/// but the caller never waits for one to start: it takes every task no helper has taken, so a step costs at most
/// a single thread's time. One owner thread calls run(); tasks must not throw and must write disjoint state (the
/// split is the caller's: the result may not depend on which thread ran what).
class TaskTeam {
 public:
  /// Queues up to pool->thread_count() helpers (null pool: the caller alone).
  explicit TaskTeam(JobPool* pool);
  /// Lets the helpers go (a helper that had not started yet returns at once).
  ~TaskTeam();
  TaskTeam(const TaskTeam&) = delete;
  TaskTeam& operator=(const TaskTeam&) = delete;

  /// Runs task(0) .. task(count - 1), each exactly once, and returns when all have run.
  void run(int count, const std::function<void(int)>& task);

 private:
  struct Shared;
  std::shared_ptr<Shared> m_shared;  // shared with the helpers, which may outlive the team
};

}  // namespace voxen
