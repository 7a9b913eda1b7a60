#include "graphview/layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <unordered_map>

#include "graphview/level_layout.h"

namespace gds::graphview {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

void shiftStart(QPainterPath& p, QPointF to) {
  if (p.elementCount() < 1) return;
  QPointF d = to - QPointF(p.elementAt(0));
  p.setElementPositionAt(0, to.x(), to.y());
  if (p.elementCount() > 1 && p.elementAt(1).type == QPainterPath::CurveToElement)
    p.setElementPositionAt(1, p.elementAt(1).x + d.x(), p.elementAt(1).y + d.y());
}

void shiftEnd(QPainterPath& p, QPointF to) {
  int last = p.elementCount() - 1;
  if (last < 1) return;
  QPointF d = to - QPointF(p.elementAt(last));
  p.setElementPositionAt(last, to.x(), to.y());
  if (last >= 2 && p.elementAt(last).type == QPainterPath::CurveToDataElement)
    p.setElementPositionAt(last - 1, p.elementAt(last - 1).x + d.x(), p.elementAt(last - 1).y + d.y());
}

// Rows of boxes about 1.6 times as wide as tall; In above, Out below. Edges
// to the boundary points are not drawn (they would fan out over the grid).
LevelResult gridLayout(const LevelGraph& level, int real_items) {
  LevelResult r;
  const double sep = level.node_sep;
  double area = 0;
  for (int i = 0; i < real_items; ++i) area += (level.sizes[i].width() + sep) * (level.sizes[i].height() + sep);
  const double row_width = std::max(200.0, std::sqrt(area * 1.6));
  const bool lr = level.left_to_right;
  r.centers.assign(level.sizes.size(), QPointF());
  double top = level.source >= 0 ? level.rank_sep : 0, x = 0, row_h = 0, width = 0;
  for (int i = 0; i < real_items; ++i) {
    QSizeF s = level.sizes[i];
    if (x > 0 && x + s.width() > row_width) {
      top += row_h + sep;
      x = 0;
      row_h = 0;
    }
    r.centers[i] = QPointF(x + s.width() / 2, top + s.height() / 2);
    x += s.width() + sep;
    width = std::max(width, x - sep);
    row_h = std::max(row_h, s.height());
  }
  double height = top + row_h + (level.sink >= 0 ? level.rank_sep : 0);
  if (level.source >= 0) r.centers[level.source] = QPointF(width / 2, 1);
  if (level.sink >= 0) r.centers[level.sink] = QPointF(width / 2, height - 1);
  if (lr)
    for (auto& c : r.centers) c = QPointF(c.y(), c.x());
  r.size = lr ? QSizeF(height, width) : QSizeF(width, height);
  r.paths.resize(level.edges.size());
  for (size_t k = 0; k < level.edges.size(); ++k) r.paths[k].moveTo(r.centers[level.edges[k].from]);
  r.ok = true;
  return r;
}

}  // namespace

std::string LayoutOptions::key() const { return left_to_right ? "LR" : "TB"; }

std::shared_ptr<const GroupLayout> LayoutCache::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : it->second;
}

void LayoutCache::insert(const std::string& key, std::shared_ptr<const GroupLayout> layout) {
  std::lock_guard<std::mutex> lock(mutex_);
  map_[key] = std::move(layout);
}

void LayoutCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  map_.clear();
}

size_t LayoutCache::size() {
  std::lock_guard<std::mutex> lock(mutex_);
  return map_.size();
}

namespace {

// One group's level as a plain graph: its child groups and nodes as items
// (the auxiliary group aside), its bundles as edges, In/Out points made on
// demand.
struct GroupLevel {
  LevelGraph level;
  std::unordered_map<int, int> node_item, group_item;
  int real_items = 0;                // items before the In/Out points
  int aside = -1;                    // the auxiliary group, laid out beside the flow
  std::vector<int> edge_of_bundle;   // per bundle: its level edge, -1 when not drawn

