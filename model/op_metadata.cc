#include "model/op_metadata.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <google/protobuf/text_format.h>

#include "model/attr.h"
#include "model/tensor.h"

namespace gds::model {

extern const char kOpMetadataText[];
extern const std::size_t kOpMetadataSize;

const char* categoryName(OpCategory c) {
  switch (c) {
    case OpCategory::Layer: return "layer";
    case OpCategory::Activation: return "activation";
    case OpCategory::Pool: return "pool";
    case OpCategory::Normalization: return "normalization";
    case OpCategory::Tensor: return "tensor";
    case OpCategory::Quantization: return "quantization";
    case OpCategory::Control: return "control";
    case OpCategory::Constant: return "constant";
    case OpCategory::Data: return "data";
    case OpCategory::Training: return "training";
    case OpCategory::Math: return "math";
    case OpCategory::Other: return "other";
  }
  return "other";
}

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// "name: spec" as TensorFlow's op_def_builder reads an output: spec is a
// dtype name, a type or list(type) attr of the op, or "N * <dtype or type
// attr>" with N an int attr.
Result<OpOutputArg> parseOutputArg(const gdstudio::OpMetadata& op, const std::string& text) {
  OpOutputArg arg;
  size_t colon = text.find(':');
  if (colon == std::string::npos) {
    arg.name = text;
    if (!arg.name.empty() && arg.name.back() == '*') {
      arg.name.pop_back();
      arg.is_list = true;
    }
    return arg;
  }
  arg.name = trim(text.substr(0, colon));
  std::string spec = trim(text.substr(colon + 1));
  auto attrKind = [&](const std::string& name) -> std::string {
    for (const auto& a : op.attrs())
      if (a.name() == name) return a.type();
    return {};
  };
  size_t star = spec.find('*');
  if (star != std::string::npos) {
    arg.number_attr = trim(spec.substr(0, star));
    spec = trim(spec.substr(star + 1));
    if (attrKind(arg.number_attr) != "int")
      return Status::Error("'" + arg.number_attr + "' is not an int attr of the op");
    arg.is_list = true;
  }
  const std::string kind = attrKind(spec);
  if (kind == "type") {
    arg.type_attr = spec;
  } else if (kind == "list(type)" && arg.number_attr.empty()) {
    arg.type_list_attr = spec;
    arg.is_list = true;
  } else {
    auto dtype = parseDtype(spec);
    if (!dtype.ok() || spec != dtypeName(*dtype))
      return Status::Error("'" + spec + "' is neither a dtype nor a type attr of the op");
    arg.type = *dtype;
  }
  return arg;
}

}  // namespace

OpRegistry::OpRegistry() {
  std::string text(kOpMetadataText, kOpMetadataSize);
  if (!google::protobuf::TextFormat::ParseFromString(text, &list_)) {
    // The file is part of the build and checked by a test; a broken one is a
    // programming error, so fail loudly rather than colour every node grey.
    std::fprintf(stderr, "internal error: model/op_metadata.pbtxt does not parse\n");
    std::abort();
  }
  outputs_.resize(static_cast<size_t>(list_.op_size()));
  for (int i = 0; i < list_.op_size(); ++i) {
    const auto& op = list_.op(i);
    index_.emplace_back(op.name(), i);
    for (const auto& out : op.outputs()) {
      auto arg = parseOutputArg(op, out);
      if (!arg.ok()) {
        std::fprintf(stderr, "internal error: model/op_metadata.pbtxt: op %s, output \"%s\": %s\n", op.name().c_str(),
                     out.c_str(), arg.error().c_str());
        std::abort();
      }
      outputs_[static_cast<size_t>(i)].push_back(std::move(*arg));
    }
  }
  std::sort(index_.begin(), index_.end());
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry;
  return registry;
}

int OpRegistry::indexOf(const std::string& op) const {
  auto it = std::lower_bound(index_.begin(), index_.end(), std::make_pair(op, -1));
  return it == index_.end() || it->first != op ? -1 : it->second;
}

const gdstudio::OpMetadata* OpRegistry::find(const std::string& op) const {
  int i = indexOf(op);
  return i < 0 ? nullptr : &list_.op(i);
}

const std::vector<OpOutputArg>* OpRegistry::outputArgs(const std::string& op) const {
  int i = indexOf(op);
  return i < 0 ? nullptr : &outputs_[static_cast<size_t>(i)];
}

bool OpRegistry::inputArity(const std::string& op, int* min, int* max) const {
  const auto* meta = find(op);
  if (!meta || meta->inputs_size() == 0) return false;
  *min = 0;
  bool variadic = false;
  for (const auto& arg : meta->inputs()) {
    if (!arg.empty() && arg.back() == '*') variadic = true;
    else ++*min;
  }
  *max = variadic ? -1 : *min;
  return true;
}

