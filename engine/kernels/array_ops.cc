// Data-movement kernels for every dtype (strings included): ConcatV2,
// Concat, Pack, Unpack, Split, SplitV, Slice, StridedSlice (all masks, as
// tensorflow/core/util/strided_slice_op.cc), Tile, Transpose, Gather,
// GatherV2, Pad, PadV2, MirrorPad (REFLECT/SYMMETRIC).
#include <algorithm>
#include <functional>
#include <numeric>

#include "engine/kernels/kernel_util.h"

namespace gds::engine {
namespace {

using kern::shapeStr;
using std::int64_t;

std::vector<int64_t> stridesOf(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Copies out[o] = in[map_0[o_0], map_1[o_1], ...] (a map value of -1 writes
// `pad` instead); the gather behind Slice, StridedSlice, Tile, Pad, MirrorPad.
template <typename T>
void gatherByDimMaps(const T* in, const Shape& in_shape, T* out, const Shape& out_shape,
                     const std::vector<std::vector<int64_t>>& maps, const T& pad) {
  const size_t r = out_shape.size();
  if (r == 0) {
    out[0] = in[0];
    return;
  }
  const auto in_st = stridesOf(in_shape);
  const auto out_st = stridesOf(out_shape);
  // Trailing dimensions taken whole (the channels of a spatial Pad or Slice)
  // are one contiguous block in both tensors: copied at once.
  size_t whole = r;
  while (whole > 0 && out_shape[whole - 1] == in_shape[whole - 1]) {
    const auto& m = maps[whole - 1];
    bool identity = true;
    for (int64_t o = 0; o < out_shape[whole - 1] && identity; ++o) identity = m[static_cast<size_t>(o)] == o;
    if (!identity) break;
    --whole;
  }
  const int64_t block = whole < r ? out_st[whole] * out_shape[whole] : 1;
  std::function<void(size_t, int64_t, int64_t)> rec = [&](size_t d, int64_t io, int64_t oo) {
    if (d == whole) {
      std::copy(in + io, in + io + block, out + oo);
      return;
    }
    const auto& m = maps[d];
    const int64_t n = out_shape[d];
    if (d + 1 == r) {
      for (int64_t o = 0; o < n; ++o) out[oo + o] = m[static_cast<size_t>(o)] < 0 ? pad : in[io + m[static_cast<size_t>(o)]];
      return;
    }
    for (int64_t o = 0; o < n; ++o) {
      int64_t i = m[static_cast<size_t>(o)];
      if (i < 0) {
        std::fill(out + oo + o * out_st[d], out + oo + (o + 1) * out_st[d], pad);
      } else if (d + 1 == whole) {
        // A run of consecutive source indices is one contiguous copy (the
        // interior of a padded row).
        int64_t len = 1;
        while (o + len < n && m[static_cast<size_t>(o + len)] == i + len) ++len;
        std::copy(in + io + i * in_st[d], in + io + (i + len) * in_st[d], out + oo + o * out_st[d]);
        o += len - 1;
      } else {
        rec(d + 1, io + i * in_st[d], oo + o * out_st[d]);
      }
    }
  };
  if (model::numElements(out_shape) > 0) rec(0, 0, 0);
}

template <typename Fn>
Status withStorage(KernelContext& ctx, DataType dtype, Fn&& fn) {
  if (!kern::dispatchStorage(dtype, fn)) return ctx.error("unsupported dtype " + model::dtypeName(dtype));
  return Status::Ok();
}

// alloc_shape: the output's shape when it differs from the index shape
// (StridedSlice's shrink/new axes), same element count.
Status runMaps(KernelContext& ctx, const Tensor& x, const Shape& out_shape,
               const std::vector<std::vector<int64_t>>& maps, const Tensor* pad_value,
               const Shape* alloc_shape = nullptr) {
  Tensor* out = ctx.allocateOutput(0, x.dtype(), alloc_shape ? *alloc_shape : out_shape);
  return withStorage(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T pad{};
    if (pad_value) pad = kern::elems<T>(*pad_value)[0];
    gatherByDimMaps<T>(kern::elems<T>(x), x.shape(), kern::elems<T>(*out), out_shape, maps, pad);
  });
}

// ---------------------------------------------------------------------------
// Concat / Pack (join along an axis) and Split / Unpack (the reverse).

class ConcatKernel : public OpKernel {
 public:
  explicit ConcatKernel(int mode) : mode_(mode) {}  // 0 ConcatV2, 1 Concat, 2 Pack
  Status init(const KernelInit& init) override {
    int n = init.numInputs() - (mode_ == 2 ? 0 : 1);
    if (n < 1) return init.error("expects at least one value input");
    if (mode_ == 2) GDS_RETURN_IF_ERROR(init.getAttrOr<int64_t>("axis", &pack_axis_, 0));
    // Static output shape when every input shape and the axis are known.
    std::vector<Shape> shapes;
    for (int i = 0; i < n; ++i) {
      Shape s;
      if (!init.inputShape(valueIndex(i), &s)) return Status::Ok();
      shapes.push_back(s);
    }
    int64_t axis = pack_axis_;
    if (mode_ != 2) {
      std::vector<int64_t> a;
      if (!kern::constInts(init, mode_ == 0 ? init.numInputs() - 1 : 0, &a) || a.size() != 1) return Status::Ok();
      axis = a[0];
    }
    std::string err;
    if (!outShape(shapes, axis, &static_, nullptr, &err, true)) return init.error(err);
    known_ = true;
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit& init) const override { return {init.inputType(valueIndex(0))}; }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {static_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    const int n = ctx.numInputs() - (mode_ == 2 ? 0 : 1);
    int64_t axis = pack_axis_;
    if (mode_ != 2) {
      std::vector<int64_t> a;
      GDS_RETURN_IF_ERROR(kern::readInts(ctx, mode_ == 0 ? ctx.numInputs() - 1 : 0, "axis", &a));
      if (a.size() != 1) return ctx.error("axis must be a scalar");
      axis = a[0];
    }
    std::vector<Shape> shapes;
    const Tensor& first = ctx.input(valueIndex(0));
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx.input(valueIndex(i));
      if (t.dtype() != first.dtype())
        return ctx.error("all values must have the same dtype: value 0 is " + model::dtypeName(first.dtype()) +
                         ", value " + std::to_string(i) + " is " + model::dtypeName(t.dtype()));
      shapes.push_back(t.shape());
    }
    Shape out_shape;
    int64_t a;
    std::string err;
    if (!outShape(shapes, axis, &out_shape, &a, &err, false)) return ctx.error(err);
    Tensor* out = ctx.allocateOutput(0, first.dtype(), out_shape);
    int64_t outer = 1;
    for (int64_t i = 0; i < a; ++i) outer *= out_shape[static_cast<size_t>(i)];
    const int64_t out_row = outer ? out->numElements() / std::max<int64_t>(outer, 1) : 0;
    return withStorage(ctx, first.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* o = kern::elems<T>(*out);
      int64_t col = 0;
      for (int i = 0; i < n; ++i) {
        const Tensor& t = ctx.input(valueIndex(i));
        const int64_t row = outer ? t.numElements() / std::max<int64_t>(outer, 1) : 0;
        const T* src = kern::elems<T>(t);
        for (int64_t r = 0; r < outer; ++r) std::copy(src + r * row, src + (r + 1) * row, o + r * out_row + col);
        col += row;
      }
    });
  }