  int itemOf(const ItemRef& r) {
    switch (r.kind) {
      case ItemRef::Node: return node_item.at(r.index);
      case ItemRef::Group: return group_item.at(r.index);
      case ItemRef::In: return point(&level.source);
      case ItemRef::Out: return point(&level.sink);
    }
    return 0;
  }
  int point(int* which) {
    if (*which < 0) {
      *which = static_cast<int>(level.sizes.size());
      level.sizes.push_back(QSizeF(2, 2));
      level.point.push_back(1);
    }
    return *which;
  }
};

GroupLevel levelOf(const Hierarchy& h, int group, const Expansion& expansion, const ItemSizes& sizes,
                   const LayoutOptions& options, const std::vector<std::shared_ptr<const GroupLayout>>& child_layouts,
                   GroupLayout* out) {
  const auto& grp = h.group(group);
  GroupLevel l;
  l.level.left_to_right = options.left_to_right;
  // The auxiliary group sits beside the main graph (TensorBoard's layout):
  // it takes no part in the level's layout and its edges are not drawn.
  l.aside = group == 0 ? h.auxiliaryGroup() : -1;
  for (int c : grp.groups) {
    if (c == l.aside) continue;
    l.group_item[c] = static_cast<int>(out->children.size());
    out->children.push_back({ItemRef::Group, c});
    const auto& child = child_layouts[c];
    l.level.sizes.push_back(expansion[c] && child ? child->size : sizes.meta[c]);
    l.level.point.push_back(0);
  }
  for (int v : grp.nodes) {
    l.node_item[v] = static_cast<int>(out->children.size());
    out->children.push_back({ItemRef::Node, v});
    l.level.sizes.push_back(sizes.nodes[v]);
    l.level.point.push_back(0);
  }
  l.real_items = static_cast<int>(l.level.sizes.size());
  auto expandedGroup = [&](const ItemRef& r) { return r.kind == ItemRef::Group && expansion[r.index]; };
  const auto& bundles = h.bundles(group);
  l.edge_of_bundle.assign(bundles.size(), -1);
  for (size_t k = 0; k < bundles.size(); ++k) {
    const auto& b = bundles[k];
    const bool touches_aside = l.aside > 0 && ((b.from.kind == ItemRef::Group && b.from.index == l.aside) ||
                                               (b.to.kind == ItemRef::Group && b.to.index == l.aside));
    if (touches_aside) continue;
    l.edge_of_bundle[k] = static_cast<int>(l.level.edges.size());
    LevelGraph::Edge e;
    e.from = l.itemOf(b.from);
    e.to = l.itemOf(b.to);
    e.weight = std::min(b.data + b.control, 8);
    e.tail_port = expandedGroup(b.from);
    e.head_port = expandedGroup(b.to);
    l.level.edges.push_back(e);
  }
  return l;
}

// Places the level: a grid for many unconnected siblings, dot where it is
// asked for and the level is small enough, else the layered fallback.
LevelResult place(const GroupLevel& l, const LayoutOptions& options, bool use_dot, bool* fallback) {
  const LevelGraph& level = l.level;
  int inner_edges = 0;
  for (const auto& e : level.edges) inner_edges += e.from < l.real_items && e.to < l.real_items;
  LevelResult placed;
  if (inner_edges == 0 && l.real_items > 12) {
    // Unconnected siblings (a series, or independent init ops): a grid
    // instead of one endless rank.
    placed = gridLayout(level, l.real_items);
    use_dot = false;
  }
  // dot keeps coordinates below 65535 points; huge expanded frames go to the fallback.
  double extent = 0;
  for (const auto& sz : level.sizes) extent += std::max(sz.width(), sz.height());
  if (extent > 30000) use_dot = false;
  bool dot = !placed.ok && use_dot && l.real_items <= options.max_dot_items &&
             static_cast<int>(level.edges.size()) <= options.max_dot_edges;
  if (dot) {
    placed = dotLayout(level, l.real_items > 60 || level.edges.size() > 150);
    if (!placed.ok) dot = false;
  }
  if (!dot && !placed.ok) placed = layeredLayout(level);
  *fallback = !dot;
  return placed;
}

// The bundles' paths in the frame: edges at an expanded frame continue
// inside it from its In/Out point, edges from In and to Out reach the
// frame's border.
void routeEdges(const Hierarchy& h, int group, const Expansion& expansion,
                const std::vector<std::shared_ptr<const GroupLayout>>& child_layouts, GroupLevel& l,
                const LevelResult& placed, QPointF shift, bool lr, GroupLayout* out) {
  auto expandedGroup = [&](const ItemRef& r) { return r.kind == ItemRef::Group && expansion[r.index]; };
  const auto& bundles = h.bundles(group);
  for (size_t k = 0; k < bundles.size(); ++k) {
    const auto& b = bundles[k];
    if (l.edge_of_bundle[k] < 0) continue;
    QPainterPath path = placed.paths[static_cast<size_t>(l.edge_of_bundle[k])].translated(shift);
    // End this part on the frame's side, level with the child's point.
    if (expandedGroup(b.to)) {
      const QRectF& r = out->rects[l.itemOf(b.to)];
      const auto& child = child_layouts[b.to.index];
      QPointF p = lr ? QPointF(r.left(), r.top() + child->in_point.y()) : QPointF(r.left() + child->in_point.x(), r.top());
      shiftEnd(path, p);
    }
    if (expandedGroup(b.from)) {
      const QRectF& r = out->rects[l.itemOf(b.from)];
      const auto& child = child_layouts[b.from.index];
      QPointF p = lr ? QPointF(r.right(), r.top() + child->out_point.y()) : QPointF(r.left() + child->out_point.x(), r.bottom());
      shiftStart(path, p);
    }
    const bool drawn = path.elementCount() > 1;  // grid levels leave boundary edges undrawn
    if (drawn && b.from.kind == ItemRef::In) {
      QPointF edge = lr ? QPointF(0, out->in_point.y()) : QPointF(out->in_point.x(), 0);
      QPainterPath lead(edge);
      lead.lineTo(path.elementCount() > 0 ? QPointF(path.elementAt(0)) : out->in_point);
      lead.connectPath(path);
      path = lead;
    }
    if (drawn && b.to.kind == ItemRef::Out)
      path.lineTo(lr ? QPointF(out->size.width(), out->out_point.y()) : QPointF(out->out_point.x(), out->size.height()));
    out->edges.push_back({static_cast<int>(k), path});
  }
}

}  // namespace

