// numpy/TensorFlow broadcasting (tensorflow/core/util/bcast.h) of two
// shapes: the output shape, and the collapsed loop geometry the elementwise
// ops walk (engine/ops/elementwise.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gds::engine::ops {

using Dims = std::vector<std::int64_t>;

// numpy/TensorFlow broadcasting of two shapes (BCast); false when they are
// incompatible. Unknown dims (-1) stay unknown unless the other side fixes them.
bool broadcastShapes(const Dims& a, const Dims& b, Dims* out);

struct BroadcastPlan {
  Dims out;
  // Collapsed dims (outermost first) and element strides of a and b (0 when
  // broadcast along that dim).
  std::vector<std::int64_t> dims, sa, sb;
};

// The plan of a and b broadcast together; false when they are incompatible.
bool makeBroadcastPlan(const Dims& a, const Dims& b, BroadcastPlan* p);

// Offsets of input elements for output element `index` (reference path).
inline void unravel(std::int64_t index, const Dims& out, const Dims& in, std::int64_t* offset) {
  std::int64_t off = 0, stride = 1;
  std::size_t r = out.size(), ri = in.size();
  for (std::size_t k = 0; k < r; ++k) {
    std::size_t d = r - 1 - k;
    std::int64_t coord = index % out[d];
    index /= out[d];
    if (k < ri) {
      std::int64_t dim = in[ri - 1 - k];
      if (dim != 1) off += coord * stride;
      stride *= dim;
    }
  }
  *offset = off;
}

}  // namespace gds::engine::ops