 private:
  int valueIndex(int i) const { return mode_ == 1 ? i + 1 : i; }
  bool outShape(const std::vector<Shape>& shapes, int64_t axis, Shape* out, int64_t* axis_out, std::string* err,
                bool partial) const {
    const Shape& s0 = shapes[0];
    const int64_t rank = static_cast<int64_t>(s0.size()) + (mode_ == 2 ? 1 : 0);
    int64_t a;
    if (!kern::normalizeAxis(axis, rank, &a)) {
      *err = "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank);
      return false;
    }
    if (axis_out) *axis_out = a;
    *out = s0;
    if (mode_ == 2) out->insert(out->begin() + a, static_cast<int64_t>(shapes.size()));
    for (size_t i = 1; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      bool ok = s.size() == s0.size();
      for (size_t d = 0; ok && d < s.size(); ++d) {
        if (mode_ != 2 && static_cast<int64_t>(d) == a) continue;
        if (s[d] != s0[d] && !(partial && (s[d] < 0 || s0[d] < 0))) ok = false;
      }
      if (!ok) {
        *err = std::string(mode_ == 2 ? "all values must have the same shape" :
                                        "dimensions of the values must match except along the axis") +
               ": value 0 is " + shapeStr(s0) + ", value " + std::to_string(i) + " is " + shapeStr(s);
        return false;
      }
      if (mode_ != 2) {
        int64_t& d = (*out)[static_cast<size_t>(a)];
        d = (d < 0 || s[static_cast<size_t>(a)] < 0) ? -1 : d + s[static_cast<size_t>(a)];
      }
    }
    return true;
  }
  int mode_;
  int64_t pack_axis_ = 0;
  Shape static_;
  bool known_ = false;
};

class SplitKernel : public OpKernel {
 public:
  explicit SplitKernel(int mode) : mode_(mode) {}  // 0 Split, 1 SplitV, 2 Unpack
  Status init(const KernelInit& init) override {
    if (mode_ == 2) {
      GDS_RETURN_IF_ERROR(init.getAttr("num", &num_));
      GDS_RETURN_IF_ERROR(init.getAttrOr<int64_t>("axis", &axis_, 0));
    } else {
      GDS_RETURN_IF_ERROR(init.getAttr("num_split", &num_));
    }
    if (num_ < 1 && mode_ != 2) return init.error("num_split must be at least 1");
    return Status::Ok();
  }
  int numOutputs(const KernelInit&) const override { return static_cast<int>(std::max<int64_t>(num_, 1)); }
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    return std::vector<DataType>(static_cast<size_t>(std::max<int64_t>(num_, 1)), init.inputType(mode_ == 0 ? 1 : 0));
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(mode_ == 0 ? 1 : 0);
    int64_t axis = axis_;
    if (mode_ != 2) {
      std::vector<int64_t> a;
      GDS_RETURN_IF_ERROR(kern::readInts(ctx, mode_ == 0 ? 0 : 2, "split_dim", &a));
      if (a.size() != 1) return ctx.error("split_dim must be a scalar");
      axis = a[0];
    }
    int64_t ax;
    if (!kern::normalizeAxis(axis, x.dims(), &ax))
      return ctx.error("axis " + std::to_string(axis) + " is out of range for input shape " + shapeStr(x.shape()));
    const int64_t dim = x.dim(static_cast<int>(ax));
    std::vector<int64_t> sizes;
    if (mode_ == 0) {
      if (dim % num_ != 0)
        return ctx.error("number of ways to split (" + std::to_string(num_) + ") must evenly divide the split "
                         "dimension (" + std::to_string(dim) + ")");
      sizes.assign(static_cast<size_t>(num_), dim / num_);
    } else if (mode_ == 2) {
      if (dim != num_)
        return ctx.error("input dimension " + std::to_string(ax) + " is " + std::to_string(dim) + ", attr num is " +
                         std::to_string(num_));
      sizes.assign(static_cast<size_t>(num_), 1);
    } else {
      GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "size_splits", &sizes));
      if (static_cast<int64_t>(sizes.size()) != num_)
        return ctx.error("size_splits has " + std::to_string(sizes.size()) + " values, num_split is " +
                         std::to_string(num_));
      int unknown = -1;
      int64_t total = 0;
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == -1) {
          if (unknown >= 0) return ctx.error("size_splits may contain only one -1");
          unknown = static_cast<int>(i);
        } else {
          total += sizes[i];
        }
      }
      if (unknown >= 0) sizes[static_cast<size_t>(unknown)] = dim - total;
      else if (total != dim)
        return ctx.error("size_splits " + shapeStr(sizes) + " must sum to the dimension " + std::to_string(dim));
      if (unknown >= 0 && sizes[static_cast<size_t>(unknown)] < 0)
        return ctx.error("size_splits " + shapeStr(sizes) + " exceed the dimension " + std::to_string(dim));
    }
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < ax; ++i) outer *= x.dim(static_cast<int>(i));
    for (int64_t i = ax + 1; i < x.dims(); ++i) inner *= x.dim(static_cast<int>(i));
    return withStorage(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* src = kern::elems<T>(x);
      int64_t offset = 0;
      for (size_t k = 0; k < sizes.size(); ++k) {
        Shape s = x.shape();
        if (mode_ == 2) s.erase(s.begin() + ax);
        else s[static_cast<size_t>(ax)] = sizes[k];
        Tensor* out = ctx.allocateOutput(static_cast<int>(k), x.dtype(), s);
        T* o = kern::elems<T>(*out);
        const int64_t chunk = sizes[k] * inner;
        for (int64_t r = 0; r < outer; ++r)
          std::copy(src + r * dim * inner + offset, src + r * dim * inner + offset + chunk, o + r * chunk);
        offset += chunk;
      }
    });
  }

 private:
  int mode_;
  int64_t num_ = 1;
  int64_t axis_ = 0;
};

