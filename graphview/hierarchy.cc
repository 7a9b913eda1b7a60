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

// The scope tree of every prefix of the shown node names ("a", "a/b"),
// parents first, with how many shown nodes each holds, and which scopes
// and nodes go to the auxiliary group.
struct Hierarchy::Scopes {
  struct Scope {
    std::string path;
    int parent;
    int count = 0;
  };
  std::vector<Scope> scopes{{"", -1, 0}};
  std::unordered_map<std::string, int> index{{"", 0}};
  std::vector<int> scope_of;     // per node: its scope (0: the top level)
  std::vector<char> aux_node;    // per node: into the auxiliary group
  std::vector<char> aux_scope;   // per scope: into the auxiliary group

  // The scope of `path`, made with its parents when new.
  int scope(const std::string& path) {
    auto it = index.find(path);
    if (it != index.end()) return it->second;
    int parent = 0;
    size_t start = 0;
    while (true) {
      size_t slash = path.find('/', start);
      std::string prefix = path.substr(0, slash);
      auto pit = index.find(prefix);
      int idx;
      if (pit == index.end()) {
        idx = static_cast<int>(scopes.size());
        scopes.push_back({prefix, parent, 0});
        index.emplace(prefix, idx);
      } else {
        idx = pit->second;
      }
      parent = idx;
      if (slash == std::string::npos) return idx;
      start = slash + 1;
    }
  }
};

// Weight folding (Netron's initializer rule): a Const (or Const -> Identity)
// feeding one data input of one node becomes a badge of that node.
void Hierarchy::foldWeights() {
  const model::Graph& g = *graph_;
  const int n = g.size();
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
    for (int c : chain) folded_into_[c] = host;
    folded_into_[i] = host;
    weights_[host].push_back(i);
  }
  // Keep the badges in input order.
  for (int i = 0; i < n; ++i) {
    auto& w = weights_[i];
    if (w.size() < 2) continue;
    std::vector<int> ordered;
    for (const auto& in : g.inputs(i)) {
      int src = in.node;
      if (folded_into_[src] == i && g.op(src) == "Identity" && !g.inputs(src).empty()) src = g.inputs(src)[0].node;
      if (std::find(w.begin(), w.end(), src) != w.end() &&
          std::find(ordered.begin(), ordered.end(), src) == ordered.end())
        ordered.push_back(src);
    }
    if (ordered.size() == w.size()) w = ordered;
  }
}

Hierarchy::Scopes Hierarchy::scopeTree() const {
  const model::Graph& g = *graph_;
  const int n = g.size();
  Scopes s;
  for (int i = 0; i < n; ++i) {
    if (folded_into_[i] >= 0) continue;
    const std::string& name = g.name(i);
    size_t slash = name.rfind('/');
    if (slash != std::string::npos && slash > 0) s.scope(name.substr(0, slash));
  }
  s.scope_of.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    if (folded_into_[i] >= 0) continue;
    const std::string& name = g.name(i);
    // A node named like a scope ("w" beside "w/read") goes inside it, as in TensorBoard.
    auto it = s.index.find(name);
    if (it != s.index.end()) {
      s.scope_of[i] = it->second;
    } else {
      size_t slash = name.rfind('/');
      s.scope_of[i] = (slash != std::string::npos && slash > 0) ? s.index[name.substr(0, slash)] : 0;
    }
    for (int r = s.scope_of[i]; r >= 0; r = s.scopes[r].parent) ++s.scopes[r].count;
  }
  s.aux_node.assign(n, 0);
  s.aux_scope.assign(s.scopes.size(), 0);
  return s;
}

