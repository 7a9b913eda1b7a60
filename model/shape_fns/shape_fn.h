// Shape functions by op name, as TensorFlow registers them with
// REGISTER_OP(...).SetShapeFn in tensorflow/core/ops/*.cc. Each family of
// ops has its own file here with a register*ShapeFns function; the table
// is built once from shapeFunctions() (explicit calls rather than static
// registrars, which a static library's linker may drop).
//
// A shape function sees one node through a ShapeContext: its inputs'
// TensorInfos and known integer values, and the outputs it sets.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/attr.h"
#include "model/graph.h"
#include "model/tensor_info.h"

namespace gds::model::shape_fns {

using tensorflow::DataType;
using tensorflow::NodeDef;

class ShapeContext {
 public:
  ShapeContext(const Graph& graph, int node, const ShapeOverrides& overrides, InferredShapes* out);

  const Graph& graph() const { return graph_; }
  const NodeDef& def() const { return def_; }
  const std::string& op() const { return def_.op(); }
  const ShapeOverrides& overrides() const { return overrides_; }
  // The node's "T" attr, else its "dtype" attr, else DT_INVALID.
  DataType T() const { return T_; }
  // T when known, else the dtype of data input k.
  DataType passDtype(int k) const { return T_ != tensorflow::DT_INVALID ? T_ : in(k).dtype; }

  // Data input k (control inputs skipped) of this node or of node `of`:
  // {producer node, port}, or {-1, 0}.
  std::pair<int, int> input(int k) const { return inputOf(node_, k); }
  std::pair<int, int> inputOf(int of, int k) const;
  int dataInputs() const;
  const TensorInfo& in(int k) const;
  // The known integer values of data input k, or nullptr.
  const std::vector<std::int64_t>* value(int k) const;
  const std::vector<std::int64_t>* valueAt(int node, int port) const;

  int numOutputs() const { return static_cast<int>(out_->outputs[node_].size()); }
  void set(int port, TensorInfo t);
  void setValue(int port, std::vector<std::int64_t> v);

 private:
  const Graph& graph_;
  int node_;
  const NodeDef& def_;
  const ShapeOverrides& overrides_;
  InferredShapes* out_;
  DataType T_;
};

using ShapeFn = void (*)(ShapeContext&);

class ShapeFnRegistry {
 public:
  // Registering an op twice is a programming error and aborts.
  void add(std::initializer_list<const char*> ops, ShapeFn fn);
  ShapeFn find(const std::string& op) const;  // nullptr when not registered
  std::vector<std::string> ops() const;

 private:
  std::unordered_map<std::string, ShapeFn> fns_;
};

// The table of every family below, built on first use.
const ShapeFnRegistry& shapeFunctions();

void registerSourceShapeFns(ShapeFnRegistry& r);       // sources.cc: Placeholder, Const, variables
void registerElementwiseShapeFns(ShapeFnRegistry& r);  // elementwise.cc: unary, binary, AddN, Select
void registerNnShapeFns(ShapeFnRegistry& r);           // nn.cc: conv, pool, matmul, batch norm
void registerArrayShapeFns(ShapeFnRegistry& r);        // array.cc: reshape, concat, slice, gather, ...
void registerReductionShapeFns(ShapeFnRegistry& r);    // array.cc: Sum, Mean, ArgMax, ...
void registerControlShapeFns(ShapeFnRegistry& r);      // control.cc: Switch, Merge, IdentityN, NoOp
void registerAudioShapeFns(ShapeFnRegistry& r);        // audio.cc: DecodeWav, AudioSpectrogram, Mfcc

// What a node without a shape function gets: unknown shapes; output 0's
// dtype from "T", "dtype", "out_type" or "DstT" when present.
void unknownShapeFn(ShapeContext& c);

// Dimension arithmetic with -1 as unknown; overflow (only in corrupt
// graphs) also gives unknown.
std::int64_t dimAdd(std::int64_t a, std::int64_t b);
std::int64_t dimMul(std::int64_t a, std::int64_t b);
// Axis a of a rank-`rank` tensor (negative counts from the end), or -1.
std::int64_t normAxis(std::int64_t a, std::int64_t rank);
// Broadcast two shapes (numpy rules); nullopt when they are incompatible.
std::optional<TensorInfo> broadcast(const TensorInfo& a, const TensorInfo& b, DataType dtype);
// Output size of a window op along one dimension (TF's
// GetWindowedOutputSizeVerbose).
std::int64_t windowed(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dilation,
                      const std::string& padding, std::int64_t pad_before, std::int64_t pad_after);
bool isOneOf(const std::string& op, std::initializer_list<const char*> ops);
// Scalar float outputs 1 and 2: the range of a quantized op's output.
void setQuantizedRange(ShapeContext& c);

}  // namespace gds::model::shape_fns
