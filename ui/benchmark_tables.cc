#include "ui/benchmark_tables.h"

#include <QLocale>
#include <QPainter>
#include <QPaintEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "engine/eval/benchmark_report.h"
#include "model/summary.h"

namespace gds::ui {
namespace {

constexpr double kMissing = -std::numeric_limits<double>::infinity();

QString fixed(double v, int decimals = 3) { return QString::number(v, 'f', decimals); }

QString ratioText(double r) { return std::isfinite(r) ? QString::number(r, 'f', 2) + QStringLiteral("×") : QString("—"); }

QString bytesText(double bytes) {
  if (bytes < 1e3) return QObject::tr("%1 B").arg(bytes, 0, 'f', 0);
  if (bytes < 1e6) return QObject::tr("%1 KB").arg(bytes / 1e3, 0, 'f', 1);
  return QObject::tr("%1 MB").arg(bytes / 1e6, 0, 'f', 2);
}

QVariant sortValue(const std::optional<double>& v) { return v ? *v : kMissing; }

}  // namespace

std::unordered_map<std::string, FusedChain> fusedChains(const tensorflow::GraphDef& def,
                                                        const engine::StatsCalculator& stats) {
  std::unordered_map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& node : def.node()) by_name.emplace(node.name(), &node);
  std::unordered_map<std::string, FusedChain> out;
  for (const auto& [name, d] : stats.details()) {
    if (d.fused.nodes.empty()) continue;
    FusedChain chain;
    chain.kernel = d.type;
    chain.head = d.fused.head.empty() ? name : d.fused.head;
    chain.nodes = d.fused.nodes;
    for (const auto& member : chain.nodes) {
      auto it = by_name.find(member);
      chain.ops.push_back(it == by_name.end() ? std::string() : it->second->op());
    }
    out.emplace(name, std::move(chain));
  }
  return out;
}

std::string layerOf(const std::string& name) {
  const size_t underscore = name.find("_eightbit/");
  const size_t slash = name.find("/eightbit");
  size_t cut = std::string::npos;
  if (underscore != std::string::npos) cut = underscore;
  // "/eightbit" must be a whole path component: X/eightbit or X/eightbit/...
  if (slash != std::string::npos && (slash + 9 == name.size() || name[slash + 9] == '/'))
    cut = std::min(cut, slash);
  return cut == std::string::npos || cut == 0 ? name : name.substr(0, cut);
}

// ---------------------------------------------------------------- comparison

BenchmarkComparison::BenchmarkComparison(std::vector<VariantBenchmark> variants, std::string inputs)
    : variants_(std::move(variants)), inputs_(std::move(inputs)) {
  const size_t n = variants_.size();
  fused_.resize(n);
  std::map<std::string, size_t> layer_index, type_index;
  for (size_t v = 0; v < n; ++v) {
    const engine::BenchmarkResult& r = variants_[v].result;
    if (variants_[v].built.graph) fused_[v] = gds::ui::fusedChains(*variants_[v].built.graph, r.stats);
    const double total_us = r.stats.runTotalUs().sum() > 0 ? r.stats.runTotalUs().sum() : 1.0;
    std::map<std::string, LayerStats> layers;
    std::map<std::string, double> slowest;
    for (const engine::NodeDetail* d : r.stats.ordered(engine::StatsCalculator::SortBy::RunOrder)) {
      const std::string layer = layerOf(creditedNode(static_cast<int>(v), d->name));
      auto [it, fresh] = layers.try_emplace(layer);
      LayerStats& s = it->second;
      if (fresh) s.run_order = d->run_order;
      s.run_order = std::min(s.run_order, d->run_order);
      s.nodes.push_back(d->name);
      auto chain = fused_[v].find(d->name);
      if (chain != fused_[v].end()) {
        for (const auto& member : chain->second.nodes)
          if (member != d->name) s.fused.push_back(member);
        if (s.fused_ops.empty()) s.fused_ops = chain->second.ops;
      }
      const double ms = d->rel_end_us.avg() / 1000.0;
      s.avg_ms += ms;
      s.percent += d->rel_end_us.sum() * 100.0 / total_us;
      s.mem_kb += static_cast<double>(d->mem_used.newest()) / 1000.0;
      // The layer's op is its own node's (the float name, or the fused node
      // credited to it), else its slowest node's.
      if (d->name == layer || (chain != fused_[v].end() && chain->second.head == layer)) {
        s.type = d->type;
        slowest[layer] = std::numeric_limits<double>::infinity();
      } else if (!slowest.count(layer) || ms > slowest[layer]) {
        s.type = d->type;
        slowest[layer] = ms;
      }
    }
    for (auto& [name, stats] : layers) {
      auto [it, fresh] = layer_index.try_emplace(name, layers_.size());
      if (fresh) {
        LayerRow row;
        row.name = name;
        row.order = stats.run_order;
        row.per_variant.resize(n);
        layers_.push_back(std::move(row));
      }
      layers_[it->second].per_variant[v] = std::move(stats);
    }
    for (const engine::TypeSummary& t : r.stats.byType()) {
      auto [it, fresh] = type_index.try_emplace(t.type, types_.size());
      if (fresh) {
        TypeRow row;
        row.type = t.type;
        row.per_variant.resize(n);
        types_.push_back(std::move(row));
      }
      types_[it->second].per_variant[v] = t;
    }
  }
}

