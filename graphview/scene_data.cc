#include "graphview/scene_data.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <limits>

#include "graphview/style.h"
#include "model/attr.h"
#include "model/op_metadata.h"
#include "model/tensor.h"

namespace gds::graphview {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString shortName(const std::string& name) {
  size_t slash = name.rfind('/');
  return QString::fromStdString(slash == std::string::npos ? name : name.substr(slash + 1));
}

QString formatValue(double v, const QString& unit) {
  QString s = QString::number(v, 'g', 3);
  return unit.isEmpty() ? s : s + QLatin1Char(' ') + unit;
}

}  // namespace

QColor heatColor(double t) {
  t = std::clamp(t, 0.0, 1.0);
  // Light yellow -> orange -> dark red (perceptually ordered, readable text on all).
  static const QColor stops[] = {QColor(255, 247, 188), QColor(254, 196, 79), QColor(236, 112, 20),
                                 QColor(204, 44, 26)};
  double x = t * 3;
  int i = std::min(2, static_cast<int>(x));
  double f = x - i;
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * f, a.greenF() + (b.greenF() - a.greenF()) * f,
                          a.blueF() + (b.blueF() - a.blueF()) * f);
}

QColor diffColor(DiffStatus status) {
  switch (status) {
    case DiffStatus::Added: return QColor(198, 239, 206);
    case DiffStatus::Removed: return QColor(255, 199, 206);
    case DiffStatus::Changed: return QColor(255, 235, 156);
    case DiffStatus::Unchanged: break;
  }
  return QColor();
}

SceneData::SceneData(std::shared_ptr<const Hierarchy> hierarchy)
    : hierarchy_(std::move(hierarchy)),
      node_hit_(hierarchy_->graph().size(), 0),
      group_hits_(hierarchy_->groupCount(), 0),
      mark_(hierarchy_->graph().size(), 0) {
  computeLooks();
}

void SceneData::computeLooks() {
  const model::Graph& g = hierarchy_->graph();
  const int n = g.size();
  looks_.assign(n, NodeLook{});
  const auto& registry = model::OpRegistry::instance();
  for (int i = 0; i < n; ++i) {
    NodeLook& look = looks_[i];
    look.title = QString::fromStdString(g.op(i));
    look.full_name = QString::fromStdString(g.name(i));
    look.name = shortName(g.name(i));
    const model::OpCategory cat = categoryOf(g.op(i));
    CategoryStyle st = styleFor(cat);
    look.header = st.header;
    look.title_color = st.text;
    look.model_input = g.op(i) == "Placeholder" || g.op(i) == "PlaceholderWithDefault";
    look.model_output = !look.model_input && g.consumers(i).empty() && g.op(i) != "NoOp" &&
                        cat != model::OpCategory::Training && cat != model::OpCategory::Control &&
                        cat != model::OpCategory::Constant;
    const auto& weights = hierarchy_->weights(i);
    const gdstudio::OpMetadata* meta = registry.find(g.op(i));
    for (size_t k = 0; k < weights.size(); ++k) {
      if (static_cast<int>(k) >= style::kMaxWeightRows) {
        look.more_weights = static_cast<int>(weights.size() - k);
        break;
      }
      int w = weights[k];
      // Name the weight by the consumer's argument it feeds (Netron's "filter", "bias").
      QString arg = QStringLiteral("W");
      const auto& ins = g.inputs(i);
      for (size_t a = 0; a < ins.size(); ++a) {
        int src = ins[a].node;
        if (src == w || (hierarchy_->foldedInto(src) == i && !g.inputs(src).empty() && g.inputs(src)[0].node == w)) {
          if (meta && static_cast<int>(a) < meta->inputs_size()) arg = QString::fromStdString(meta->inputs(static_cast<int>(a)));
          else if (a == 1) arg = QStringLiteral("B");
          break;
        }
      }
      std::vector<std::int64_t> dims;
      if (const auto* value = model::findAttr(g.node(w), "value"))
        for (const auto& d : value->tensor().tensor_shape().dim()) dims.push_back(d.size());
      look.weights.push_back(arg + QStringLiteral(" \u27e8") + (dims.empty() ? QStringLiteral("scalar") : dimsText(dims)) +
                             QStringLiteral("\u27e9"));
    }
  }
}

