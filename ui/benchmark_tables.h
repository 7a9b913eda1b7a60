// The Benchmark panel's result data and its Qt models: the variants' results
// matched side by side (nodes by layer name, op types by type), the
// headline figures, and a bar chart of time per op type. Models read the
// shared, immutable BenchmarkComparison directly (no copies into items);
// QSortFilterProxyModel sorts them by Qt::UserRole (raw numbers) and filters.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ui/benchmark_run.h"

namespace gds::ui {

// The float layer an 8-bit node belongs to. quantize_nodes names its nodes
// after the float op X: X_eightbit/<input>/{reshape,min,max,quantize},
// X/eightbit, X/eightbit/requantize..., and the Dequantize keeps X; so
// "X_eightbit/..." and "X/eightbit..." map to X, anything else to itself.
std::string layerOf(const std::string& node_name);

// Roles shared by the models.
enum BenchmarkRole {
  kBenchmarkSortRole = Qt::UserRole,        // number for numeric columns (missing: -inf), text otherwise
  kBenchmarkNodeRole = Qt::UserRole + 1 // the graph node of the row (layer tables)
};

// A node of the run that a plan rewrite made out of several graph nodes
// (engine/rewrite: _FusedConv2D, _FusedQuantizedConv2D, ...; it keeps the
// name of the chain's last node): the graph nodes it runs and the one it is
// built around, the contraction (Conv2D, MatMul, ...), which does the work
// and is credited with its time.
struct FusedChain {
  std::string kernel;              // the fused node's op, e.g. "_FusedConv2D"
  std::string head;                // the node credited with the time
  std::vector<std::string> nodes;  // the graph nodes it runs, in data-flow order
  std::vector<std::string> ops;    // their ops
};

// The fused nodes of one profiled run of `graph`: profiled node name -> its
// chain, as the rewrites recorded it (NodeDetail::fused, from
// engine::fusedOpsByNode); the ops are those of the named nodes in `graph`.
std::unordered_map<std::string, FusedChain> fusedChains(const tensorflow::GraphDef& graph,
                                                        const engine::StatsCalculator& stats);

struct LayerStats {
  std::string type;                      // op of the slowest node of the layer
  std::vector<std::string> nodes;        // the variant's nodes in this layer
  std::int64_t run_order = 0;            // smallest run order of those nodes
  double avg_ms = 0;                     // sum of their average times
  double percent = 0;                    // of the run's total time
  double mem_kb = 0;                     // sum of their output sizes (KB = 1000 bytes, as TensorFlow)
  std::vector<std::string> fused;        // graph nodes run inside its fused kernels (beyond `nodes`)
  std::vector<std::string> fused_ops;    // the fused kernel's chain of ops (the first fused node's)
};

class BenchmarkComparison {
 public:
  explicit BenchmarkComparison(std::vector<VariantBenchmark> variants, std::string inputs = {});

  int variantCount() const { return static_cast<int>(variants_.size()); }
  const VariantBenchmark& variant(int i) const { return variants_[static_cast<size_t>(i)]; }
  QString label(int i) const;  // "Current", "8-bit", ...
  const std::string& inputs() const { return inputs_; }

  struct LayerRow {
    std::string name;
    std::int64_t order = 0;  // run order in the first variant that has the layer
    std::vector<std::optional<LayerStats>> per_variant;
  };
  const std::vector<LayerRow>& layers() const { return layers_; }
  struct TypeRow {
    std::string type;
    std::vector<std::optional<engine::TypeSummary>> per_variant;
  };
  const std::vector<TypeRow>& types() const { return types_; }

  // Per node of variant i's own graph: its share of the run time in percent
  // (the heat map); with by_layer the values are keyed by layerOf(name). A
  // fused node's time goes to its chain's head (creditedNode), as in the
  // layer table.
  std::unordered_map<std::string, double> timeShare(int i, bool by_layer) const;
  // The node of the graph that variant i's profiled node `name` is credited
  // to: the head of its fused chain, else itself.
  const std::string& creditedNode(int i, const std::string& name) const;
  const std::unordered_map<std::string, FusedChain>& fusedChains(int i) const {
    return fused_[static_cast<size_t>(i)];
  }
  // For the heat map's tooltips: each node of a fused chain (keyed like
  // timeShare) -> what ran it, e.g. "Run in one _FusedConv2D kernel with
  // BiasAdd, Relu6 (Conv2d_0/Relu6); its time is on Conv2d_0/Conv2D".
  std::unordered_map<std::string, QString> fusedNotes(int i, bool by_layer) const;

