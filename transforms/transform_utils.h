// Small helpers shared by the transforms, mirroring the utilities of
// TensorFlow's tools/graph_transforms/transform_utils.h (input-name parsing,
// RenameNodeInputs, SortByExecutionOrder, tensor attributes).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "model/graph.h"
#include "model/pattern.h"
#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::transforms {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// "^a:1" -> prefix "^", node "a", suffix ":1" (TensorFlow's NodeNamePartsFromInput).
struct InputParts {
  std::string prefix;
  std::string node;
  std::string suffix;
};
InputParts inputParts(const std::string& input);
using model::nodeNameFromInput;
// "a" -> "a:0", "^a" -> "^a:0" (TensorFlow's CanonicalInputName).
std::string canonicalInputName(const std::string& input);

// Rewrites inputs: keys are input names ("a", "a:1", "^a") or "a:*" (any
// output of a, keeping the port); chains are followed, a cycle is an error.
Status renameNodeInputs(const GraphDef& in, const std::map<std::string, std::string>& renames,
                        const std::unordered_set<std::string>& nodes_to_ignore, GraphDef* out);

// Nodes in execution order: Kahn's algorithm with a LIFO ready list, Merge
// nodes waiting for one data input (TensorFlow's SortByExecutionOrder).
// Errors: an input naming a missing node, "<N> nodes in a cycle".
using model::executionOrder;

// The pattern matcher (model/pattern.h), TensorFlow's OpTypePattern and
// ReplaceMatchingOpTypes.
using model::copyOriginalMatch;
using model::GraphMatcher;
using model::matchedNodes;
using model::NodeGenerator;
using model::NodeMatch;
using model::opMatches;
using model::OpTypePattern;
using model::replaceMatchingOpTypes;
using model::ReplaceOptions;

// The first input that names a missing node, as an error; OK otherwise.
Status checkInputsExist(const GraphDef& graph);

// Const-node tensor access.
Result<model::HostTensor> tensorAttr(const NodeDef& node, const std::string& key = "value");
// A float tensor's values (error when the dtype is not float).
Result<model::HostTensor> floatTensorAttr(const NodeDef& node);
void setTensorAttr(NodeDef* node, const std::string& key, const model::HostTensor& tensor);
NodeDef makeConst(const std::string& name, const model::HostTensor& tensor);
// `base`, or base_1, base_2, ... : the first name not in `names`, which
// then holds it.
std::string claimName(const std::string& base, std::unordered_set<std::string>* names);
model::HostTensor floatTensor(const model::Shape& shape, const std::vector<float>& values);

void setTypeAttr(NodeDef* node, const std::string& key, tensorflow::DataType type);
void setStringAttr(NodeDef* node, const std::string& key, const std::string& value);
// Copies source.attr[src_key] to dest.attr[dest_key] when present.
void copyAttr(const NodeDef& source, const std::string& src_key, const std::string& dest_key, NodeDef* dest);

// Node names of a --inputs/--outputs list ("a:0" -> "a").
std::unordered_set<std::string> nodeNames(const std::vector<std::string>& tensors);

}  // namespace gds::transforms