std::shared_ptr<const ItemSizes> SceneData::computeSizes(bool full_names) const {
  const int n = hierarchy_->graph().size();
  auto sizes = std::make_shared<ItemSizes>();
  sizes->nodes.resize(n);
  QFontMetricsF title(style::titleFont()), name(style::nameFont()), small(style::smallFont());
  for (int i = 0; i < n; ++i) {
    const NodeLook& look = looks_[i];
    double w = std::max(title.horizontalAdvance(look.title), name.horizontalAdvance(full_names ? look.full_name : look.name));
    double h = style::kTitleHeight + style::kRowHeight + 3;
    if (look.model_input) {
      h = 36;
    } else if (!look.weights.empty()) {
      for (const QString& row : look.weights) w = std::max(w, small.horizontalAdvance(row));
      h += 4 + (style::kRowHeight - 2) * (look.weights.size() + (look.more_weights ? 1 : 0));
    }
    sizes->nodes[i] = QSizeF(std::max(style::kMinNodeWidth, std::ceil(w) + 18), h);
  }
  sizes->meta.resize(hierarchy_->groupCount());
  for (int gi = 0; gi < hierarchy_->groupCount(); ++gi) {
    QStringList lines = metaLines(gi, full_names);
    double w = title.horizontalAdvance(QStringLiteral("+  ") + lines.value(0));
    for (int k = 1; k < lines.size(); ++k) w = std::max(w, name.horizontalAdvance(lines[k]));
    // Also wide enough for the expanded frame's header: "−  label" ... "N nodes".
    double header = title.horizontalAdvance(QStringLiteral("\u2212  ") + lines.value(0)) +
                    small.horizontalAdvance(lines.value(1)) + 36;
    w = std::max(w + 28, header);
    sizes->meta[gi] = QSizeF(std::max(90.0, std::ceil(w)), 12 + 16.0 * lines.size());
  }
  sizes->signature = (full_names ? 1 : 0) | (hierarchy_->options().fold_constants ? 2 : 0);
  return sizes;
}

QStringList SceneData::metaLines(int group, bool full_names) const {
  const auto& grp = hierarchy_->group(group);
  QStringList lines;
  lines << QString::fromStdString(full_names ? grp.path : grp.label);
  lines << QStringLiteral("%1 nodes").arg(grp.node_count);
  QStringList ops;
  for (size_t k = 0; k < grp.top_ops.size() && k < 2; ++k)
    ops << QStringLiteral("%1 \u00d7%2").arg(QString::fromStdString(grp.top_ops[k].first)).arg(grp.top_ops[k].second);
  if (!ops.isEmpty()) lines << ops.join(QStringLiteral("  \u00b7  "));
  return lines;
}

// ------------------------------------------------------------------ options

QString SceneData::edgeLabel(int group, int bundle) const {
  const auto& b = hierarchy_->bundles(group)[bundle];
  if (b.data + b.control > 1)
    return b.data ? QStringLiteral("%1 tensors").arg(b.data + b.control) : QStringLiteral("%1 control").arg(b.control);
  if (b.control) return QString();
  const auto& info = tensorInfo(b.src_node, b.src_port);
  return QString::fromStdString(info.str());
}

const model::TensorInfo& SceneData::tensorInfo(int node, int port) const {
  if (!shapes_) shapes_ = std::make_unique<model::InferredShapes>(model::inferShapes(hierarchy_->graph()));
  return shapes_->at(node, port);
}

// ------------------------------------------------------------ search, marks

