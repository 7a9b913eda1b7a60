// The chains fuseQuantizedLayers (quantized_fusion.h) replaces, found by one
// finder each, one file each: fuse_quantized_gemm.cc (a QuantizedConv2D /
// QuantizedMatMul with its requantization, bias and activation stages),
// fuse_quantize_own_range.cc (quantize_nodes' input quantization with the
// same stages), fuse_quantized_add.cc (a residual sum of two 8-bit tensors)
// and fuse_quantized_pad_pool.cc (Dequantize -> Pad -> quantization -> max
// pool); the stages and the bookkeeping they share are in
// quantized_fusion.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/attr.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "model/tensor.h"

namespace gds::engine::quantized_fusion_impl {

using tensorflow::DataType;
using tensorflow::NodeDef;

// The fallback only when the attr is absent: one of another kind reads as its
// proto default (DT_INVALID, ""), which fails the match, where model::attrType
// and attrString would return the fallback.
inline DataType typeAttrOr(const NodeDef& n, const char* name, DataType fallback) {
  const tensorflow::AttrValue* a = model::findAttr(n, name);
  return a ? a->type() : fallback;
}

inline std::string stringAttrOr(const NodeDef& n, const char* name, const std::string& fallback) {
  const tensorflow::AttrValue* a = model::findAttr(n, name);
  return a ? a->s() : fallback;
}

class ChainFinder {
 public:
  // input_shapes: the plan's (shape inference uses them).
  ChainFinder(const model::Graph& g, const std::set<int>& fed, const std::set<int>& fetched,
              const model::ShapeOverrides& input_shapes)
      : g_(g),
        fed_(fed),
        fetched_(fetched),
        used_(static_cast<std::size_t>(g.size()), false),
        input_shapes_(input_shapes) {}

  struct Chain {
    int head = -1, tail = -1;
    std::vector<int> members;  // every node the fused node replaces (head and tail included)
    std::vector<std::string> stages;
    std::vector<std::string> extra_inputs;
    std::string dequantize_mode;
    // A residual sum (findAdd): the Add's op, its operands' Dequantize modes
    // and the QuantizeV2 whose attrs the fused node takes.
    std::string add_op;
    std::vector<std::string> add_modes;
    int quantize = -1;
    // Dequantize -> Pad -> quantization -> max pool (findPadPool): the pool
    // and the Pad's spatial paddings (top, bottom, left, right).
    int pool = -1;
    std::vector<std::int64_t> pads;
  };

  // quantize_nodes' input quantization: Reshape(x, [-1]) -> Min/Max over
  // axis 0 -> QuantizeV2(x, min, max) to quint8, then the same stages as
  // after a GEMM (a float op's output, e.g. a DepthwiseConv2dNative's, going
  // into QuantizedBiasAdd -> Requantize -> QuantizedRelu6).
  bool findQuantize(int q, Chain* chain);

  // The same quantization of a residual sum of two 8-bit tensors, as
  // quantize_nodes leaves a float Add/AddV2 (ResNet's shortcuts):
  //   x = Add(Dequantize(a, a_min, a_max), Dequantize(b, b_min, b_max))
  // with a and b of the same fully known shape, each Dequantize read by the
  // Add only, and x only by the quantization.
  bool findAdd(int q, Chain* chain);

  // Follows the stages after `cur` (an int32 value with its range when
  // int32, else quint8), appending them to c; returns the last node taken.
  int extend(Chain* c_ptr, int cur, bool int32);

  // QuantizeV2(x, Min(Reshape(x, [-1]), 0), Max(Reshape(x, [-1]), 0)) to
  // quint8 with no axis; range_nodes: the Reshape, Min and Max, read by
  // nothing else.
  bool ownRangeQuantize(int q, std::vector<int>* range_nodes);

  // Keras ResNets pad before their first max pool, which quantize_nodes
  // leaves in float around the 8-bit pool:
  //   Dequantize(a) -> Pad(spatial, zeros) -> own-range QuantizeV2 ->
  //   QuantizedMaxPool (VALID)
  // with every intermediate read by the next op only.
  bool findPadPool(int pool, Chain* chain);

  // The consumers of x besides the quantization q and its range nodes:
  // Consts quantize_nodes hangs on x by control edges for the Reshape's and
  // reductions' operands (they go with the chain); false for anything else.
  bool anchoredConsts(int x, int q, const std::vector<int>& range_nodes, std::vector<int>* anchored) const;

  bool find(int head, Chain* chain);

 private:
  // Takes chain c ending at `tail` when its extra inputs come from outside it.
  bool accept(Chain c, int tail, Chain* chain);

  std::vector<model::Graph::Input> dataInputs(int n) const;

  // The tensor is a Const or a QuantizeV2 of one (a bias vector quantized
  // at run time), so its shape is fixed and small.
  bool isConstantDerived(const std::string& input) const;

  // A Dequantize of quint8 to float, MIN_FIRST or MIN_COMBINED, no axis.
  bool isPlainDequantize(int n) const;

  // Node n is a Const holding the single int value v (shape [] or [1]).
  bool intConstIs(int n, std::int64_t v) const;

  // Node `reader` reads src:ports[i] as its data input inputs[i].
  bool readsTriple(int reader, int src, const std::vector<int>& ports, const std::vector<int>& inputs) const;

  // The one node consuming every output of n (data or control), or -1.
  int soleConsumer(int n) const;

  // cur (int32, range at ports 1 and 2) -> Requantize to quint8, with or
  // without its own RequantizationRange.
  bool extendRequantize(int cur, Chain* c);

  // Static shapes of the graph (computed on first use), with the plan's
  // input shapes.
  const model::InferredShapes& shapes();

  const model::Graph& g_;
  const std::set<int>& fed_;
  const std::set<int>& fetched_;
  std::vector<bool> used_;
  const model::ShapeOverrides& input_shapes_;
  std::unique_ptr<model::InferredShapes> shapes_;
};

}  // namespace gds::engine::quantized_fusion_impl
