#include "model/tflite/op_version.h"

#include <optional>
#include <string>

#include "model/attr.h"
#include "model/tflite/builtin_ops.h"

namespace gds::model::tflite {
namespace {

using tensorflow::DataType;
constexpr DataType kFloat = tensorflow::DT_FLOAT;
constexpr DataType kInt8 = tensorflow::DT_INT8;
constexpr DataType kUInt8 = tensorflow::DT_UINT8;
constexpr DataType kInt16 = tensorflow::DT_INT16;
constexpr DataType kInt32 = tensorflow::DT_INT32;
constexpr DataType kInt64 = tensorflow::DT_INT64;
constexpr DataType kBool = tensorflow::DT_BOOL;
constexpr DataType kString = tensorflow::DT_STRING;
constexpr DataType kHalf = tensorflow::DT_HALF;
constexpr DataType kDouble = tensorflow::DT_DOUBLE;
constexpr DataType kUInt32 = tensorflow::DT_UINT32;
constexpr DataType kUInt16 = tensorflow::DT_UINT16;
constexpr DataType kBFloat16 = tensorflow::DT_BFLOAT16;

struct Sig {
  const tensorflow::NodeDef& node;
  const std::vector<VersionTensor>& in;
  const std::vector<VersionTensor>& out;
  DataType inType(std::size_t i) const { return i < in.size() ? in[i].type : tensorflow::DT_INVALID; }
  DataType outType(std::size_t i) const { return i < out.size() ? out[i].type : tensorflow::DT_INVALID; }
  std::size_t inRank(std::size_t i) const { return i < in.size() ? in[i].shape.size() : 0; }
  std::int64_t i(const char* name) const { return attrInt(node, name, 0); }
  bool b(const char* name) const { return attrBool(node, name, false); }
  std::string s(const char* name) const { return attrString(node, name); }
  // TensorFlow Lite's NeedBroadcastForBinaryInputs + GetInputMaxDims > 4.
  bool broadcastOver4() const {
    if (in.size() < 2 || in[0].shape == in[1].shape) return false;
    std::size_t most = 0;
    for (const auto& t : in) most = std::max(most, t.shape.size());
    return most > 4;
  }
  bool perChannelInput(std::size_t i) const { return i < in.size() && in[i].quantization.scale.size() > 1; }
  float scale(const std::vector<VersionTensor>& v, std::size_t i) const {
    return i < v.size() && !v[i].quantization.scale.empty() ? v[i].quantization.scale[0] : 0.0f;
  }
};

int int8Is2(const Sig& s) { return s.inType(0) == kInt8 ? 2 : 1; }

// Versions by op family, in TensorFlow Lite's GetBuiltinOperatorVersion
// order within each; nothing when `name` is not of the family.
// Convolutions, fully connected, pooling, resizing, softmax and reductions.
std::optional<int> layersVersion(const std::string& name, const Sig& s) {
  const auto& inputs = s.in;
  if (name == "CONV_2D") {
    // Grouped: the filter's input depth differs from the input's channels.
    if (s.inRank(0) == 4 && s.inRank(1) == 4 && inputs[0].shape[3] != inputs[1].shape[3]) return 6;
    if (s.inType(0) == kInt8 && s.inType(1) == kInt8 && s.outType(0) == kInt8) return 3;
    if (s.inType(0) == kFloat && s.inType(1) == kInt8 && s.outType(0) == kFloat) return s.perChannelInput(1) ? 5 : 2;
    return 1;
  }
  if (name == "DEPTHWISE_CONV_2D") {
    if (s.inType(0) == kFloat && s.inType(1) == kInt8 && s.outType(0) == kFloat) return s.perChannelInput(1) ? 6 : 4;
    if (s.inType(0) == kInt8 && s.inType(1) == kInt8 && s.outType(0) == kInt8) return 3;
    if (s.i("dilation_w_factor") != 1 || s.i("dilation_h_factor") != 1) return 2;
    return 1;
  }
  if (name == "FULLY_CONNECTED") {
    if (s.inType(0) == kFloat && s.inType(1) == kInt8 && s.outType(0) == kFloat && s.perChannelInput(1)) return 12;
    if (inputs.size() == 2) return 6;
    if (s.b("keep_num_dims")) return 5;
    if (s.inType(0) == kInt8 && s.inType(1) == kInt8 && s.outType(0) == kInt8) return 4;
    if (s.inType(0) == kFloat && s.inType(1) == kInt8 && s.outType(0) == kFloat)
      return s.b("asymmetric_quantize_inputs") ? 9 : 3;
    if (s.s("weights_format") == "SHUFFLED4x16INT8") return 2;
    return 1;
  }
  if (name == "MAX_POOL_2D" || name == "AVERAGE_POOL_2D") {
    if (s.inType(0) == kInt16 && s.outType(0) == kInt16) return 3;
    return int8Is2(s);
  }
  if (name == "TRANSPOSE_CONV") {
    if (s.s("fused_activation_function") != "" && s.s("fused_activation_function") != "NONE") return 4;
    if (inputs.size() == 4 && s.inType(3) != tensorflow::DT_INVALID) return 3;
    return s.inType(1) == kInt8 ? 2 : 1;
  }
  if (name == "L2_NORMALIZATION") return s.outType(0) == kInt8 ? 2 : 1;
  if (name == "RESIZE_BILINEAR") {
    if (s.inType(0) == kInt16) return 4;
    if (s.b("half_pixel_centers")) return 3;
    return int8Is2(s);
  }
  if (name == "RESIZE_NEAREST_NEIGHBOR") {
    if (s.inType(0) == kInt16) return 4;
    if (s.b("half_pixel_centers") || s.b("align_corners")) return 3;
    return int8Is2(s);
  }
  if (name == "BATCH_MATMUL") {
    if (s.inType(0) == kInt16) return 3;
    if (s.inType(0) == kInt8) return 2;
    if (s.inType(0) == kFloat && s.inType(1) == kInt8 && s.outType(0) == kFloat && s.b("asymmetric_quantize_inputs"))
      return 4;
    return 1;
  }
  if (name == "SOFTMAX" || name == "MEAN" || name == "MIRROR_PAD" || name == "REDUCE_MAX" || name == "REDUCE_MIN" ||
      name == "RELU6" || name == "RSQRT") {
    if (s.inType(0) == kInt16) return 3;
    return int8Is2(s);
  }
  return std::nullopt;
}

// Gathers, slices, reshapes, padding, concatenation, arg max/min.
std::optional<int> arraysVersion(const std::string& name, const Sig& s) {
  if (name == "GATHER") {
    if (s.inType(1) == kInt16) return 6;
    if (s.i("batch_dims") != 0) return 5;
    if (s.inType(0) == kInt16) return 4;
    if (s.inType(0) == kBool) return 3;
    return int8Is2(s);
  }
  if (name == "TRANSPOSE") {
    if (s.inRank(0) > 5) return 6;
    if (s.inType(0) == kInt16) return 5;
    if (s.inRank(0) > 4) return 4;
    if (s.inType(0) == kBool) return 3;
    return int8Is2(s);
  }
  if (name == "SPLIT") {
    if (s.inType(1) == kInt16) return 4;
    if (s.inType(1) == kInt32) return 3;
    return s.inType(1) == kInt8 ? 2 : 1;
  }
  if (name == "SLICE") {
    if (s.inType(0) == kUInt32) return 6;
    if (s.inRank(0) > 4) return 5;
    if (s.inType(0) == kInt16) return 4;
    if (s.inType(0) == kString) return 3;
    return int8Is2(s);
  }
  if (name == "UNPACK") {
    if (s.inType(0) == kInt8 || s.inType(0) == kUInt8) return 2;
    if (s.inType(0) == kBool) return 3;
    if (s.inType(0) == kInt16 && s.outType(0) == kInt16) return 4;
    return 1;
  }
  if (name == "STRIDED_SLICE") {
    if (s.b("offset")) return 8;
    if (s.inType(0) == kUInt32) return 7;
    if (s.i("ellipsis_mask") != 0 || s.i("new_axis_mask") != 0) return 6;
    if (s.inType(0) == kString) return 5;
    if (s.inRank(0) > 4) return 4;
    if (s.inType(0) == kBool) return 3;
    return int8Is2(s);
  }
  if (name == "PACK") {
    if (s.inType(0) == kInt8) return 2;
    if (s.inType(0) == kInt16 && s.outType(0) == kInt16) return 3;
    return s.inType(0) == kUInt32 ? 4 : 1;
  }
  if (name == "SQUEEZE") return s.inType(0) == kString ? 2 : 1;
  if (name == "SPACE_TO_BATCH_ND" || name == "BATCH_TO_SPACE_ND") {
    if (s.inType(0) == kInt16) return 4;
    if (s.inRank(0) != 4) return 3;
    return int8Is2(s);
  }
  if (name == "PAD" || name == "PADV2") {
    if (s.inRank(0) > 4) return 4;
    if (s.inType(0) == kInt16) return 3;
    return int8Is2(s);
  }
  if (name == "CONCATENATION") {
    if (s.inType(0) == kUInt32) return 4;
    if (s.inType(0) == kInt16) return 3;
    return int8Is2(s);
  }
  if (name == "ARG_MAX" || name == "ARG_MIN") {
    if (s.inType(0) == kBool) return 3;
    return int8Is2(s);
  }
  if (name == "SPACE_TO_DEPTH" || name == "SPLIT_V" || name == "SUM" || name == "LOG_SOFTMAX" ||
      name == "SQUARED_DIFFERENCE" || name == "DEPTH_TO_SPACE")
    return int8Is2(s);
  return std::nullopt;
}

// Element-wise arithmetic and activations.
std::optional<int> elementwiseVersion(const std::string& name, const Sig& s) {
  const auto& inputs = s.in;
  const auto& outputs = s.out;
  if (name == "MUL") {
    if ((s.inType(0) == kInt16 && inputs[0].quantization.scale.empty()) || s.inType(0) == kUInt32) return 7;
    if (s.inType(0) == tensorflow::DT_COMPLEX64) return 6;
    if (s.inType(0) == kInt64) return 5;
    if (s.inType(0) == kInt16) return 4;
    const float a = s.scale(inputs, 0), b = s.scale(inputs, 1), c = s.scale(outputs, 0);
    if (a != 0 && b != 0 && c != 0 && a * b / c >= 1.0f) return 3;
    return int8Is2(s);
  }
  if (name == "ABS") {
    if (s.inType(0) == kInt32) return 5;
    if (s.inType(0) == kInt16) return inputs[0].quantization.scale.empty() ? 4 : 3;
    return s.inType(0) == kInt8 || s.inType(0) == kUInt8 ? 2 : 1;
  }
  if (name == "RELU") {
    if (s.inType(0) == kInt16) return 3;
    return s.inType(0) == kInt8 || s.inType(0) == kUInt8 ? 2 : 1;
  }
  if (name == "MAXIMUM" || name == "MINIMUM") {
    if (s.inType(0) == kInt16 && s.outType(0) == kInt16) return 4;
    if (s.broadcastOver4()) return 3;
    return int8Is2(s);
  }
  if (name == "ADD") {
    if (s.inType(0) == kInt16 && inputs[0].quantization.scale.empty()) return 5;
    if (s.inType(0) == kInt64) return 4;
    if (s.inType(0) == kInt16 && s.outType(0) == kInt16 && !s.b("pot_scale_int16")) return 3;
    return int8Is2(s);
  }
  if (name == "SUB") {
    if (s.inType(0) == kInt16 && s.outType(0) == kInt16 && !s.b("pot_scale_int16")) return 5;
    if (s.inType(0) == kInt64) return 4;
    if (s.broadcastOver4()) return 3;
    return int8Is2(s);
  }
  if (name == "DIV") return s.broadcastOver4() ? 2 : 1;
  if (name == "TANH" || name == "LOGISTIC") {
    if (s.inType(0) == kInt16 && s.outType(0) == kInt16) return 3;
    return int8Is2(s);
  }
  if (name == "LEAKY_RELU") return s.inType(0) == kInt16 ? 2 : 1;
  if (name == "EXP" || name == "LOG" || name == "REDUCE_PROD")
    return s.inType(0) == kInt8 || s.inType(0) == kInt16 ? 2 : 1;
  if (name == "GELU") return s.inType(0) == kInt8 || s.inType(0) == kUInt8 ? 2 : 1;
  return std::nullopt;
}

// Quantize, dequantize and cast.
std::optional<int> typesVersion(const std::string& name, const Sig& s) {
  const auto& outputs = s.out;
  if (name == "DEQUANTIZE") {
    if (s.inType(0) == kInt16 || s.inType(0) == kHalf) return 3;
    if (s.inType(0) == kInt8) return s.perChannelInput(0) ? 5 : 2;
    return 1;
  }
  if (name == "QUANTIZE") {
    if (outputs.size() > 0 && outputs[0].quantization.scale.size() > 1) return 3;
    return s.outType(0) == kInt16 ? 2 : 1;
  }
  if (name == "CAST") {
    if (s.inType(0) == kBFloat16 || s.outType(0) == kBFloat16) return 7;
    if (s.inType(0) == kDouble || s.outType(0) == kDouble || s.inType(0) == kHalf || s.outType(0) == kHalf) return 5;
    if (s.inType(0) == kUInt16 || s.outType(0) == kUInt16) return 4;
    if (s.inType(0) == kInt8 || s.outType(0) == kInt8) return 3;
    if (s.inType(0) == kUInt32 || s.outType(0) == kUInt32) return 2;
    return 1;
  }
  return std::nullopt;
}
}  // namespace

int builtinVersion(int code, const tensorflow::NodeDef& node, const std::vector<VersionTensor>& inputs,
                   const std::vector<VersionTensor>& outputs) {
  const Sig s{node, inputs, outputs};
  const std::string name = builtinCodeName(code);
  for (auto family : {layersVersion, arraysVersion, elementwiseVersion, typesVersion})
    if (const std::optional<int> v = family(name, s)) return *v;
  return 1;
}

}  // namespace gds::model::tflite
