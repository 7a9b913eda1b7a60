// Layout of the visible level of a Hierarchy. Every expanded group is laid
// out on its own (its children: nodes, collapsed meta-nodes and expanded
// frames of fixed size), innermost first, with Graphviz's dot engine; a group
// that is too large or dense for dot, or anything left when the time budget
// is spent, gets a simple layered layout instead (layered_layout.h). Group
// layouts are cached per (group, expansion below it, options), so expanding
// one scope re-lays out only that scope and its ancestors.
//
// Everything here is thread-safe and Qt-GUI-free (QPointF/QRectF/
// QPainterPath are plain values), so it runs in a worker thread.
#pragma once

#include <QPainterPath>
#include <QRectF>
#include <QSizeF>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphview/hierarchy.h"

namespace gds::graphview {

struct LayoutOptions {
  bool left_to_right = false;  // Graphviz rankdir=LR instead of TB
  // Total time for one request; groups still to lay out when it is spent use
  // the layered fallback.
  double time_budget_ms = 1500;
  // Levels larger than this go straight to the fallback (dot's cost grows
  // steeply with size and density).
  int max_dot_items = 160;
  int max_dot_edges = 400;
  std::string key() const;
};

// Geometry that the scene decides (text metrics) and the layout respects.
struct ItemSizes {
  std::vector<QSizeF> nodes;       // per graph node
  std::vector<QSizeF> meta;        // per group, collapsed meta-node size
  std::uint64_t signature = 0;     // changes when sizes change (e.g. full names)
};

// Frame of an expanded group around its laid-out children.
struct FrameMetrics {
  static constexpr double kPad = 14;
  static constexpr double kHeader = 26;
};

// Layout of one expanded group in its own frame coordinates (0,0 = frame top-left).
struct GroupLayout {
  QSizeF size;                     // frame size
  std::vector<ItemRef> children;   // nodes and groups
  std::vector<QRectF> rects;       // per child
  struct Edge {
    int bundle = 0;                // index into Hierarchy::bundles(group)
    QPainterPath path;
  };
  std::vector<Edge> edges;
  QPointF in_point, out_point;     // where boundary edges start/end inside
  bool fallback = false;           // laid out by the layered fallback
  double millis = 0;
};

// Absolute geometry of everything visible.
struct SceneLayout {
  struct Node {
    int node;
    QRectF rect;
  };
  struct Group {
    int group;
    QRectF rect;
    bool expanded;
  };
  struct Edge {
    int group, bundle;
    QPainterPath path;
    bool arrow;    // the head is a drawn item (not a frame boundary)
  };
  std::vector<Node> nodes;
  std::vector<Group> groups;  // expanded frames first (outer before inner), then meta-nodes
  std::vector<Edge> edges;
  QRectF bounds;
  // Statistics of the request that produced it.
  double millis = 0;
  int dot_runs = 0, fallback_runs = 0, cache_hits = 0;
  bool budget_exceeded = false;
};

class LayoutCache {
 public:
  std::shared_ptr<const GroupLayout> find(const std::string& key);
  void insert(const std::string& key, std::shared_ptr<const GroupLayout> layout);
  void clear();
  size_t size();

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const GroupLayout>> map_;
};

struct LayoutRequest {
  std::shared_ptr<const Hierarchy> hierarchy;
  Expansion expansion;
  std::shared_ptr<const ItemSizes> sizes;
  LayoutOptions options;
  std::shared_ptr<LayoutCache> cache;  // may be null
  std::function<bool()> cancelled;  // polled between groups; may be empty
};

// Lays out the visible level. Returns an empty layout when cancelled.
SceneLayout computeLayout(const LayoutRequest& request);

// One group on its own (exposed for tests and the benchmark). `use_dot`
// false forces the layered fallback.
std::shared_ptr<const GroupLayout> layoutGroup(const Hierarchy& h, int group, const Expansion& expansion,
                                               const ItemSizes& sizes, const LayoutOptions& options,
                                               const std::vector<std::shared_ptr<const GroupLayout>>& child_layouts,
                                               bool use_dot);

// Graphviz is not thread-safe: every use of its library in the process goes
// through this mutex.
std::mutex& graphvizMutex();

}  // namespace gds::graphview
