#include "engine/eval/stats_calculator.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace gds::engine {

void Stat::update(std::int64_t v) {
  if (count_ == 0) {
    first_ = min_ = max_ = v;
  } else {
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
  }
  newest_ = v;
  ++count_;
  sum_ += static_cast<double>(v);
  squared_sum_ += static_cast<double>(v) * static_cast<double>(v);
}

double Stat::stddev() const {
  if (allSame()) return 0;
  double a = avg();
  double var = squared_sum_ / static_cast<double>(count_) - a * a;
  return var > 0 ? std::sqrt(var) : 0;
}

std::string Stat::toString() const {
  std::stringstream s;
  if (empty()) {
    s << "count=0";
  } else if (allSame()) {
    s << "count=" << count_ << " curr=" << newest_;
    if (count_ > 1) s << "(all same)";
  } else {
    s << "count=" << count_ << " first=" << first_ << " curr=" << newest_ << " min=" << min_ << " max=" << max_
      << " avg=" << avg() << " std=" << static_cast<std::int64_t>(stddev());
  }
  return s.str();
}

void StatsCalculator::addNodeStats(const std::string& name, const std::string& type, std::int64_t run_order,
                                   std::int64_t start_us, std::int64_t rel_end_us, std::int64_t mem_used,
                                   const FusedNode& fused) {
  auto it = details_.find(name);
  if (it == details_.end()) {
    NodeDetail d;
    d.name = name;
    d.type = type;
    d.run_order = run_order;
    d.fused = fused;
    it = details_.emplace(name, std::move(d)).first;
  }
  NodeDetail& d = it->second;
  d.start_us.update(start_us);
  d.rel_end_us.update(rel_end_us);
  d.mem_used.update(mem_used);
  ++d.times_called;
}

bool StatsCalculator::anyFused() const {
  for (const auto& [name, d] : details_)
    if (!d.fused.ops.empty()) return true;
  return false;
}

double StatsCalculator::nodeTimeUsPerRun() const {
  double sum = 0;
  for (const auto& [name, d] : details_) sum += d.rel_end_us.sum();
  return numRuns() > 0 ? sum / static_cast<double>(numRuns()) : 0.0;
}

static std::ostream& field(std::ostream& s, int width) {
  s << "\t" << std::right << std::setw(width) << std::fixed << std::setprecision(3);
  return s;
}

std::string StatsCalculator::headerString(const std::string& title) const {
  std::stringstream s;
  s << "============================== " << title << " ==============================" << std::endl;
  if (options_.csv) {
    s << "node type, start, first, avg_ms, %, cdf%, mem KB, times called, name";
    if (anyFused()) s << ", fused ops";
  } else {
    field(s, 24) << "[node type]";
    field(s, 17) << "[start]";
    field(s, 9) << "[first]";
    field(s, 9) << "[avg ms]";
    field(s, 8) << "[%]";
    field(s, 8) << "[cdf%]";
    field(s, 10) << "[mem KB]";
    field(s, 9) << "[times called]";
    s << "\t[Name]";
    if (anyFused()) s << "\t[Fused ops]";
  }
  return s.str();
}

std::string StatsCalculator::columnString(const NodeDetail& d, double cumulative_us, bool fused_column) const {
  const double total = run_total_us_.sum() > 0 ? run_total_us_.sum() : 1.0;
  const double start_ms = d.start_us.avg() / 1000.0;
  const double first_ms = static_cast<double>(d.rel_end_us.first()) / 1000.0;
  const double avg_ms = d.rel_end_us.avg() / 1000.0;
  const double pct = d.rel_end_us.sum() * 100.0 / total;
  const double cdf = cumulative_us * 100.0 / total;
  const std::int64_t runs = std::max<std::int64_t>(numRuns(), 1);
  const std::int64_t times_called = d.times_called / runs;
  std::stringstream s;
  if (options_.csv) {
    s << std::fixed << std::setprecision(3) << d.type << ", " << start_ms << ", " << first_ms << ", " << avg_ms
      << ", " << pct << "%, " << cdf << "%, " << static_cast<double>(d.mem_used.newest()) / 1000.0 << ", "
      << times_called << ", " << d.name;
    if (fused_column) s << ", " << d.fused.ops;
  } else {
    field(s, 24) << d.type;
    field(s, 17) << start_ms;
    field(s, 9) << first_ms;
    field(s, 9) << avg_ms;
    field(s, 7) << pct << "%";
    field(s, 7) << cdf << "%";
    field(s, 10) << static_cast<double>(d.mem_used.newest()) / 1000.0;
    field(s, 9) << times_called;
    s << "\t" << d.name;
    if (fused_column && !d.fused.ops.empty()) s << "\t" << d.fused.ops;
  }
  return s.str();
}

