// A small Sugiyama-style layout for levels too large or dense for dot within
// the time budget: longest-path ranks, dummy points on long edges, a few
// barycenter sweeps against crossings, and coordinates relaxed towards the
// neighbours while keeping the order and separation in each rank. Computed
// top-to-bottom; left-to-right swaps the axes.
#include <algorithm>
#include <numeric>

#include "graphview/level_layout.h"

namespace gds::graphview {
namespace {

// The level being laid out in "TB space" (w across the ranks' direction, h
// along it); items past the level's own are dummy points on long edges.
struct Layering {
  explicit Layering(const LevelGraph& l) : level(l), n(static_cast<int>(l.sizes.size())), total(n) {
    w.resize(n);
    h.resize(n);
    for (int i = 0; i < n; ++i) {
      QSizeF s = level.point[i] ? QSizeF(2, 2) : level.sizes[i];
      w[i] = level.left_to_right ? s.height() : s.width();
      h[i] = level.left_to_right ? s.width() : s.height();
    }
  }
  int tail(size_t k) const { return reversed[k] ? level.edges[k].to : level.edges[k].from; }
  int head(size_t k) const { return reversed[k] ? level.edges[k].from : level.edges[k].to; }
  bool selfLoop(size_t k) const { return level.edges[k].from == level.edges[k].to; }

  const LevelGraph& level;
  int n, total;                            // the level's items; with dummy points
  std::vector<double> w, h;                // per item
  std::vector<char> reversed;              // per edge: drawn against the flow to break a cycle
  std::vector<int> rank;                   // per item
  int max_rank = 0;
  std::vector<std::vector<int>> chains;    // per edge: the items it passes, tail to head
  std::vector<std::vector<int>> up, down;  // per item: neighbours in the layered graph
  std::vector<std::vector<int>> layers;    // per rank: its items in order
  std::vector<double> x;                   // per item: centre across the ranks
};

// Break cycles: edges into a node on the DFS stack are reversed.
void breakCycles(Layering& L) {
  const auto& edges = L.level.edges;
  std::vector<std::vector<int>> out(L.n);
  for (size_t k = 0; k < edges.size(); ++k)
    if (!L.selfLoop(k)) out[edges[k].from].push_back(static_cast<int>(k));
  L.reversed.assign(edges.size(), 0);
  std::vector<char> state(L.n, 0);  // 0 new, 1 on stack, 2 done
  for (int root = 0; root < L.n; ++root) {
    if (state[root]) continue;
    std::vector<std::pair<int, size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < out[v].size()) {
        int k = out[v][next++];
        int t = edges[k].to;
        if (state[t] == 1) {
          L.reversed[k] = 1;
        } else if (state[t] == 0) {
          state[t] = 1;
          stack.push_back({t, 0});
        }
      } else {
        state[v] = 2;
        stack.pop_back();
      }
    }
  }
}

// Longest-path ranks in topological order (Kahn); sources just above their
// first consumer; the level's source on top and sink at the bottom.
void assignRanks(Layering& L) {
  const int n = L.n;
  std::vector<std::vector<int>> succ(n), pred(n);
  for (size_t k = 0; k < L.level.edges.size(); ++k) {
    if (L.selfLoop(k)) continue;
    succ[L.tail(k)].push_back(L.head(k));
    pred[L.head(k)].push_back(L.tail(k));
  }
  std::vector<int> indeg(n), topo;
  auto& rank = L.rank;
  rank.assign(n, 0);
  for (int i = 0; i < n; ++i) indeg[i] = static_cast<int>(pred[i].size());
  for (int i = 0; i < n; ++i)
    if (indeg[i] == 0) topo.push_back(i);
  for (size_t q = 0; q < topo.size(); ++q)
    for (int s : succ[topo[q]]) {
      rank[s] = std::max(rank[s], rank[topo[q]] + 1);
      if (--indeg[s] == 0) topo.push_back(s);
    }
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    int v = *it;
    if (!pred[v].empty() || succ[v].empty() || v == L.level.source) continue;
    int m = rank[succ[v][0]];
    for (int s : succ[v]) m = std::min(m, rank[s]);
    rank[v] = std::max(rank[v], m - 1);
  }
  if (L.level.source >= 0) {
    for (int i = 0; i < n; ++i) rank[i] += 1;
    rank[L.level.source] = 0;
  }
  L.max_rank = 0;
  for (int i = 0; i < n; ++i)
    if (i != L.level.sink) L.max_rank = std::max(L.max_rank, rank[i]);
  if (L.level.sink >= 0) rank[L.level.sink] = ++L.max_rank;
}