void SceneData::clearHits() {
  std::fill(node_hit_.begin(), node_hit_.end(), 0);
  std::fill(group_hits_.begin(), group_hits_.end(), 0);
}

void SceneData::addHit(int node) {
  node_hit_[node] = 1;
  for (int c = hierarchy_->groupOf(node); c > 0; c = hierarchy_->group(c).parent) ++group_hits_[c];
}

void SceneData::setMarks(const std::vector<int>& nodes, int mark) {
  for (auto& m : mark_)
    if (m == mark) m = 0;
  for (int n : nodes) mark_[n] = static_cast<char>(mark);
}

// ----------------------------------------------------------------- overlays

void SceneData::setOverlay(const Overlay& overlay, const std::vector<std::pair<int, double>>& values) {
  overlay_kind_ = OverlayKind::Values;
  overlay_ = overlay;
  overlay_.values.clear();
  node_value_.assign(hierarchy_->graph().size(), kNaN);
  node_noted_.assign(hierarchy_->graph().size(), 0);
  for (const auto& [name, note] : overlay_.notes) {
    const int idx = hierarchy_->graph().find(name);
    if (idx >= 0) node_noted_[idx] = 1;
  }
  group_value_.assign(hierarchy_->groupCount(), kNaN);
  group_label_.assign(hierarchy_->groupCount(), QString());
  for (const auto& [name, label] : overlay_.labels) {
    const int idx = hierarchy_->graph().find(name);
    if (idx >= 0)
      for (int c = hierarchy_->groupOf(idx); c > 0; c = hierarchy_->group(c).parent) group_label_[c] = label;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& [idx, value] : values) {
    if (std::isnan(value)) continue;
    node_value_[idx] = value;
    lo = std::min(lo, value);
    hi = std::max(hi, value);
    for (int c = hierarchy_->groupOf(idx); c > 0; c = hierarchy_->group(c).parent) {
      double& gv = group_value_[c];
      const bool sum = overlay.sum_for_groups && overlay.categories.empty();
      gv = std::isnan(gv) ? value : (sum ? gv + value : std::max(gv, value));
    }
  }
  overlay_min_ = overlay.min.value_or(std::isfinite(lo) ? lo : 0);
  overlay_max_ = overlay.max.value_or(std::isfinite(hi) ? hi : 1);
}

void SceneData::setDiff(const std::vector<std::pair<int, DiffStatus>>& status) {
  overlay_kind_ = OverlayKind::Diff;
  node_diff_.assign(hierarchy_->graph().size(), -1);
  group_value_.assign(hierarchy_->groupCount(), kNaN);
  for (const auto& [idx, s] : status) {
    node_diff_[idx] = static_cast<signed char>(s);
    if (s != DiffStatus::Unchanged)
      for (int c = hierarchy_->groupOf(idx); c > 0; c = hierarchy_->group(c).parent) group_value_[c] = 1;
  }
}

QColor SceneData::overlayFill(int node) const {
  if (overlay_kind_ == OverlayKind::Values) {
    double v = node_value_[node];
    if (std::isnan(v)) return QColor();
    return valueColor(v);
  }
  if (overlay_kind_ == OverlayKind::Diff && node_diff_[node] >= 0) return diffColor(static_cast<DiffStatus>(node_diff_[node]));
  return QColor();
}

double SceneData::overlayRamp(double v) const {
  const double lo = overlay_min_, hi = overlay_max_;
  if (overlay_.log_scale && lo > 0 && v > 0) return (std::log(v) - std::log(lo)) / std::max(1e-12, std::log(hi) - std::log(lo));
  return (v - lo) / std::max(1e-12, hi - lo);
}

QColor SceneData::valueColor(double v) const {
  if (overlay_.categories.empty()) return heatColor(overlayRamp(v));
  const auto i = static_cast<size_t>(std::clamp(v, 0.0, static_cast<double>(overlay_.categories.size() - 1)));
  return overlay_.categories[i].second;
}

