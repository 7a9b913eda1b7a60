#include "graphview/graph_scene.h"

#include <algorithm>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QThread>

#include "graphview/call_expansion.h"
#include "graphview/graph_items.h"
#include "graphview/style.h"
#include "model/tensor.h"

namespace gds::graphview {
namespace {

// Attribute values as text for search (TensorFlow's spelling where it has one).
void attrTexts(const tensorflow::AttrValue& a, QStringList& out) {
  switch (a.value_case()) {
    case tensorflow::AttrValue::kS:
      if (a.s().size() <= 256) out << QString::fromStdString(a.s());
      break;
    case tensorflow::AttrValue::kI: out << QString::number(a.i()); break;
    case tensorflow::AttrValue::kF: out << QString::number(a.f()); break;
    case tensorflow::AttrValue::kB: out << (a.b() ? QStringLiteral("true") : QStringLiteral("false")); break;
    case tensorflow::AttrValue::kType: out << QString::fromStdString(model::dtypeName(a.type())); break;
    case tensorflow::AttrValue::kShape: {
      QStringList dims;
      for (const auto& d : a.shape().dim()) dims << QString::number(d.size());
      out << QStringLiteral("[") + dims.join(QLatin1Char(',')) + QStringLiteral("]");
      break;
    }
    case tensorflow::AttrValue::kTensor: {
      QStringList dims;
      for (const auto& d : a.tensor().tensor_shape().dim()) dims << QString::number(d.size());
      out << QString::fromStdString(model::dtypeName(a.tensor().dtype())) << QStringLiteral("[") + dims.join(QLatin1Char(',')) + QStringLiteral("]");
      break;
    }
    case tensorflow::AttrValue::kList: {
      const auto& l = a.list();
      QStringList parts;
      for (auto v : l.i()) parts << QString::number(v);
      for (auto v : l.f()) parts << QString::number(v);
      for (const auto& v : l.s())
        if (v.size() <= 256) out << QString::fromStdString(v);
      for (auto v : l.type()) out << QString::fromStdString(model::dtypeName(static_cast<tensorflow::DataType>(v)));
      if (!parts.isEmpty()) out << QStringLiteral("[") + parts.join(QLatin1Char(',')) + QStringLiteral("]");
      break;
    }
    default: break;
  }
}

}  // namespace

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent), cache_(std::make_shared<LayoutCache>()), layout_job_(new JobRunner(this)) {
  setBackgroundBrush(style::background());
  connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

GraphScene::~GraphScene() {
  layout_job_->cancelAndDrop();
  // Views let go now, while this is a GraphScene: ~QGraphicsScene would
  // detach them later, and their handlers (scrolling, painting) would call
  // into a scene whose GraphScene part is gone.
  emit detaching();
  for (QGraphicsView* view : views()) view->setScene(nullptr);
  // Items go now, while the members their removal signals touch still exist.
  rebuilding_ = true;
  disconnect(this, nullptr, this, nullptr);
  clear();
}

Status GraphScene::setGraph(std::shared_ptr<const tensorflow::GraphDef> def) {
  if (!def) return Status::Error("no graph given to the graph view");
  // Calls to library functions are drawn as scopes holding their bodies.
  CallExpansion calls = expandCalls(def);
  auto shown_def = calls.graph;
  auto built = model::Graph::build(*shown_def);
  if (!built.ok()) return built.status().withContext("graph view");
  // The index points into the drawn graph: the deleter keeps it alive as long as the index.
  auto graph = std::shared_ptr<const model::Graph>(new model::Graph(std::move(built).value()),
                                                   [shown_def](const model::Graph* g) { delete g; });
  def_ = def;
  layout_job_->cancelAndDrop();
  // Everything indexed by the new graph's numbers is new; the items in the
  // scene keep painting shown_ (the previous graph) until the layout arrives.
  HierarchyOptions hierarchy_options;
  hierarchy_options.fold_constants = fold_constants_;
  hierarchy_options.call_functions = std::move(calls.functions);
  data_ = std::make_shared<SceneData>(Hierarchy::build(graph, hierarchy_options));
  sizes_ = data_->computeSizes(labels_.full_names);
  cache_ = std::make_shared<LayoutCache>();
  matches_.clear();
  search_error_.clear();
  search_.reset();
  selection_.clear();
  input_marks_.clear();
  output_marks_.clear();
  overlay_.reset();
  diff_.reset();
  expansion_ = data_->hierarchy().defaultExpansion();
  requestLayout();
  return Status::Ok();
}

void GraphScene::clearGraph() {
  layout_job_->cancelAndDrop();
  rebuilding_ = true;
  clear();
  rebuilding_ = false;
  node_items_.clear();
  group_items_.clear();
  edge_items_.clear();
  item_of_node_.clear();
  item_of_group_.clear();
  shown_.reset();
  data_.reset();
  sizes_.reset();
  def_.reset();
  layout_ = SceneLayout();
}


void GraphScene::setShowFullNames(bool on) {
  if (on == labels_.full_names) return;
  labels_.full_names = on;
  if (!data_) return;
  sizes_ = data_->computeSizes(labels_.full_names);
  requestLayout();
}

void GraphScene::setShowEdgeLabels(bool on) {
  if (on == labels_.edge_labels) return;
  labels_.edge_labels = on;
  if (shown_ && !layoutPending()) rebuildItems(shown_);
}

void GraphScene::setFoldConstants(bool on) {
  if (on == fold_constants_) return;
  fold_constants_ = on;
  if (!def_) return;
  // The same graph under another hierarchy: what the ui/ layer set is kept,
  // by name (expanded scopes by path).
  const auto selection = selection_;
  const auto inputs = input_marks_, outputs = output_marks_;
  const auto overlay = overlay_;
  const auto diff = diff_;
  const auto query = search_;
  std::unordered_map<std::string, char> expanded;  // scope path -> expanded
  for (int g = 1; g < data_->hierarchy().groupCount(); ++g) expanded[data_->hierarchy().group(g).path] = expansion_[g];
  auto def = def_;
  if (!setGraph(def).ok()) return;
  // Scopes that are new in this hierarchy keep the default.
  for (int g = 1; g < data_->hierarchy().groupCount(); ++g)
    if (auto it = expanded.find(data_->hierarchy().group(g).path); it != expanded.end()) expansion_[g] = it->second;
  requestLayout();
  setInputMarks(inputs);
  setOutputMarks(outputs);
  if (overlay) setOverlay(*overlay);
  if (diff) setDiffStatus(*diff);
  if (query) search(query->first, query->second);
  selectNodes(selection);
}

void GraphScene::setLeftToRight(bool on) {
  if (on == options_.left_to_right) return;
  options_.left_to_right = on;
  if (data_) requestLayout();
}

// ---------------------------------------------------------------- expansion

bool GraphScene::setScopeExpanded(const std::string& path, bool expanded) {
  if (!data_) return false;
  int g = data_->hierarchy().findGroup(path);
  if (g < 0) return false;
  if (g == 0 || (expansion_[g] != 0) == expanded) return true;
  expansion_[g] = expanded ? 1 : 0;
  emit expansionChanged();
  requestLayout();
  return true;
}

bool GraphScene::isScopeExpanded(const std::string& path) const {
  if (!data_) return false;
  int g = data_->hierarchy().findGroup(path);
  return g >= 0 && expansion_[g];
}

void GraphScene::toggleGroup(int group) {
  if (!data_ || group <= 0 || group >= data_->hierarchy().groupCount()) return;
  expansion_[group] = expansion_[group] ? 0 : 1;
  emit expansionChanged();
  requestLayout();
}

void GraphScene::expandAll() {
  if (!data_) return;
  expansion_ = data_->hierarchy().allExpanded();
  emit expansionChanged();
  requestLayout();
}

void GraphScene::collapseAll() {
  if (!data_) return;
  expansion_.assign(data_->hierarchy().groupCount(), 0);
  expansion_[0] = 1;
  emit expansionChanged();
  requestLayout();
}

void GraphScene::resetExpansion() {
  if (!data_) return;
  expansion_ = data_->hierarchy().defaultExpansion();
  emit expansionChanged();
  requestLayout();
}

bool GraphScene::collapseDeepestLevel() {
  if (!data_) return false;
  const Hierarchy& h = data_->hierarchy();
  int deepest = 0;
  for (int g = 1; g < h.groupCount(); ++g)
    if (expansion_[g]) deepest = std::max(deepest, h.group(g).depth);
  if (deepest == 0) return false;
  for (int g = 1; g < h.groupCount(); ++g)
    if (expansion_[g] && h.group(g).depth == deepest) expansion_[g] = 0;
  emit expansionChanged();
  requestLayout();
  return true;
}

bool GraphScene::revealNode(const std::string& name) {
  int idx = nodeIndex(name);
  if (idx < 0) return false;
  Expansion before = expansion_;
  data_->hierarchy().expandTo(expansion_, idx);
  if (before != expansion_) {
    emit expansionChanged();
    requestLayout();
  }
  return true;
}

int GraphScene::nodeIndex(const std::string& name) const {
  if (!data_) return -1;
  return data_->graph().find(name);
}

std::vector<int> GraphScene::nodeIndices(const std::vector<std::string>& names) const {
  std::vector<int> out;
  for (const auto& name : names)
    if (int idx = nodeIndex(name); idx >= 0) out.push_back(idx);
  return out;
}

// ------------------------------------------------------------------- layout

void GraphScene::requestLayout() {
  if (!data_) return;
  LayoutRequest request;
  request.hierarchy = data_->hierarchyPtr();
  request.expansion = expansion_;
  request.sizes = sizes_;
  request.options = options_;
  request.cache = cache_;
  // The layout is of this graph: its items are built from this SceneData,
  // whatever setGraph() did meanwhile (a newer request makes it stale anyway).
  std::shared_ptr<const SceneData> data = data_;
  emit layoutStarted();
  if (synchronous_) {
    layout_job_->cancelAndDrop();
    applyLayout(computeLayout(request), std::move(data));
    return;
  }
  // The worker gets immutable values only (hierarchy, sizes, expansion copy)
  // and the thread-safe cache; starting drops the request still running.
  layout_job_->start(
      tr("Laying out the graph"),
      [request](JobControl& job) mutable {
        request.cancelled = job.cancelCheck();
        return computeLayout(request);
      },
      [this, data](JobOutcome<SceneLayout> out) {
        if (out.ok()) applyLayout(std::move(*out.value), data);
        else emit layoutFailed(out.error);
      });
}

void GraphScene::applyLayout(SceneLayout layout, std::shared_ptr<const SceneData> data) {
  layout_ = std::move(layout);
  rebuildItems(std::move(data));
  emit layoutApplied();
}

bool GraphScene::waitForLayout(int timeout_ms) {
  QElapsedTimer timer;
  timer.start();
  while (layoutPending() && timer.elapsed() < timeout_ms) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (layoutPending()) QThread::msleep(2);
  }
  return !layoutPending();
}

