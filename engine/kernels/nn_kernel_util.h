// Small helpers shared by the neural-network kernel files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/kernel.h"
#include "engine/kernels/kernel_util.h"
#include "engine/ops/conv.h"

namespace gds::engine::nn {

// Values of an int32/int64 tensor; false for other dtypes (shared with the core kernels).
using kern::intValues;

inline std::string listString(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// Checks that input i is float (when its type is known at compile time).
inline Status requireFloatInput(const KernelInit& init, int i) {
  const DataType t = init.inputType(i);
  if (t != tensorflow::DT_INVALID && t != tensorflow::DT_FLOAT)
    return init.error("input " + std::to_string(i) + " is " + model::dtypeName(t) +
                      "; this kernel supports float32 only");
  return Status::Ok();
}

// Windowed-op attributes: strides/dilations/ksize as 4-vectors in the
// data_format's order, padding, explicit_paddings.
struct WindowAttrs {
  bool nchw = false;
  std::int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::int64_t window_h = 1, window_w = 1;  // ksize (pooling)
  ops::Padding padding = ops::Padding::kValid;
  std::vector<std::int64_t> explicit_pads;  // top, bottom, left, right
};

// The geometry of an NHWC convolution of `input` [N, H, W, C] by `filter`
// [FH, FW, C, M] with these window attrs (the callers check ranks and
// depths first, with their own messages); false when the filter does not fit.
inline bool conv2DShape(const Shape& input, const Shape& filter, const WindowAttrs& a, ops::ConvGeometry* s) {
  *s = ops::ConvGeometry{};
  s->batch = input[0];
  s->in_h = input[1];
  s->in_w = input[2];
  s->in_c = input[3];
  s->filter_h = filter[0];
  s->filter_w = filter[1];
  s->out_c = filter[3];
  s->stride_h = a.stride_h;
  s->stride_w = a.stride_w;
  s->dilation_h = a.dilation_h;
  s->dilation_w = a.dilation_w;
  return ops::computeConvGeometry(a.padding, s, a.explicit_pads);
}

inline Status readSpatialPair(const KernelInit& init, const std::string& name, bool nchw, bool required,
                              std::int64_t* h, std::int64_t* w) {
  if (!init.attr(name)) {
    if (required) return init.error("missing attr '" + name + "' (expected a list of 4 ints)");
    return Status::Ok();
  }
  std::vector<std::int64_t> v;
  GDS_RETURN_IF_ERROR(init.getAttr(name, &v));
  if (v.empty() && !required) return Status::Ok();
  if (v.size() != 4)
    return init.error("attr '" + name + "' is " + listString(v) + "; expected 4 values");
  const size_t hi = nchw ? 2 : 1, wi = nchw ? 3 : 2, ci = nchw ? 1 : 3;
  if (v[0] != 1 || v[ci] != 1)
    return init.error("attr '" + name + "' is " + listString(v) +
                      "; only the spatial dimensions may differ from 1");
  if (v[hi] < 1 || v[wi] < 1) return init.error("attr '" + name + "' is " + listString(v) + "; values must be >= 1");
  *h = v[hi];
  *w = v[wi];
  return Status::Ok();
}

inline Status readWindowAttrs(const KernelInit& init, bool has_dilations, bool has_ksize, WindowAttrs* a) {
  std::string format;
  GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("data_format", &format, "NHWC"));
  if (format != "NHWC" && format != "NCHW")
    return init.error("data_format '" + format + "' is not supported (expected NHWC or NCHW)");
  a->nchw = format == "NCHW";
  GDS_RETURN_IF_ERROR(readSpatialPair(init, "strides", a->nchw, true, &a->stride_h, &a->stride_w));
  if (has_dilations)
    GDS_RETURN_IF_ERROR(readSpatialPair(init, "dilations", a->nchw, false, &a->dilation_h, &a->dilation_w));
  if (has_ksize) GDS_RETURN_IF_ERROR(readSpatialPair(init, "ksize", a->nchw, true, &a->window_h, &a->window_w));
  std::string padding;
  GDS_RETURN_IF_ERROR(init.getAttr("padding", &padding));
  if (!ops::parsePadding(padding, &a->padding))
    return init.error("padding '" + padding + "' is not supported (expected SAME, VALID or EXPLICIT)");
  if (a->padding == ops::Padding::kExplicit) {
    std::vector<std::int64_t> p;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::vector<std::int64_t>>("explicit_paddings", &p, {}));
    if (p.size() != 8)
      return init.error("explicit_paddings is " + listString(p) + "; expected 8 values with padding EXPLICIT");
    const size_t h = a->nchw ? 2 : 1, w = a->nchw ? 3 : 2;
    a->explicit_pads = {p[2 * h], p[2 * h + 1], p[2 * w], p[2 * w + 1]};
  }
  return Status::Ok();
}

}  // namespace gds::engine::nn
