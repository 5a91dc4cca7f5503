#pragma once
// How the judge times the work a scheduler does per call (the runtime
// planner's plan, FAST's decomposition): the median CPU time of the calling
// thread over timed calls after a warm-up. CPU time, not wall clock: in a
// real stack every rank plans on its own core, so time this thread spent
// waiting for the CPU on a shared (loaded) machine is no cost of the plan.
// Cache and memory-bandwidth contention from other processes still count.

#include <ctime>

#include <algorithm>
#include <vector>

namespace vp::sim {

// The calling thread's CPU time, microseconds (POSIX CLOCK_THREAD_CPUTIME_ID).
inline double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// Median thread CPU time, microseconds, of `calls` (>= 1) calls of f after
// one warm-up call (the warm-up sizes scratch and builds lazy tables).
template <class F>
double median_cpu_us(int calls, F&& f) {
  f();
  std::vector<double> us;
  for (int i = 0; i < calls; ++i) {
    const double start = thread_cpu_us();
    f();
    us.push_back(thread_cpu_us() - start);
  }
  std::sort(us.begin(), us.end());
  const std::size_t n = us.size();
  return n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
}

}  // namespace vp::sim