void GraphScene::rebuildItems(std::shared_ptr<const SceneData> data) {
  QElapsedTimer timer;
  timer.start();
  rebuilding_ = true;
  clearSelection();
  clear();
  node_items_.clear();
  group_items_.clear();
  edge_items_.clear();
  shown_ = std::move(data);
  item_of_node_.assign(shown_->graph().size(), -1);
  item_of_group_.assign(shown_->hierarchy().groupCount(), -1);
  // Bulk insertion without the BSP index, which is rebuilt once afterwards.
  setItemIndexMethod(QGraphicsScene::NoIndex);
  for (const auto& g : layout_.groups) {
    auto* item = new GroupItem(&labels_, shown_, g.group, g.rect, g.expanded);
    item_of_group_[g.group] = static_cast<int>(group_items_.size());
    group_items_.push_back(item);
    addItem(item);
  }
  for (const auto& e : layout_.edges) {
    auto* item = new EdgeItem(&labels_, shown_, e.group, e.bundle, e.path, e.arrow);
    edge_items_.push_back(item);
    addItem(item);
  }
  for (const auto& n : layout_.nodes) {
    auto* item = new NodeItem(&labels_, shown_, n.node, n.rect);
    item_of_node_[n.node] = static_cast<int>(node_items_.size());
    node_items_.push_back(item);
    addItem(item);
  }
  setItemIndexMethod(QGraphicsScene::BspTreeIndex);
  setSceneRect(layout_.bounds.adjusted(-40, -40, 40, 40));
  for (const auto& name : selection_)
    if (QGraphicsItem* item = itemForNode(name)) item->setSelected(true);
  rebuilding_ = false;
  scene_build_ms_ = timer.nsecsElapsed() / 1e6;
}