// Dummy points along edges spanning several ranks (unless there would be too
// many: then long edges are drawn directly), and the items of each rank.
void addDummies(Layering& L) {
  const auto& edges = L.level.edges;
  long long span_total = 0;
  for (size_t k = 0; k < edges.size(); ++k)
    if (!L.selfLoop(k)) span_total += std::max(0, L.rank[L.head(k)] - L.rank[L.tail(k)] - 1);
  const bool dummies = span_total <= 20000;
  L.chains.assign(edges.size(), {});
  L.up.assign(L.n, {});
  L.down.assign(L.n, {});
  for (size_t k = 0; k < edges.size(); ++k) {
    if (L.selfLoop(k)) continue;
    const int t = L.tail(k), hd = L.head(k);
    auto& chain = L.chains[k];
    chain.push_back(t);
    if (dummies)
      for (int r = L.rank[t] + 1; r < L.rank[hd]; ++r) {
        chain.push_back(L.total++);
        L.rank.push_back(r);
        L.w.push_back(4);
        L.h.push_back(0);
        L.up.emplace_back();
        L.down.emplace_back();
      }
    chain.push_back(hd);
    for (size_t j = 0; j + 1 < chain.size(); ++j) {
      L.down[chain[j]].push_back(chain[j + 1]);
      L.up[chain[j + 1]].push_back(chain[j]);
    }
  }
  L.layers.assign(L.max_rank + 1, {});
  for (int i = 0; i < L.total; ++i) L.layers[L.rank[i]].push_back(i);
}

// Crossing reduction: barycenter sweeps down and up.
void reduceCrossings(Layering& L) {
  std::vector<double> pos(L.total), key(L.total);
  auto renumber = [&](const std::vector<int>& layer) {
    for (size_t j = 0; j < layer.size(); ++j) pos[layer[j]] = static_cast<double>(j);
  };
  for (auto& layer : L.layers) renumber(layer);
  for (int sweep = 0; sweep < 6; ++sweep) {
    const bool downward = sweep % 2 == 0;
    for (int li = 0; li <= L.max_rank; ++li) {
      auto& layer = L.layers[downward ? li : L.max_rank - li];
      for (int v : layer) {
        const auto& nb = downward ? L.up[v] : L.down[v];
        if (nb.empty()) {
          key[v] = pos[v];
        } else {
          double s = 0;
          for (int u : nb) s += pos[u];
          key[v] = s / nb.size();
        }
      }
      std::stable_sort(layer.begin(), layer.end(), [&](int a, int b) { return key[a] < key[b]; });
      renumber(layer);
    }
  }
}

