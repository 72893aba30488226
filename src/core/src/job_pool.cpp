#include "voxen/core/job_pool.h"

#include <algorithm>
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

}  // namespace voxen
