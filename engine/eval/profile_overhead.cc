#include "engine/eval/profile_overhead.h"

#include <cstdio>

namespace gds::engine {

ProfileAccounting accountProfile(const BenchmarkResult& r) {
  ProfileAccounting a;
  a.profiled_runs = static_cast<int>(r.stats.numRuns());
  if (a.profiled_runs == 0) return a;
  // Each node's average over the profiled runs (loop bodies: all their calls).
  for (const auto& [name, d] : r.stats.details()) a.node_sum_ms += d.rel_end_us.avg() / 1000.0;
  a.profiled_run_ms = r.stats.runTotalUs().avg() / 1000.0;
  a.median_ms = r.medianMs();
  return a;
}

std::string formatProfileAccounting(const ProfileAccounting& a) {
  if (a.profiled_runs == 0) return {};
  char buf[512];
  int n = std::snprintf(buf, sizeof(buf), "Per-node times add up to %.3f ms per run (%d profiled run%s of %.3f ms on average)",
                        a.node_sum_ms, a.profiled_runs, a.profiled_runs == 1 ? "" : "s", a.profiled_run_ms);
  std::string out(buf, static_cast<size_t>(n));
  if (a.median_ms <= 0) return out + ".";
  const double overhead = a.overheadMs();
  if (overhead > 0) {
    n = std::snprintf(buf, sizeof(buf),
                      "; the median latency without per-node timing is %.3f ms: timing each node adds %.3f ms (%.0f%%) "
                      "to a run, which the per-node times include.",
                      a.median_ms, overhead, 100.0 * overhead / a.median_ms);
  } else {
    n = std::snprintf(buf, sizeof(buf), "; the median latency without per-node timing is %.3f ms.", a.median_ms);
  }
  return out + std::string(buf, static_cast<size_t>(n));
}

}  // namespace gds::engine
