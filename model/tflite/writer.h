// Writing a GraphDef in the TFLite dialect (model/tflite/dialect.h) as a
// TensorFlow Lite model, the way TensorFlow's converter writes one: schema
// version 3, buffer 0 the empty sentinel, every constant's data written once
// and identical constant buffers shared, one operator code per builtin with
// the version TensorFlow Lite's rules give for the types it is used with
// (model/tflite/op_version.h), tensors with quantization and shape
// signatures, SignatureDefs. Models whose constants pass 2 GB put the buffers
// after the FlatBuffer (Buffer.offset/size), as TensorFlow Lite does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/io.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::model::tflite {

struct WriteOptions {
  std::string description = "gdstudio";
  // SignatureDefs to record (tensor names "node:port").
  std::vector<Signature> signatures;
  // The model's inputs/outputs as tensor names; empty: Placeholders by their
  // _input_index (else graph order) and the tensors marked by _output_index
  // (else every output of a tfl.* node nothing reads).
  std::vector<std::string> inputs, outputs;
  // Constant bytes above which buffers go after the FlatBuffer.
  std::uint64_t external_buffers_above = (std::uint64_t{1} << 31) - (std::uint64_t{64} << 20);
};

struct WriteStats {
  int tensors = 0;
  int operators = 0;
  int buffers = 0;        // including the sentinel
  int shared_buffers = 0; // constants that reuse another constant's buffer
  std::uint64_t constant_bytes = 0;
};

// Errors name the node and what is wrong (an op that is not part of the
// dialect, a missing _output_types, a constant whose data does not match its
// shape, an unknown input, ...); nothing is returned then.
Result<std::string> writeTflite(const tensorflow::GraphDef& graph, const WriteOptions& options = {},
                                WriteStats* stats = nullptr);

// writeTflite + model::writeFileAtomic.
Status saveTflite(const tensorflow::GraphDef& graph, const std::string& path, const WriteOptions& options = {},
                  WriteStats* stats = nullptr);

}  // namespace gds::model::tflite