// ---------------------------------------------------------------------------
// Slice and StridedSlice.

class SliceKernel : public OpKernel {
 public:
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> begin, size;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "begin", &begin));
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 2, "size", &size));
    if (static_cast<int>(begin.size()) != x.dims() || static_cast<int>(size.size()) != x.dims())
      return ctx.error("begin " + shapeStr(begin) + " and size " + shapeStr(size) + " must have one value per "
                       "dimension of the input " + shapeStr(x.shape()));
    Shape out_shape(begin.size());
    std::vector<std::vector<int64_t>> maps(begin.size());
    for (size_t d = 0; d < begin.size(); ++d) {
      int64_t dim = x.shape()[d];
      int64_t s = size[d] == -1 ? dim - begin[d] : size[d];
      if (begin[d] < 0 || s < 0 || begin[d] + s > dim)
        return ctx.error("slice begin " + shapeStr(begin) + " size " + shapeStr(size) + " is out of bounds for "
                         "input shape " + shapeStr(x.shape()) + " in dimension " + std::to_string(d));
      out_shape[d] = s;
      maps[d].resize(static_cast<size_t>(s));
      std::iota(maps[d].begin(), maps[d].end(), begin[d]);
    }
    return runMaps(ctx, x, out_shape, maps, nullptr);
  }
};

