// StridedSlice's index arithmetic (tensorflow/core/util/strided_slice_op.cc,
// ValidateStridedSliceOp): the begin/end/strides of the sparse spec with its
// begin, end, ellipsis, new-axis and shrink-axis masks made dense over the
// input's dimensions.
#pragma once

#include <cstdint>
#include <vector>

#include "model/status.h"

namespace gds::engine::ops {

struct StridedSliceSpec {
  std::vector<std::int64_t> processing;  // shape of the strided region
  std::vector<std::int64_t> final_shape;
  std::vector<std::int64_t> begin, stride;  // per input dim
};

// The strided region of `input` and the output's shape; errors say which
// part of the spec is invalid.
Status buildStridedSlice(const std::vector<std::int64_t>& input, const std::vector<std::int64_t>& begin,
                         const std::vector<std::int64_t>& end, const std::vector<std::int64_t>& strides,
                         std::int64_t begin_mask, std::int64_t end_mask, std::int64_t ellipsis_mask,
                         std::int64_t new_axis_mask, std::int64_t shrink_mask, StridedSliceSpec* spec);

}  // namespace gds::engine::ops