// -------------------------------------------------------------------- items

QGraphicsItem* GraphScene::itemForNode(const std::string& name) const {
  // By the shown graph's numbers: while a new graph's layout runs, the items
  // are still the previous graph's.
  if (!shown_) return nullptr;
  const Hierarchy& h = shown_->hierarchy();
  int idx = h.graph().find(name);
  if (idx < 0) return nullptr;
  if (h.isFolded(idx)) idx = h.foldedInto(idx);
  if (item_of_node_[idx] >= 0) return node_items_[item_of_node_[idx]];
  GroupItem* found = nullptr;
  for (int c = h.groupOf(idx); c > 0; c = h.group(c).parent) {
    int k = item_of_group_[c];
    if (k >= 0 && !group_items_[k]->expanded()) found = group_items_[k];
  }
  return found;
}

QRectF GraphScene::nodeRect(const std::string& name) const {
  QGraphicsItem* item = itemForNode(name);
  if (!item) return QRectF();
  return item->mapRectToScene(item->shape().boundingRect());
}

std::string GraphScene::nodeNameAt(const QGraphicsItem* item) const {
  if (item && item->type() == NodeItem::Type) {
    const auto* node = static_cast<const NodeItem*>(item);
    return node->data().graph().name(node->node());
  }
  return {};
}

