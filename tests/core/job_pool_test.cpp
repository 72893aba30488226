// The job pool runs every job, lowest priority value first on one worker, ties in submission order. A worker the
// system cannot start makes the constructor stop and join the started ones and throw (it used to leave joinable
// threads behind, so `--threads 100000` ended in std::terminate).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <thread>
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

TEST(JobPool, AWorkerThatCannotStartStopsAndJoinsTheStartedOnesAndThrows) {
  std::atomic<int> started{0}, finished{0};
  // The fourth thread fails the way std::thread does past the process's thread limit.
  auto start = [&](std::function<void()> body) {
    if (started.load() == 3) throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), "thread");
    ++started;
    return std::thread([&finished, body = std::move(body)] {
      body();
      ++finished;
    });
  };
  std::string what;
  bool resource_error = false;
  try {
    JobPool pool(6, start);
  } catch (const std::system_error& e) {
    what = e.what();
    resource_error = e.code() == std::errc::resource_unavailable_try_again;
  }
  EXPECT_EQ(what.rfind("cannot start 6 worker threads: ", 0), 0u) << what;
  EXPECT_TRUE(resource_error);
  EXPECT_EQ(started.load(), 3);
  EXPECT_EQ(finished.load(), 3);  // every started worker returned and was joined before the throw
}

TEST(JobPool, RunsItsJobsOnTheThreadsItsStarterMade) {
  std::mutex m;
  std::set<std::thread::id> made, ran;
  JobPool pool(3, [&](std::function<void()> body) {
    std::thread t(std::move(body));
    std::lock_guard lock(m);
    made.insert(t.get_id());
    return t;
  });
  EXPECT_EQ(pool.thread_count(), 3);
  for (int i = 0; i < 64; ++i)
    pool.submit(i, [&] {
      std::lock_guard lock(m);
      ran.insert(std::this_thread::get_id());
    });
  pool.wait_idle();
  std::lock_guard lock(m);
  EXPECT_EQ(made.size(), 3u);
  EXPECT_FALSE(ran.empty());
  for (const auto& id : ran) EXPECT_TRUE(made.count(id));
}

// A team runs each task of each step exactly once, whether its helpers came, come late or never come, and the
// caller never waits for a helper to start (a worker held by another job for the whole team's life).
TEST(TaskTeam, RunsEveryTaskOfEveryStepOnceWithAndWithoutHelpers) {
  JobPool pool(2);
  for (int variant = 0; variant < 3; ++variant) {
    std::atomic<bool> release{false};
    std::atomic<int> busy{0};
    if (variant == 2) {  // both workers busy until the team is gone: the caller runs everything
      for (int w = 0; w < 2; ++w)
        pool.submit(0, [&release, &busy] {
          busy.fetch_add(1);
          while (!release.load()) std::this_thread::yield();
        });
      while (busy.load() < 2) std::this_thread::yield();
    }
    std::set<std::thread::id> threads;
    std::mutex m;
    {
      TaskTeam team(variant == 0 ? nullptr : &pool);
      for (int step = 0; step < 200; ++step) {
        const int count = 1 + step % 9;
        std::vector<std::atomic<int>> runs(static_cast<size_t>(count));
        team.run(count, [&](int i) {
          runs[static_cast<size_t>(i)].fetch_add(1);
          std::lock_guard lock(m);
          threads.insert(std::this_thread::get_id());
        });
        for (int i = 0; i < count; ++i) ASSERT_EQ(runs[static_cast<size_t>(i)].load(), 1) << "variant " << variant << " step " << step << " task " << i;
      }
    }
    release = true;
    pool.wait_idle();
    if (variant != 1) EXPECT_EQ(threads.size(), 1u) << "variant " << variant << ": only the caller";
  }
}

// Teams one after another as frames make them (five steps each), with tasks long enough for the helper to join: no
// task runs twice or outside 0 .. count - 1. A step's close mark (index 0xFFFFFFFF) read as a signed int let a
// helper that came late run task -1: red before the unsigned compare (heap corruption in the culling bench).
TEST(TaskTeam, ManyTeamsInARowRunEachTaskOnceAndNoOther) {
  JobPool pool(1);
  int helped = 0;
  for (int frame = 0; frame < 3000; ++frame) {
    TaskTeam team(&pool);
    for (int step = 0; step < 5; ++step) {
      const int count = 1 + (frame + step) % 12;
      // Slot i + 1 counts task i; slots 0 and count + 1 catch a task index out of range.
      std::vector<std::atomic<int>> runs(static_cast<size_t>(count + 2));
      std::atomic<int> on_helper{0};
      const auto caller = std::this_thread::get_id();
      team.run(count, [&](int i) {
        const size_t slot = static_cast<size_t>(std::clamp(i + 1, 0, count + 1));
        runs[slot].fetch_add(1);
        if (std::this_thread::get_id() != caller) on_helper.fetch_add(1);
        volatile int spin = 0;
        for (int k = 0; k < 200; ++k) spin = spin + k;
      });
      ASSERT_EQ(runs.front().load(), 0) << "frame " << frame << " step " << step << ": a task below 0 ran";
      ASSERT_EQ(runs.back().load(), 0) << "frame " << frame << " step " << step << ": a task past the count ran";
      for (int i = 0; i < count; ++i)
        ASSERT_EQ(runs[static_cast<size_t>(i + 1)].load(), 1) << "frame " << frame << " step " << step << " task " << i;
      helped += on_helper.load();
    }
  }
  pool.wait_idle();
  std::printf("tasks run by the helper: %d\n", helped);
}

}  // namespace
}  // namespace voxen