QString BenchmarkComparison::label(int i) const { return variantShortName(variant(i).kind); }

std::unordered_map<std::string, double> BenchmarkComparison::timeShare(int i, bool by_layer) const {
  std::unordered_map<std::string, double> out;
  const engine::BenchmarkResult& r = variant(i).result;
  const double total_us = r.stats.runTotalUs().sum() > 0 ? r.stats.runTotalUs().sum() : 1.0;
  for (const auto& [name, d] : r.stats.details()) {
    const std::string& credited = creditedNode(i, name);
    out[by_layer ? layerOf(credited) : credited] += d.rel_end_us.sum() * 100.0 / total_us;
  }
  return out;
}

const std::string& BenchmarkComparison::creditedNode(int i, const std::string& name) const {
  const auto& chains = fused_[static_cast<size_t>(i)];
  auto it = chains.find(name);
  return it == chains.end() ? name : it->second.head;
}

std::unordered_map<std::string, QString> BenchmarkComparison::fusedNotes(int i, bool by_layer) const {
  std::unordered_map<std::string, QString> out;
  for (const auto& [name, chain] : fused_[static_cast<size_t>(i)]) {
    QStringList others;
    for (size_t k = 0; k < chain.ops.size(); ++k)
      if (chain.nodes[k] != chain.head) others << QString::fromStdString(chain.ops[k]);
    others.removeDuplicates();
    const std::string head = by_layer ? layerOf(chain.head) : chain.head;
    const QString ran = QObject::tr("Run in one %1 kernel (%2) with %3")
                            .arg(QString::fromStdString(chain.kernel), QString::fromStdString(name), others.join(", "));
    for (const auto& member : chain.nodes) {
      const std::string key = by_layer ? layerOf(member) : member;
      if (key == head)
        out[key] = ran;
      else if (!out.count(key))
        out[key] = ran + QObject::tr("; its time is on %1").arg(QString::fromStdString(head));
    }
  }
  return out;
}

// ---------------------------------------------------------------- layers

void ComparisonTableModel::setComparison(ComparisonPtr comparison) {
  beginResetModel();
  data_ = std::move(comparison);
  endResetModel();
}

QVariant ComparisonTableModel::variantHeader(int c, const QString& first_field, int role) const {
  const int v = data_->variantCount();
  if (c < kFieldsPerVariant * v) {
    if (role != Qt::DisplayRole) return {};
    const QString who = data_->label(c / kFieldsPerVariant);
    switch (c % kFieldsPerVariant) {
      case 0: return tr("%1 %2").arg(who, first_field);
      case 1: return tr("%1 avg ms").arg(who);
      case 2: return tr("%1 %").arg(who);
      default: return tr("%1 mem KB").arg(who);
    }
  }
  c -= kFieldsPerVariant * v;
  const QString other = data_->label(1 + c / 2), first = data_->label(0);
  if (role == Qt::ToolTipRole)
    return c % 2 == 0 ? tr("%1 avg ms minus %2 avg ms").arg(other, first) : tr("%1 time divided by %2 time").arg(other, first);
  return c % 2 == 0 ? tr("Δ ms %1").arg(other) : tr("× %1").arg(other);
}