 private:
  std::vector<VariantBenchmark> variants_;
  std::vector<std::unordered_map<std::string, FusedChain>> fused_;  // per variant
  std::string inputs_;
  std::vector<LayerRow> layers_;
  std::vector<TypeRow> types_;
};

using ComparisonPtr = std::shared_ptr<const BenchmarkComparison>;

// A table over a shared comparison (none: no rows).
class ComparisonTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  explicit ComparisonTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setComparison(ComparisonPtr comparison);
  const BenchmarkComparison* comparison() const { return data_.get(); }

 protected:
  // Both tables: per variant four fields (first_field, avg ms, %, mem KB),
  // then Δ ms and × against the first variant for each later one.
  static constexpr int kFieldsPerVariant = 4;
  // Header of column c counted from the first per-variant column.
  QVariant variantHeader(int c, const QString& first_field, int role) const;
  // A Δ ms (other - first) or × (other / first) cell; "—" when either is missing.
  static QVariant deltaCell(std::optional<double> first_ms, std::optional<double> other_ms, bool ratio, int role);

  ComparisonPtr data_;
};

// Rows: layers (nodes of the float graph; an 8-bit variant's nodes summed per
// layer). Columns: Node, Order, per variant (Type, Avg ms, %, Mem KB), then
// per variant after the first: Δ ms and × against the first.
class LayerTableModel : public ComparisonTableModel {
  Q_OBJECT
 public:
  explicit LayerTableModel(QObject* parent = nullptr) : ComparisonTableModel(parent) {}
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  static constexpr int kNameColumn = 0, kOrderColumn = 1, kPerVariant = kFieldsPerVariant;
  int msColumn(int variant) const { return 2 + kPerVariant * variant + 1; }
  int memColumn(int variant) const { return 2 + kPerVariant * variant + 3; }
};

// Rows: op types. Columns: Type, per variant (Count, Avg ms, %, Mem KB),
// then per variant after the first: Δ ms and ×.
class TypeTableModel : public ComparisonTableModel {
  Q_OBJECT
 public:
  explicit TypeTableModel(QObject* parent = nullptr) : ComparisonTableModel(parent) {}
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  static constexpr int kPerVariant = kFieldsPerVariant;
  int msColumn(int variant) const { return 1 + kPerVariant * variant + 1; }
};

// Rows: median and p90 latency, the per-node times' sum and the profiling
// overhead (engine::profileOverhead in engine/eval/benchmark.h), model size serialized and
// compressed, peak memory, FLOPs, GFLOP/s, nodes executed, timed runs.
// Columns: Figure, one per variant, then "<variant> / <first>" ratios.
class HeadlineModel : public ComparisonTableModel {
  Q_OBJECT
 public:
  enum Row { Median, P90, NodeSum, ProfilingOverhead, Size, Compressed, PeakMemory, Flops, GflopsPerSecond, Nodes, Runs, kRows };
  explicit HeadlineModel(QObject* parent = nullptr) : ComparisonTableModel(parent) {}
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  // The raw figure (ms, bytes, FLOPs, GFLOP/s, count).
  double value(Row row, int variant) const;
};

// Sorts by kBenchmarkSortRole with missing values last whatever the order, filters by
// a fixed string on the name/type columns.
class BenchmarkProxyModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit BenchmarkProxyModel(QObject* parent = nullptr);
  void setFilterColumns(std::vector<int> columns) { filter_columns_ = std::move(columns); }

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  std::vector<int> filter_columns_;
};

// Horizontal bars: average time per op type for each variant, the types
// taking most time first (at most max_types), with a legend and an ms axis.
class OpTypeChart : public QWidget {
  Q_OBJECT
 public:
  explicit OpTypeChart(QWidget* parent = nullptr);
  void setComparison(ComparisonPtr comparison);
  void setMaxTypes(int n) { max_types_ = n; update(); }
  // The op types drawn, top to bottom.
  std::vector<std::string> shownTypes() const;
  QSize sizeHint() const override { return {420, 260}; }
  static QColor variantColor(int variant);

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  ComparisonPtr data_;
  int max_types_ = 10;
};

}  // namespace gds::ui
