// TensorFlow Lite's float32 kernels (see float32.h), after
// tensorflow/lite/kernels/internal/reference/{conv,depthwiseconv_float,
// fully_connected,pooling,softmax,reduce,resize_bilinear,strided_slice}.h.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "engine/tflite/float32.h"
#include "engine/tflite/integer_loops.h"

namespace gds::engine::tflite {

namespace {
inline float clampF(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }
}  // namespace

bool activationRange(const char* activation, float* act_min, float* act_max) {
  const std::string a = activation;
  const float inf = std::numeric_limits<float>::infinity();
  if (a == "NONE") {
    *act_min = -inf;
    *act_max = inf;
  } else if (a == "RELU") {
    *act_min = 0;
    *act_max = inf;
  } else if (a == "RELU6") {
    *act_min = 0;
    *act_max = 6;
  } else if (a == "RELU_N1_TO_1") {
    *act_min = -1;
    *act_max = 1;
  } else {
    return false;
  }
  return true;
}

void convReference(const ops::ConvGeometry& s, const float* input, const float* filter, const float* bias,
                   float act_min, float act_max, float* output) {
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t oc = 0; oc < s.out_c; ++oc) {
          float total = 0.0f;
          ops::forEachWindowTap(s, b, oy, ox, [&](std::int64_t fy, std::int64_t fx, std::int64_t pixel) {
            const float* in = input + pixel * s.in_c;
            const float* f = filter + ((oc * s.filter_h + fy) * s.filter_w + fx) * s.in_c;
            for (std::int64_t ic = 0; ic < s.in_c; ++ic) total += in[ic] * f[ic];
          });
          const float bias_value = bias ? bias[oc] : 0.0f;
          output[((b * s.out_h + oy) * s.out_w + ox) * s.out_c + oc] = clampF(total + bias_value, act_min, act_max);
        }
}

void depthwiseReference(const ops::ConvGeometry& s, const float* input, const float* filter, const float* bias,
                        float act_min, float act_max, float* output) {
  const std::int64_t channels = s.outputChannels(true);  // out_c is the multiplier
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t oy = 0; oy < s.out_h; ++oy)
      for (std::int64_t ox = 0; ox < s.out_w; ++ox)
        for (std::int64_t ic = 0; ic < s.in_c; ++ic)
          for (std::int64_t m = 0; m < s.out_c; ++m) {
            const std::int64_t oc = ic * s.out_c + m;
            float total = 0.0f;
            ops::forEachWindowTap(s, b, oy, ox, [&](std::int64_t fy, std::int64_t fx, std::int64_t pixel) {
              total += input[pixel * s.in_c + ic] * filter[(fy * s.filter_w + fx) * channels + oc];
            });
            const float bias_value = bias ? bias[oc] : 0.0f;
            output[((b * s.out_h + oy) * s.out_w + ox) * channels + oc] = clampF(total + bias_value, act_min, act_max);
          }
}

void fullyConnectedReference(const float* input, const float* filter, const float* bias, std::int64_t batch,
                             std::int64_t depth, std::int64_t units, float act_min, float act_max, float* output) {
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t u = 0; u < units; ++u) {
      float total = 0.0f;
      for (std::int64_t d = 0; d < depth; ++d) total += input[b * depth + d] * filter[u * depth + d];
      const float bias_value = bias ? bias[u] : 0.0f;
      output[b * units + u] = clampF(total + bias_value, act_min, act_max);
    }
}

void averagePoolReference(const ops::ConvGeometry& s, float act_min, float act_max, const float* input, float* output) {
  loops::pool(s, input, output, [&](auto each) {
    float total = 0.0f;
    float count = 0.0f;
    each([&](float v) {
      total += v;
      count += 1.0f;
    });
    return count == 0.0f ? clampF(0.0f, act_min, act_max) : clampF(total / count, act_min, act_max);
  });
}

void maxPoolReference(const ops::ConvGeometry& s, float act_min, float act_max, const float* input, float* output) {
  loops::pool(s, input, output, [&](auto each) {
    float m = std::numeric_limits<float>::lowest();
    each([&](float v) { m = std::max(m, v); });
    return clampF(m, act_min, act_max);
  });
}

void softmaxReference(const float* input, std::int64_t rows, std::int64_t depth, float beta, float* output) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* in = input + r * depth;
    float* out = output + r * depth;
    float max = std::numeric_limits<float>::lowest();
    for (std::int64_t j = 0; j < depth; ++j) max = std::max(max, in[j]);
    float sum = 0.0f;
    for (std::int64_t j = 0; j < depth; ++j) {
      out[j] = std::exp((in[j] - max) * beta);
      sum += out[j];
    }
    for (std::int64_t j = 0; j < depth; ++j) out[j] /= sum;
  }
}