std::vector<const NodeDetail*> StatsCalculator::ordered(SortBy metric) const {
  std::vector<const NodeDetail*> out;
  out.reserve(details_.size());
  for (const auto& [name, d] : details_) out.push_back(&d);
  auto by = [&](const NodeDetail* a, const NodeDetail* b) {
    switch (metric) {
      case SortBy::Name: return a->name > b->name;
      case SortBy::RunOrder: return a->run_order < b->run_order;
      case SortBy::Time:
        if (a->rel_end_us.avg() != b->rel_end_us.avg()) return a->rel_end_us.avg() > b->rel_end_us.avg();
        return a->name > b->name;
      case SortBy::Memory:
        if (a->mem_used.avg() != b->mem_used.avg()) return a->mem_used.avg() > b->mem_used.avg();
        return a->name > b->name;
      case SortBy::Type: return a->type > b->type;
    }
    return false;
  };
  std::stable_sort(out.begin(), out.end(), by);
  return out;
}

std::string StatsCalculator::statsByMetric(const std::string& title, SortBy metric, int limit) const {
  std::stringstream s;
  s << headerString(title) << std::endl;
  double cumulative = 0;
  int n = 0;
  const bool fused_column = anyFused();
  for (const NodeDetail* d : ordered(metric)) {
    if (limit > 0 && ++n > limit) break;
    // As TensorFlow does, the cdf column is time-based in every table.
    cumulative += d->rel_end_us.sum();
    s << columnString(*d, cumulative, fused_column) << std::endl;
  }
  s << std::endl;
  return s.str();
}

std::vector<TypeSummary> StatsCalculator::byType() const {
  const std::int64_t runs = std::max<std::int64_t>(numRuns(), 1);
  std::map<std::string, TypeSummary> m;
  std::int64_t accumulated = 0;
  for (const auto& [name, d] : details_) {
    auto& t = m[d.type];
    t.type = d.type;
    t.count += 1;
    std::int64_t us = static_cast<std::int64_t>(d.rel_end_us.sum() / static_cast<double>(runs));
    t.time_us += us;
    accumulated += us;
    t.mem_bytes += d.mem_used.newest();
    t.times_called += d.times_called / runs;
  }
  std::vector<TypeSummary> out;
  for (auto& [type, t] : m) out.push_back(t);
  std::stable_sort(out.begin(), out.end(), [](const TypeSummary& a, const TypeSummary& b) {
    if (a.time_us != b.time_us) return a.time_us > b.time_us;
    return a.type > b.type;
  });
  double cdf = 0;
  for (auto& t : out) {
    t.percent = accumulated > 0 ? 100.0 * static_cast<double>(t.time_us) / static_cast<double>(accumulated) : 0.0;
    cdf += t.percent;
    t.cdf_percent = cdf;
  }
  return out;
}

std::string StatsCalculator::statsByNodeType() const {
  std::stringstream s;
  s << "Number of nodes executed: " << details_.size() << std::endl;
  s << "============================== Summary by node type ==============================" << std::endl;
  if (options_.csv) {
    s << "node type, count, avg_ms, avg %, cdf %, mem KB, times called\n";
  } else {
    field(s, 24) << "[Node type]";
    field(s, 9) << "[count]";
    field(s, 10) << "[avg ms]";
    field(s, 11) << "[avg %]";
    field(s, 11) << "[cdf %]";
    field(s, 10) << "[mem KB]";
    field(s, 10) << "[times called]";
    s << std::endl;
  }
  for (const auto& t : byType()) {
    const double ms = static_cast<double>(t.time_us) / 1000.0;
    const double kb = static_cast<double>(t.mem_bytes) / 1000.0;
    if (options_.csv) {
      s << std::fixed << std::setprecision(3) << t.type << ", " << t.count << ", " << ms << ", " << t.percent
        << "%, " << t.cdf_percent << "%, " << kb << ", " << t.times_called << std::endl;
    } else {
      field(s, 24) << t.type;
      field(s, 9) << t.count;
      field(s, 10) << ms;
      field(s, 10) << t.percent << "%";
      field(s, 10) << t.cdf_percent << "%";
      field(s, 10) << kb;
      field(s, 9) << t.times_called;
      s << std::endl;
    }
  }
  s << std::endl;
  return s.str();
}

std::string StatsCalculator::shortSummary() const {
  std::stringstream s;
  s << "Timings (microseconds): " << run_total_us_.toString() << std::endl;
  s << "Memory (bytes): " << memory_.toString() << std::endl;
  if (nodes_defined_ > 0) s << nodes_defined_ << " nodes defined ";
  s << details_.size() << " nodes observed" << std::endl;
  return s.str();
}

std::string StatsCalculator::outputString() const {
  std::string out;
  if (options_.show_run_order) out += statsByMetric("Run Order", SortBy::RunOrder, options_.run_order_limit);
  if (options_.show_time) out += statsByMetric("Top by Computation Time", SortBy::Time, options_.time_limit);
  if (options_.show_memory) out += statsByMetric("Top by Memory Use", SortBy::Memory, options_.memory_limit);
  if (options_.show_type) out += statsByNodeType();
  if (options_.show_summary) out += shortSummary() + "\n";
  return out;
}

}  // namespace gds::engine
