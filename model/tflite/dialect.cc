#include "model/tflite/dialect.h"

#include "model/attr.h"

#include <algorithm>
#include <cstdio>

namespace gds::model::tflite {
namespace {

std::string number(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
  return buf;
}

}  // namespace

bool isDialectOp(const std::string& op) { return op.rfind(kOpPrefix, 0) == 0; }

bool isDialectGraph(const tensorflow::GraphDef& graph) {
  for (const auto& node : graph.node())
    if (isDialectOp(node.op())) return true;
  return false;
}

std::string Quantization::str() const {
  if (scale.empty()) {
    if (min.empty()) return "none";
    return "min=" + number(min[0]) + " max=" + number(max.empty() ? 0.0f : max[0]);
  }
  if (scale.size() == 1)
    return "scale=" + number(scale[0]) + " zero_point=" + std::to_string(zero_point.empty() ? 0 : zero_point[0]);
  float lo = scale[0], hi = scale[0];
  for (float s : scale) {
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  return "scale=" + number(lo) + ".." + number(hi) + " (" + std::to_string(scale.size()) +
         " per channel, dimension " + std::to_string(quantized_dimension) + ")";
}

std::string quantizationAttrName(const char* base, int port) {
  return port == 0 ? std::string(base) : std::string(base) + ":" + std::to_string(port);
}

Quantization quantizationOf(const tensorflow::NodeDef& node, int port) {
  Quantization q;
  if (const auto* a = findAttr(node, quantizationAttrName(kScaleAttr, port)))
    q.scale.assign(a->list().f().begin(), a->list().f().end());
  if (const auto* a = findAttr(node, quantizationAttrName(kZeroPointAttr, port)))
    q.zero_point.assign(a->list().i().begin(), a->list().i().end());
  if (const auto* a = findAttr(node, quantizationAttrName(kQuantizedDimensionAttr, port)))
    q.quantized_dimension = static_cast<int>(a->i());
  if (const auto* a = findAttr(node, quantizationAttrName(kMinAttr, port)))
    q.min.assign(a->list().f().begin(), a->list().f().end());
  if (const auto* a = findAttr(node, quantizationAttrName(kMaxAttr, port)))
    q.max.assign(a->list().f().begin(), a->list().f().end());
  return q;
}

void setQuantization(tensorflow::NodeDef* node, int port, const Quantization& q) {
  auto& attrs = *node->mutable_attr();
  auto setFloats = [&](const char* base, const std::vector<float>& values) {
    const std::string name = quantizationAttrName(base, port);
    if (values.empty()) {
      attrs.erase(name);
      return;
    }
    auto* list = attrs[name].mutable_list();
    list->Clear();
    for (float v : values) list->add_f(v);
  };
  setFloats(kScaleAttr, q.scale);
  setFloats(kMinAttr, q.min);
  setFloats(kMaxAttr, q.max);
  const std::string zp = quantizationAttrName(kZeroPointAttr, port);
  if (q.zero_point.empty()) {
    attrs.erase(zp);
  } else {
    auto* list = attrs[zp].mutable_list();
    list->Clear();
    for (std::int64_t v : q.zero_point) list->add_i(v);
  }
  const std::string dim = quantizationAttrName(kQuantizedDimensionAttr, port);
  if (q.quantized_dimension == 0) attrs.erase(dim);
  else attrs[dim].set_i(q.quantized_dimension);
}

int outputCount(const tensorflow::NodeDef& node) {
  if (const auto* a = findAttr(node, kOutputTypesAttr)) return a->list().type_size();
  return 1;
}

tensorflow::DataType outputType(const tensorflow::NodeDef& node, int port) {
  if (const auto* a = findAttr(node, kOutputTypesAttr))
    return port >= 0 && port < a->list().type_size() ? static_cast<tensorflow::DataType>(a->list().type(port))
                                                     : tensorflow::DT_INVALID;
  if (port != 0) return tensorflow::DT_INVALID;
  if (const auto* a = findAttr(node, "dtype")) return a->type();
  return tensorflow::DT_INVALID;
}

Shape outputShape(const tensorflow::NodeDef& node, int port, bool* known) {
  bool ok = false;
  Shape shape;
  if (const auto* a = findAttr(node, kOutputShapesAttr)) {
    if (port >= 0 && port < a->list().shape_size()) shape = shapeFromProto(a->list().shape(port), &ok);
  } else if (port == 0) {
    if (const auto* v = findAttr(node, "value"); v && v->has_tensor()) {
      shape = shapeFromProto(v->tensor().tensor_shape(), &ok);
    } else if (const auto* s = findAttr(node, "shape")) {
      shape = shapeFromProto(s->shape(), &ok);
    }
  }
  if (known) *known = ok;
  if (!ok) shape.clear();
  return shape;
}

std::string tensorName(const tensorflow::NodeDef& node, int port) {
  if (const auto* a = findAttr(node, kOutputNamesAttr); a && port >= 0 && port < a->list().s_size())
    return a->list().s(port);
  return port == 0 ? node.name() : node.name() + ":" + std::to_string(port);
}

std::string nodeNameFor(const std::string& tensor_name, int tensor_index, std::unordered_set<std::string>* taken) {
  std::string name = tensor_name;
  // "x:0" -> "x": the node's first output then reads back as "x:0".
  const auto colon = name.rfind(':');
  if (colon != std::string::npos && colon + 1 < name.size() &&
      name.find_first_not_of("0123456789", colon + 1) == std::string::npos)
    name.resize(colon);
  for (char& c : name)
    if (c == ':') c = '_';
  if (!name.empty() && name[0] == '^') name[0] = '_';
  if (name.empty()) name = "tensor_" + std::to_string(tensor_index);
  if (name == kNoValueNode) name += "_tensor";
  std::string candidate = name;
  for (int k = 1; taken->count(candidate); ++k) candidate = name + "_" + std::to_string(k);
  taken->insert(candidate);
  return candidate;
}

}  // namespace gds::model::tflite
