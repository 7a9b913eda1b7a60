// remove_device: clears every node's device so the runtime places them.
#include "transforms/builtin.h"

namespace gds::transforms {
namespace {

Result<GraphDef> removeDevice(const GraphDef& in, const TransformContext&) {
  GraphDef out = in;
  for (auto& node : *out.mutable_node()) node.clear_device();
  return out;
}

}  // namespace

TransformInfo removeDeviceTransform() {
  return {"remove_device", "Clears the device of every node", {}, removeDevice};
}

}  // namespace gds::transforms
