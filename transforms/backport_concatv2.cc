// backport_concatv2: ConcatV2(values..., axis) -> Concat(axis, values...),
// dropping Tidx, for runtimes that predate ConcatV2 (TensorFlow's
// backports.cc).
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> backportConcatV2(const GraphDef& in, const TransformContext&) {
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, {"ConcatV2"},
      [](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
         std::vector<NodeDef>* new_nodes) {
        const NodeDef& v2 = match.def();
        if (v2.input_size() == 0) return Status::Error("ConcatV2 node '" + v2.name() + "' has no inputs");
        NodeDef concat = v2;
        concat.set_op("Concat");
        concat.clear_input();
        concat.add_input(v2.input(v2.input_size() - 1));
        for (int i = 0; i + 1 < v2.input_size(); ++i) concat.add_input(v2.input(i));
        concat.mutable_attr()->erase("Tidx");
        new_nodes->push_back(std::move(concat));
        return Status::Ok();
      },
      {true}, &out));
  return out;
}

}  // namespace

TransformInfo backportConcatV2Transform() {
  return {"backport_concatv2", "Replaces ConcatV2 by the older Concat (axis first)", {}, backportConcatV2};
}

}  // namespace gds::transforms