struct StridedSliceSpec {
  Shape processing;  // shape of the strided region
  Shape final_shape;
  std::vector<int64_t> begin, stride;  // per input dim
};

Status buildStridedSlice(const Shape& input, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                         const std::vector<int64_t>& strides, int64_t begin_mask, int64_t end_mask,
                         int64_t ellipsis_mask, int64_t new_axis_mask, int64_t shrink_mask, StridedSliceSpec* spec) {
  if (begin.size() != end.size() || begin.size() != strides.size())
    return Status::Error("begin, end and strides must have the same length (" + std::to_string(begin.size()) +
                         ", " + std::to_string(end.size()) + ", " + std::to_string(strides.size()) + ")");
  if (ellipsis_mask & (ellipsis_mask - 1)) return Status::Error("multiple ellipses in slice spec are not allowed");
  int sparse_dims = static_cast<int>(begin.size());
  std::vector<int64_t> sb = begin, se = end, ss = strides;
  // No ellipsis: an implicit one at the end.
  if (!ellipsis_mask) {
    ellipsis_mask |= int64_t(1) << sparse_dims;
    sb.push_back(0);
    se.push_back(0);
    ss.push_back(1);
    ++sparse_dims;
  }
  int num_add_axis_after_ellipsis = 0;
  bool seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (seen && ((int64_t(1) << i) & new_axis_mask)) ++num_add_axis_after_ellipsis;
    if ((int64_t(1) << i) & ellipsis_mask) seen = true;
  }
  const int dims = static_cast<int>(input.size());
  std::vector<int64_t> db(static_cast<size_t>(dims), 0), de(static_cast<size_t>(dims), 0), ds(static_cast<size_t>(dims), 1);
  int64_t dbm = 0, dem = 0, dsm = 0;
  constexpr int64_t kNewAxis = -1, kShrinkAxis = -2;
  std::vector<int64_t> gather;
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    const int64_t bit = int64_t(1) << i;
    if (bit & ellipsis_mask) {
      int next = std::min(dims - (sparse_dims - i) + 1 + num_add_axis_after_ellipsis, dims);
      for (; full < next; ++full) {
        db[static_cast<size_t>(full)] = de[static_cast<size_t>(full)] = 0;
        ds[static_cast<size_t>(full)] = 1;
        dbm |= int64_t(1) << full;
        dem |= int64_t(1) << full;
        gather.push_back(full);
      }
    } else if (bit & new_axis_mask) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims)
        return Status::Error("index " + std::to_string(i) + " of the slice spec is out of range for input rank " +
                             std::to_string(dims));
      db[static_cast<size_t>(full)] = sb[static_cast<size_t>(i)];
      de[static_cast<size_t>(full)] = se[static_cast<size_t>(i)];
      ds[static_cast<size_t>(full)] = ss[static_cast<size_t>(i)];
      if (bit & begin_mask) dbm |= int64_t(1) << full;
      if (bit & end_mask) dem |= int64_t(1) << full;
      if (bit & shrink_mask) {
        gather.push_back(kShrinkAxis);
        dsm |= int64_t(1) << full;
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }
  spec->processing.clear();
  spec->begin.assign(static_cast<size_t>(dims), 0);
  spec->stride.assign(static_cast<size_t>(dims), 1);
  for (int i = 0; i < dims; ++i) {
    const size_t u = static_cast<size_t>(i);
    int64_t b = db[u], e = de[u];
    const int64_t s = ds[u], dim = input[u];
    const bool shrink = dsm & (int64_t(1) << i);
    if (s == 0) return Status::Error("strides[" + std::to_string(i) + "] must be non-zero");
    if (shrink && s <= 0) return Status::Error("only stride 1 allowed on non-range indexing");
    const bool bm = dbm & (int64_t(1) << i), em = dem & (int64_t(1) << i);
    const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, int c) {
      if (c == 0 ? bm : em) return s > 0 ? (c == 0 ? lo : hi) : (c == 0 ? hi : lo);
      int64_t fwd = x < 0 ? dim + x : x;
      return std::clamp(fwd, lo, hi);
    };
    if (shrink) {
      int64_t fwd = b < 0 ? dim + b : b;
      if (fwd < 0 || fwd >= dim)
        return Status::Error("slice index " + std::to_string(b) + " of dimension " + std::to_string(i) +
                             " out of bounds (size " + std::to_string(dim) + ")");
      b = fwd;
      e = b + 1;
    } else {
      b = canonical(b, 0);
      e = canonical(e, 1);
    }
    int64_t len = e - b, size;
    if (shrink) size = 1;
    else if (len == 0 || ((len < 0) != (s < 0))) size = 0;
    else size = len / s + (len % s != 0 ? 1 : 0);
    spec->processing.push_back(size);
    spec->begin[u] = b;
    spec->stride[u] = s;
  }
  spec->final_shape.clear();
  for (int64_t g : gather) {
    if (g == kShrinkAxis) continue;
    if (g == kNewAxis) spec->final_shape.push_back(1);
    else spec->final_shape.push_back(spec->processing[static_cast<size_t>(g)]);
  }
  return Status::Ok();
}

class StridedSliceKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    for (auto [name, dst] : {std::pair<const char*, int64_t*>{"begin_mask", &begin_mask_}, {"end_mask", &end_mask_},
                             {"ellipsis_mask", &ellipsis_mask_}, {"new_axis_mask", &new_axis_mask_},
                             {"shrink_axis_mask", &shrink_mask_}})
      GDS_RETURN_IF_ERROR(init.getAttrOr<int64_t>(name, dst, 0));
    Shape in;
    std::vector<int64_t> b, e, s;
    if (init.inputShape(0, &in) && model::numElements(in) >= 0 && kern::constInts(init, 1, &b) &&
        kern::constInts(init, 2, &e) && kern::constInts(init, 3, &s)) {
      StridedSliceSpec spec;
      Status st = buildStridedSlice(in, b, e, s, begin_mask_, end_mask_, ellipsis_mask_, new_axis_mask_, shrink_mask_, &spec);
      if (!st.ok()) return init.error(st.message() + " (input shape " + shapeStr(in) + ")");
      static_ = spec.final_shape;
      known_ = true;
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {static_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> b, e, s;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "begin", &b));
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 2, "end", &e));
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 3, "strides", &s));
    StridedSliceSpec spec;
    Status st = buildStridedSlice(x.shape(), b, e, s, begin_mask_, end_mask_, ellipsis_mask_, new_axis_mask_,
                                  shrink_mask_, &spec);
    if (!st.ok()) return ctx.error(st.message() + " (input shape " + shapeStr(x.shape()) + ")");
    std::vector<std::vector<int64_t>> maps(spec.processing.size());
    bool identity = true;
    for (size_t d = 0; d < maps.size(); ++d) {
      maps[d].resize(static_cast<size_t>(spec.processing[d]));
      for (int64_t o = 0; o < spec.processing[d]; ++o) maps[d][static_cast<size_t>(o)] = spec.begin[d] + o * spec.stride[d];
      if (spec.processing[d] != x.shape()[d] || spec.begin[d] != 0 || spec.stride[d] != 1) identity = false;
    }
    if (identity) {
      ctx.setOutput(0, x.reshaped(spec.final_shape));
      return Status::Ok();
    }
    return runMaps(ctx, x, spec.processing, maps, nullptr, &spec.final_shape);
  }

 private:
  int64_t begin_mask_ = 0, end_mask_ = 0, ellipsis_mask_ = 0, new_axis_mask_ = 0, shrink_mask_ = 0;
  Shape static_;
  bool known_ = false;
};