std::shared_ptr<const GroupLayout> layoutGroup(const Hierarchy& h, int group, const Expansion& expansion,
                                               const ItemSizes& sizes, const LayoutOptions& options,
                                               const std::vector<std::shared_ptr<const GroupLayout>>& child_layouts,
                                               bool use_dot) {
  auto start = Clock::now();
  auto out = std::make_shared<GroupLayout>();
  GroupLevel l = levelOf(h, group, expansion, sizes, options, child_layouts, out.get());
  const LevelResult placed = place(l, options, use_dot, &out->fallback);

  // The frame: padding, a header for a group, content centred under it.
  const bool root = group == 0;
  const double pad = FrameMetrics::kPad, top = root ? pad : FrameMetrics::kHeader + pad;
  out->size = QSizeF(placed.size.width() + 2 * pad, placed.size.height() + top + pad);
  // Header text needs room even over a narrow content.
  if (!root) out->size.setWidth(std::max(out->size.width(), sizes.meta[group].width()));
  const double extra_x = (out->size.width() - placed.size.width() - 2 * pad) / 2;
  const QPointF shift = QPointF(pad, top) + QPointF(extra_x, 0);
  for (int i = 0; i < l.real_items; ++i) {
    QSizeF s = l.level.sizes[i];
    QPointF c = placed.centers[i] + shift;
    out->rects.push_back(QRectF(c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height()));
  }
  const bool lr = options.left_to_right;
  if (l.aside > 0) {
    // Beside the flow: right of a top-to-bottom graph, below a left-to-right one.
    const auto& child = child_layouts[l.aside];
    const QSizeF s = expansion[l.aside] && child ? child->size : sizes.meta[l.aside];
    const double gap = 60;
    QRectF r = lr ? QRectF(pad, out->size.height() + gap - pad, s.width(), s.height())
                  : QRectF(out->size.width() + gap - pad, top, s.width(), s.height());
    out->children.push_back({ItemRef::Group, l.aside});
    out->rects.push_back(r);
    out->size = out->size.expandedTo(QSizeF(r.right() + pad, r.bottom() + pad));
  }
  if (l.level.source >= 0) out->in_point = placed.centers[l.level.source] + shift;
  if (l.level.sink >= 0) out->out_point = placed.centers[l.level.sink] + shift;
  routeEdges(h, group, expansion, child_layouts, l, placed, shift, lr, out.get());
  out->millis = msSince(start);
  return out;
}