QString SceneData::valueText(double v) const {
  if (overlay_.categories.empty()) return formatValue(v, overlay_.unit);
  const auto i = static_cast<size_t>(std::clamp(v, 0.0, static_cast<double>(overlay_.categories.size() - 1)));
  return overlay_.categories[i].first;
}

QString SceneData::overlayBadge(int node) const {
  if (overlay_kind_ == OverlayKind::Values && !overlay_.labels.empty()) {
    const auto it = overlay_.labels.find(hierarchy_->graph().name(node));
    if (it != overlay_.labels.end())
      return std::isnan(node_value_[node]) ? it->second
                                           : it->second + QStringLiteral(" \u00b7 ") + valueText(node_value_[node]);
  }
  if (overlay_kind_ == OverlayKind::Values && !std::isnan(node_value_[node])) return valueText(node_value_[node]);
  if (overlay_kind_ == OverlayKind::Values && node_noted_[node]) return QStringLiteral("fused");
  if (overlay_kind_ == OverlayKind::Diff && node_diff_[node] > 0) {
    switch (static_cast<DiffStatus>(node_diff_[node])) {
      case DiffStatus::Added: return QStringLiteral("added");
      case DiffStatus::Removed: return QStringLiteral("removed");
      case DiffStatus::Changed: return QStringLiteral("changed");
      default: break;
    }
  }
  return {};
}

QString SceneData::overlayToolTip(int node) const {
  if (overlay_kind_ != OverlayKind::Values) return {};
  QString tip;
  if (!std::isnan(node_value_[node]))
    tip = QStringLiteral("%1: %2").arg(overlay_.title.toHtmlEscaped(), valueText(node_value_[node]).toHtmlEscaped());
  if (node_noted_[node]) {
    auto it = overlay_.notes.find(hierarchy_->graph().name(node));
    if (it != overlay_.notes.end()) tip += (tip.isEmpty() ? QString() : QStringLiteral("<br>")) + it->second.toHtmlEscaped();
  }
  return tip;
}

QColor SceneData::groupOverlayFill(int group) const {
  if (overlay_kind_ == OverlayKind::Values) {
    double v = group_value_[group];
    if (std::isnan(v)) return QColor();
    // Sums can exceed the per-node range: clamp at the top of the gradient.
    return valueColor(v);
  }
  if (overlay_kind_ == OverlayKind::Diff) {
    // A scope holding any change is "changed".
    if (!std::isnan(group_value_[group])) return diffColor(DiffStatus::Changed);
  }
  return QColor();
}

QString SceneData::groupOverlayBadge(int group) const {
  if (overlay_kind_ == OverlayKind::Values && !std::isnan(group_value_[group])) {
    if (!overlay_.categories.empty()) return valueText(group_value_[group]);
    const QString label = group_label_[group].isEmpty() ? QString() : group_label_[group] + QStringLiteral(" \u00b7 ");
    return label + (overlay_.sum_for_groups ? QStringLiteral("\u03a3 ") : QStringLiteral("max ")) +
           formatValue(group_value_[group], overlay_.unit);
  }
  return {};
}

LegendInfo SceneData::legend() const {
  LegendInfo info;
  if (overlay_kind_ == OverlayKind::Values) {
    info.title = overlay_.title;
    if (!overlay_.categories.empty()) {
      info.entries = overlay_.categories;
      return info;
    }
    info.gradient = true;
    info.min = overlay_min_;
    info.max = overlay_max_;
    info.unit = overlay_.unit;
  } else if (overlay_kind_ == OverlayKind::Diff) {
    info.title = QStringLiteral("Changes");
    info.entries = {{QStringLiteral("added"), diffColor(DiffStatus::Added)},
                    {QStringLiteral("removed"), diffColor(DiffStatus::Removed)},
                    {QStringLiteral("changed"), diffColor(DiffStatus::Changed)}};
  }
  return info;
}

}  // namespace gds::graphview
