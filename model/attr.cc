#include "model/attr.h"

namespace gds::model {
namespace {

using tensorflow::AttrValue;

const AttrValue* ofKind(const tensorflow::NodeDef& node, const std::string& name, AttrValue::ValueCase kind) {
  const AttrValue* a = findAttr(node, name);
  return a && a->value_case() == kind ? a : nullptr;
}

const char* kindName(AttrValue::ValueCase kind) {
  switch (kind) {
    case AttrValue::kS: return "string";
    case AttrValue::kI: return "int";
    case AttrValue::kF: return "float";
    case AttrValue::kB: return "bool";
    case AttrValue::kType: return "type";
    case AttrValue::kShape: return "shape";
    case AttrValue::kTensor: return "tensor";
    case AttrValue::kList: return "list";
    case AttrValue::kFunc: return "func";
    case AttrValue::kPlaceholder: return "placeholder";
    case AttrValue::VALUE_NOT_SET: break;
  }
  return "empty value";
}

// The attr when it has the expected kind, else an error naming both.
Result<const AttrValue*> require(const tensorflow::NodeDef& node, const std::string& name, AttrValue::ValueCase kind) {
  const std::string where = "node '" + node.name() + "' (" + node.op() + "): attr '" + name + "'";
  const AttrValue* a = findAttr(node, name);
  if (!a) return Status::Error(where + " is missing");
  if (a->value_case() != kind)
    return Status::Error(where + " has type " + kindName(a->value_case()) + ", expected " + kindName(kind));
  return a;
}

}  // namespace

const AttrValue* findAttr(const tensorflow::NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? nullptr : &it->second;
}

std::int64_t attrInt(const tensorflow::NodeDef& node, const std::string& name, std::int64_t fallback) {
  const AttrValue* a = ofKind(node, name, AttrValue::kI);
  return a ? a->i() : fallback;
}
float attrFloat(const tensorflow::NodeDef& node, const std::string& name, float fallback) {
  const AttrValue* a = ofKind(node, name, AttrValue::kF);
  return a ? a->f() : fallback;
}
bool attrBool(const tensorflow::NodeDef& node, const std::string& name, bool fallback) {
  const AttrValue* a = ofKind(node, name, AttrValue::kB);
  return a ? a->b() : fallback;
}
std::string attrString(const tensorflow::NodeDef& node, const std::string& name, const std::string& fallback) {
  const AttrValue* a = ofKind(node, name, AttrValue::kS);
  return a ? a->s() : fallback;
}
tensorflow::DataType attrType(const tensorflow::NodeDef& node, const std::string& name, tensorflow::DataType fallback) {
  const AttrValue* a = ofKind(node, name, AttrValue::kType);
  return a ? a->type() : fallback;
}
std::vector<std::int64_t> attrInts(const tensorflow::NodeDef& node, const std::string& name) {
  const AttrValue* a = ofKind(node, name, AttrValue::kList);
  if (!a) return {};
  return {a->list().i().begin(), a->list().i().end()};
}
const tensorflow::TensorShapeProto* attrShape(const tensorflow::NodeDef& node, const std::string& name) {
  const AttrValue* a = ofKind(node, name, AttrValue::kShape);
  return a ? &a->shape() : nullptr;
}

Result<std::int64_t> requireInt(const tensorflow::NodeDef& node, const std::string& name) {
  auto a = require(node, name, AttrValue::kI);
  if (!a.ok()) return a.status();
  return (*a)->i();
}
Result<float> requireFloat(const tensorflow::NodeDef& node, const std::string& name) {
  auto a = require(node, name, AttrValue::kF);
  if (!a.ok()) return a.status();
  return (*a)->f();
}
Result<bool> requireBool(const tensorflow::NodeDef& node, const std::string& name) {
  auto a = require(node, name, AttrValue::kB);
  if (!a.ok()) return a.status();
  return (*a)->b();
}
Result<std::string> requireString(const tensorflow::NodeDef& node, const std::string& name) {
  auto a = require(node, name, AttrValue::kS);
  if (!a.ok()) return a.status();
  return (*a)->s();
}
Result<tensorflow::DataType> requireType(const tensorflow::NodeDef& node, const std::string& name) {
  auto a = require(node, name, AttrValue::kType);
  if (!a.ok()) return a.status();
  return (*a)->type();
}
Result<std::vector<std::int64_t>> requireInts(const tensorflow::NodeDef& node, const std::string& name) {
  auto a = require(node, name, AttrValue::kList);
  if (!a.ok()) return a.status();
  return std::vector<std::int64_t>((*a)->list().i().begin(), (*a)->list().i().end());
}

}  // namespace gds::model