QVariant ComparisonTableModel::deltaCell(std::optional<double> first_ms, std::optional<double> other_ms, bool ratio,
                                         int role) {
  std::optional<double> value;
  if (first_ms && other_ms) value = ratio ? (*first_ms > 0 ? *other_ms / *first_ms : std::nan("")) : *other_ms - *first_ms;
  if (role == kBenchmarkSortRole) return sortValue(value && std::isfinite(*value) ? value : std::nullopt);
  if (role != Qt::DisplayRole) return {};
  if (!value) return QString("—");
  return ratio ? ratioText(*value) : (*value > 0 ? "+" : "") + fixed(*value);
}

int LayerTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !data_ ? 0 : static_cast<int>(data_->layers().size());
}

int LayerTableModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid() || !data_) return 0;
  const int v = data_->variantCount();
  return 2 + kPerVariant * v + 2 * std::max(0, v - 1);
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || !data_) return ComparisonTableModel::headerData(section, orientation, role);
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  if (section == kNameColumn) return tr("Node");
  if (section == kOrderColumn) return role == Qt::ToolTipRole ? tr("Run order in the first variant that runs the node") : tr("Order");
  return variantHeader(section - 2, tr("type"), role);
}

QVariant LayerTableModel::data(const QModelIndex& index, int role) const {
  if (!data_ || !index.isValid()) return {};
  const auto& row = data_->layers()[static_cast<size_t>(index.row())];
  const int col = index.column();
  if (role == kBenchmarkNodeRole) return QString::fromStdString(row.name);
  if (role == Qt::TextAlignmentRole)
    return col == kNameColumn || (col >= 2 && col < 2 + kPerVariant * data_->variantCount() && (col - 2) % kPerVariant == 0)
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != kBenchmarkSortRole && role != Qt::ToolTipRole) return {};
  const bool sort = role == kBenchmarkSortRole;
  if (col == kNameColumn) return QString::fromStdString(row.name);
  if (col == kOrderColumn) return sort ? QVariant(static_cast<double>(row.order)) : QVariant(static_cast<qlonglong>(row.order));
  const int v = data_->variantCount();
  int c = col - 2;
  if (c < kPerVariant * v) {
    const auto& s = row.per_variant[static_cast<size_t>(c / kPerVariant)];
    if (role == Qt::ToolTipRole) {
      if (!s) return tr("Not run in %1").arg(data_->label(c / kPerVariant));
      QStringList nodes, fused;
      for (const auto& n : s->nodes) nodes << QString::fromStdString(n);
      for (const auto& n : s->fused) fused << QString::fromStdString(n);
      QString tip = tr("%1 node(s): %2").arg(nodes.size()).arg(nodes.join(", "));
      if (!fused.isEmpty()) tip += "\n" + tr("Fused with, and timed together: %1").arg(fused.join(", "));
      return tip;
    }
    const int field = c % kPerVariant;
    if (field == 0) {
      if (!s) return QString();
      QString text = QString::fromStdString(s->type);
      // The chain a fused kernel runs: its ops when few, else how many nodes.
      if (!s->fused_ops.empty()) {
        QStringList ops;
        for (const auto& op : s->fused_ops) ops << QString::fromStdString(op);
        text += ops.size() <= 4 ? " (" + ops.join("+") + ")" : tr(" (%1 nodes)").arg(ops.size());
      }
      return s->nodes.size() > 1 ? text + QString(" +%1").arg(s->nodes.size() - 1) : text;
    }
    std::optional<double> value;
    if (s) value = field == 1 ? s->avg_ms : field == 2 ? s->percent : s->mem_kb;
    if (sort) return sortValue(value);
    return value ? fixed(*value) : QString("—");
  }
  c -= kPerVariant * v;
  const auto& a = row.per_variant[0];
  const auto& b = row.per_variant[static_cast<size_t>(1 + c / 2)];
  return deltaCell(a ? std::optional<double>(a->avg_ms) : std::nullopt, b ? std::optional<double>(b->avg_ms) : std::nullopt,
                   c % 2 == 1, role);
}

// ---------------------------------------------------------------- types

int TypeTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !data_ ? 0 : static_cast<int>(data_->types().size());
}

int TypeTableModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid() || !data_) return 0;
  const int v = data_->variantCount();
  return 1 + kPerVariant * v + 2 * std::max(0, v - 1);
}

QVariant TypeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || !data_) return ComparisonTableModel::headerData(section, orientation, role);
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  if (section == 0) return role == Qt::DisplayRole ? tr("Node type") : QVariant();
  return variantHeader(section - 1, tr("count"), role);
}

