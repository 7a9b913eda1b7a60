// Reading a TensorFlow Lite model (.tflite, FlatBuffers schema TFL3) into a
// GraphDef in the TFLite dialect (model/tflite/dialect.h). The FlatBuffers
// verifier runs first; then the reader checks what the verifier cannot:
// buffer indices and out-of-FlatBuffer offsets/sizes against the file,
// constant sizes against shape x type, tensor and operator indices,
// operators in execution order, supported builtin ops, quantization
// parameters against the shape, and shapes against a size budget. Every
// error names the file and the tensor, operator or buffer at fault.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/loaded_model.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::model::tflite {

// Whether `bytes` start like a .tflite (file identifier "TFL3" at 4..8).
bool looksLikeTflite(const std::string& bytes);

struct ReadLimits {
  std::uint64_t max_file_bytes = 8ull << 30;          // whole file, with external buffers
  std::int64_t max_tensor_elements = std::int64_t{1} << 31;  // any one tensor's shape
};

struct TfliteModel {
  tensorflow::GraphDef graph;
  std::vector<Signature> signatures;  // tensor names "node:port"
  std::string description;            // Model.description ("MLIR Converted.")
  std::vector<std::string> metadata;  // Metadata names ("min_runtime_version", ...)
  // Operator versions as the file records them, by dialect op type (for
  // checks against the writer's rules).
  std::vector<std::pair<std::string, int>> op_versions;
};

// `name` (the file) prefixes every error.
Result<TfliteModel> readTflite(const std::string& bytes, const std::string& name, const ReadLimits& limits = {});

}  // namespace gds::model::tflite
