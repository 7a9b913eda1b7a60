// What the last int8 export's calibration saw of each tensor (range,
// histogram, the method's range), kept by the document so that a tensor's
// properties can show it.
#pragma once

#include <map>
#include <string>

#include "transforms/tflite/calibration_method.h"

namespace gds::ui {

struct CalibrationView {
  std::string file;  // the .tflite the export wrote
  transforms::tflite::CalibrationOptions method;
  // By tensor name ("node:0": the converter keeps TensorFlow's names).
  std::map<std::string, transforms::tflite::TensorStatistics> tensors;

  // The statistics of node `node`'s first output, or null.
  const transforms::tflite::TensorStatistics* find(const std::string& node) const {
    auto it = tensors.find(node + ":0");
    return it == tensors.end() ? nullptr : &it->second;
  }
};

}  // namespace gds::ui
