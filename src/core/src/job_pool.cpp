#include "voxen/core/job_pool.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <string>
#include <system_error>

namespace voxen {

int JobPool::default_thread_count() {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::max(1, static_cast<int>(hw) - 1);
}

JobPool::JobPool(int threads)
    : JobPool(threads, [](std::function<void()> body) { return std::thread(std::move(body)); }) {}

JobPool::JobPool(int threads, const ThreadStarter& start) {
  if (threads <= 0) threads = default_thread_count();
  m_workers.reserve(static_cast<size_t>(threads));
  try {
    for (int i = 0; i < threads; ++i) m_workers.push_back(start([this] { worker_loop(); }));
  } catch (const std::system_error& e) {
    // A constructor that throws runs no destructor: joinable std::threads left in m_workers would call
    // std::terminate when the vector dies, so the started workers are stopped and joined here.
    stop_and_join();
    throw std::system_error(e.code(), "cannot start " + std::to_string(threads) + " worker threads");
  } catch (...) {
    stop_and_join();
    throw;
  }
}

JobPool::~JobPool() {
  wait_idle();
  stop_and_join();
}

void JobPool::stop_and_join() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_work_cv.notify_all();
  for (auto& t : m_workers)
    if (t.joinable()) t.join();
  m_workers.clear();
}

void JobPool::submit(double priority, std::function<void()> job) {
  {
    std::lock_guard lock(m_mutex);
    m_queue.push(Item{priority, m_next_order++, std::move(job)});
  }
  m_work_cv.notify_one();
}

void JobPool::wait_idle() {
  std::unique_lock lock(m_mutex);
  m_idle_cv.wait(lock, [this] { return m_queue.empty() && m_running == 0; });
}

size_t JobPool::queued() const {
  std::lock_guard lock(m_mutex);
  return m_queue.size();
}

void JobPool::worker_loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(m_mutex);
      m_work_cv.wait(lock, [this] { return m_stop || !m_queue.empty(); });
      if (m_queue.empty()) return;  // m_stop and nothing left
      // priority_queue::top is const; the job is moved out through a const_cast of the owned element, which is
      // popped immediately after (the standard idiom for move-only payloads in std::priority_queue).
      job = std::move(const_cast<Item&>(m_queue.top()).job);
      m_queue.pop();
      ++m_running;
    }
    job();
    {
      std::lock_guard lock(m_mutex);
      --m_running;
      if (m_queue.empty() && m_running == 0) m_idle_cv.notify_all();
    }
  }
}

// A step's claims are one word: the step's number (high 32 bits) and the next task (low 32 bits), so a helper still
// claiming in a finished step can never take a task of the next one. A helper reads the step's count and task
// before it claims; run() closes the last step (index 0xFFFFFFFF) before it writes them, so a claim that succeeds
// was made against the count and task it read.
struct TaskTeam::Shared {
  std::atomic<uint64_t> claim{0};
  std::atomic<int> count{0}, done{0};
  std::atomic<const std::function<void(int)>*> task{nullptr};
  std::atomic<bool> closed{false};

  // Takes the tasks of step `step` until none is left or the step is over.
  void work(uint32_t step) {
    const uint64_t n = static_cast<uint64_t>(count.load());
    const std::function<void(int)>* fn = task.load();
    uint64_t c = claim.load();
    for (;;) {
      // Unsigned: the close mark 0xFFFFFFFF is past every count (as an int it was -1, and a late helper ran task -1).
      if (static_cast<uint32_t>(c >> 32) != step || (c & 0xFFFFFFFFu) >= n) return;
      if (!claim.compare_exchange_weak(c, c + 1)) continue;
      (*fn)(static_cast<int>(c & 0xFFFFFFFFu));
      done.fetch_add(1);
      c = claim.load();
    }
  }
  void help() {
    uint32_t seen = 0;
    while (!closed.load()) {
      const uint32_t step = static_cast<uint32_t>(claim.load() >> 32);
      if (step != seen) {
        seen = step;
        work(step);
      } else {
        std::this_thread::yield();
      }
    }
  }
};

TaskTeam::TaskTeam(JobPool* pool) : m_shared(std::make_shared<Shared>()) {
  if (pool == nullptr) return;
  for (int h = 0; h < pool->thread_count(); ++h)
    pool->submit(std::numeric_limits<double>::lowest(), [shared = m_shared] { shared->help(); });
}

TaskTeam::~TaskTeam() { m_shared->closed.store(true); }

void TaskTeam::run(int count, const std::function<void(int)>& task) {
  if (count <= 0) return;
  Shared& s = *m_shared;
  const uint32_t last = static_cast<uint32_t>(s.claim.load() >> 32), step = last + 1;
  // The last step closed first: a helper that reads this step's count while the claim word still names the last
  // step must find no task left to claim there.
  s.claim.store((static_cast<uint64_t>(last) << 32) | 0xFFFFFFFFu);
  s.count.store(count);
  s.task.store(&task);
  s.done.store(0);
  s.claim.store(static_cast<uint64_t>(step) << 32);  // publishes the step
  s.work(step);
  while (s.done.load() < count) std::this_thread::yield();
}

}  // namespace voxen
