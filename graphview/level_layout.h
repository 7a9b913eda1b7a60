// One level of the hierarchy as a plain graph of boxes, and the two engines
// that place it: Graphviz dot (dot_layout.cc) and a layered fallback
// (layered_layout.cc) for levels dot would take too long on.
#pragma once

#include <QPainterPath>
#include <QPointF>
#include <QSizeF>

#include <vector>

namespace gds::graphview {

struct LevelGraph {
  std::vector<QSizeF> sizes;  // per item
  std::vector<char> point;    // per item: a boundary point (In/Out), drawn as nothing
  int source = -1;            // item placed on the first rank (the In point)
  int sink = -1;              // item placed on the last rank (the Out point)
  struct Edge {
    int from, to;
    int weight = 1;
    // Attach to the middle of the box side facing the flow (frames of
    // expanded groups, whose inner edges continue from there).
    bool tail_port = false, head_port = false;
  };
  std::vector<Edge> edges;
  bool left_to_right = false;
  double node_sep = 18, rank_sep = 30;  // points
};

struct LevelResult {
  std::vector<QPointF> centers;     // per item, content coordinates (top-left 0,0)
  std::vector<QPainterPath> paths;  // per edge, from tail boundary to head boundary
  QSizeF size;
  bool ok = false;
  std::string error;
};

// Graphviz dot through its library API; `dense` sets nslimit/mclimit and
// polyline routing to bound dot's time on crowded levels.
LevelResult dotLayout(const LevelGraph& graph, bool dense);
// Longest-path ranks, barycentric ordering, relaxed coordinates, smooth
// edges through dummy points. Linear-ish time, always succeeds.
LevelResult layeredLayout(const LevelGraph& graph);

}  // namespace gds::graphview
