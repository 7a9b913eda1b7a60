// TensorFlow Lite's dynamic-range quantization (TensorFlow's
// optimizations=[tf.lite.Optimize.DEFAULT] without a representative
// dataset; TF 1.x --post_training_quantize): the weights of CONV_2D,
// DEPTHWISE_CONV_2D and FULLY_CONNECTED become int8, symmetric in
// [-127, 127] with zero point 0, and the activations stay float; TensorFlow
// Lite runs these operators with its hybrid kernels, which quantize their
// input as they run. As TensorFlow's quantizer (quantize_weights.cc and the
// MLIR quantizer's defaults):
// - weights with fewer than 1024 elements stay float (the saving would not
//   pay for the hybrid kernel's input quantization);
// - convolution filters are quantized per output channel (dimension 0,
//   depthwise the last dimension), fully connected weights per tensor;
// - FULLY_CONNECTED sets asymmetric_quantize_inputs, so its input rows are
//   quantized with a zero point (the convolutions always are, per channel);
// - biases stay float.
// A weight another operator also reads keeps its float tensor for that
// operator; the int8 copy is named "<name>_int8".
#pragma once

#include "graph.pb.h"
#include "model/status.h"

namespace gds::transforms::tflite {

// The smallest weight TensorFlow quantizes (its min_elements default).
inline constexpr long long kDynamicRangeMinElements = 1024;

// `graph`: a float TFLite dialect graph. Weights already quantized, not
// float32 or not constant stay as they are.
Result<tensorflow::GraphDef> quantizeWeightsDynamicRange(const tensorflow::GraphDef& graph);

}  // namespace gds::transforms::tflite
