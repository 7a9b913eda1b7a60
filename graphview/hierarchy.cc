#include "graphview/hierarchy.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "model/auxiliary.h"

namespace gds::graphview {
namespace {

constexpr int kSeriesMin = 6;

std::uint64_t packRef(const ItemRef& r) {
  return (static_cast<std::uint64_t>(r.kind) << 29) | static_cast<std::uint64_t>(r.index);
}

// Const (or Identity wrapping such a Const) whose only use is one data input
// of one consumer: returns that consumer, else -1.
int singleDataConsumer(const model::Graph& g, int n) {
  const auto& consumers = g.consumers(n);
  if (consumers.size() != 1 || consumers[0].port < 0) return -1;
  return consumers[0].node;
}

}  // namespace

std::shared_ptr<const Hierarchy> Hierarchy::build(std::shared_ptr<const model::Graph> graph,
                                                  const HierarchyOptions& options) {
  auto h = std::make_shared<Hierarchy>();
  h->graph_ = graph;
  h->options_ = options;
  const model::Graph& g = *graph;
  const int n = g.size();
  h->folded_into_.assign(n, -1);
  h->weights_.assign(n, {});

  // 1. Weight folding (Netron's initializer rule).
  if (options.fold_constants) {
    for (int i = 0; i < n; ++i) {
      if (g.op(i) != "Const" || !g.inputs(i).empty()) continue;
      int host = singleDataConsumer(g, i);
      if (host < 0 || host == i) continue;
      std::vector<int> chain;
      // "Identity Constant": Const -> Identity -> consumer.
      if (g.op(host) == "Identity" && g.inputs(host).size() == 1) {
        int next = singleDataConsumer(g, host);
        if (next >= 0 && next != host) {
          chain.push_back(host);
          host = next;
        }
      }
      if (g.consumers(host).empty() && g.inputs(host).size() == 1) continue;  // keep a lone Const -> output visible
      for (int c : chain) h->folded_into_[c] = host;
      h->folded_into_[i] = host;
      h->weights_[host].push_back(i);
    }
    // Keep the badges in input order.
    for (int i = 0; i < n; ++i) {
      auto& w = h->weights_[i];
      if (w.size() < 2) continue;
      std::vector<int> ordered;
      for (const auto& in : g.inputs(i)) {
        int src = in.node;
        if (h->folded_into_[src] == i && g.op(src) == "Identity" && !g.inputs(src).empty()) src = g.inputs(src)[0].node;
        if (std::find(w.begin(), w.end(), src) != w.end() &&
            std::find(ordered.begin(), ordered.end(), src) == ordered.end())
          ordered.push_back(src);
      }
      if (ordered.size() == w.size()) w = ordered;
    }
  }

  // 2. Raw scope tree from every prefix of the shown node names.
  struct Raw {
    std::string path;
    int parent;
    int count = 0;
  };
  std::vector<Raw> raw{{"", -1, 0}};
  std::unordered_map<std::string, int> raw_index{{"", 0}};
  auto rawGroup = [&](const std::string& path) {
    auto it = raw_index.find(path);
    if (it != raw_index.end()) return it->second;
    int parent = 0;
    size_t start = 0;
    while (true) {
      size_t slash = path.find('/', start);
      std::string prefix = path.substr(0, slash);
      auto pit = raw_index.find(prefix);
      int idx;
      if (pit == raw_index.end()) {
        idx = static_cast<int>(raw.size());
        raw.push_back({prefix, parent, 0});
        raw_index.emplace(prefix, idx);
      } else {
        idx = pit->second;
      }
      parent = idx;
      if (slash == std::string::npos) return idx;
      start = slash + 1;
    }
  };
  for (int i = 0; i < n; ++i) {
    if (h->folded_into_[i] >= 0) continue;
    const std::string& name = g.name(i);
    size_t slash = name.rfind('/');
    if (slash != std::string::npos && slash > 0) rawGroup(name.substr(0, slash));
  }
  std::vector<int> raw_of(n, 0);
  for (int i = 0; i < n; ++i) {
    if (h->folded_into_[i] >= 0) continue;
    const std::string& name = g.name(i);
    // A node named like a scope ("w" beside "w/read") goes inside it, as in TensorBoard.
    auto it = raw_index.find(name);
    if (it != raw_index.end()) {
      raw_of[i] = it->second;
    } else {
      size_t slash = name.rfind('/');
      raw_of[i] = (slash != std::string::npos && slash > 0) ? raw_index[name.substr(0, slash)] : 0;
    }
    for (int r = raw_of[i]; r >= 0; r = raw[r].parent) ++raw[r].count;
    ++h->shown_nodes_;
  }

  // Auxiliary items at the top level: a node classified auxiliary, a
  // top-level scope whose shown nodes all are. They move into one group when
  // they hold at least two nodes.
  std::vector<char> aux_node(n, 0);
  std::vector<char> aux_raw(raw.size(), 0);
  if (options.group_auxiliary) {
    const auto kinds = model::classifyAuxiliary(g);
    std::vector<int> aux_count(raw.size(), 0);
    for (int i = 0; i < n; ++i) {
      if (h->folded_into_[i] >= 0) continue;
      // A folded constant follows its host; only shown nodes decide.
      aux_node[i] = kinds[static_cast<size_t>(i)] != model::AuxiliaryKind::None;
      if (aux_node[i])
        for (int r = raw_of[i]; r >= 0; r = raw[r].parent) ++aux_count[r];
    }
    int moved = 0;
    for (size_t r = 1; r < raw.size(); ++r)
      if (raw[r].parent == 0 && raw[r].count > 0 && aux_count[r] == raw[r].count) {
        aux_raw[r] = 1;
        moved += raw[r].count;
      }
    for (int i = 0; i < n; ++i)
      if (h->folded_into_[i] < 0 && raw_of[i] == 0 && aux_node[i]) ++moved;
    if (moved < 2) std::fill(aux_raw.begin(), aux_raw.end(), 0);
    if (moved < 2) std::fill(aux_node.begin(), aux_node.end(), 0);
  }

  // 3. Real groups: scopes with at least two shown nodes (a meta-node for one
  // node helps nobody); smaller scopes dissolve into their parent.
  std::vector<int> real_of_raw(raw.size(), -1);
  h->groups_.push_back(Group{});
  real_of_raw[0] = 0;
  if (std::find(aux_raw.begin(), aux_raw.end(), 1) != aux_raw.end() ||
      std::find(aux_node.begin(), aux_node.end(), 1) != aux_node.end()) {
    Group aux;
    aux.path = kAuxiliaryPath;
    aux.label = "Auxiliary nodes";
    aux.parent = 0;
    aux.depth = 1;
    aux.auxiliary = true;
    h->auxiliary_group_ = static_cast<int>(h->groups_.size());
    h->groups_.push_back(std::move(aux));
  }
  // Raw groups were created parents first, so one forward pass suffices.
  for (size_t r = 1; r < raw.size(); ++r) {
    int parent_real = aux_raw[r] ? h->auxiliary_group_ : real_of_raw[raw[r].parent];
    if (raw[r].count >= 2) {
      Group grp;
      grp.path = raw[r].path;
      size_t slash = grp.path.rfind('/');
      grp.label = slash == std::string::npos ? grp.path : grp.path.substr(slash + 1);
      grp.parent = parent_real;
      grp.depth = h->groups_[parent_real].depth + 1;
      real_of_raw[r] = static_cast<int>(h->groups_.size());
      h->groups_.push_back(std::move(grp));
    } else {
      real_of_raw[r] = parent_real;
    }
  }
  // Series (TensorBoard): many sibling nodes of one op whose names differ
  // only by a trailing number ("Identity", "Identity_1", ... "Identity_375")
  // form a group of their own, so a level never holds hundreds of them.
  auto seriesKey = [&](int i, int grp) {
    const std::string& name = g.name(i);
    size_t end = name.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
    if (end < name.size() && end > 0 && name[end - 1] == '_') --end;
    return std::to_string(grp) + "|" + g.op(i) + "|" + name.substr(0, end);
  };
  std::unordered_map<std::string, int> series_count, series_group;
  // The group a shown node belongs to before series: its scope's, or the
  // auxiliary group for an auxiliary node at the top level.
  auto scopeGroup = [&](int i) {
    const int grp = real_of_raw[raw_of[i]];
    return grp == 0 && aux_node[i] && h->auxiliary_group_ > 0 ? h->auxiliary_group_ : grp;
  };
  for (int i = 0; i < n; ++i)
    if (h->folded_into_[i] < 0) ++series_count[seriesKey(i, scopeGroup(i))];
  h->group_of_.assign(n, 0);
  std::vector<char> group_listed(h->groups_.size(), 0);
  group_listed[0] = 1;
  std::vector<std::unordered_map<std::string, int>> op_counts(h->groups_.size());
  for (int i = 0; i < n; ++i) {
    if (h->folded_into_[i] >= 0) continue;
    int grp = scopeGroup(i);
    {
      std::string key = seriesKey(i, grp);
      if (series_count[key] >= kSeriesMin) {
        auto [it, inserted] = series_group.emplace(key, static_cast<int>(h->groups_.size()));
        if (inserted) {
          Group sg;
          const std::string& name = g.name(i);
          size_t bar = key.rfind('|');
          std::string base = key.substr(bar + 1);
          size_t slash = base.rfind('/');
          sg.label = (slash == std::string::npos ? base : base.substr(slash + 1)) + "_*";
          sg.path = base + "_*";
          (void)name;
          sg.parent = grp;
          sg.depth = h->groups_[grp].depth + 1;
          sg.series = true;
          h->groups_.push_back(std::move(sg));
          group_listed.push_back(0);
          op_counts.emplace_back();
        }
        grp = it->second;
      }
    }
    h->group_of_[i] = grp;
    h->groups_[grp].nodes.push_back(i);
    // List child groups in order of their first node, so the layout input
    // follows the GraphDef's order.
    for (int c = grp; c > 0 && !group_listed[c]; c = h->groups_[c].parent) {
      group_listed[c] = 1;
      h->groups_[h->groups_[c].parent].groups.push_back(c);
    }
    for (int c = grp; c >= 0; c = h->groups_[c].parent) {
      ++h->groups_[c].node_count;
      ++op_counts[c][g.op(i)];
    }
  }
  for (size_t gi = 0; gi < h->groups_.size(); ++gi) {
    std::vector<std::pair<std::string, int>> ops(op_counts[gi].begin(), op_counts[gi].end());
    std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (ops.size() > 3) ops.resize(3);
    h->groups_[gi].top_ops = std::move(ops);
  }
  for (int i = 0; i < n; ++i)
    if (h->folded_into_[i] >= 0) h->group_of_[i] = h->group_of_[h->folded_into_[i]];
  if (!options.call_functions.empty())
    for (auto& grp : h->groups_)
      if (auto it = options.call_functions.find(grp.path); it != options.call_functions.end()) grp.function = it->second;

  // 4. Edge bundles per group.
  h->bundles_.assign(h->groups_.size(), {});
  std::vector<std::unordered_map<std::uint64_t, int>> keys(h->groups_.size());
  auto add = [&](int grp, ItemRef from, ItemRef to, bool control, int src, int port, int dst) {
    std::uint64_t key = (packRef(from) << 32) | packRef(to);
    auto [it, inserted] = keys[grp].emplace(key, static_cast<int>(h->bundles_[grp].size()));
    if (inserted) {
      Bundle b;
      b.from = from;
      b.to = to;
      b.src_node = src;
      b.src_port = port;
      b.dst_node = dst;
      h->bundles_[grp].push_back(b);
    }
    Bundle& b = h->bundles_[grp][it->second];
    (control ? b.control : b.data)++;
  };
  for (int v = 0; v < n; ++v) {
    if (h->folded_into_[v] >= 0) continue;
    for (const auto& in : g.inputs(v)) {
      int u = in.node;
      if (u == v || h->folded_into_[u] >= 0) continue;
      int gu = h->group_of_[u], gv = h->group_of_[v];
      ItemRef cu{ItemRef::Node, u}, cv{ItemRef::Node, v};
      // Climb the deeper side until both meet in the lowest common group.
      while (gu != gv) {
        if (h->groups_[gu].depth >= h->groups_[gv].depth) {
          add(gu, cu, {ItemRef::Out, 0}, in.control, u, in.port, v);
          cu = {ItemRef::Group, gu};
          gu = h->groups_[gu].parent;
        } else {
          add(gv, {ItemRef::In, 0}, cv, in.control, u, in.port, v);
          cv = {ItemRef::Group, gv};
          gv = h->groups_[gv].parent;
        }
      }
      add(gu, cu, cv, in.control, u, in.port, v);
    }
  }
  return h;
}

int Hierarchy::findGroup(const std::string& path) const {
  for (int i = 0; i < groupCount(); ++i)
    if (groups_[i].path == path) return i;
  return -1;
}

bool Hierarchy::contains(int ancestor, int g) const {
  for (; g >= 0; g = groups_[g].parent)
    if (g == ancestor) return true;
  return false;
}

ItemRef Hierarchy::childContaining(int g, int node) const {
  if (folded_into_[node] >= 0) node = folded_into_[node];
  int c = group_of_[node];
  if (c == g) return {ItemRef::Node, node};
  while (c >= 0 && groups_[c].parent != g) c = groups_[c].parent;
  return {ItemRef::Group, c < 0 ? 0 : c};
}

int Hierarchy::hidingGroup(const Expansion& expansion, int node) const {
  int hiding = -1;
  for (int c = group_of_[node]; c > 0; c = groups_[c].parent)
    if (!expansion[c]) hiding = c;
  return hiding;
}

Expansion Hierarchy::defaultExpansion(int budget) const {
  Expansion e(groups_.size(), 0);
  e[0] = 1;
  int visible = static_cast<int>(groups_[0].groups.size() + groups_[0].nodes.size());
  std::vector<int> level;
  // A call reads as one step until its body is asked for.
  auto expandable = [&](int grp) { return grp != auxiliary_group_ && groups_[grp].function.empty(); };
  for (int grp : groups_[0].groups)
    if (expandable(grp)) level.push_back(grp);
  while (!level.empty()) {
    int cost = 0;
    std::vector<int> next;
    for (int grp : level) {
      cost += static_cast<int>(groups_[grp].groups.size() + groups_[grp].nodes.size()) - 1;
      for (int c : groups_[grp].groups)
        if (expandable(c)) next.push_back(c);
    }
    if (visible + cost > budget) break;
    visible += cost;
    for (int grp : level) e[grp] = 1;
    level = std::move(next);
  }
  return e;
}

void Hierarchy::expandTo(Expansion& expansion, int node) const {
  if (node < 0 || node >= static_cast<int>(group_of_.size())) return;
  for (int c = group_of_[node]; c >= 0; c = groups_[c].parent) expansion[c] = 1;
}

}  // namespace gds::graphview
