#include "transforms/tflite/float16.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>

#include "model/graph.h"
#include "model/tensor.h"
#include "model/tflite/dialect.h"
#include "transforms/transform_utils.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;
using tensorflow::NodeDef;

constexpr float kMaxFloat16 = 65504.0f;

bool quantized(const NodeDef& n) { return n.attr().count(mt::kScaleAttr) > 0; }

}  // namespace

Result<tensorflow::GraphDef> quantizeWeightsToFloat16(const tensorflow::GraphDef& graph) {
  std::unordered_set<std::string> names, read_by_op;
  for (const NodeDef& n : graph.node()) {
    names.insert(n.name());
    if (!mt::isDialectOp(n.op())) continue;
    for (const std::string& in : n.input()) read_by_op.insert(std::string(model::nodeNameOf(in)));
  }
  tensorflow::GraphDef out;
  *out.mutable_versions() = graph.versions();
  *out.mutable_library() = graph.library();
  std::vector<const NodeDef*> rest;
  for (const NodeDef& n : graph.node()) {
    if (n.op() != "Const" || !read_by_op.count(n.name()) || quantized(n)) {
      rest.push_back(&n);
      continue;
    }
    auto value = tensorAttr(n);
    if (!value.ok()) return Status::Error("node '" + n.name() + "': " + value.error());
    if (value->dtype != tensorflow::DT_FLOAT) {
      rest.push_back(&n);
      continue;
    }
    model::HostTensor half = model::HostTensor::zeros(tensorflow::DT_HALF, value->shape);
    const float* v = value->as<float>();
    std::uint16_t* h = half.as<std::uint16_t>();
    for (std::int64_t i = 0; i < value->size(); ++i)
      h[i] = model::floatToHalf(std::isnan(v[i]) ? v[i] : std::clamp(v[i], -kMaxFloat16, kMaxFloat16));
    NodeDef c = makeConst(claimName(n.name() + "_fp16", &names), half);
    // The float32 tensor the operators read: DEQUANTIZE's output, under the
    // constant's name (and its TFLite tensor name, when it had its own).
    NodeDef d;
    d.set_name(n.name());
    d.set_op("tfl.dequantize");
    d.add_input(c.name());
    auto& attrs = *d.mutable_attr();
    attrs[mt::kOutputTypesAttr].mutable_list()->add_type(tensorflow::DT_FLOAT);
    model::shapeToProto(value->shape, attrs[mt::kOutputShapesAttr].mutable_list()->add_shape());
    for (const char* key : {mt::kOutputNamesAttr, mt::kShapeSignatureAttr})
      if (n.attr().count(key)) attrs[key] = n.attr().at(key);
    *out.add_node() = std::move(c);
    *out.add_node() = std::move(d);
  }
  for (const NodeDef* n : rest) *out.add_node() = *n;
  return out;
}

}  // namespace gds::transforms::tflite