void meanReference(const float* input, std::int64_t outer, std::int64_t inner, std::int64_t trailing, float* output) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t t = 0; t < trailing; ++t) {
      float total = 0.0f;
      for (std::int64_t i = 0; i < inner; ++i) total += input[(o * inner + i) * trailing + t];
      output[o * trailing + t] = inner > 0 ? total / static_cast<float>(inner) : 0.0f;
    }
}

namespace {
void interpolation(std::int64_t value, float scale, bool half_pixel_centers, std::int64_t size, float* scaled,
                   std::int64_t* lower, std::int64_t* upper) {
  *scaled = half_pixel_centers ? (static_cast<float>(value) + 0.5f) * scale - 0.5f : static_cast<float>(value) * scale;
  const float floor_value = std::floor(*scaled);
  *lower = std::max<std::int64_t>(static_cast<std::int64_t>(floor_value), 0);
  *upper = std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil(*scaled)), size - 1);
}
}  // namespace

void resizeBilinearReference(const float* input, std::int64_t batch, std::int64_t in_h, std::int64_t in_w,
                             std::int64_t channels, std::int64_t out_h, std::int64_t out_w, bool align_corners,
                             bool half_pixel_centers, float* output) {
  float hs = static_cast<float>(in_h) / static_cast<float>(out_h);
  float ws = static_cast<float>(in_w) / static_cast<float>(out_w);
  if (align_corners && out_h > 1) hs = static_cast<float>(in_h - 1) / static_cast<float>(out_h - 1);
  if (align_corners && out_w > 1) ws = static_cast<float>(in_w - 1) / static_cast<float>(out_w - 1);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t y = 0; y < out_h; ++y) {
      float iy;
      std::int64_t y0, y1;
      interpolation(y, hs, half_pixel_centers, in_h, &iy, &y0, &y1);
      for (std::int64_t x = 0; x < out_w; ++x) {
        float ix;
        std::int64_t x0, x1;
        interpolation(x, ws, half_pixel_centers, in_w, &ix, &x0, &x1);
        const float dy = iy - static_cast<float>(y0), dx = ix - static_cast<float>(x0);
        for (std::int64_t c = 0; c < channels; ++c) {
          auto at = [&](std::int64_t yy, std::int64_t xx) { return input[((b * in_h + yy) * in_w + xx) * channels + c]; };
          output[((b * out_h + y) * out_w + x) * channels + c] =
              at(y0, x0) * (1 - dy) * (1 - dx) + at(y1, x0) * dy * (1 - dx) + at(y0, x1) * (1 - dy) * dx +
              at(y1, x1) * dy * dx;
        }
      }
    }
}

namespace {

inline std::int64_t clampIndex(std::int64_t v, std::int64_t lo, std::int64_t hi) {
  return std::min(std::max(v, lo), hi);
}

// strided_slice_logic.h: StridedSliceStartForAxis.
std::int64_t startForAxis(const StridedSliceParams& p, std::int64_t size, int axis) {
  std::int64_t start = p.begin[static_cast<std::size_t>(axis)];
  const std::int64_t stride = p.strides[static_cast<std::size_t>(axis)];
  if (start < 0) start += size;
  start = stride > 0 ? clampIndex(start, 0, size) : clampIndex(start, -1, size - 1);
  if (p.begin_mask & (std::int64_t{1} << axis)) start = stride > 0 ? 0 : size - 1;
  return start;
}

// StridedSliceEndForAxis.
std::int64_t endForAxis(const StridedSliceParams& p, std::int64_t size, int axis, std::int64_t start) {
  if (p.shrink_axis_mask & (std::int64_t{1} << axis)) return start >= size ? start : start + 1;
  std::int64_t end = p.end[static_cast<std::size_t>(axis)];
  if (p.offset) end += start;
  const std::int64_t stride = p.strides[static_cast<std::size_t>(axis)];
  if (end < 0) end += size;
  end = stride > 0 ? clampIndex(end, 0, size) : clampIndex(end, -1, size - 1);
  if (p.end_mask & (std::int64_t{1} << axis)) end = stride > 0 ? size : -1;
  return end;
}

}  // namespace

