// Name-scope hierarchy of a graph, as TensorBoard draws it: "a/b/c" lives in
// scope "a/b" inside scope "a". Each scope (group) can be shown collapsed as
// one meta-node or expanded as a frame holding its children, and only the
// children of expanded groups are laid out. Edges are precomputed per group:
// an edge u -> v is drawn in the lowest common group of u and v between the
// children that contain them (parallel edges bundled), plus boundary edges
// (In -> child, child -> Out) inside every group it crosses.
//
// Built once per graph and immutable afterwards, so layout workers can read
// it from other threads; the expansion state is a separate vector.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/graph.h"

namespace gds::graphview {

struct HierarchyOptions {
  // Netron's rule: a Const with one consumer (and Identity "read" wrappers
  // of such a Const) is drawn as a weight badge on its consumer.
  bool fold_constants = true;
  // TensorBoard's rule: top-level scopes and nodes that save, restore or
  // initialize variables, compute gradients or write summaries
  // (model/auxiliary.h) go into one "Auxiliary nodes" group, laid out
  // beside the main graph without its edges to it.
  bool group_auxiliary = true;
  // Scopes that hold an inlined function call's body (graphview/
  // call_expansion.h): scope path -> the function. They start collapsed.
  std::map<std::string, std::string> call_functions;
};

// Something drawn at one level: an op node, a group, or the boundary of the
// enclosing group (In: where edges from outside enter, Out: where they leave).
struct ItemRef {
  enum Kind : std::uint8_t { Node, Group, In, Out };
  Kind kind = Node;
  int index = 0;
  bool operator==(const ItemRef& o) const { return kind == o.kind && index == o.index; }
  bool operator!=(const ItemRef& o) const { return !(*this == o); }
};

// Per group: expanded (1) or collapsed (0). The root (group 0) is always expanded.
using Expansion = std::vector<char>;

class Hierarchy {
 public:
  struct Group {
    std::string path;   // full scope path, "" for the root
    std::string label;  // last path component
    int parent = -1;
    int depth = 0;
    std::vector<int> groups;  // child groups holding at least two shown nodes
    std::vector<int> nodes;   // shown op nodes directly in this group
    int node_count = 0;       // shown op nodes in the whole subtree
    // Most frequent op types in the subtree, most frequent first (at most 3).
    std::vector<std::pair<std::string, int>> top_ops;
    bool series = false;  // a series of numbered siblings ("Identity_*"), not a name scope
    bool auxiliary = false;  // the group of auxiliary nodes (path kAuxiliaryPath)
    std::string function;    // the function whose body a call's scope holds ("" for name scopes)
  };
  // Path of the auxiliary group: not a valid TensorFlow node name, so it
  // never collides with a scope.
  static constexpr const char* kAuxiliaryPath = "(auxiliary)";
  // Edges between two children of a group, bundled.
  struct Bundle {
    ItemRef from, to;
    int data = 0;     // data edges in the bundle
    int control = 0;  // control edges in the bundle
    int src_node = -1, src_port = 0;  // one producing tensor (for labels)
    int dst_node = -1;
  };

  static std::shared_ptr<const Hierarchy> build(std::shared_ptr<const model::Graph> graph,
                                                const HierarchyOptions& options = {});

  const model::Graph& graph() const { return *graph_; }
  const std::shared_ptr<const model::Graph>& graphPtr() const { return graph_; }
  const HierarchyOptions& options() const { return options_; }
  int groupCount() const { return static_cast<int>(groups_.size()); }
  const Group& group(int g) const { return groups_[g]; }
  const std::vector<Bundle>& bundles(int g) const { return bundles_[g]; }
  int findGroup(const std::string& path) const;  // -1 when absent
  // The auxiliary group (a child of the root), or -1 when the graph has none.
  int auxiliaryGroup() const { return auxiliary_group_; }

  // The group a shown node sits in directly (folded nodes: their host's group).
  int groupOf(int node) const { return group_of_[node]; }
  bool isFolded(int node) const { return folded_into_[node] >= 0; }
  int foldedInto(int node) const { return folded_into_[node]; }  // -1 when shown
  // Folded constants drawn on this node, in input order.
  const std::vector<int>& weights(int node) const { return weights_[node]; }
  int shownNodeCount() const { return shown_nodes_; }

  // True when `ancestor` is `g` or one of its ancestors.
  bool contains(int ancestor, int g) const;
  // The child of `g` (node or group) that holds `node`; g must contain it.
  ItemRef childContaining(int g, int node) const;
  // The outermost collapsed group hiding `node`, or -1 when it is shown.
  int hidingGroup(const Expansion& expansion, int node) const;

  // TensorBoard-like start state: expand levels breadth-first, a whole level
  // at a time, while the number of visible items stays within `budget`.
  // The auxiliary group and the scopes of function calls start collapsed.
  Expansion defaultExpansion(int budget = 60) const;
  Expansion allExpanded() const { return Expansion(groups_.size(), 1); }
  // Expands every group on the way to `node` (or to the folded node's host).
  void expandTo(Expansion& expansion, int node) const;

 private:
  // build()'s phases, in order (hierarchy.cc).
  struct Scopes;
  void foldWeights();
  Scopes scopeTree() const;
  void markAuxiliary(Scopes* scopes) const;
  std::vector<int> makeGroups(const Scopes& scopes);
  void placeNodes(const Scopes& scopes, const std::vector<int>& group_of_scope);
  void bundleEdges();

  std::shared_ptr<const model::Graph> graph_;
  HierarchyOptions options_;
  std::vector<Group> groups_;
  std::vector<std::vector<Bundle>> bundles_;
  std::vector<int> group_of_;
  std::vector<int> folded_into_;
  std::vector<std::vector<int>> weights_;
  int shown_nodes_ = 0;
  int auxiliary_group_ = -1;
};

}  // namespace gds::graphview
