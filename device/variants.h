// The variants `gdstudio benchmark --variants=` runs in turns, on the
// desktop and on a device: the graph as given (float), its TensorFlow Lite
// int8 export (calibrated on the benchmark's inputs, TensorFlow Lite's
// full-integer scheme), and TensorFlow's 8-bit recipe (quantize_weights +
// quantize_nodes, transforms::eightBitPipeline). For a runtime that runs
// .tflite files (benchmark_model, Arm NN) the float graph goes as its float
// .tflite export; the 8-bit recipe's Quantized* ops run only in gdstudio.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "device/device_benchmark.h"
#include "engine/tensor.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::device {

enum class VariantKind { Float, TfliteInt8, EightBit };
// "float,tflite_int8,eightbit"; errors name --variants and the choices.
Result<std::vector<VariantKind>> parseVariants(const std::string& text);
const char* variantLabel(VariantKind kind);  // "float", "TFLite int8", "8-bit (TF recipe)"

// The graph the user benchmarks and how it is fed.
struct VariantSource {
  tensorflow::GraphDef graph;
  std::string path;                          // the file it came from
  bool is_tflite = false;                    // a .tflite read as the dialect graph
  std::vector<std::string> inputs;           // feed names ("input" or "input:0")
  std::vector<std::string> input_shapes;     // "1,128,128,3" per input
  std::vector<std::string> input_types;      // "float" per input
  std::vector<std::string> outputs;          // fetch names
  std::vector<engine::Tensor> feeds;         // the benchmark's input values (int8 calibration)

  // Sets feeds and the shapes and types the device's runtime is told.
  void setFeeds(const std::vector<engine::Tensor>& values);
};

struct BuiltVariant {
  VariantKind kind = VariantKind::Float;
  std::string label;
  tensorflow::GraphDef graph;                // what the desktop runs
  std::vector<std::string> inputs, outputs;  // its feeds and fetches
  DeviceModel device;                        // what the device runs (device.path written in `folder`)
  std::string skip;                          // why the device cannot run it ("" when it can)
};

// Why `runtime` cannot run TensorFlow's 8-bit recipe ("" when it can: gdstudio);
// the caller adds how to choose gdstudio.
std::string eightBitRefusal(RuntimeKind runtime);

// Builds one variant and writes the file the device runtime takes into
// `folder` (a local temporary folder). `runtime` decides the file: a .tflite
// for tflite/armnn, the graph's own format for gdstudio.
Result<BuiltVariant> buildVariant(VariantKind kind, const VariantSource& source, RuntimeKind runtime,
                                  const std::string& folder);

}  // namespace gds::device
