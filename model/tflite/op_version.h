// The operator version TensorFlow Lite's converter records in OperatorCode for
// an operator, from its input/output types, shapes, quantization and options
// (tensorflow/lite/tools/versioning/op_version.cc, GetBuiltinOperatorVersion),
// for the builtins gdstudio supports. A runtime refuses an operator whose
// version it does not know, so the writer must not record a lower one.
#pragma once

#include <vector>

#include "graph.pb.h"
#include "model/tensor.h"
#include "model/tflite/dialect.h"

namespace gds::model::tflite {

struct VersionTensor {
  tensorflow::DataType type = tensorflow::DT_INVALID;  // DT_INVALID: an absent optional input
  Shape shape;
  Quantization quantization;
};

// `node` carries the options as attrs (dialect.h); inputs include absent
// optional ones (DT_INVALID), as TensorFlow Lite's OpSignature does.
int builtinVersion(int builtin_code, const tensorflow::NodeDef& node, const std::vector<VersionTensor>& inputs,
                   const std::vector<VersionTensor>& outputs);

}  // namespace gds::model::tflite
