// What GraphDef Studio knows about op types, loaded from the data file
// model/op_metadata.pbtxt embedded in the binary: categories, argument
// names, attr defaults and the dtypes of outputs.
#pragma once

#include <string>
#include <vector>

#include "graph.pb.h"
#include "op_metadata.pb.h"

namespace gds::model {

enum class OpCategory {
  Layer, Activation, Pool, Normalization, Tensor, Quantization, Control, Constant, Data, Training, Math, Other
};
const char* categoryName(OpCategory category);

// One output argument, parsed from the data file's spelling of it, which is
// TensorFlow's REGISTER_OP(...).Output(...) one: "z: bool" (a fixed dtype),
// "y: T" (the dtype in a type attr), "output: N * out_type" (number_attr:
// N tensors of one dtype), "output: T" with T a list(type) attr
// (type_list_attr). A bare "name" says nothing of its dtype; "name*" is a
// list of unknown length.
struct OpOutputArg {
  std::string name;
  tensorflow::DataType type = tensorflow::DT_INVALID;
  std::string type_attr;
  std::string number_attr;
  std::string type_list_attr;
  bool is_list = false;  // number_attr, type_list_attr or "name*"
  bool typed() const {
    return type != tensorflow::DT_INVALID || !type_attr.empty() || !number_attr.empty() || !type_list_attr.empty();
  }
};

class OpRegistry {
 public:
  static const OpRegistry& instance();
  // nullptr for op types the data file does not describe.
  const gdstudio::OpMetadata* find(const std::string& op) const;
  OpCategory category(const std::string& op) const;  // Other when unknown
  // Default value of an attr, or nullptr.
  const tensorflow::AttrValue* attrDefault(const std::string& op, const std::string& attr) const;
  // The parsed output args, or nullptr for op types the file does not describe.
  const std::vector<OpOutputArg>* outputArgs(const std::string& op) const;
  // How many data inputs the op's input args allow, TensorFlow's NodeDef
  // check against the OpDef: min = the fixed args, max = min, or -1 when an
  // arg is variadic ("values*"). False for ops the file does not describe or
  // lists no inputs for.
  bool inputArity(const std::string& op, int* min, int* max) const;
  // Empty when `data` data inputs are as many as inputArity allows (or the
  // op's inputs are not described); else what is wrong, naming the args:
  // "expects 2 inputs (input, reduction_indices), has 1".
  std::string inputCountError(const std::string& op, int data) const;
  // True when a node of this op must be neither folded into a constant nor
  // merged with an identical node: the op is stateful or carries
  // never_fold_or_merge (random numbers, variables and their updates,
  // queues, tables, I/O, graph inputs, control flow). False for op types
  // the file does not describe; callers that must not touch those check
  // find() or their kernels.
  bool neverFoldOrMerge(const std::string& op) const;
  const gdstudio::OpMetadataList& all() const { return list_; }

 private:
  OpRegistry();
  int indexOf(const std::string& op) const;  // -1 when unknown
  gdstudio::OpMetadataList list_;
  std::vector<std::pair<std::string, int>> index_;  // sorted by op name
  std::vector<std::vector<OpOutputArg>> outputs_;   // parallel to list_
};

// The dtypes of a node's first num_outputs outputs by its op's output args
// and the node's attrs (an attr the node lacks takes the op's default). Ops
// without typed outputs, and outputs past the args: the node's "T", else
// "dtype", else its first input's dtype (input_types may be empty), with
// output 0 taking "out_type" when the node has it. Ref types are reduced to
// their base type.
std::vector<tensorflow::DataType> outputDtypes(const tensorflow::NodeDef& node, int num_outputs,
                                               const std::vector<tensorflow::DataType>& input_types);

}  // namespace gds::model