int GraphScene::groupAt(const QGraphicsItem* item) const {
  if (!item || item->type() != GroupItem::Type) return -1;
  const auto* group = static_cast<const GroupItem*>(item);
  return &group->data() == data_.get() ? group->group() : -1;
}

QString GraphScene::toolTipFor(const QGraphicsItem* item) {
  if (!item) return {};
  if (item->type() == NodeItem::Type) {
    const auto* node = static_cast<const NodeItem*>(item);
    const SceneData& d = node->data();
    const model::Graph& g = d.graph();
    const int n = node->node();
    QString tip = QStringLiteral("<b>%1</b><br>%2").arg(QString::fromStdString(g.op(n)).toHtmlEscaped(),
                                                        QString::fromStdString(g.name(n)).toHtmlEscaped());
    const int outputs = model::outputCount(g, n);
    for (int p = 0; p < outputs && p < 8; ++p)
      tip += QStringLiteral("<br>output %1: %2").arg(p).arg(QString::fromStdString(d.tensorInfo(n, p).str()).toHtmlEscaped());
    for (int w : d.hierarchy().weights(n))
      tip += QStringLiteral("<br>weight %1: %2")
                 .arg(QString::fromStdString(g.name(w)).toHtmlEscaped(), QString::fromStdString(d.tensorInfo(w, 0).str()).toHtmlEscaped());
    QString value = d.overlayToolTip(n);
    if (!value.isEmpty()) tip += QStringLiteral("<br>") + value;
    return tip;
  }
  if (item->type() == GroupItem::Type) {
    const auto* group = static_cast<const GroupItem*>(item);
    const auto& grp = group->data().hierarchy().group(group->group());
    QString tip = QStringLiteral("<b>%1</b><br>%2 nodes").arg(QString::fromStdString(grp.path).toHtmlEscaped()).arg(grp.node_count);
    if (!grp.function.empty())
      tip += QStringLiteral("<br>call of function %1").arg(QString::fromStdString(grp.function).toHtmlEscaped());
    for (const auto& [op, count] : grp.top_ops) tip += QStringLiteral("<br>%1 \u00d7%2").arg(QString::fromStdString(op)).arg(count);
    tip += group->expanded() ? QStringLiteral("<br><i>double-click the header to collapse</i>")
                             : QStringLiteral("<br><i>double-click to expand</i>");
    return tip;
  }
  return {};
}

// ---------------------------------------------------------------- selection

void GraphScene::selectNodes(const std::vector<std::string>& names) {
  selection_.clear();
  for (const auto& name : names)
    if (nodeIndex(name) >= 0) selection_.push_back(name);
  for (const auto& name : selection_) revealNode(name);
  if (!layoutPending()) {
    rebuilding_ = true;
    clearSelection();
    for (const auto& name : selection_)
      if (QGraphicsItem* item = itemForNode(name)) item->setSelected(true);
    rebuilding_ = false;
  }
  emit selectionNamesChanged();
}

