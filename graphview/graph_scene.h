// The graph as a QGraphicsScene: node boxes, meta-nodes for collapsed name
// scopes, frames for expanded ones and edges, placed by computeLayout() in a
// worker thread. All state the ui/ layer sets (expansion, selection, search,
// overlays, input/output marks) is keyed by node name, so it survives
// re-layouts and collapsing.
//
// What the items paint is a SceneData per graph (scene_data.h). setGraph()
// starts a new one; the items in the scene keep theirs until the new graph's
// layout arrives and rebuildItems() replaces them all at once.
#pragma once

#include <QGraphicsScene>
#include <QRegularExpression>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphview/graph_items.h"
#include "graphview/hierarchy.h"
#include "graphview/job_runner.h"
#include "graphview/layout.h"
#include "graphview/scene_data.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "model/status.h"

namespace gds::graphview {

class NodeItem;
class GroupItem;
class EdgeItem;

struct SearchOptions {
  bool regex = false;
  bool case_sensitive = false;
  bool names = true;   // node name
  bool ops = true;     // op type
  bool attrs = true;   // attribute values (strings, numbers, shapes, dtypes)
};

class GraphScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit GraphScene(QObject* parent = nullptr);
  ~GraphScene() override;

  // Shows a graph (the scene keeps `def` alive). Starts with the default
  // expansion (large scopes collapsed) and lays out. Errors name the node.
  Status setGraph(std::shared_ptr<const tensorflow::GraphDef> def);
  void clearGraph();
  bool hasGraph() const { return static_cast<bool>(data_); }
  // The graph drawn: the one set, with its function calls inlined as scopes.
  const model::Graph* graph() const { return data_ ? &data_->graph() : nullptr; }
  // The graph as set.
  const tensorflow::GraphDef* sourceGraph() const { return def_.get(); }
  const Hierarchy* hierarchy() const { return data_ ? &data_->hierarchy() : nullptr; }

  // --- Display options (each re-lays out when it changes geometry).
  void setShowFullNames(bool on);
  bool showFullNames() const { return labels_.full_names; }
  void setShowEdgeLabels(bool on);
  bool showEdgeLabels() const { return labels_.edge_labels; }
  void setFoldConstants(bool on);  // rebuilds the hierarchy, keeping marks, overlay, search, selection
  bool foldConstants() const { return fold_constants_; }
  void setLeftToRight(bool on);
  bool leftToRight() const { return options_.left_to_right; }
  void setTimeBudgetMs(double ms) { options_.time_budget_ms = ms; }
  // Lay out in the calling thread (command line, tests); default: a worker.
  void setSynchronous(bool on) { synchronous_ = on; }

  // --- Expansion of name scopes (paths like "MobilenetV1/Conv2d_1").
  bool setScopeExpanded(const std::string& path, bool expanded);  // false: no such scope
  bool isScopeExpanded(const std::string& path) const;
  void toggleGroup(int group);
  void expandAll();
  void collapseAll();
  void resetExpansion();  // the default state
  // Collapses the expanded scopes of the deepest expanded level; false when
  // only the root is expanded.
  bool collapseDeepestLevel();
  // Expands the scopes holding `name`; false when there is no such node.
  bool revealNode(const std::string& name);
  const Expansion& expansion() const { return expansion_; }

  // --- Layout state.
  bool layoutPending() const { return layout_job_->isRunning(); }
  // Processes events until the latest layout is shown (or timeout); true when shown.
  bool waitForLayout(int timeout_ms = 60000);
  const SceneLayout& currentLayout() const { return layout_; }
  double lastSceneBuildMs() const { return scene_build_ms_; }
  std::shared_ptr<LayoutCache> layoutCache() const { return cache_; }

  // --- Items.
  int nodeItemCount() const { return static_cast<int>(node_items_.size()); }
  int groupItemCount() const { return static_cast<int>(group_items_.size()); }
  int edgeItemCount() const { return static_cast<int>(edge_items_.size()); }
  // The item showing `name`: its node box, or the collapsed meta-node hiding it.
  QGraphicsItem* itemForNode(const std::string& name) const;
  // Scene rectangle of a node's visible item (empty when unknown).
  QRectF nodeRect(const std::string& name) const;
  std::string nodeNameAt(const QGraphicsItem* item) const;  // "" for non-node items
  // The current graph's group an item shows; -1 for non-group items and for
  // the items of a graph being replaced (their group numbers are another graph's).
  int groupAt(const QGraphicsItem* item) const;
  QString toolTipFor(const QGraphicsItem* item);

  // --- Selection, by node name.
  void selectNodes(const std::vector<std::string>& names);  // reveals and selects
  std::vector<std::string> selectedNodes() const { return selection_; }

