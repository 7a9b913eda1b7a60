// Tensor values printed as NumPy prints an array (str(ndarray), NumPy >=
// 1.14 with floatmode 'maxprec'), which is what inspect_checkpoint shows:
// shortest round-trip digits up to `precision`, aligned columns, scientific
// notation when the magnitudes call for it, rows wrapped at `linewidth`,
// and arrays of more than `threshold` elements summarized to `edgeitems`
// at each end of every axis. inspect_checkpoint's --printoptions k=v set
// the same options (numpy.set_printoptions).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "model/status.h"
#include "model/tensor.h"

namespace gds::app {

struct NumpyPrintOptions {
  int precision = 8;
  std::int64_t threshold = 1000;
  int edgeitems = 3;
  int linewidth = 75;
  bool suppress = false;
  std::string nanstr = "nan";
  std::string infstr = "inf";
};

// Applies one "key=value" of --printoptions; errors as inspect_checkpoint's
// ("'x' is not a valid printoption.").
Status setPrintOption(NumpyPrintOptions* options, const std::string& key_value);

// str(array) of the tensor (a 0-d tensor prints as its scalar).
std::string numpyString(const model::HostTensor& tensor, const NumpyPrintOptions& options);

}  // namespace gds::app