bool stridedSlicePlan(const StridedSliceParams& params, const std::vector<std::int64_t>& input_shape,
                      StridedSliceWalk* walk, std::string* error) {
  const std::size_t rank = input_shape.size();
  const std::size_t count = params.begin.size();
  if (rank > 5) {
    *error = "the input has " + std::to_string(rank) + " dimensions; STRIDED_SLICE takes 1 to 5";
    return false;
  }
  // strided_slice.cc reads one begin, end and stride per input dimension.
  if (count != rank || params.end.size() != count || params.strides.size() != count) {
    *error = "begin, end and strides need one entry per input dimension (" + std::to_string(rank) + "), got " +
             std::to_string(count) + ", " + std::to_string(params.end.size()) + " and " +
             std::to_string(params.strides.size());
    return false;
  }
  // StridedSlicePadIndices: leading dimensions taken whole.
  const int pad = 5 - static_cast<int>(count);
  StridedSliceParams p;
  p.begin.assign(static_cast<std::size_t>(pad), 0);
  p.end.assign(static_cast<std::size_t>(pad), 1);
  p.strides.assign(static_cast<std::size_t>(pad), 1);
  p.begin.insert(p.begin.end(), params.begin.begin(), params.begin.end());
  p.end.insert(p.end.end(), params.end.begin(), params.end.end());
  p.strides.insert(p.strides.end(), params.strides.begin(), params.strides.end());
  const std::int64_t low = (std::int64_t{1} << pad) - 1;
  p.begin_mask = (params.begin_mask << pad) | low;
  p.end_mask = (params.end_mask << pad) | low;
  p.shrink_axis_mask = params.shrink_axis_mask << pad;
  p.offset = params.offset;
  // The input's shape extended to 5 dimensions (RuntimeShape::ExtendedShape).
  const int shape_pad = 5 - static_cast<int>(rank);
  walk->output_shape.clear();
  for (int axis = 0; axis < 5; ++axis) {
    const std::int64_t size = axis < shape_pad ? 1 : input_shape[static_cast<std::size_t>(axis - shape_pad)];
    const std::int64_t stride = p.strides[static_cast<std::size_t>(axis)];
    if (stride == 0) {
      *error = "strides[" + std::to_string(axis - pad) + "] is 0; strides must be non-zero";
      return false;
    }
    const std::int64_t start = startForAxis(p, size, axis);
    const std::int64_t stop = endForAxis(p, size, axis, start);
    const bool shrink = p.shrink_axis_mask & (std::int64_t{1} << axis);
    if (shrink && (start < 0 || start >= size)) {
      *error = "index " + std::to_string(p.begin[static_cast<std::size_t>(axis)]) + " of shrunk dimension " +
               std::to_string(axis - pad) + " is out of range for size " + std::to_string(size);
      return false;
    }
    walk->in_dims[axis] = size;
    walk->start[axis] = start;
    walk->stop[axis] = stop;
    walk->stride[axis] = stride;
    // ResizeOutputTensor: ceil((end - begin) / stride) in float, at least 0.
    const std::int64_t end_for_shape = shrink ? start + 1 : stop;
    const auto dim =
        static_cast<std::int64_t>(std::ceil(static_cast<float>(end_for_shape - start) / static_cast<float>(stride)));
    if (axis >= pad && !shrink) walk->output_shape.push_back(std::max<std::int64_t>(dim, 0));
  }
  return true;
}

void stridedSliceReference(const StridedSliceWalk& w, std::size_t element_size, const void* input, void* output) {
  const auto* src = static_cast<const std::uint8_t*>(input);
  auto* dst = static_cast<std::uint8_t*>(output);
  auto more = [](std::int64_t index, std::int64_t stop, std::int64_t stride) {
    return stride > 0 ? index < stop : index > stop;
  };
  const std::int64_t* n = w.in_dims;
  for (std::int64_t i0 = w.start[0]; more(i0, w.stop[0], w.stride[0]); i0 += w.stride[0])
    for (std::int64_t i1 = w.start[1]; more(i1, w.stop[1], w.stride[1]); i1 += w.stride[1])
      for (std::int64_t i2 = w.start[2]; more(i2, w.stop[2], w.stride[2]); i2 += w.stride[2])
        for (std::int64_t i3 = w.start[3]; more(i3, w.stop[3], w.stride[3]); i3 += w.stride[3]) {
          const std::int64_t row = (((i0 * n[1] + i1) * n[2] + i2) * n[3] + i3) * n[4];
          if (w.stride[4] == 1) {
            // The inner run is contiguous (reference_ops' WriteN).
            const std::int64_t len = w.stop[4] - w.start[4];
            if (len > 0) {
              std::memcpy(dst, src + static_cast<std::size_t>(row + w.start[4]) * element_size,
                          static_cast<std::size_t>(len) * element_size);
              dst += static_cast<std::size_t>(len) * element_size;
            }
            continue;
          }
          for (std::int64_t i4 = w.start[4]; more(i4, w.stop[4], w.stride[4]); i4 += w.stride[4]) {
            std::memcpy(dst, src + static_cast<std::size_t>(row + i4) * element_size, element_size);
            dst += element_size;
          }
        }
}

}  // namespace gds::engine::tflite
