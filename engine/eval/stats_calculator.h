// Per-node statistics over benchmark runs, printed as TensorFlow's
// StatsCalculator does (tensorflow/core/util/stats_calculator.cc): Run Order,
// Top by Computation Time, Top by Memory Use, Summary by node type, and the
// Timings/Memory summary lines; text (tab separated) or CSV. The same data is
// available structured for JSON and the application's tables.
//
// Two additions, both after TensorFlow's columns so its layout stays: the
// summary line counts the graph's nodes as TensorFlow 1.x's StatSummarizer
// did ("N nodes defined M nodes observed") when the count is given, and a
// node that stands for several of the graph's ops (a fused layer) shows
// them in a last column, "[Fused ops]" (Conv2D+BiasAdd+Relu6).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gds::engine {

// Running statistic with the output format of TensorFlow's Stat<int64_t>.
class Stat {
 public:
  void update(std::int64_t v);
  bool empty() const { return count_ == 0; }
  std::int64_t count() const { return count_; }
  std::int64_t first() const { return first_; }
  std::int64_t newest() const { return newest_; }
  std::int64_t min() const { return min_; }
  std::int64_t max() const { return max_; }
  double sum() const { return sum_; }
  double avg() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  double stddev() const;
  bool allSame() const { return count_ == 0 || min_ == max_; }
  // "count=N first=F curr=C min=M max=X avg=A std=S" (or the all-same form).
  std::string toString() const;

 private:
  std::int64_t count_ = 0, first_ = 0, newest_ = 0, min_ = 0, max_ = 0;
  double sum_ = 0, squared_sum_ = 0;
};

struct StatsOptions {
  bool show_run_order = true;
  int run_order_limit = 0;  // 0 = all
  bool show_time = true;
  int time_limit = 10;
  bool show_memory = true;
  int memory_limit = 10;
  bool show_type = true;
  bool show_summary = true;
  bool csv = false;
};

// A node of a run that the inference rewrites made out of several graph
// nodes (engine::fusedOpsByNode reads it off the compiled graph).
struct FusedNode {
  std::string ops;                 // the graph ops it runs ("Conv2D+BiasAdd+Relu6"), "" when not told
  std::vector<std::string> nodes;  // the graph nodes it replaced, in data-flow order
  std::string head;                // the one of them doing the arithmetic, credited with the time
};

struct NodeDetail {
  std::string name;
  std::string type;
  std::int64_t run_order = 0;
  Stat start_us;     // start offset from the run's first node
  Stat rel_end_us;   // duration
  Stat mem_used;     // output bytes
  std::int64_t times_called = 0;
  FusedNode fused;   // empty unless the node is a fused one
};

struct TypeSummary {
  std::string type;
  std::int64_t count = 0;          // nodes of this type
  std::int64_t time_us = 0;        // per run
  double percent = 0, cdf_percent = 0;
  std::int64_t mem_bytes = 0;
  std::int64_t times_called = 0;   // per run
};

class StatsCalculator {
 public:
  explicit StatsCalculator(StatsOptions options = {}) : options_(options) {}
  void setOptions(const StatsOptions& options) { options_ = options; }

  void addNodeStats(const std::string& name, const std::string& type, std::int64_t run_order,
                    std::int64_t start_us, std::int64_t rel_end_us, std::int64_t mem_used,
                    const FusedNode& fused = {});
  // Nodes of the graph as loaded (before any rewrite); 0 = unknown.
  void setNodesDefined(std::int64_t n) { nodes_defined_ = n; }
  std::int64_t nodesDefined() const { return nodes_defined_; }
  // Per-node times summed, mean per run (what the tables' % columns add up from).
  double nodeTimeUsPerRun() const;
  void updateRunTotalUs(std::int64_t us) { run_total_us_.update(us); }
  void updateMemoryUsed(std::int64_t bytes) { memory_.update(bytes); }

  std::int64_t numRuns() const { return run_total_us_.count(); }
  const Stat& runTotalUs() const { return run_total_us_; }
  const Stat& memory() const { return memory_; }
  const std::map<std::string, NodeDetail>& details() const { return details_; }

  enum class SortBy { Name, RunOrder, Time, Memory, Type };
  std::vector<const NodeDetail*> ordered(SortBy metric) const;
  std::vector<TypeSummary> byType() const;  // sorted by time, largest first

  std::string outputString() const;  // every table the options ask for
  std::string statsByMetric(const std::string& title, SortBy metric, int limit) const;
  std::string statsByNodeType() const;
  std::string shortSummary() const;

 private:
  bool anyFused() const;
  std::string headerString(const std::string& title) const;
  std::string columnString(const NodeDetail& d, double cumulative_us, bool fused_column) const;

  StatsOptions options_;
  std::map<std::string, NodeDetail> details_;
  Stat run_total_us_;
  Stat memory_;
  std::int64_t nodes_defined_ = 0;
};

}  // namespace gds::engine
