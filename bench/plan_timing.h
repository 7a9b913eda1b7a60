// Whole-graph timing shared by the benchmarks that compare plans (float
// against 8-bit variants): the plans take turns run by run, so a loaded
// machine's drifting speed reaches each of them alike, and the clock is
// wall time or, on a loaded machine, the process's CPU time.
#pragma once

#include <algorithm>
#include <chrono>
#include <ctime>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/tensor.h"

namespace gds::bench {

enum class TimingClock { kWall, kCpu };

// kCpu: the process's CPU time, which leaves out the time other processes
// held the cores (at 1 thread the latency an idle machine would show, cache
// effects aside; at 2 threads both threads' work added up).
inline double nowMs(TimingClock clock) {
  if (clock == TimingClock::kWall)
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

inline const char* clockName(TimingClock clock) { return clock == TimingClock::kCpu ? "process CPU" : "wall"; }

// The median of each plan's `runs` runs after 3 warm-ups, in ms, the plans
// taking turns; -1 (and the message in (*errors)[p]) for a plan that fails.
inline std::vector<double> alternatingMedianMs(const std::vector<engine::Plan*>& plans, const engine::Tensor& input,
                                               int runs, TimingClock clock, std::vector<std::string>* errors) {
  std::vector<double> result(plans.size(), -1);
  std::vector<std::vector<double>> ms(plans.size());
  std::vector<bool> ok(plans.size(), true);
  errors->assign(plans.size(), "");
  for (std::size_t p = 0; p < plans.size(); ++p)
    for (int i = 0; i < 3 && ok[p]; ++i) {
      auto out = plans[p]->run({input});
      if (!out.ok()) {
        (*errors)[p] = out.error();
        ok[p] = false;
      }
    }
  for (int i = 0; i < runs; ++i)
    for (std::size_t p = 0; p < plans.size(); ++p) {
      if (!ok[p]) continue;
      const double t0 = nowMs(clock);
      (void)plans[p]->run({input});
      ms[p].push_back(nowMs(clock) - t0);
    }
  for (std::size_t p = 0; p < plans.size(); ++p) {
    if (!ok[p] || ms[p].empty()) continue;
    std::sort(ms[p].begin(), ms[p].end());
    result[p] = ms[p][ms[p].size() / 2];
  }
  return result;
}

}  // namespace gds::bench