// Auxiliary items at the top level: a node classified auxiliary, a
// top-level scope whose shown nodes all are. They move into one group when
// they hold at least two nodes.
void Hierarchy::markAuxiliary(Scopes* s) const {
  const model::Graph& g = *graph_;
  const int n = g.size();
  const auto kinds = model::classifyAuxiliary(g);
  std::vector<int> aux_count(s->scopes.size(), 0);
  for (int i = 0; i < n; ++i) {
    if (folded_into_[i] >= 0) continue;
    // A folded constant follows its host; only shown nodes decide.
    s->aux_node[i] = kinds[static_cast<size_t>(i)] != model::AuxiliaryKind::None;
    if (s->aux_node[i])
      for (int r = s->scope_of[i]; r >= 0; r = s->scopes[r].parent) ++aux_count[r];
  }
  int moved = 0;
  for (size_t r = 1; r < s->scopes.size(); ++r)
    if (s->scopes[r].parent == 0 && s->scopes[r].count > 0 && aux_count[r] == s->scopes[r].count) {
      s->aux_scope[r] = 1;
      moved += s->scopes[r].count;
    }
  for (int i = 0; i < n; ++i)
    if (folded_into_[i] < 0 && s->scope_of[i] == 0 && s->aux_node[i]) ++moved;
  if (moved < 2) {
    std::fill(s->aux_scope.begin(), s->aux_scope.end(), 0);
    std::fill(s->aux_node.begin(), s->aux_node.end(), 0);
  }
}

// Real groups: scopes with at least two shown nodes (a meta-node for one
// node helps nobody); smaller scopes dissolve into their parent. Returns the
// group of each scope.
std::vector<int> Hierarchy::makeGroups(const Scopes& s) {
  std::vector<int> group_of_scope(s.scopes.size(), -1);
  groups_.push_back(Group{});
  group_of_scope[0] = 0;
  if (std::find(s.aux_scope.begin(), s.aux_scope.end(), 1) != s.aux_scope.end() ||
      std::find(s.aux_node.begin(), s.aux_node.end(), 1) != s.aux_node.end()) {
    Group aux;
    aux.path = kAuxiliaryPath;
    aux.label = "Auxiliary nodes";
    aux.parent = 0;
    aux.depth = 1;
    aux.auxiliary = true;
    auxiliary_group_ = static_cast<int>(groups_.size());
    groups_.push_back(std::move(aux));
  }
  // Scopes were created parents first, so one forward pass suffices.
  for (size_t r = 1; r < s.scopes.size(); ++r) {
    int parent = s.aux_scope[r] ? auxiliary_group_ : group_of_scope[s.scopes[r].parent];
    if (s.scopes[r].count >= 2) {
      Group grp;
      grp.path = s.scopes[r].path;
      size_t slash = grp.path.rfind('/');
      grp.label = slash == std::string::npos ? grp.path : grp.path.substr(slash + 1);
      grp.parent = parent;
      grp.depth = groups_[parent].depth + 1;
      group_of_scope[r] = static_cast<int>(groups_.size());
      groups_.push_back(std::move(grp));
    } else {
      group_of_scope[r] = parent;
    }
  }
  return group_of_scope;
}

// Each shown node into its group, with series (TensorBoard): many sibling
// nodes of one op whose names differ only by a trailing number
// ("Identity", "Identity_1", ... "Identity_375") form a group of their own,
// so a level never holds hundreds of them. Groups list their children in
// the order of their first node, and count their nodes and top op types.
void Hierarchy::placeNodes(const Scopes& s, const std::vector<int>& group_of_scope) {
  const model::Graph& g = *graph_;
  const int n = g.size();
  auto seriesKey = [&](int i, int grp) {
    const std::string& name = g.name(i);
    size_t end = name.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
    if (end < name.size() && end > 0 && name[end - 1] == '_') --end;
    return std::to_string(grp) + "|" + g.op(i) + "|" + name.substr(0, end);
  };
  // The group a shown node belongs to before series: its scope's, or the
  // auxiliary group for an auxiliary node at the top level.
  auto scopeGroup = [&](int i) {
    const int grp = group_of_scope[s.scope_of[i]];
    return grp == 0 && s.aux_node[i] && auxiliary_group_ > 0 ? auxiliary_group_ : grp;
  };
  std::unordered_map<std::string, int> series_count, series_group;
  for (int i = 0; i < n; ++i)
    if (folded_into_[i] < 0) ++series_count[seriesKey(i, scopeGroup(i))];
  group_of_.assign(n, 0);
  std::vector<char> group_listed(groups_.size(), 0);
  group_listed[0] = 1;
  std::vector<std::unordered_map<std::string, int>> op_counts(groups_.size());
  for (int i = 0; i < n; ++i) {
    if (folded_into_[i] >= 0) continue;
    ++shown_nodes_;
    int grp = scopeGroup(i);
    const std::string key = seriesKey(i, grp);
    if (series_count[key] >= kSeriesMin) {
      auto [it, inserted] = series_group.emplace(key, static_cast<int>(groups_.size()));
      if (inserted) {
        Group sg;
        const std::string base = key.substr(key.rfind('|') + 1);
        size_t slash = base.rfind('/');
        sg.label = (slash == std::string::npos ? base : base.substr(slash + 1)) + "_*";
        sg.path = base + "_*";
        sg.parent = grp;
        sg.depth = groups_[grp].depth + 1;
        sg.series = true;
        groups_.push_back(std::move(sg));
        group_listed.push_back(0);
        op_counts.emplace_back();
      }
      grp = it->second;
    }
    group_of_[i] = grp;
    groups_[grp].nodes.push_back(i);
    // List child groups in order of their first node, so the layout input
    // follows the GraphDef's order.
    for (int c = grp; c > 0 && !group_listed[c]; c = groups_[c].parent) {
      group_listed[c] = 1;
      groups_[groups_[c].parent].groups.push_back(c);
    }
    for (int c = grp; c >= 0; c = groups_[c].parent) {
      ++groups_[c].node_count;
      ++op_counts[c][g.op(i)];
    }
  }
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    std::vector<std::pair<std::string, int>> ops(op_counts[gi].begin(), op_counts[gi].end());
    std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (ops.size() > 3) ops.resize(3);
    groups_[gi].top_ops = std::move(ops);
  }
  for (int i = 0; i < n; ++i)
    if (folded_into_[i] >= 0) group_of_[i] = group_of_[folded_into_[i]];
  if (!options_.call_functions.empty())
    for (auto& grp : groups_)
      if (auto it = options_.call_functions.find(grp.path); it != options_.call_functions.end())
        grp.function = it->second;
}

