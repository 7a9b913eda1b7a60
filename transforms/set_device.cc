// set_device(device, if_default=false): sets every node's device, or only
// the devices left empty when if_default=true.
#include "transforms/builtin.h"

namespace gds::transforms {
namespace {

Result<GraphDef> setDevice(const GraphDef& in, const TransformContext& ctx) {
  auto device = ctx.getOneString("device", "");
  if (!device.ok()) return device.status();
  auto if_default = ctx.getOneBool("if_default", false);
  if (!if_default.ok()) return if_default.status();
  GraphDef out = in;
  for (auto& node : *out.mutable_node())
    if (!*if_default || node.device().empty()) node.set_device(*device);
  return out;
}

}  // namespace

TransformInfo setDeviceTransform() {
  return {"set_device", "Sets the device of every node (or of nodes without one)",
          {{"device", "device string, e.g. /device:CPU:0"}, {"if_default", "only nodes with no device (default false)"}},
          setDevice};
}

}  // namespace gds::transforms
