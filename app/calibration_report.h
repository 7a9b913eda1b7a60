// What calibration saw, per tensor the int8 converter quantizes: the
// observed range, the range the calibration method chose, the share of
// values it clips and the histogram (gdstudio calibrate --report,
// tflite_convert --calibration_report).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/flags.h"
#include "transforms/tflite/convert.h"

namespace gds::app {

// --calibration_method, --calibration_num_bins, --calibration_min_percentile
// and --calibration_max_percentile (TensorFlow's CalibrationOptions), and
// their values checked.
std::vector<FlagSpec> calibrationMethodFlags();
Result<transforms::tflite::CalibrationOptions> parseCalibrationMethodFlags(const Flags& flags);

// A tab-separated table (tensor, observed range, chosen range widened to
// hold zero as the int8 model holds it, clipped share, a
// histogram drawn in block characters on a log scale) and a closing summary,
// the tensors in the model's order.
std::string calibrationReportText(const transforms::tflite::ConvertResult& converted,
                                  const transforms::tflite::CalibrationOptions& method);
// The same as records, the histograms in full (lower_bound, bin_width,
// counts).
nlohmann::json calibrationReportJson(const transforms::tflite::ConvertResult& converted,
                                     const transforms::tflite::CalibrationOptions& method);

}  // namespace gds::app