SceneLayout computeLayout(const LayoutRequest& request) {
  auto start = Clock::now();
  SceneLayout scene;
  const Hierarchy& h = *request.hierarchy;
  const Expansion& ex = request.expansion;
  const ItemSizes& sizes = *request.sizes;
  const LayoutOptions& options = request.options;
  auto cancelled = [&] { return request.cancelled && request.cancelled(); };

  // Post-order over the expanded groups: children before parents.
  std::vector<int> order;
  std::vector<std::pair<int, size_t>> stack{{0, 0}};
  while (!stack.empty()) {
    auto& [g, next] = stack.back();
    const auto& kids = h.group(g).groups;
    if (next < kids.size()) {
      int c = kids[next++];
      if (ex[c]) stack.push_back({c, 0});
    } else {
      order.push_back(g);
      stack.pop_back();
    }
  }
  std::vector<std::shared_ptr<const GroupLayout>> layouts(h.groupCount());
  std::vector<std::uint64_t> sig(h.groupCount(), 0);
  const std::string opt_key = options.key() + ":" + std::to_string(sizes.signature) + ":";
  for (int g : order) {
    if (cancelled()) return {};
    std::uint64_t s = mix(0x51ed27, static_cast<std::uint64_t>(g));
    for (int c : h.group(g).groups) s = mix(s, ex[c] ? sig[c] : 0x1234 + static_cast<std::uint64_t>(c));
    sig[g] = s;
    char hex[24];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(s));
    std::string key = opt_key + std::to_string(g) + ":" + hex;
    if (request.cache) {
      if (auto hit = request.cache->find(key)) {
        layouts[g] = hit;
        ++scene.cache_hits;
        continue;
      }
    }
    bool within_budget = msSince(start) < options.time_budget_ms;
    if (!within_budget) scene.budget_exceeded = true;
    layouts[g] = layoutGroup(h, g, ex, sizes, options, layouts, within_budget);
    (layouts[g]->fallback ? scene.fallback_runs : scene.dot_runs)++;
    if (request.cache) request.cache->insert(key, layouts[g]);
  }
  if (cancelled()) return {};

  // Absolute positions, outer frames first.
  std::function<void(int, QPointF)> place = [&](int g, QPointF origin) {
    const GroupLayout& gl = *layouts[g];
    for (size_t i = 0; i < gl.children.size(); ++i) {
      const ItemRef& c = gl.children[i];
      QRectF r = gl.rects[i].translated(origin);
      if (c.kind == ItemRef::Node) {
        scene.nodes.push_back({c.index, r});
      } else {
        scene.groups.push_back({c.index, r, ex[c.index] != 0});
      }
    }
    for (const auto& e : gl.edges) {
      const auto& b = h.bundles(g)[e.bundle];
      bool arrow = b.to.kind == ItemRef::Node || (b.to.kind == ItemRef::Group && !ex[b.to.index]);
      scene.edges.push_back({g, e.bundle, e.path.translated(origin), arrow});
    }
    for (size_t i = 0; i < gl.children.size(); ++i) {
      const ItemRef& c = gl.children[i];
      if (c.kind == ItemRef::Group && ex[c.index]) place(c.index, gl.rects[i].topLeft() + origin);
    }
  };
  place(0, QPointF(0, 0));
  std::stable_sort(scene.groups.begin(), scene.groups.end(),
                   [](const SceneLayout::Group& a, const SceneLayout::Group& b) { return a.expanded > b.expanded; });
  scene.bounds = QRectF(QPointF(0, 0), layouts[0]->size);
  scene.millis = msSince(start);
  return scene;
}

}  // namespace gds::graphview
