#include "voxen/core/job_pool.h"

#include <algorithm>

namespace voxen {

int JobPool::default_thread_count() {
  const unsigned hw = std::thread::hardware_concurrency();
  return std::max(1, static_cast<int>(hw) - 1);
}

JobPool::JobPool(int threads) {
  if (threads <= 0) threads = default_thread_count();
  m_workers.reserve(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i) m_workers.emplace_back([this] { worker_loop(); });
}

JobPool::~JobPool() {
  wait_idle();
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_work_cv.notify_all();
  for (auto& t : m_workers) t.join();
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

}  // namespace voxen
