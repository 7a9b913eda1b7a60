// add_default_attributes: fills in attributes a node leaves out with the op's
// default value (TensorFlow's AddDefaultAttrsToGraphDef), so graphs written
// by an older TensorFlow carry every attribute newer tools expect. The
// defaults come from the op metadata file (model/op_metadata.pbtxt); ops it
// does not describe are left unchanged.
#include "model/op_metadata.h"
#include "transforms/builtin.h"

namespace gds::transforms {
namespace {

Result<GraphDef> addDefaultAttributes(const GraphDef& in, const TransformContext&) {
  GraphDef out = in;
  const auto& registry = model::OpRegistry::instance();
  for (auto& node : *out.mutable_node()) {
    const auto* meta = registry.find(node.op());
    if (!meta) continue;
    for (const auto& attr : meta->attrs()) {
      if (!attr.has_default_value() || node.attr().count(attr.name())) continue;
      (*node.mutable_attr())[attr.name()] = attr.default_value();
    }
  }
  return out;
}

}  // namespace

TransformInfo addDefaultAttributesTransform() {
  return {"add_default_attributes", "Adds attributes left out of nodes, with the op's default values", {},
          addDefaultAttributes};
}

}  // namespace gds::transforms
