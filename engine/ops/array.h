// Data movement on raw buffers of any element type: the strides of a
// row-major shape and the gather by per-dimension index maps behind Slice,
// StridedSlice, Tile, Pad and MirrorPad (engine/kernels/array_ops.cc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace gds::engine::ops {

using Dims = std::vector<std::int64_t>;  // as in broadcast.h

// Element strides of a row-major shape.
inline Dims stridesOf(const Dims& s) {
  std::vector<std::int64_t> st(s.size(), 1);
  for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Copies out[o] = in[map_0[o_0], map_1[o_1], ...] (a map value of -1 writes
// `pad` instead); the gather behind Slice, StridedSlice, Tile, Pad, MirrorPad.
template <typename T>
void gatherByDimMaps(const T* in, const Dims& in_shape, T* out, const Dims& out_shape, const std::vector<Dims>& maps,
                     const T& pad) {
  const std::size_t r = out_shape.size();
  if (r == 0) {
    out[0] = in[0];
    return;
  }
  const auto in_st = stridesOf(in_shape);
  const auto out_st = stridesOf(out_shape);
  // Trailing dimensions taken whole (the channels of a spatial Pad or Slice)
  // are one contiguous block in both tensors: copied at once.
  std::size_t whole = r;
  while (whole > 0 && out_shape[whole - 1] == in_shape[whole - 1]) {
    const auto& m = maps[whole - 1];
    bool identity = true;
    for (std::int64_t o = 0; o < out_shape[whole - 1] && identity; ++o)
      identity = m[static_cast<std::size_t>(o)] == o;
    if (!identity) break;
    --whole;
  }
  const std::int64_t block = whole < r ? out_st[whole] * out_shape[whole] : 1;
  std::function<void(std::size_t, std::int64_t, std::int64_t)> rec = [&](std::size_t d, std::int64_t io,
                                                                         std::int64_t oo) {
    if (d == whole) {
      std::copy(in + io, in + io + block, out + oo);
      return;
    }
    const auto& m = maps[d];
    const std::int64_t n = out_shape[d];
    if (d + 1 == r) {
      for (std::int64_t o = 0; o < n; ++o) {
        const std::int64_t i = m[static_cast<std::size_t>(o)];
        out[oo + o] = i < 0 ? pad : in[io + i];
      }
      return;
    }
    for (std::int64_t o = 0; o < n; ++o) {
      std::int64_t i = m[static_cast<std::size_t>(o)];
      if (i < 0) {
        std::fill(out + oo + o * out_st[d], out + oo + (o + 1) * out_st[d], pad);
      } else if (d + 1 == whole) {
        // A run of consecutive source indices is one contiguous copy (the
        // interior of a padded row).
        std::int64_t len = 1;
        while (o + len < n && m[static_cast<std::size_t>(o + len)] == i + len) ++len;
        std::copy(in + io + i * in_st[d], in + io + (i + len) * in_st[d], out + oo + o * out_st[d]);
        o += len - 1;
      } else {
        rec(d + 1, io + i * in_st[d], oo + o * out_st[d]);
      }
    }
  };
  std::int64_t count = 1;
  for (std::int64_t d : out_shape) count *= d;
  if (count > 0) rec(0, 0, 0);
}

}  // namespace gds::engine::ops
