// What GraphDef Studio knows about op types, loaded from the data file
// model/op_metadata.pbtxt embedded in the binary.
#pragma once

#include <string>
#include <vector>

#include "model/proto.h"
#include "op_metadata.pb.h"

namespace gds::model {

enum class OpCategory {
  Layer, Activation, Pool, Normalization, Tensor, Quantization, Control, Constant, Data, Training, Math, Other
};
const char* categoryName(OpCategory category);

class OpRegistry {
 public:
  static const OpRegistry& instance();
  // nullptr for op types the data file does not describe.
  const gdstudio::OpMetadata* find(const std::string& op) const;
  OpCategory category(const std::string& op) const;  // Other when unknown
  // Default value of an attr, or nullptr.
  const tensorflow::AttrValue* attrDefault(const std::string& op, const std::string& attr) const;
  const gdstudio::OpMetadataList& all() const { return list_; }

 private:
  OpRegistry();
  gdstudio::OpMetadataList list_;
  std::vector<std::pair<std::string, int>> index_;  // sorted by op name
};

}  // namespace gds::model
