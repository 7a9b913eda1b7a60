// TensorFlow Lite tensor types <-> TensorFlow dtypes, and TensorFlow Lite's
// packed string buffers (tensorflow/lite/string_util.h: int32 count, count + 1
// int32 offsets from the buffer start, then the bytes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "types.pb.h"
#include "model/status.h"

namespace gds::model::tflite {

// TensorType value (schema.fbs) -> dtype; DT_INVALID for values without a
// TensorFlow dtype (INT4) or unknown ones.
tensorflow::DataType dtypeFromTensorType(int tensor_type);
// dtype -> TensorType value; -1 for dtypes TensorFlow Lite has no type for.
int tensorTypeFromDtype(tensorflow::DataType dtype);
// The schema's name of a TensorType value ("FLOAT32", "INT8", ...), or its number.
std::string tensorTypeName(int tensor_type);
// The TensorType value named `name` ("INT8"), or -1.
int tensorTypeFromName(const std::string& name);

// Decodes a packed string buffer; errors say what is inconsistent.
Result<std::vector<std::string>> decodeStringBuffer(const std::uint8_t* data, std::size_t size);
std::string encodeStringBuffer(const std::vector<std::string>& strings);

}  // namespace gds::model::tflite
