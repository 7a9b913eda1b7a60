// round_weights(num_steps=256): float Consts with at least 16 elements keep
// float storage but only num_steps distinct values (bucket centres), so the
// file compresses well (TensorFlow's round_weights.cc).
#include <algorithm>
#include <cmath>
#include <limits>

#include "model/attr.h"
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> roundWeights(const GraphDef& in, const TransformContext& ctx) {
  auto num_steps = ctx.getOneInt("num_steps", 256);
  if (!num_steps.ok()) return num_steps.status();
  if (*num_steps < 1) return ctx.error("parameter 'num_steps' must be at least 1, got " + std::to_string(*num_steps));
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, {"Const"},
      [&](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
          std::vector<NodeDef>* new_nodes) {
        const NodeDef& node = match.def();
        const auto* dtype = model::findAttr(node, "dtype");
        if (!dtype) return Status::Error("no 'dtype' attribute for Const node '" + node.name() + "'");
        // Small constants tend to be accuracy-sensitive and gain little.
        if (dtype->type() != tensorflow::DT_FLOAT ||
            model::protoElementCount(node.attr().count("value") ? node.attr().at("value").tensor()
                                                                : tensorflow::TensorProto()) < 16) {
          new_nodes->push_back(node);
          return Status::Ok();
        }
        auto tensor = floatTensorAttr(node);
        if (!tensor.ok()) return tensor.status();
        float* values = tensor->as<float>();
        const std::int64_t n = tensor->size();
        float min = std::numeric_limits<float>::max(), max = std::numeric_limits<float>::lowest();
        for (std::int64_t i = 0; i < n; ++i) {
          min = std::min(min, values[i]);
          max = std::max(max, values[i]);
        }
        if (min == max) {
          if (std::fabs(min) < 0.000001f) max = min + 1.0f;
          else if (min > 0) max = 2.0f * min;
          else min = 2.0f * max;
        }
        const float width = (max - min) / static_cast<float>(*num_steps);
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int32_t bucket = static_cast<std::int32_t>(std::floor((values[i] - min) / width));
          values[i] = min + width * (static_cast<float>(bucket) + 0.5f);
        }
        // A fresh Const (name, dtype, value), as TensorFlow writes it.
        new_nodes->push_back(makeConst(node.name(), *tensor));
        return Status::Ok();
      },
      {}, &out));
  return out;
}

}  // namespace

TransformInfo roundWeightsTransform() {
  return {"round_weights", "Rounds large float constants to num_steps distinct values",
          {{"num_steps", "number of distinct values (default 256)"}}, roundWeights};
}

}  // namespace gds::transforms