void GraphScene::onSelectionChanged() {
  if (rebuilding_) return;
  selection_.clear();
  for (QGraphicsItem* item : selectedItems()) {
    std::string name = nodeNameAt(item);
    if (!name.empty()) selection_.push_back(name);
  }
  emit selectionNamesChanged();
}

// ------------------------------------------------------------------- search

bool GraphScene::matches(int node, const QRegularExpression& re, const QString& plain, const SearchOptions& o) const {
  const model::Graph& g = data_->graph();
  auto test = [&](const QString& s) {
    if (o.regex) return re.match(s).hasMatch();
    return s.contains(plain, o.case_sensitive ? Qt::CaseSensitive : Qt::CaseInsensitive);
  };
  if (o.names && test(QString::fromStdString(g.name(node)))) return true;
  if (o.ops && test(QString::fromStdString(g.op(node)))) return true;
  if (o.attrs) {
    QStringList texts;
    for (const auto& [key, value] : g.node(node).attr()) attrTexts(value, texts);
    for (const QString& t : texts)
      if (test(t)) return true;
  }
  return false;
}

std::vector<std::string> GraphScene::search(const QString& query, const SearchOptions& options) {
  matches_.clear();
  search_error_.clear();
  if (query.isEmpty()) search_.reset();
  else search_ = std::make_pair(query, options);
  if (!data_) return {};
  const model::Graph& g = data_->graph();
  const Hierarchy& h = data_->hierarchy();
  data_->clearHits();
  if (!query.isEmpty()) {
    QRegularExpression re;
    if (options.regex) {
      re = QRegularExpression(query, options.case_sensitive ? QRegularExpression::NoPatternOption
                                                            : QRegularExpression::CaseInsensitiveOption);
      if (!re.isValid()) {
        search_error_ = QStringLiteral("invalid regular expression '%1': %2").arg(query, re.errorString());
        updateAllItems();
        return {};
      }
    }
    for (int i = 0; i < g.size(); ++i) {
      if (!matches(i, re, query, options)) continue;
      matches_.push_back(g.name(i));
      data_->addHit(h.isFolded(i) ? h.foldedInto(i) : i);
    }
  }
  updateAllItems();
  return matches_;
}

void GraphScene::clearSearch() { search(QString()); }

void GraphScene::updateAllItems() {
  // Items of a graph being replaced show their own, unchanged data.
  if (!shown_ || shown_ != data_) return;
  for (auto* i : node_items_) i->update();
  for (auto* i : group_items_) i->update();
}

// ----------------------------------------------------------------- overlays

void GraphScene::setOverlay(const Overlay& overlay) {
  if (!data_) return;
  std::vector<std::pair<int, double>> values;
  for (const auto& [name, value] : overlay.values)
    if (int idx = nodeIndex(name); idx >= 0) values.emplace_back(idx, value);
  data_->setOverlay(overlay, values);
  overlay_ = overlay;
  diff_.reset();
  updateAllItems();
  emit overlayChanged();
}

void GraphScene::setDiffStatus(const std::unordered_map<std::string, DiffStatus>& status) {
  if (!data_) return;
  std::vector<std::pair<int, DiffStatus>> indexed;
  for (const auto& [name, s] : status)
    if (int idx = nodeIndex(name); idx >= 0) indexed.emplace_back(idx, s);
  data_->setDiff(indexed);
  diff_ = status;
  overlay_.reset();
  updateAllItems();
  emit overlayChanged();
}

void GraphScene::clearOverlay() {
  if (data_) data_->clearOverlay();
  overlay_.reset();
  diff_.reset();
  updateAllItems();
  emit overlayChanged();
}

LegendInfo GraphScene::legend() const { return data_ ? data_->legend() : LegendInfo(); }

void GraphScene::setInputMarks(const std::vector<std::string>& names) {
  input_marks_ = names;
  if (!data_) return;
  data_->setMarks(nodeIndices(names), 1);
  updateAllItems();
}

void GraphScene::setOutputMarks(const std::vector<std::string>& names) {
  output_marks_ = names;
  if (!data_) return;
  data_->setMarks(nodeIndices(names), 2);
  updateAllItems();
}

}  // namespace gds::graphview
