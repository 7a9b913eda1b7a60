// Helpers shared by the summary files: summary.cc (the graph analysis),
// summary_text.cc (summarize_graph's text, tensor values) and
// summary_json.cc (the JSON form).
#pragma once

#include <cstdint>
#include <string>

#include "tensor.pb.h"
#include "model/tensor.h"

namespace gds::model::summary_impl {

// DataTypeString, with TensorFlow's spelling of DT_INVALID.
inline std::string tfTypeName(tensorflow::DataType t) { return t == tensorflow::DT_INVALID ? "INVALID" : dtypeName(t); }

// Element count and bytes of a TensorProto when Tensor::FromProto would
// accept it (valid dtype and shape, tensor_content of the right size).
bool tensorSize(const tensorflow::TensorProto& t, std::int64_t* elements, std::int64_t* bytes);

}  // namespace gds::model::summary_impl
