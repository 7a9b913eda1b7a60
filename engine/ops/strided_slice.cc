#include "engine/ops/strided_slice.h"

#include <algorithm>
#include <string>

namespace gds::engine::ops {

Status buildStridedSlice(const std::vector<std::int64_t>& input, const std::vector<std::int64_t>& begin,
                         const std::vector<std::int64_t>& end, const std::vector<std::int64_t>& strides,
                         std::int64_t begin_mask, std::int64_t end_mask, std::int64_t ellipsis_mask,
                         std::int64_t new_axis_mask, std::int64_t shrink_mask, StridedSliceSpec* spec) {
  if (begin.size() != end.size() || begin.size() != strides.size())
    return Status::Error("begin, end and strides must have the same length (" + std::to_string(begin.size()) +
                         ", " + std::to_string(end.size()) + ", " + std::to_string(strides.size()) + ")");
  if (ellipsis_mask & (ellipsis_mask - 1)) return Status::Error("multiple ellipses in slice spec are not allowed");
  int sparse_dims = static_cast<int>(begin.size());
  std::vector<std::int64_t> sb = begin, se = end, ss = strides;
  // No ellipsis: an implicit one at the end.
  if (!ellipsis_mask) {
    ellipsis_mask |= std::int64_t(1) << sparse_dims;
    sb.push_back(0);
    se.push_back(0);
    ss.push_back(1);
    ++sparse_dims;
  }
  int num_add_axis_after_ellipsis = 0;
  bool seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (seen && ((std::int64_t(1) << i) & new_axis_mask)) ++num_add_axis_after_ellipsis;
    if ((std::int64_t(1) << i) & ellipsis_mask) seen = true;
  }
  const int dims = static_cast<int>(input.size());
  const std::size_t n = static_cast<std::size_t>(dims);
  std::vector<std::int64_t> db(n, 0), de(n, 0), ds(n, 1);
  std::int64_t dbm = 0, dem = 0, dsm = 0;
  constexpr std::int64_t kNewAxis = -1, kShrinkAxis = -2;
  std::vector<std::int64_t> gather;
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    const std::int64_t bit = std::int64_t(1) << i;
    if (bit & ellipsis_mask) {
      int next = std::min(dims - (sparse_dims - i) + 1 + num_add_axis_after_ellipsis, dims);
      for (; full < next; ++full) {
        db[static_cast<std::size_t>(full)] = de[static_cast<std::size_t>(full)] = 0;
        ds[static_cast<std::size_t>(full)] = 1;
        dbm |= std::int64_t(1) << full;
        dem |= std::int64_t(1) << full;
        gather.push_back(full);
      }
    } else if (bit & new_axis_mask) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims)
        return Status::Error("index " + std::to_string(i) + " of the slice spec is out of range for input rank " +
                             std::to_string(dims));
      db[static_cast<std::size_t>(full)] = sb[static_cast<std::size_t>(i)];
      de[static_cast<std::size_t>(full)] = se[static_cast<std::size_t>(i)];
      ds[static_cast<std::size_t>(full)] = ss[static_cast<std::size_t>(i)];
      if (bit & begin_mask) dbm |= std::int64_t(1) << full;
      if (bit & end_mask) dem |= std::int64_t(1) << full;
      if (bit & shrink_mask) {
        gather.push_back(kShrinkAxis);
        dsm |= std::int64_t(1) << full;
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }
  spec->processing.clear();
  spec->begin.assign(static_cast<std::size_t>(dims), 0);
  spec->stride.assign(static_cast<std::size_t>(dims), 1);
  for (int i = 0; i < dims; ++i) {
    const std::size_t u = static_cast<std::size_t>(i);
    std::int64_t b = db[u], e = de[u];
    const std::int64_t s = ds[u], dim = input[u];
    const bool shrink = dsm & (std::int64_t(1) << i);
    if (s == 0) return Status::Error("strides[" + std::to_string(i) + "] must be non-zero");
    if (shrink && s <= 0) return Status::Error("only stride 1 allowed on non-range indexing");
    const bool bm = dbm & (std::int64_t(1) << i), em = dem & (std::int64_t(1) << i);
    const std::int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? dim : dim - 1;
    auto canonical = [&](std::int64_t x, int c) {
      if (c == 0 ? bm : em) return s > 0 ? (c == 0 ? lo : hi) : (c == 0 ? hi : lo);
      std::int64_t fwd = x < 0 ? dim + x : x;
      return std::clamp(fwd, lo, hi);
    };
    if (shrink) {
      std::int64_t fwd = b < 0 ? dim + b : b;
      if (fwd < 0 || fwd >= dim)
        return Status::Error("slice index " + std::to_string(b) + " of dimension " + std::to_string(i) +
                             " out of bounds (size " + std::to_string(dim) + ")");
      b = fwd;
      e = b + 1;
    } else {
      b = canonical(b, 0);
      e = canonical(e, 1);
    }
    std::int64_t len = e - b, size;
    if (shrink) size = 1;
    else if (len == 0 || ((len < 0) != (s < 0))) size = 0;
    else size = len / s + (len % s != 0 ? 1 : 0);
    spec->processing.push_back(size);
    spec->begin[u] = b;
    spec->stride[u] = s;
  }
  spec->final_shape.clear();
  for (std::int64_t g : gather) {
    if (g == kShrinkAxis) continue;
    if (g == kNewAxis) spec->final_shape.push_back(1);
    else spec->final_shape.push_back(spec->processing[static_cast<std::size_t>(g)]);
  }
  return Status::Ok();
}

}  // namespace gds::engine::ops