QVariant TypeTableModel::data(const QModelIndex& index, int role) const {
  if (!data_ || !index.isValid()) return {};
  const auto& row = data_->types()[static_cast<size_t>(index.row())];
  const int col = index.column();
  if (role == Qt::TextAlignmentRole)
    return col == 0 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != kBenchmarkSortRole) return {};
  const bool sort = role == kBenchmarkSortRole;
  if (col == 0) return QString::fromStdString(row.type);
  const int v = data_->variantCount();
  int c = col - 1;
  auto ms = [](const engine::TypeSummary& t) { return static_cast<double>(t.time_us) / 1000.0; };
  if (c < kPerVariant * v) {
    const auto& t = row.per_variant[static_cast<size_t>(c / kPerVariant)];
    const int field = c % kPerVariant;
    std::optional<double> value;
    if (t) value = field == 0 ? static_cast<double>(t->count) : field == 1 ? ms(*t) : field == 2 ? t->percent
                                                                                              : static_cast<double>(t->mem_bytes) / 1000.0;
    if (sort) return sortValue(value);
    if (!value) return QString("—");
    return field == 0 ? QString::number(static_cast<qlonglong>(*value)) : fixed(*value);
  }
  c -= kPerVariant * v;
  const auto& a = row.per_variant[0];
  const auto& b = row.per_variant[static_cast<size_t>(1 + c / 2)];
  return deltaCell(a ? std::optional<double>(ms(*a)) : std::nullopt, b ? std::optional<double>(ms(*b)) : std::nullopt,
                   c % 2 == 1, role);
}

// ---------------------------------------------------------------- headline

int HeadlineModel::rowCount(const QModelIndex& parent) const { return parent.isValid() || !data_ ? 0 : kRows; }

int HeadlineModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid() || !data_) return 0;
  const int v = data_->variantCount();
  return 1 + v + std::max(0, v - 1);
}

double HeadlineModel::value(Row row, int variant) const {
  const VariantBenchmark& vb = data_->variant(variant);
  const engine::BenchmarkResult& r = vb.result;
  switch (row) {
    case Median: return r.medianMs();
    case P90: return r.percentileMs(90);
    case NodeSum: return engine::profileOverhead(r).node_sum_ms;
    case ProfilingOverhead: return engine::profileOverhead(r).overheadMs();
    case Size: return static_cast<double>(vb.built.serialized_bytes);
    case Compressed: return static_cast<double>(vb.built.compressed_bytes);
    case PeakMemory: return static_cast<double>(r.peak_bytes);
    case Flops: return r.flops;
    case GflopsPerSecond: return engine::flopsPerSecond(r) / 1e9;
    case Nodes: return static_cast<double>(r.stats.details().size());
    case Runs: return static_cast<double>(r.no_stats_us.count());
    case kRows: break;
  }
  return 0;
}

QVariant HeadlineModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || !data_) return ComparisonTableModel::headerData(section, orientation, role);
  if (role != Qt::DisplayRole) return {};
  const int v = data_->variantCount();
  if (section == 0) return tr("Figure");
  if (section <= v) return data_->label(section - 1);
  return tr("%1 / %2").arg(data_->label(section - v), data_->label(0));
}

