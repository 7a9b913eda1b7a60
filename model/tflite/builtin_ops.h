// The TensorFlow Lite builtin operators gdstudio reads and writes: builtin
// code, the dialect's op type ("tfl." + lowercase name, as MLIR's TFL dialect
// names them) and the BuiltinOptions union member that carries the options
// (model/tflite/schema.fbs). A .tflite using any other builtin is refused with
// an error naming the op code and the operator.
#pragma once

#include <string>
#include <vector>

namespace gds::model::tflite {

struct BuiltinOp {
  int code;             // BuiltinOperator value
  const char* name;     // "CONV_2D"
  const char* op_type;  // "tfl.conv_2d"
  const char* options;  // "Conv2DOptions", or nullptr when the op has none
};

// The builtin with this code, or nullptr when gdstudio does not support it.
const BuiltinOp* builtinByCode(int code);
// The builtin with this dialect op type, or nullptr.
const BuiltinOp* builtinByOpType(const std::string& op_type);
const std::vector<BuiltinOp>& supportedBuiltins();
// The schema's name of any builtin code ("RESIZE_NEAREST_NEIGHBOR"), or "".
std::string builtinCodeName(int code);

inline constexpr int kCustomCode = 32;
// Op codes at or above this are stored only in OperatorCode.builtin_code.
inline constexpr int kPlaceholderForGreaterOpCodes = 127;

}  // namespace gds::model::tflite
