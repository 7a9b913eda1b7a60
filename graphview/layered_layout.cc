// A small Sugiyama-style layout for levels too large or dense for dot within
// the time budget: longest-path ranks, dummy points on long edges, a few
// barycenter sweeps against crossings, and coordinates relaxed towards the
// neighbours while keeping the order and separation in each rank. Computed
// top-to-bottom; left-to-right swaps the axes.
#include <algorithm>
#include <numeric>

#include "graphview/level_layout.h"

namespace gds::graphview {

LevelResult layeredLayout(const LevelGraph& level) {
  LevelResult result;
  const bool lr = level.left_to_right;
  const int n = static_cast<int>(level.sizes.size());
  // Work in "TB space": w across ranks' direction, h along.
  std::vector<double> w(n), h(n);
  for (int i = 0; i < n; ++i) {
    QSizeF s = level.point[i] ? QSizeF(2, 2) : level.sizes[i];
    w[i] = lr ? s.height() : s.width();
    h[i] = lr ? s.width() : s.height();
  }

  // 1. Break cycles: edges into a node on the DFS stack are reversed.
  std::vector<std::vector<int>> out(n);
  for (size_t k = 0; k < level.edges.size(); ++k) {
    const auto& e = level.edges[k];
    if (e.from != e.to) out[e.from].push_back(static_cast<int>(k));
  }
  std::vector<char> reversed(level.edges.size(), 0), state(n, 0);  // 0 new, 1 on stack, 2 done
  for (int root = 0; root < n; ++root) {
    if (state[root]) continue;
    std::vector<std::pair<int, size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < out[v].size()) {
        int k = out[v][next++];
        int t = level.edges[k].to;
        if (state[t] == 1) {
          reversed[k] = 1;
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
  auto tailOf = [&](size_t k) { return reversed[k] ? level.edges[k].to : level.edges[k].from; };
  auto headOf = [&](size_t k) { return reversed[k] ? level.edges[k].from : level.edges[k].to; };

  // 2. Longest-path ranks in topological order (Kahn).
  std::vector<std::vector<int>> succ(n), pred(n);
  for (size_t k = 0; k < level.edges.size(); ++k) {
    if (level.edges[k].from == level.edges[k].to) continue;
    succ[tailOf(k)].push_back(headOf(k));
    pred[headOf(k)].push_back(tailOf(k));
  }
  std::vector<int> indeg(n), topo, rank(n, 0);
  for (int i = 0; i < n; ++i) indeg[i] = static_cast<int>(pred[i].size());
  for (int i = 0; i < n; ++i)
    if (indeg[i] == 0) topo.push_back(i);
  for (size_t q = 0; q < topo.size(); ++q)
    for (int s : succ[topo[q]]) {
      rank[s] = std::max(rank[s], rank[topo[q]] + 1);
      if (--indeg[s] == 0) topo.push_back(s);
    }
  // Sources sit just above their first consumer rather than all on top.
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    int v = *it;
    if (!pred[v].empty() || succ[v].empty() || v == level.source) continue;
    int m = rank[succ[v][0]];
    for (int s : succ[v]) m = std::min(m, rank[s]);
    rank[v] = std::max(rank[v], m - 1);
  }
  if (level.source >= 0) {
    for (int i = 0; i < n; ++i) rank[i] += 1;
    rank[level.source] = 0;
  }
  int max_rank = 0;
  for (int i = 0; i < n; ++i)
    if (i != level.sink) max_rank = std::max(max_rank, rank[i]);
  if (level.sink >= 0) rank[level.sink] = ++max_rank;

  // 3. Dummy points along edges spanning several ranks (unless there would be
  // too many: then long edges are drawn directly).
  long long span_total = 0;
  for (size_t k = 0; k < level.edges.size(); ++k)
    if (level.edges[k].from != level.edges[k].to)
      span_total += std::max(0, rank[headOf(k)] - rank[tailOf(k)] - 1);
  const bool dummies = span_total <= 20000;
  int total = n;
  std::vector<std::vector<int>> chains(level.edges.size());
  std::vector<int> item_rank = rank;
  std::vector<std::vector<int>> up(n), down(n);  // neighbours in the layered graph
  for (size_t k = 0; k < level.edges.size(); ++k) {
    if (level.edges[k].from == level.edges[k].to) continue;
    int t = tailOf(k), hd = headOf(k);
    auto& chain = chains[k];
    chain.push_back(t);
    if (dummies)
      for (int r = rank[t] + 1; r < rank[hd]; ++r) {
        chain.push_back(total++);
        item_rank.push_back(r);
        w.push_back(4);
        h.push_back(0);
        up.emplace_back();
        down.emplace_back();
      }
    chain.push_back(hd);
    for (size_t j = 0; j + 1 < chain.size(); ++j) {
      down[chain[j]].push_back(chain[j + 1]);
      up[chain[j + 1]].push_back(chain[j]);
    }
  }
  std::vector<std::vector<int>> layers(max_rank + 1);
  for (int i = 0; i < total; ++i) layers[item_rank[i]].push_back(i);

  // 4. Crossing reduction: barycenter sweeps down and up.
  std::vector<double> pos(total);
  auto renumber = [&](const std::vector<int>& layer) {
    for (size_t j = 0; j < layer.size(); ++j) pos[layer[j]] = static_cast<double>(j);
  };
  for (auto& layer : layers) renumber(layer);
  std::vector<double> key(total);
  for (int sweep = 0; sweep < 6; ++sweep) {
    bool downward = sweep % 2 == 0;
    for (int li = 0; li <= max_rank; ++li) {
      int r = downward ? li : max_rank - li;
      auto& layer = layers[r];
      for (int v : layer) {
        const auto& nb = downward ? up[v] : down[v];
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

  // 5. Coordinates across ranks: pack, then relax towards the neighbours.
  const double sep = level.node_sep;
  std::vector<double> x(total, 0);
  for (auto& layer : layers) {
    double right = 0;
    for (int v : layer) {
      x[v] = right + w[v] / 2;
      right += w[v] + sep;
    }
  }
  std::vector<double> desired(total), lft(total), rgt(total);
  for (int it = 0; it < 8; ++it) {
    bool downward = it % 2 == 0;
    for (int li = 0; li <= max_rank; ++li) {
      int r = downward ? li : max_rank - li;
      auto& layer = layers[r];
      if (layer.empty()) continue;
      for (int v : layer) {
        const auto& a = downward ? up[v] : down[v];
        const auto& b = downward ? down[v] : up[v];
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
  double min_x = 1e300, max_x = -1e300;
  for (int i = 0; i < total; ++i) {
    min_x = std::min(min_x, x[i] - w[i] / 2);
    max_x = std::max(max_x, x[i] + w[i] / 2);
  }
  if (total == 0) min_x = max_x = 0;

  // 6. Coordinates along ranks.
  std::vector<double> rank_top(max_rank + 1), rank_height(max_rank + 1, 0);
  for (int i = 0; i < total; ++i) rank_height[item_rank[i]] = std::max(rank_height[item_rank[i]], h[i]);
  double y = 0;
  for (int r = 0; r <= max_rank; ++r) {
    rank_top[r] = y;
    y += rank_height[r] + level.rank_sep;
  }
  double height = std::max(0.0, y - level.rank_sep);
  auto center = [&](int i) { return QPointF(x[i] - min_x, rank_top[item_rank[i]] + rank_height[item_rank[i]] / 2); };
  auto out_pt = [&](QPointF p) { return lr ? QPointF(p.y(), p.x()) : p; };

  result.centers.resize(n);
  for (int i = 0; i < n; ++i) result.centers[i] = out_pt(center(i));
  result.size = lr ? QSizeF(height, max_x - min_x) : QSizeF(max_x - min_x, height);

  // 7. Edges: smooth curves with tangents along the flow at every point.
  result.paths.resize(level.edges.size());
  for (size_t k = 0; k < level.edges.size(); ++k) {
    const auto& chain = chains[k];
    QPainterPath path;
    if (chain.empty()) {  // self loop: nothing sensible to draw at this level
      path.moveTo(result.centers[level.edges[k].from]);
      result.paths[k] = path;
      continue;
    }
    std::vector<QPointF> pts;
    for (int v : chain) pts.push_back(center(v));
    pts.front().ry() += h[chain.front()] / 2;
    pts.back().ry() -= h[chain.back()] / 2;
    if (reversed[k]) std::reverse(pts.begin(), pts.end());
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

}  // namespace gds::graphview
