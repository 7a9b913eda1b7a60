// TensorFlow Lite's float16 post-training quantization (tflite_convert
// --quantize=float16; TensorFlow's target_spec.supported_types=[tf.float16],
// TF 1.x --post_training_quantize --quantize_to_float16): every float32
// constant an operator reads is stored as float16 and read through a
// DEQUANTIZE operator that widens it back to float32, so the file is about
// half the size and the arithmetic stays float32 (TensorFlow Lite's CPU
// kernels and XNNPACK dequantize the weights once, at load). Values beyond
// float16's range are clamped to +-65504 first, as TensorFlow's quantizer
// does (QuantizeTensorFloat16); the rest round to the nearest float16, ties
// to even.
//
// The DEQUANTIZE operators come first in the operator list and take the
// constants' names, so every operator reads the tensor it read before; the
// float16 constants are named "<name>_fp16".
#pragma once

#include "graph.pb.h"
#include "model/status.h"

namespace gds::transforms::tflite {

// `graph`: a float TFLite dialect graph (the converter's lowering, or a
// .tflite read back). Constants already quantized or not float32 stay.
Result<tensorflow::GraphDef> quantizeWeightsToFloat16(const tensorflow::GraphDef& graph);

}  // namespace gds::transforms::tflite