  // --- Search: matches in graph order; highlighted until cleared.
  std::vector<std::string> search(const QString& query, const SearchOptions& options = {});
  void clearSearch();
  const std::vector<std::string>& searchMatches() const { return matches_; }
  // Error of the last regex (empty when valid).
  QString searchError() const { return search_error_; }

  // --- Overlays and marks.
  void setOverlay(const Overlay& overlay);
  void setDiffStatus(const std::unordered_map<std::string, DiffStatus>& status);
  void clearOverlay();
  bool hasOverlay() const { return data_ && data_->hasOverlay(); }
  LegendInfo legend() const;
  void setInputMarks(const std::vector<std::string>& names);
  void setOutputMarks(const std::vector<std::string>& names);
  const std::vector<std::string>& inputMarks() const { return input_marks_; }
  const std::vector<std::string>& outputMarks() const { return output_marks_; }

  // Shape/dtype of node:port (inferred once, on first use).
  const model::TensorInfo& tensorInfo(int node, int port) { return data_->tensorInfo(node, port); }

  // --- What the items of the current graph paint, by that graph's node and
  // group numbers (the items themselves read their own SceneData).
  const NodeLook& look(int node) const { return data_->look(node); }
  bool nodeHit(int node) const { return data_->nodeHit(node); }
  int groupHits(int group) const { return data_->groupHits(group); }
  QColor overlayFill(int node) const { return data_->overlayFill(node); }
  QString overlayBadge(int node) const { return data_->overlayBadge(node); }
  QString overlayToolTip(int node) const { return data_->overlayToolTip(node); }
  QColor groupOverlayFill(int group) const { return data_->groupOverlayFill(group); }
  QString groupOverlayBadge(int group) const { return data_->groupOverlayBadge(group); }
  int markOf(int node) const { return data_ ? data_->markOf(node) : 0; }  // 0 none, 1 input mark, 2 output mark
  QString edgeLabel(int group, int bundle) const { return data_->edgeLabel(group, bundle); }
  QStringList metaLines(int group) const { return data_->metaLines(group, labels_.full_names); }

 signals:
  void layoutStarted();
  void layoutApplied();               // items rebuilt
  // The layout worker threw (out of memory, or any other exception):
  // the items shown stay, `message` says why.
  void layoutFailed(const QString& message);
  void expansionChanged();
  void selectionNamesChanged();
  void overlayChanged();
  // From the destructor, while this is still a GraphScene: views showing it
  // let go now (GraphView::detachScene), before ~QGraphicsScene would.
  void detaching();

 private:
  void requestLayout();
  void applyLayout(SceneLayout layout, std::shared_ptr<const SceneData> data);
  // Replaces every item by the items of `data`'s graph placed by layout_.
  void rebuildItems(std::shared_ptr<const SceneData> data);
  void onSelectionChanged();
  void updateAllItems();
  int nodeIndex(const std::string& name) const;
  std::vector<int> nodeIndices(const std::vector<std::string>& names) const;
  bool matches(int node, const QRegularExpression& re, const QString& plain, const SearchOptions& o) const;

  std::shared_ptr<const tensorflow::GraphDef> def_;
  // The graph set last: what expansion, search, marks and overlays apply to.
  std::shared_ptr<SceneData> data_;
  // The graph the items in the scene show: data_ once its layout is applied.
  std::shared_ptr<const SceneData> shown_;
  std::shared_ptr<const ItemSizes> sizes_;  // of data_
  // Group layouts of data_'s hierarchy only: a worker still laying out the
  // previous graph inserts into the previous graph's cache.
  std::shared_ptr<LayoutCache> cache_;
  Expansion expansion_;
  LayoutOptions options_;
  ItemLabels labels_;  // the items hold a pointer to it
  bool fold_constants_ = true, synchronous_ = false;

  // Layout requests: only the newest result is applied; a newer request
  // cancels and drops the older one.
  JobRunner* layout_job_;
  SceneLayout layout_;  // of shown_
  double scene_build_ms_ = 0;

  std::vector<NodeItem*> node_items_;
  std::vector<GroupItem*> group_items_;
  std::vector<EdgeItem*> edge_items_;
  std::vector<int> item_of_node_;   // shown_'s node -> index in node_items_ (-1)
  std::vector<int> item_of_group_;  // shown_'s group -> index in group_items_ (-1)
  bool rebuilding_ = false;

  std::vector<std::string> selection_;
  std::vector<std::string> matches_;
  QString search_error_;
  std::optional<std::pair<QString, SearchOptions>> search_;  // the last query, until cleared
  // The overlay as set, by name (kept when the hierarchy is rebuilt).
  std::optional<Overlay> overlay_;
  std::optional<std::unordered_map<std::string, DiffStatus>> diff_;
  std::vector<std::string> input_marks_, output_marks_;
};

}  // namespace gds::graphview