// ---------------------------------------------------------------------------
// Tile, Transpose, Gather, Pad, MirrorPad.

class TileKernel : public OpKernel {
 public:
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> mult;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "multiples", &mult));
    if (static_cast<int>(mult.size()) != x.dims())
      return ctx.error("multiples " + shapeStr(mult) + " must have one value per dimension of " + shapeStr(x.shape()));
    Shape out_shape(mult.size());
    std::vector<std::vector<int64_t>> maps(mult.size());
    for (size_t d = 0; d < mult.size(); ++d) {
      if (mult[d] < 0) return ctx.error("multiples " + shapeStr(mult) + " must be non-negative");
      out_shape[d] = x.shape()[d] * mult[d];
      maps[d].resize(static_cast<size_t>(out_shape[d]));
      for (int64_t o = 0; o < out_shape[d]; ++o) maps[d][static_cast<size_t>(o)] = o % x.shape()[d];
    }
    return runMaps(ctx, x, out_shape, maps, nullptr);
  }
};

class TransposeKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    std::vector<int64_t> perm;
    Shape in;
    if (kern::constInts(init, 1, &perm) && init.inputShape(0, &in) && perm.size() == in.size()) {
      static_.clear();
      for (int64_t p : perm) {
        if (p < 0 || p >= static_cast<int64_t>(in.size())) return init.error("perm " + shapeStr(perm) + " is not a permutation");
        static_.push_back(in[static_cast<size_t>(p)]);
      }
      known_ = true;
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {static_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> perm;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "perm", &perm));
    const size_t r = static_cast<size_t>(x.dims());
    std::vector<bool> seen(r, false);
    bool ok = perm.size() == r;
    for (size_t i = 0; ok && i < r; ++i) {
      int64_t p = perm[i] < 0 ? perm[i] + static_cast<int64_t>(r) : perm[i];
      ok = p >= 0 && p < static_cast<int64_t>(r) && !seen[static_cast<size_t>(p)];
      if (ok) {
        seen[static_cast<size_t>(p)] = true;
        perm[i] = p;
      }
    }
    if (!ok) return ctx.error("perm " + shapeStr(perm) + " is not a permutation of the input's " + std::to_string(r) + " dimensions");
    Shape out_shape(r);
    const auto in_st = stridesOf(x.shape());
    std::vector<int64_t> src_st(r);
    for (size_t i = 0; i < r; ++i) {
      out_shape[i] = x.shape()[static_cast<size_t>(perm[i])];
      src_st[i] = in_st[static_cast<size_t>(perm[i])];
    }
    Tensor* out = ctx.allocateOutput(0, x.dtype(), out_shape);
    const int64_t n = out->numElements();
    return withStorage(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = kern::elems<T>(x);
      T* o = kern::elems<T>(*out);
      if (r == 0) {
        if (n) o[0] = in[0];
        return;
      }
      std::vector<int64_t> idx(r, 0);
      int64_t src = 0;
      const int64_t last = out_shape[r - 1], last_st = src_st[r - 1];
      for (int64_t i = 0; i < n; i += last) {
        for (int64_t k = 0; k < last; ++k) o[i + k] = in[src + k * last_st];
        // Advance the odometer over all but the last dim.
        for (size_t d = r - 1; d-- > 0;) {
          src += src_st[d];
          if (++idx[d] < out_shape[d]) break;
          src -= src_st[d] * out_shape[d];
          idx[d] = 0;
        }
      }
    });
  }

 private:
  Shape static_;
  bool known_ = false;
};

