#include "engine/rewrite/fused_nodes.h"

namespace gds::engine {

void recordFusedNodes(const std::vector<const tensorflow::NodeDef*>& replaced, const tensorflow::NodeDef& head,
                      tensorflow::NodeDef* fused) {
  std::vector<std::string> names;
  for (const tensorflow::NodeDef* n : replaced) {
    if (n->op() == "Const") continue;
    auto it = n->attr().find(kFusedNodesAttr);
    if (it == n->attr().end()) names.push_back(n->name());
    else names.insert(names.end(), it->second.list().s().begin(), it->second.list().s().end());
  }
  auto head_it = head.attr().find(kFusedHeadAttr);
  const std::string head_name = head_it == head.attr().end() ? head.name() : head_it->second.s();
  auto& attrs = *fused->mutable_attr();
  auto* list = attrs[kFusedNodesAttr].mutable_list();
  list->clear_s();
  for (const auto& name : names) list->add_s(name);
  attrs[kFusedHeadAttr].set_s(head_name);
}

}  // namespace gds::engine