QVariant HeadlineModel::data(const QModelIndex& index, int role) const {
  if (!data_ || !index.isValid()) return {};
  const Row row = static_cast<Row>(index.row());
  const int col = index.column();
  const int v = data_->variantCount();
  if (role == Qt::TextAlignmentRole)
    return col == 0 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (col == 0) {
    if (role == Qt::ToolTipRole) {
      switch (row) {
        case Median: case P90: return tr("Over the timed runs without per-node statistics");
        case NodeSum: return tr("What the per-node tables add up to per run, measured in separate profiled runs");
        case ProfilingOverhead:
          return tr("Profiled run minus median latency: what timing each node adds to a run, and why the per-node "
                    "times add up to more than the latency");
        case Size: return tr("Binary GraphDef, as saved to a .pb file");
        case Compressed: return tr("The .pb bytes compressed with zlib (level 9), as an app package or download would");
        case PeakMemory: return tr("Most intermediate tensor bytes live at once");
        case Flops: case GflopsPerSecond: return tr("Convolutions and matrix products, 2 per multiply-add (benchmark_model's rule)");
        default: return {};
      }
    }
    if (role != Qt::DisplayRole) return {};
    switch (row) {
      case Median: return tr("Median latency");
      case P90: return tr("p90 latency");
      case NodeSum: return tr("Per-node sum");
      case ProfilingOverhead: return tr("Profiling overhead");
      case Size: return tr("Model size");
      case Compressed: return tr("Compressed size");
      case PeakMemory: return tr("Peak memory");
      case Flops: return tr("FLOPs");
      case GflopsPerSecond: return tr("GFLOP/s");
      case Nodes: return tr("Nodes executed");
      case Runs: return tr("Timed runs");
      case kRows: break;
    }
    return {};
  }
  if (col <= v) {
    const double x = value(row, col - 1);
    if (role == kBenchmarkSortRole) return x;
    if (role == Qt::ToolTipRole && (row == Size || row == Compressed || row == PeakMemory))
      return tr("%1 bytes").arg(QLocale().toString(static_cast<qlonglong>(x)));
    if (role != Qt::DisplayRole) return {};
    switch (row) {
      case Median: case P90: case NodeSum: case ProfilingOverhead: return tr("%1 ms").arg(fixed(x));
      case Size: case Compressed: case PeakMemory: return bytesText(x);
      case Flops: return QString::fromStdString(model::humanReadableNum(static_cast<std::int64_t>(x)));
      case GflopsPerSecond: return fixed(x, 2);
      case Nodes: case Runs: return QString::number(static_cast<qlonglong>(x));
      case kRows: break;
    }
    return {};
  }
  const int other = col - v;
  const double a = value(row, 0), b = value(row, other);
  const double r = a != 0 ? b / a : std::nan("");
  if (role == kBenchmarkSortRole) return r;
  if (role != Qt::DisplayRole) return {};
  return ratioText(r);
}

// ---------------------------------------------------------------- proxy

BenchmarkProxyModel::BenchmarkProxyModel(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(kBenchmarkSortRole);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
  setDynamicSortFilter(true);
}

bool BenchmarkProxyModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QVariant a = left.data(kBenchmarkSortRole), b = right.data(kBenchmarkSortRole);
  if (a.typeId() == QMetaType::Double && b.typeId() == QMetaType::Double) {
    const double x = a.toDouble(), y = b.toDouble();
    // Missing values stay at the bottom in both orders.
    const bool xm = !std::isfinite(x), ym = !std::isfinite(y);
    if (xm || ym) return sortOrder() == Qt::AscendingOrder ? (!xm && ym) : (xm && !ym);
    return x < y;
  }
  return QString::localeAwareCompare(a.toString(), b.toString()) < 0;
}

bool BenchmarkProxyModel::filterAcceptsRow(int row, const QModelIndex& parent) const {
  const QString needle = filterRegularExpression().pattern();
  if (needle.isEmpty()) return true;
  std::vector<int> columns = filter_columns_;
  if (columns.empty())
    for (int c = 0; c < sourceModel()->columnCount(parent); ++c) columns.push_back(c);
  for (int c : columns) {
    const QString text = sourceModel()->index(row, c, parent).data(Qt::DisplayRole).toString();
    if (text.contains(needle, Qt::CaseInsensitive)) return true;
  }
  return false;
}

// ---------------------------------------------------------------- chart

OpTypeChart::OpTypeChart(QWidget* parent) : QWidget(parent) {
  setObjectName("OpTypeChart");
  setMinimumSize(100, 110);  // the headline figures beside it keep their width first
}

QColor OpTypeChart::variantColor(int variant) {
  static const QColor colors[] = {QColor(66, 133, 204), QColor(230, 126, 34), QColor(96, 168, 90), QColor(150, 100, 180)};
  return colors[variant % 4];
}

void OpTypeChart::setComparison(ComparisonPtr comparison) {
  data_ = std::move(comparison);
  update();
}

std::vector<std::string> OpTypeChart::shownTypes() const {
  std::vector<std::pair<double, std::string>> by_time;
  if (!data_) return {};
  for (const auto& row : data_->types()) {
    double most = 0;
    for (const auto& t : row.per_variant)
      if (t) most = std::max(most, static_cast<double>(t->time_us));
    by_time.emplace_back(most, row.type);
  }
  std::stable_sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < by_time.size() && static_cast<int>(i) < max_types_; ++i) out.push_back(by_time[i].second);
  return out;
}

void OpTypeChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  const QFontMetrics fm = p.fontMetrics();
  if (!data_ || data_->variantCount() == 0) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("Time per op type appears here after a run"));
    return;
  }
  std::vector<std::string> types = shownTypes();
  std::map<std::string, const BenchmarkComparison::TypeRow*> rows;
  for (const auto& row : data_->types()) rows[row.type] = &row;
  double most = 0;
  int label_w = 0;
  for (const auto& t : types) {
    label_w = std::max(label_w, fm.horizontalAdvance(QString::fromStdString(t)));
    for (const auto& s : rows[t]->per_variant)
      if (s) most = std::max(most, static_cast<double>(s->time_us) / 1000.0);
  }
  if (most <= 0) most = 1;
  const int n = data_->variantCount();
  const int margin = 8;
  const int title_h = fm.height() + 4;
  const int legend_h = fm.height() + 6;
  const int axis_h = fm.height() + 4;
  label_w = std::min(label_w + 8, width() / 3);
  const QRect plot(margin + label_w, margin + title_h + legend_h, width() - 2 * margin - label_w - fm.horizontalAdvance("000.000 ms"),
                   height() - 2 * margin - title_h - legend_h - axis_h);
  p.setPen(palette().color(QPalette::Text));
  QFont bold = p.font();
  bold.setBold(true);
  p.setFont(bold);
  // The title elided, never cut, when the dock gives the chart little width.
  p.drawText(QRect(margin, margin, width() - 2 * margin, title_h), Qt::AlignLeft | Qt::AlignVCenter,
             QFontMetrics(bold).elidedText(tr("Average time per op type (ms per run)"), Qt::ElideRight,
                                           width() - 2 * margin));
  p.setFont(font());
  // Legend.
  int x = margin;
  for (int v = 0; v < n; ++v) {
    const QRect swatch(x, margin + title_h + (legend_h - 10) / 2, 10, 10);
    p.fillRect(swatch, variantColor(v));
    const QString text = data_->label(v);
    p.drawText(QPoint(x + 14, margin + title_h + legend_h / 2 + fm.ascent() / 2 - 1), text);
    x += 14 + fm.horizontalAdvance(text) + 16;
  }
  // As many types as fit with one text line per type.
  const size_t fit = static_cast<size_t>(std::max(1, plot.height() / (fm.height() + 2)));
  if (types.size() > fit) types.resize(fit);
  if (types.empty() || plot.height() <= 0 || plot.width() <= 0) return;
  const double slot = static_cast<double>(plot.height()) / static_cast<double>(types.size());
  const double bar_h = std::max(2.0, (slot - 4) / n);
  for (size_t i = 0; i < types.size(); ++i) {
    const double top = plot.top() + slot * static_cast<double>(i);
    const QString name = QString::fromStdString(types[i]);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(margin, top, label_w - 6, slot), Qt::AlignRight | Qt::AlignVCenter,
               fm.elidedText(name, Qt::ElideMiddle, label_w - 6));
    for (int v = 0; v < n; ++v) {
      const auto& s = rows[types[i]]->per_variant[static_cast<size_t>(v)];
      if (!s) continue;
      const double ms = static_cast<double>(s->time_us) / 1000.0;
      const QRectF bar(plot.left(), top + 2 + bar_h * v, plot.width() * ms / most, bar_h - 1);
      p.fillRect(bar, variantColor(v));
      if (bar_h >= fm.height() - 4) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPointF(bar.right() + 4, bar.center().y() + fm.ascent() / 2.0 - 1), fixed(ms));
      }
    }
  }
  // Axis.
  p.setPen(palette().color(QPalette::Mid));
  p.drawLine(plot.bottomLeft(), plot.topLeft());
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  p.setPen(palette().color(QPalette::Text));
  // Up to four intervals, fewer when their labels would touch.
  const int widest = fm.horizontalAdvance(fixed(most, most < 1 ? 2 : 1));
  const int ticks = std::clamp(plot.width() / (widest + 12), 1, 4);
  for (int k = 0; k <= ticks; ++k) {
    const double value = most * k / ticks;
    const int px = plot.left() + static_cast<int>(plot.width() * k / ticks);
    p.drawLine(px, plot.bottom(), px, plot.bottom() + 3);
    const QString text = fixed(value, value < 1 ? 2 : 1);
    p.drawText(QPoint(px - fm.horizontalAdvance(text) / 2, plot.bottom() + 3 + fm.ascent()), text);
  }
}

}  // namespace gds::ui