class GatherKernel : public OpKernel {
 public:
  explicit GatherKernel(bool v2) : v2_(v2) {}
  Status init(const KernelInit& init) override {
    std::int64_t batch_dims = 0;
    GDS_RETURN_IF_ERROR(init.getAttrOr<int64_t>("batch_dims", &batch_dims, 0));
    if (batch_dims != 0) return init.error("batch_dims != 0 is not supported");
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    DataType t = init.inputType(0);
    if (t == tensorflow::DT_INVALID) {
      const tensorflow::AttrValue* a = init.attr("Tparams");
      if (a) t = a->type();
    }
    return {t};
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& params = ctx.input(0);
    std::vector<int64_t> indices;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "indices", &indices));
    int64_t axis = 0;
    if (v2_) {
      std::vector<int64_t> a;
      GDS_RETURN_IF_ERROR(kern::readInts(ctx, 2, "axis", &a));
      if (a.size() != 1) return ctx.error("axis must be a scalar");
      if (!kern::normalizeAxis(a[0], params.dims(), &axis))
        return ctx.error("axis " + std::to_string(a[0]) + " is out of range for params shape " + shapeStr(params.shape()));
    } else if (params.dims() < 1) {
      return ctx.error("params must be at least 1-D");
    }
    const int64_t dim = params.dim(static_cast<int>(axis));
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= params.dim(static_cast<int>(i));
    for (int64_t i = axis + 1; i < params.dims(); ++i) inner *= params.dim(static_cast<int>(i));
    for (size_t i = 0; i < indices.size(); ++i)
      if (indices[i] < 0 || indices[i] >= dim)
        return ctx.error("indices[" + std::to_string(i) + "] = " + std::to_string(indices[i]) + " is not in [0, " +
                         std::to_string(dim) + ")");
    Shape out_shape(params.shape().begin(), params.shape().begin() + axis);
    const Shape& ishape = ctx.input(1).shape();
    out_shape.insert(out_shape.end(), ishape.begin(), ishape.end());
    out_shape.insert(out_shape.end(), params.shape().begin() + axis + 1, params.shape().end());
    Tensor* out = ctx.allocateOutput(0, params.dtype(), out_shape);
    const int64_t ni = static_cast<int64_t>(indices.size());
    return withStorage(ctx, params.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* p = kern::elems<T>(params);
      T* o = kern::elems<T>(*out);
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t i = 0; i < ni; ++i) {
          const T* src = p + (a * dim + indices[static_cast<size_t>(i)]) * inner;
          std::copy(src, src + inner, o + (a * ni + i) * inner);
        }
    });
  }

 private:
  bool v2_;
};