// Coordinates across ranks: pack, then relax towards the neighbours.
void placeAcross(Layering& L) {
  const double sep = L.level.node_sep;
  const auto& w = L.w;
  auto& x = L.x;
  x.assign(L.total, 0);
  for (auto& layer : L.layers) {
    double right = 0;
    for (int v : layer) {
      x[v] = right + w[v] / 2;
      right += w[v] + sep;
    }
  }
  std::vector<double> desired(L.total), lft(L.total), rgt(L.total);
  for (int it = 0; it < 8; ++it) {
    const bool downward = it % 2 == 0;
    for (int li = 0; li <= L.max_rank; ++li) {
      const auto& layer = L.layers[downward ? li : L.max_rank - li];
      if (layer.empty()) continue;
      for (int v : layer) {
        const auto& a = downward ? L.up[v] : L.down[v];
        const auto& b = downward ? L.down[v] : L.up[v];
        const auto& nb = a.empty() ? b : a;
        if (nb.empty()) {
          desired[v] = x[v];
        } else {
          double s = 0;
          for (int u : nb) s += x[u];
          desired[v] = s / nb.size();
        }
      }
      // Closest positions to `desired` that keep order and separation,
      // from the left and from the right; their mean keeps both.
      for (size_t j = 0; j < layer.size(); ++j) {
        int v = layer[j];
        lft[v] = j == 0 ? desired[v] : std::max(desired[v], lft[layer[j - 1]] + (w[layer[j - 1]] + w[v]) / 2 + sep);
      }
      for (size_t j = layer.size(); j-- > 0;) {
        int v = layer[j];
        rgt[v] = j + 1 == layer.size() ? desired[v]
                                       : std::min(desired[v], rgt[layer[j + 1]] - (w[layer[j + 1]] + w[v]) / 2 - sep);
      }
      for (int v : layer) x[v] = (lft[v] + rgt[v]) / 2;
    }
  }
}

// Coordinates along the ranks, the items' centres and the edges: smooth
// curves with tangents along the flow at every point.
LevelResult draw(const Layering& L) {
  const bool lr = L.level.left_to_right;
  const auto& x = L.x;
  double min_x = 1e300, max_x = -1e300;
  for (int i = 0; i < L.total; ++i) {
    min_x = std::min(min_x, x[i] - L.w[i] / 2);
    max_x = std::max(max_x, x[i] + L.w[i] / 2);
  }
  if (L.total == 0) min_x = max_x = 0;
  std::vector<double> rank_top(L.max_rank + 1), rank_height(L.max_rank + 1, 0);
  for (int i = 0; i < L.total; ++i) rank_height[L.rank[i]] = std::max(rank_height[L.rank[i]], L.h[i]);
  double y = 0;
  for (int r = 0; r <= L.max_rank; ++r) {
    rank_top[r] = y;
    y += rank_height[r] + L.level.rank_sep;
  }
  const double height = std::max(0.0, y - L.level.rank_sep);
  auto center = [&](int i) { return QPointF(x[i] - min_x, rank_top[L.rank[i]] + rank_height[L.rank[i]] / 2); };
  auto out_pt = [&](QPointF p) { return lr ? QPointF(p.y(), p.x()) : p; };

  LevelResult result;
  result.centers.resize(L.n);
  for (int i = 0; i < L.n; ++i) result.centers[i] = out_pt(center(i));
  result.size = lr ? QSizeF(height, max_x - min_x) : QSizeF(max_x - min_x, height);
  result.paths.resize(L.level.edges.size());
  for (size_t k = 0; k < L.level.edges.size(); ++k) {
    const auto& chain = L.chains[k];
    QPainterPath path;
    if (chain.empty()) {  // self loop: nothing sensible to draw at this level
      path.moveTo(result.centers[L.level.edges[k].from]);
      result.paths[k] = path;
      continue;
    }
    std::vector<QPointF> pts;
    for (int v : chain) pts.push_back(center(v));
    pts.front().ry() += L.h[chain.front()] / 2;
    pts.back().ry() -= L.h[chain.back()] / 2;
    if (L.reversed[k]) std::reverse(pts.begin(), pts.end());
    path.moveTo(out_pt(pts[0]));
    for (size_t j = 0; j + 1 < pts.size(); ++j) {
      double dy = (pts[j + 1].y() - pts[j].y()) / 2;
      path.cubicTo(out_pt(pts[j] + QPointF(0, dy)), out_pt(pts[j + 1] - QPointF(0, dy)), out_pt(pts[j + 1]));
    }
    result.paths[k] = path;
  }
  result.ok = true;
  return result;
}

}  // namespace

LevelResult layeredLayout(const LevelGraph& level) {
  Layering layering(level);
  breakCycles(layering);
  assignRanks(layering);
  addDummies(layering);
  reduceCrossings(layering);
  placeAcross(layering);
  return draw(layering);
}

}  // namespace gds::graphview
