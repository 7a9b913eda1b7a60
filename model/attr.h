// Typed reads of a NodeDef's attrs. The plain getters return the fallback
// when the attr is absent or holds another kind of value (TensorFlow's
// GetNodeAttr with a default); the require* getters report either case as
// an error naming the node and the attr.
//
//   int64_t axis = attrInt(node, "axis", 0);
//   auto dtype = requireType(node, "DstT");
//   if (!dtype.ok()) return dtype.status();
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::model {

// The attr, or nullptr when the node has none of that name.
const tensorflow::AttrValue* findAttr(const tensorflow::NodeDef& node, const std::string& name);

std::int64_t attrInt(const tensorflow::NodeDef& node, const std::string& name, std::int64_t fallback);
float attrFloat(const tensorflow::NodeDef& node, const std::string& name, float fallback);
bool attrBool(const tensorflow::NodeDef& node, const std::string& name, bool fallback);
std::string attrString(const tensorflow::NodeDef& node, const std::string& name, const std::string& fallback = {});
tensorflow::DataType attrType(const tensorflow::NodeDef& node, const std::string& name,
                              tensorflow::DataType fallback = tensorflow::DT_INVALID);
// list(int) values; empty when absent or not a list.
std::vector<std::int64_t> attrInts(const tensorflow::NodeDef& node, const std::string& name);
// A shape attr; nullptr when absent or not a shape.
const tensorflow::TensorShapeProto* attrShape(const tensorflow::NodeDef& node, const std::string& name);

// Errors read "node 'conv1' (Conv2D): attr 'padding' is missing" or
// "... attr 'padding' has type int, expected string".
Result<std::int64_t> requireInt(const tensorflow::NodeDef& node, const std::string& name);
Result<float> requireFloat(const tensorflow::NodeDef& node, const std::string& name);
Result<bool> requireBool(const tensorflow::NodeDef& node, const std::string& name);
Result<std::string> requireString(const tensorflow::NodeDef& node, const std::string& name);
Result<tensorflow::DataType> requireType(const tensorflow::NodeDef& node, const std::string& name);
Result<std::vector<std::int64_t>> requireInts(const tensorflow::NodeDef& node, const std::string& name);

}  // namespace gds::model