class PadKernel : public OpKernel {
 public:
  explicit PadKernel(int mode) : mode_(mode) {}  // 0 Pad, 1 PadV2, 2 MirrorPad
  Status init(const KernelInit& init) override {
    if (mode_ == 2) {
      std::string m;
      GDS_RETURN_IF_ERROR(init.getAttr("mode", &m));
      if (m == "REFLECT") reflect_ = true;
      else if (m == "SYMMETRIC") reflect_ = false;
      else return init.error("mode must be REFLECT or SYMMETRIC, got '" + m + "'");
    }
    Shape in;
    std::vector<int64_t> pads;
    if (init.inputShape(0, &in) && kern::constInts(init, 1, &pads) && pads.size() == 2 * in.size()) {
      static_ = in;
      for (size_t d = 0; d < in.size(); ++d)
        if (in[d] >= 0) static_[d] = in[d] + pads[2 * d] + pads[2 * d + 1];
      known_ = true;
    }
    return Status::Ok();
  }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    if (!known_) return false;
    *shapes = {static_};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> pads;
    GDS_RETURN_IF_ERROR(kern::readInts(ctx, 1, "paddings", &pads));
    const size_t r = static_cast<size_t>(x.dims());
    if (pads.size() != 2 * r)
      return ctx.error("paddings must have shape [" + std::to_string(r) + ",2] for input " + shapeStr(x.shape()) +
                       ", got " + shapeStr(ctx.input(1).shape()));
    const Tensor* pad_value = nullptr;
    if (mode_ == 1) {
      pad_value = &ctx.input(2);
      if (pad_value->numElements() != 1 || pad_value->dtype() != x.dtype())
        return ctx.error("constant_values must be a scalar of the input's dtype");
    }
    Shape out_shape(r);
    std::vector<std::vector<int64_t>> maps(r);
    for (size_t d = 0; d < r; ++d) {
      const int64_t before = pads[2 * d], after = pads[2 * d + 1], dim = x.shape()[d];
      if (before < 0 || after < 0) return ctx.error("paddings " + shapeStr(pads) + " must be non-negative");
      if (mode_ == 2) {
        const int64_t limit = reflect_ ? dim - 1 : dim;
        if (before > limit || after > limit)
          return ctx.error("paddings in dimension " + std::to_string(d) + " must be at most " + std::to_string(limit) +
                           " for " + (reflect_ ? "REFLECT" : "SYMMETRIC") + " mode with input " + shapeStr(x.shape()));
      }
      out_shape[d] = dim + before + after;
      maps[d].resize(static_cast<size_t>(out_shape[d]));
      for (int64_t o = 0; o < out_shape[d]; ++o) {
        int64_t i = o - before;
        if (i < 0 || i >= dim) {
          if (mode_ != 2) i = -1;
          else if (i < 0) i = reflect_ ? -i : -i - 1;
          else i = reflect_ ? 2 * dim - 2 - i : 2 * dim - 1 - i;
        }
        maps[d][static_cast<size_t>(o)] = i;
      }
    }
    return runMaps(ctx, x, out_shape, maps, pad_value);
  }

 private:
  int mode_;
  bool reflect_ = true;
  Shape static_;
  bool known_ = false;
};

}  // namespace

void registerArrayKernels(KernelRegistry& r) {
  r.add("ConcatV2", [] { return std::make_unique<ConcatKernel>(0); });
  r.add("Concat", [] { return std::make_unique<ConcatKernel>(1); });
  r.add("Pack", [] { return std::make_unique<ConcatKernel>(2); });
  r.add("Split", [] { return std::make_unique<SplitKernel>(0); });
  r.add("SplitV", [] { return std::make_unique<SplitKernel>(1); });
  r.add("Unpack", [] { return std::make_unique<SplitKernel>(2); });
  r.add("Slice", [] { return std::make_unique<SliceKernel>(); });
  r.add("StridedSlice", [] { return std::make_unique<StridedSliceKernel>(); });
  r.add("Tile", [] { return std::make_unique<TileKernel>(); });
  r.add("Transpose", [] { return std::make_unique<TransposeKernel>(); });
  r.add("Gather", [] { return std::make_unique<GatherKernel>(false); });
  r.add("GatherV2", [] { return std::make_unique<GatherKernel>(true); });
  r.add("Pad", [] { return std::make_unique<PadKernel>(0); });
  r.add("PadV2", [] { return std::make_unique<PadKernel>(1); });
  r.add("MirrorPad", [] { return std::make_unique<PadKernel>(2); });
}

}  // namespace gds::engine
