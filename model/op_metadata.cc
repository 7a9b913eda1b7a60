#include "model/op_metadata.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <google/protobuf/text_format.h>

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

OpRegistry::OpRegistry() {
  std::string text(kOpMetadataText, kOpMetadataSize);
  if (!google::protobuf::TextFormat::ParseFromString(text, &list_)) {
    // The file is part of the build and checked by a test; a broken one is a
    // programming error, so fail loudly rather than colour every node grey.
    std::fprintf(stderr, "internal error: model/op_metadata.pbtxt does not parse\n");
    std::abort();
  }
  for (int i = 0; i < list_.op_size(); ++i) index_.emplace_back(list_.op(i).name(), i);
  std::sort(index_.begin(), index_.end());
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry;
  return registry;
}

const gdstudio::OpMetadata* OpRegistry::find(const std::string& op) const {
  auto it = std::lower_bound(index_.begin(), index_.end(), std::make_pair(op, -1));
  if (it == index_.end() || it->first != op) return nullptr;
  return &list_.op(it->second);
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

}  // namespace gds::model