std::string OpRegistry::inputCountError(const std::string& op, int data) const {
  int min = 0, max = 0;
  if (!inputArity(op, &min, &max) || (data >= min && (max < 0 || data <= max))) return {};
  std::string args;
  for (const auto& arg : find(op)->inputs()) args += (args.empty() ? "" : ", ") + arg;
  return "expects " + std::string(max < 0 ? "at least " : "") + std::to_string(min) +
         (min == 1 ? " input" : " inputs") + " (" + args + "), has " + std::to_string(data);
}

bool OpRegistry::neverFoldOrMerge(const std::string& op) const {
  const auto* meta = find(op);
  return meta && (meta->stateful() || meta->never_fold_or_merge());
}

OpCategory OpRegistry::category(const std::string& op) const {
  const auto* meta = find(op);
  if (!meta) return OpCategory::Other;
  static const std::pair<const char*, OpCategory> names[] = {
      {"layer", OpCategory::Layer}, {"activation", OpCategory::Activation}, {"pool", OpCategory::Pool},
      {"normalization", OpCategory::Normalization}, {"tensor", OpCategory::Tensor},
      {"quantization", OpCategory::Quantization}, {"control", OpCategory::Control},
      {"constant", OpCategory::Constant}, {"data", OpCategory::Data}, {"training", OpCategory::Training},
      {"math", OpCategory::Math}};
  for (const auto& [name, cat] : names)
    if (meta->category() == name) return cat;
  return OpCategory::Other;
}

const tensorflow::AttrValue* OpRegistry::attrDefault(const std::string& op, const std::string& attr) const {
  const auto* meta = find(op);
  if (!meta) return nullptr;
  for (const auto& a : meta->attrs())
    if (a.name() == attr && a.has_default_value()) return &a.default_value();
  return nullptr;
}

std::vector<tensorflow::DataType> outputDtypes(const tensorflow::NodeDef& node, int num_outputs,
                                               const std::vector<tensorflow::DataType>& input_types) {
  using tensorflow::DataType;
  const OpRegistry& registry = OpRegistry::instance();
  DataType t = baseDtype(attrType(node, "T"));
  if (t == tensorflow::DT_INVALID) t = baseDtype(attrType(node, "dtype"));
  if (t == tensorflow::DT_INVALID && !input_types.empty()) t = input_types[0];
  std::vector<DataType> out(static_cast<size_t>(std::max(num_outputs, 0)), t);
  const auto* args = registry.outputArgs(node.op());
  bool typed = false;
  if (args)
    for (const auto& a : *args) typed = typed || a.typed();
  if (!typed) {
    DataType o = baseDtype(attrType(node, "out_type"));
    if (o != tensorflow::DT_INVALID && !out.empty()) out[0] = o;
    return out;
  }
  // The node's attr, else the op's default, else the node's own type.
  auto attrOrDefault = [&](const std::string& name) -> const tensorflow::AttrValue* {
    if (const auto* a = findAttr(node, name)) return a;
    return registry.attrDefault(node.op(), name);
  };
  auto typeOf = [&](const std::string& name) {
    const auto* a = attrOrDefault(name);
    return a && a->value_case() == tensorflow::AttrValue::kType ? baseDtype(a->type()) : t;
  };
  size_t k = 0;
  for (size_t i = 0; i < args->size() && k < out.size(); ++i) {
    const OpOutputArg& arg = (*args)[i];
    std::int64_t count = arg.is_list ? -1 : 1;
    const tensorflow::AttrValue* list = nullptr;
    if (!arg.number_attr.empty()) {
      const auto* n = attrOrDefault(arg.number_attr);
      if (n && n->value_case() == tensorflow::AttrValue::kI) count = n->i();
    } else if (!arg.type_list_attr.empty()) {
      list = attrOrDefault(arg.type_list_attr);
      if (list && list->value_case() != tensorflow::AttrValue::kList) list = nullptr;
      count = list ? list->list().type_size() : 0;
    }
    // A list of unknown length takes the outputs the args after it leave.
    const std::int64_t rest =
        static_cast<std::int64_t>(out.size() - k) - static_cast<std::int64_t>(args->size() - i - 1);
    if (count < 0) count = std::max<std::int64_t>(rest, 0);
    for (std::int64_t j = 0; j < count && k < out.size(); ++j, ++k) {
      if (arg.type != tensorflow::DT_INVALID) out[k] = arg.type;
      else if (!arg.type_attr.empty()) out[k] = typeOf(arg.type_attr);
      else if (list) out[k] = baseDtype(static_cast<DataType>(list->list().type(static_cast<int>(j))));
    }
  }
  return out;
}

}  // namespace gds::model
