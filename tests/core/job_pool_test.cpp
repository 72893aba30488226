// The job pool runs every job, lowest priority value first on one worker, ties in submission order.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "voxen/core/job_pool.h"

namespace voxen {
namespace {

TEST(JobPool, RunsEveryJob) {
  JobPool pool(2);
  std::atomic<int> sum{0};
  for (int i = 1; i <= 1000; ++i) pool.submit(i % 7, [&sum, i] { sum += i; });
  pool.wait_idle();
  EXPECT_EQ(sum.load(), 1000 * 1001 / 2);
  EXPECT_EQ(pool.queued(), 0u);
}

TEST(JobPool, LowestPriorityFirstOnOneWorker) {
  JobPool pool(1);
  std::mutex m;
  std::vector<int> order;
  // Hold the single worker so every later job is queued before any runs.
  std::atomic<bool> release{false};
  pool.submit(-1, [&] { while (!release.load()) std::this_thread::yield(); });
  while (pool.queued() != 0) std::this_thread::yield();
  const int prio[] = {5, 1, 3, 1, 0, 9};
  for (int i = 0; i < 6; ++i)
    pool.submit(prio[i], [&, i] {
      std::lock_guard lock(m);
      order.push_back(i);
    });
  release = true;
  pool.wait_idle();
  EXPECT_EQ(order, (std::vector<int>{4, 1, 3, 2, 0, 5}));
}

TEST(JobPool, DefaultThreadCountIsAtLeastOne) {
  EXPECT_GE(JobPool::default_thread_count(), 1);
  JobPool pool(0);
  EXPECT_EQ(pool.thread_count(), JobPool::default_thread_count());
}

}  // namespace
}  // namespace voxen
