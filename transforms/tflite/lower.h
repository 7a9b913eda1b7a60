// Lowering a prepared TensorFlow graph (transforms/tflite/prepare.h) to float
// TFLite dialect nodes, one builtin per op or fused chain, following the
// legalizations of TensorFlow's converter (tensorflow/compiler/mlir/lite/
// transforms/legalize_tf.cc, optimize.cc):
//   Conv2D [+ BiasAdd/Add of a constant] [+ Relu/Relu6]  -> CONV_2D, filter HWIO -> OHWI
//   DepthwiseConv2dNative [+ bias] [+ activation]     -> DEPTHWISE_CONV_2D, filter [1,H,W,C*M]
//   MatMul [+ bias] [+ activation]                     -> FULLY_CONNECTED, weights [out,in]
//   Add/AddV2/BiasAdd/Sub/Mul/RealDiv [+ activation]   -> ADD/SUB/MUL/DIV (fused activation)
//   AvgPool, MaxPool, Mean, Sum, Max, Min, Pad, PadV2, MirrorPad, Reshape, ExpandDims (RESHAPE),
//   Squeeze, ConcatV2, Softmax, Sigmoid (LOGISTIC), Tanh, Relu, Relu6, LeakyRelu, ResizeBilinear,
//   ResizeNearestNeighbor, Transpose, StridedSlice, Slice, Maximum, Minimum, Rsqrt, Sqrt, Exp, Log,
//   Neg, Abs, Square, SquaredDifference, Pack, Cast, ArgMax
// Convolutions and fully-connected layers always get a bias operand (zeros
// when the graph has none), as TensorFlow's converter gives them. An op with
// no TensorFlow Lite builtin is an error naming the node and op; the audio
// front end (DecodeWav, AudioSpectrogram, Mfcc) says where to start the model.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"
#include "transforms/tflite/prepare.h"

namespace gds::transforms::tflite {

struct LoweredGraph {
  tensorflow::GraphDef graph;  // float TFLite dialect
  // Dialect tensor name ("node:k") -> the prepared graph's tensor holding the
  // same values (for calibration).
  std::map<std::string, std::string> source;
  // The dialect tensor of each of the prepared graph's outputs, in order.
  std::vector<std::string> outputs;
  std::vector<std::string> notes;
};

Result<LoweredGraph> lowerToTflite(const PreparedGraph& prepared);

}  // namespace gds::transforms::tflite
