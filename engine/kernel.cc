#include "engine/kernel.h"

#include "model/attr.h"

namespace gds::engine {
namespace {

std::string nodeLabel(const tensorflow::NodeDef& node) { return "node '" + node.name() + "' (" + node.op() + ")"; }

}  // namespace

const tensorflow::AttrValue* KernelInit::attr(const std::string& name) const {
  return model::findAttr(node(), name);
}

Status KernelInit::error(const std::string& message) const {
  return Status::Error(nodeLabel(node()) + ": " + message);
}

#define GDS_ATTR_LOOKUP(kind_case, kind_name)                                        \
  const tensorflow::AttrValue* a = attr(name);                                        \
  if (!a) return error("missing attr '" + name + "'");                               \
  if (a->value_case() != tensorflow::AttrValue::kind_case)                            \
    return error("attr '" + name + "' is not " kind_name);

Status KernelInit::getAttr(const std::string& name, std::string* value) const {
  GDS_ATTR_LOOKUP(kS, "a string")
  *value = a->s();
  return Status::Ok();
}

Status KernelInit::getAttr(const std::string& name, std::int64_t* value) const {
  GDS_ATTR_LOOKUP(kI, "an int")
  *value = a->i();
  return Status::Ok();
}

Status KernelInit::getAttr(const std::string& name, float* value) const {
  GDS_ATTR_LOOKUP(kF, "a float")
  *value = a->f();
  return Status::Ok();
}

Status KernelInit::getAttr(const std::string& name, bool* value) const {
  GDS_ATTR_LOOKUP(kB, "a bool")
  *value = a->b();
  return Status::Ok();
}

Status KernelInit::getAttr(const std::string& name, DataType* value) const {
  GDS_ATTR_LOOKUP(kType, "a type")
  *value = a->type();
  return Status::Ok();
}

#undef GDS_ATTR_LOOKUP

// An empty list may be serialized as an AttrValue with nothing set.
#define GDS_LIST_LOOKUP                                                                \
  const tensorflow::AttrValue* a = attr(name);                                         \
  if (!a) return error("missing attr '" + name + "'");                                \
  if (a->value_case() != tensorflow::AttrValue::kList &&                               \
      a->value_case() != tensorflow::AttrValue::VALUE_NOT_SET)                         \
    return error("attr '" + name + "' is not a list");

Status KernelInit::getAttr(const std::string& name, std::vector<std::int64_t>* value) const {
  GDS_LIST_LOOKUP
  value->assign(a->list().i().begin(), a->list().i().end());
  return Status::Ok();
}

Status KernelInit::getAttr(const std::string& name, std::vector<DataType>* value) const {
  GDS_LIST_LOOKUP
  value->clear();
  for (int t : a->list().type()) value->push_back(static_cast<DataType>(t));
  return Status::Ok();
}

Status KernelInit::getAttr(const std::string& name, std::vector<float>* value) const {
  GDS_LIST_LOOKUP
  value->assign(a->list().f().begin(), a->list().f().end());
  return Status::Ok();
}

Status KernelInit::getAttr(const std::string& name, std::vector<std::string>* value) const {
  GDS_LIST_LOOKUP
  value->assign(a->list().s().begin(), a->list().s().end());
  return Status::Ok();
}

#undef GDS_LIST_LOOKUP

Status KernelInit::getAttr(const std::string& name, Shape* value, bool* known_rank) const {
  const tensorflow::AttrValue* a = attr(name);
  if (!a) return error("missing attr '" + name + "'");
  if (a->value_case() != tensorflow::AttrValue::kShape) return error("attr '" + name + "' is not a shape");
  bool known = true;
  *value = model::shapeFromProto(a->shape(), &known);
  if (known_rank) *known_rank = known;
  return Status::Ok();
}

Status KernelInit::getAttr(const std::string& name, const tensorflow::TensorProto** value) const {
  const tensorflow::AttrValue* a = attr(name);
  if (!a) return error("missing attr '" + name + "'");
  if (a->value_case() != tensorflow::AttrValue::kTensor) return error("attr '" + name + "' is not a tensor");
  *value = &a->tensor();
  return Status::Ok();
}

DataType KernelInit::typeAttr() const {
  for (const char* name : {"T", "dtype"}) {
    const tensorflow::AttrValue* a = attr(name);
    if (a && a->value_case() == tensorflow::AttrValue::kType) return model::baseDtype(a->type());
  }
  return tensorflow::DT_INVALID;
}

Status KernelContext::error(const std::string& message) const {
  return Status::Error(nodeLabel(node()) + ": " + message);
}

void KernelRegistry::add(const std::string& op, KernelFactory factory, DataType dtype) {
  kernels_[op][static_cast<int>(dtype)] = std::move(factory);
}

const KernelFactory* KernelRegistry::find(const std::string& op, DataType dtype) const {
  auto it = kernels_.find(op);
  if (it == kernels_.end()) return nullptr;
  auto exact = it->second.find(static_cast<int>(model::baseDtype(dtype)));
  if (exact != it->second.end()) return &exact->second;
  auto any = it->second.find(static_cast<int>(tensorflow::DT_INVALID));
  return any == it->second.end() ? nullptr : &any->second;
}

bool KernelRegistry::hasOp(const std::string& op) const { return kernels_.count(op) > 0; }

std::vector<std::string> KernelRegistry::ops() const {
  std::vector<std::string> out;
  for (const auto& [op, by_type] : kernels_) out.push_back(op);
  return out;
}

std::vector<DataType> KernelRegistry::dtypes(const std::string& op) const {
  std::vector<DataType> out;
  auto it = kernels_.find(op);
  if (it == kernels_.end()) return out;
  for (const auto& [t, f] : it->second) out.push_back(static_cast<DataType>(t));
  return out;
}

}  // namespace gds::engine
