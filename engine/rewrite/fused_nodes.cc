#include "engine/rewrite/fused_nodes.h"

#include "model/attr.h"

namespace gds::engine {

void recordFusedNodes(const std::vector<const tensorflow::NodeDef*>& replaced, const tensorflow::NodeDef& head,
                      tensorflow::NodeDef* fused) {
  std::vector<std::string> names;
  for (const tensorflow::NodeDef* n : replaced) {
    if (n->op() == "Const") continue;
    const tensorflow::AttrValue* fused_names = model::findAttr(*n, kFusedNodesAttr);
    if (!fused_names) names.push_back(n->name());
    else names.insert(names.end(), fused_names->list().s().begin(), fused_names->list().s().end());
  }
  const tensorflow::AttrValue* head_attr = model::findAttr(head, kFusedHeadAttr);
  const std::string head_name = head_attr ? head_attr->s() : head.name();
  auto& attrs = *fused->mutable_attr();
  auto* list = attrs[kFusedNodesAttr].mutable_list();
  list->clear_s();
  for (const auto& name : names) list->add_s(name);
  attrs[kFusedHeadAttr].set_s(head_name);
}

}  // namespace gds::engine
