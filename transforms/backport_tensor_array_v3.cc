// backport_tensor_array_v3: the TensorArray*V3 ops back to their V2 names
// for runtimes that predate them (TensorFlow's backports.cc):
// TensorArrayV3 and TensorArrayGradV3 become TensorArrayV2 and
// TensorArrayGradV2, whose second output (the flow) does not exist, so its
// readers take "<name>/replacement_flow_node", a float Const 1 (TensorFlow's
// arbitrary choice); Read, Write, Gather, Scatter, Concat, Split, Size and
// Close V3 are renamed V2. Attributes stay as they are.
#include <map>

#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> backportTensorArrayV3(const GraphDef& in, const TransformContext&) {
  std::map<std::string, std::string> flow_renames;
  GraphDef replaced;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, {"TensorArrayV3|TensorArrayGradV3"},
      [&flow_renames](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
                      std::vector<NodeDef>* new_nodes) {
        const NodeDef& v3 = match.def();
        NodeDef v2 = v3;
        v2.set_op(v3.op() == "TensorArrayV3" ? "TensorArrayV2" : "TensorArrayGradV2");
        model::HostTensor one = model::HostTensor::zeros(tensorflow::DT_FLOAT, {});
        one.as<float>()[0] = 1.0f;
        NodeDef flow = makeConst(v3.name() + "/replacement_flow_node", one);
        flow_renames[v3.name() + ":1"] = flow.name();
        new_nodes->push_back(std::move(v2));
        new_nodes->push_back(std::move(flow));
        return Status::Ok();
      },
      {true}, &replaced));
  GraphDef renamed;
  GDS_RETURN_IF_ERROR(renameNodeInputs(replaced, flow_renames, {}, &renamed));
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      renamed,
      {"TensorArrayWriteV3|TensorArrayReadV3|TensorArrayGatherV3|TensorArrayScatterV3|TensorArrayConcatV3|"
       "TensorArraySplitV3|TensorArraySizeV3|TensorArrayCloseV3"},
      [](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
         std::vector<NodeDef>* new_nodes) {
        NodeDef v2 = match.def();
        v2.set_op(v2.op().substr(0, v2.op().size() - 1) + "2");
        new_nodes->push_back(std::move(v2));
        return Status::Ok();
      },
      {true}, &out));
  return out;
}

}  // namespace

TransformInfo backportTensorArrayV3Transform() {
  return {"backport_tensor_array_v3",
          "Renames the TensorArray*V3 ops to their V2 versions; the V3 flow output becomes a Const",
          {},
          backportTensorArrayV3};
}

}  // namespace gds::transforms
