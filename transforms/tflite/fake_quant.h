// The ranges a quantization-aware trained graph carries: TensorFlow's
// converter (tflite_convert --inference_type=INT8 or QUANTIZED_UINT8, TF 1.x
// flags) quantizes each activation with the min/max of the FakeQuant node
// that follows it (FakeQuantWithMinMaxArgs' attrs, FakeQuantWithMinMaxVars'
// constant inputs) and drops the FakeQuant from the model. A FakeQuant of a constant (weights) is constant-folded before
// this runs, so the weights are already on its grid.
#pragma once

#include <map>
#include <string>

#include "graph.pb.h"
#include "model/status.h"
#include "transforms/tflite/convert_options.h"

namespace gds::transforms::tflite {

struct FakeQuantRanges {
  // The wrapped tensor ("node:port") and the FakeQuant's own -> its range.
  std::map<std::string, TensorRange> ranges;
  int removed = 0;  // FakeQuant nodes made Identity
};

// Makes every FakeQuant of a non-constant tensor of `graph` an Identity of
// that tensor and returns the ranges. Errors name a FakeQuant whose min/max are not constants or
// whose num_bits is not 8 (TensorFlow Lite's 8-bit types cannot hold other
// widths).
Result<FakeQuantRanges> takeFakeQuantRanges(tensorflow::GraphDef* graph);

}  // namespace gds::transforms::tflite