// Edge bundles per group: an edge between groups climbs from the deeper
// side until both ends meet in their lowest common group.
void Hierarchy::bundleEdges() {
  const model::Graph& g = *graph_;
  const int n = g.size();
  bundles_.assign(groups_.size(), {});
  std::vector<std::unordered_map<std::uint64_t, int>> keys(groups_.size());
  auto add = [&](int grp, ItemRef from, ItemRef to, bool control, int src, int port, int dst) {
    std::uint64_t key = (packRef(from) << 32) | packRef(to);
    auto [it, inserted] = keys[grp].emplace(key, static_cast<int>(bundles_[grp].size()));
    if (inserted) {
      Bundle b;
      b.from = from;
      b.to = to;
      b.src_node = src;
      b.src_port = port;
      b.dst_node = dst;
      bundles_[grp].push_back(b);
    }
    Bundle& b = bundles_[grp][it->second];
    (control ? b.control : b.data)++;
  };
  for (int v = 0; v < n; ++v) {
    if (folded_into_[v] >= 0) continue;
    for (const auto& in : g.inputs(v)) {
      int u = in.node;
      if (u == v || folded_into_[u] >= 0) continue;
      int gu = group_of_[u], gv = group_of_[v];
      ItemRef cu{ItemRef::Node, u}, cv{ItemRef::Node, v};
      while (gu != gv) {
        if (groups_[gu].depth >= groups_[gv].depth) {
          add(gu, cu, {ItemRef::Out, 0}, in.control, u, in.port, v);
          cu = {ItemRef::Group, gu};
          gu = groups_[gu].parent;
        } else {
          add(gv, {ItemRef::In, 0}, cv, in.control, u, in.port, v);
          cv = {ItemRef::Group, gv};
          gv = groups_[gv].parent;
        }
      }
      add(gu, cu, cv, in.control, u, in.port, v);
    }
  }
}

std::shared_ptr<const Hierarchy> Hierarchy::build(std::shared_ptr<const model::Graph> graph,
                                                  const HierarchyOptions& options) {
  auto h = std::make_shared<Hierarchy>();
  h->graph_ = graph;
  h->options_ = options;
  h->folded_into_.assign(graph->size(), -1);
  h->weights_.assign(graph->size(), {});
  if (options.fold_constants) h->foldWeights();
  Scopes scopes = h->scopeTree();
  if (options.group_auxiliary) h->markAuxiliary(&scopes);
  const std::vector<int> group_of_scope = h->makeGroups(scopes);
  h->placeNodes(scopes, group_of_scope);
  h->bundleEdges();
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
