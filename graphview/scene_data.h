// What the scene's items paint for one graph: its name-scope hierarchy, the
// node looks computed from it, and the per-node and per-group state the ui/
// layer sets (search hits, input/output marks, overlay values), all indexed
// by that graph's node and group numbers.
//
// Each item holds the SceneData it was built from. A new graph (a transform
// step, undo, redo, another file) gets a new SceneData; the items already in
// the scene keep reading their own, whole and unchanged, until the new
// graph's layout replaces them (GraphScene::rebuildItems). So an item never
// reads one graph's index in another graph's arrays, however late the layout
// arrives. Only the GUI thread touches a SceneData; layout workers get the
// immutable Hierarchy and ItemSizes.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graphview/hierarchy.h"
#include "graphview/layout.h"
#include "model/graph.h"
#include "model/shape_inference.h"

namespace gds::graphview {

// Per-node values drawn as a fill colour on a gradient, a legend and a badge
// (latency in ms, quantization error, ...).
struct Overlay {
  QString title;   // legend title, e.g. "Latency"
  QString unit;    // badge suffix, e.g. "ms"
  std::unordered_map<std::string, double> values;  // node name -> value
  std::optional<double> min, max;  // gradient range (default: the data's)
  bool log_scale = false;
  // Collapsed scopes show the sum (true, e.g. time) or the maximum (false, e.g. error).
  bool sum_for_groups = true;
  // node name -> a line for its tooltip, e.g. that it ran inside another
  // node's fused kernel; a noted node without a value shows the badge "fused".
  std::unordered_map<std::string, QString> notes;
  // node name -> a word its badge shows before the value (e.g. "float" on
  // the operators a quantized model keeps float).
  std::unordered_map<std::string, QString> labels;
  // A categorical overlay (verdicts, not amounts) when not empty: a value is
  // an index into `categories`, drawn in its colour with its name as badge
  // and legend entry; collapsed scopes show their highest index, so order
  // the categories least to most alarming.
  std::vector<std::pair<QString, QColor>> categories;
};

enum class DiffStatus { Unchanged, Added, Removed, Changed };

// What the legend shows; the view paints it.
struct LegendInfo {
  QString title;
  std::vector<std::pair<QString, QColor>> entries;  // categorical (diff status)
  bool gradient = false;
  double min = 0, max = 0;
  QString unit;
};

// Text and colours of one node box.
struct NodeLook {
  QString title, name, full_name;
  std::vector<QString> weights;  // badge rows ("W 3×3×8×16")
  int more_weights = 0;
  QColor header, title_color;
  bool model_input = false, model_output = false;
};

class SceneData {
 public:
  explicit SceneData(std::shared_ptr<const Hierarchy> hierarchy);
  SceneData(const SceneData&) = delete;
  SceneData& operator=(const SceneData&) = delete;

  const Hierarchy& hierarchy() const { return *hierarchy_; }
  const std::shared_ptr<const Hierarchy>& hierarchyPtr() const { return hierarchy_; }
  const model::Graph& graph() const { return hierarchy_->graph(); }

  // Box and meta-node sizes from the text metrics (full or short names).
  std::shared_ptr<const ItemSizes> computeSizes(bool full_names) const;

  // --- Read while painting.
  const NodeLook& look(int node) const { return looks_[node]; }
  bool nodeHit(int node) const { return node_hit_[node] != 0; }
  int groupHits(int group) const { return group_hits_[group]; }
  int markOf(int node) const { return mark_[node]; }  // 0 none, 1 input mark, 2 output mark
  // Fill colour from the overlay, and badge text; invalid colour / empty when none.
  QColor overlayFill(int node) const;
  QString overlayBadge(int node) const;
  QColor groupOverlayFill(int group) const;
  QString groupOverlayBadge(int group) const;
  bool hasOverlay() const { return overlay_kind_ != OverlayKind::None; }
  LegendInfo legend() const;
  QStringList metaLines(int group, bool full_names) const;
  QString edgeLabel(int group, int bundle) const;
  // Shape/dtype of node:port (shapes inferred once, on first use).
  const model::TensorInfo& tensorInfo(int node, int port) const;
  // The overlay value of a node, for tooltips ("Latency: 4 ms"); empty when none.
  QString overlayToolTip(int node) const;

  // --- Changed by GraphScene (same graph: the items showing it repaint).
  // Search hits: `node` is a shown node; its scopes count it.
  void clearHits();
  void addHit(int node);
  void setMarks(const std::vector<int>& nodes, int mark);  // replaces the marks of that kind
  void setOverlay(const Overlay& overlay, const std::vector<std::pair<int, double>>& values);
  void setDiff(const std::vector<std::pair<int, DiffStatus>>& status);
  void clearOverlay() { overlay_kind_ = OverlayKind::None; }

 private:
  enum class OverlayKind { None, Values, Diff };
  void computeLooks();
  // Position of a value on the overlay's gradient (0..1 inside the range; log_scale honoured).
  double overlayRamp(double v) const;
  // Fill and badge text of a value (its category's, on a categorical overlay).
  QColor valueColor(double v) const;
  QString valueText(double v) const;

  std::shared_ptr<const Hierarchy> hierarchy_;
  std::vector<NodeLook> looks_;
  mutable std::unique_ptr<model::InferredShapes> shapes_;
  std::vector<char> node_hit_;
  std::vector<int> group_hits_;
  std::vector<char> mark_;
  OverlayKind overlay_kind_ = OverlayKind::None;
  Overlay overlay_;  // without its values (they are in node_value_)
  double overlay_min_ = 0, overlay_max_ = 0;
  std::vector<double> node_value_;   // NaN when absent
  std::vector<char> node_noted_;     // has an entry in overlay_.notes
  std::vector<double> group_value_;  // sum or maximum of the scope (Values); 1 when it holds a change (Diff)
  std::vector<QString> group_label_;  // the label of a labelled node inside the scope (Values)
  std::vector<signed char> node_diff_;  // -1 none
};

// Overlay gradient: light yellow -> orange -> dark red for t in [0, 1].
QColor heatColor(double t);
QColor diffColor(DiffStatus status);

}  // namespace gds::graphview
