// TensorFlow Lite's full-integer (int8, or 16x8: see QuantizeOptions)
// quantization of a float TFLite dialect graph, with the rules of
// TensorFlow Lite's quantizer
// (tensorflow/lite/tools/optimize/quantize_model.cc, operator_property.cc,
// quantization_utils.cc):
// - activations int8 asymmetric: scale = (max - min) / 255 over the
//   calibrated range widened to contain 0, zero point round(-128 - min /
//   scale) clamped to [-128, 127]; a fused RELU/RELU6 clamps the range;
// - CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED weights int8 symmetric in
//   [-127, 127], zero point 0, one scale max|w| / 127 per output channel
//   (dimension 0, for depthwise 3; FULLY_CONNECTED one scale per tensor unless
//   asked for per channel);
//   biases int32 with scale = input scale x weight scale, quantized dimension 0,
//   the weight scale widened when a bias would not fit (AdjustWeightsForBiasScale);
// - fixed output parameters: SOFTMAX and LOGISTIC 1/256 and -128, TANH and
//   L2_NORMALIZATION 1/128 and 0, LOG_SOFTMAX 16/256 and 127;
// - MAX_POOL_2D, AVERAGE_POOL_2D, RESHAPE, SQUEEZE, PAD, RESIZE_*, TRANSPOSE,
//   STRIDED_SLICE, REDUCE_MAX/MIN take their input's parameters; the inputs of
//   CONCATENATION, PACK, MAXIMUM and MINIMUM are requantized (QUANTIZE) to
//   the output's parameters when they differ;
// - constant operands of ADD/SUB/MUL are quantized as activations;
// - float model inputs and outputs get QUANTIZE / DEQUANTIZE at the edges
//   (the DEQUANTIZE takes the output's name, the int8 tensor "<name>_int8"),
//   or the model takes and gives int8;
// - operators kept float (TensorFlow's QuantizationDebugOptions
//   denylisted_nodes / denylisted_ops: selective quantization) run on float
//   tensors: a DEQUANTIZE before each int8 input, a QUANTIZE (to the
//   tensor's calibrated range) where an int8 operator reads their output.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/tensor.h"
#include "model/status.h"
#include "transforms/tflite/convert_options.h"

namespace gds::transforms::tflite {

struct QuantizeOptions {
  // DT_INT8, or DT_INT16 for 16x8 (int16 activations with zero point 0,
  // int64 biases; operators without an int16 kernel stay float).
  tensorflow::DataType activation_type = tensorflow::DT_INT8;
  // DT_FLOAT, or the activation type.
  tensorflow::DataType input_type = tensorflow::DT_FLOAT;
  tensorflow::DataType output_type = tensorflow::DT_FLOAT;
  bool per_channel_fully_connected = false;
  // Dialect nodes (by name) that stay float, and operators (by TFLite builtin
  // name, "CONV_2D", or dialect op, "tfl.conv_2d") whose every node does.
  std::set<std::string> float_nodes, float_ops;
  // int8: an op without an int8 form stays float (else it is an error).
  bool float_fallback = true;
};

// `ranges` holds the calibrated range of every float activation tensor of
// `graph` by dialect tensor name ("node:0"). Errors name the node whose op
// has no int8 form or whose range is missing.
Result<tensorflow::GraphDef> quantizeToInt8(const tensorflow::GraphDef& graph,
                                            const std::map<std::string, TensorRange>& ranges,
                                            const QuantizeOptions& options);

// Whether 16x8 quantizes the dialect op ("tfl.conv_2d"): those with a
// TensorFlow Lite int16 kernel that gdstudio runs (convolutions, fully
// connected, pools, reshapes, concatenation, softmax, logistic, tanh, the
// element-wise and ReLU family, pads, bilinear resize, mean, transpose and
// slices). The others stay float
// between DEQUANTIZE and QUANTIZE, as TensorFlow's converter leaves an op
// without an int16 kernel when TFLITE_BUILTINS is among the supported ops.
bool hasInt16Form(const std::string& op);
// Whether int8 quantizes the dialect op: the ops of TensorFlow Lite's
// full-integer scheme gdstudio exports (operator_property.cc's).
bool hasInt8Form(const std::string& op);

// The largest |w| of each output channel of a CONV_2D / FULLY_CONNECTED
// weight (dimension 0) or DEPTHWISE_CONV_2D filter (the last dimension), or
// of the whole tensor when !per_channel.
std::vector<float> weightHalfRanges(const model::HostTensor& w, bool per_channel, bool depthwise);
// Symmetric int8 weights in [-127, 127]: round(w * 127 / half) per channel
// (SymmetricPerChannelQuantizeValues); scales receives half / 127 (1 for an
// all-zero channel).
model::HostTensor symmetricWeights(const model::HostTensor& w, const std::vector<float>& halves, bool per_channel,
                                   bool depthwise, std::vector<float>* scales);

// TensorFlow Lite's GetAsymmetricQuantizationParams for int8.
void asymmetricParams(float min, float max, float* scale, std::int64_t* zero_point);
// GetSymmetricQuantizationParams for int16 activations (16x8): the range
// widened to contain 0, scale max(|min|, |max|) / 32767, zero point 0.
void symmetricInt16Params(float min, float max, float* scale);

}  // namespace gds::transforms::tflite
