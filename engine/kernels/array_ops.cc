// One file just over 600 lines on purpose: one kernel family registered
// together, sharing withStorage and checkMaps; a split would only add a header.
//
// Data-movement kernels for every dtype (strings included): ConcatV2,
// Concat, Pack, Unpack, Split, SplitV, Slice, StridedSlice (all masks, as
// tensorflow/core/util/strided_slice_op.cc), Tile, Transpose, Gather,
// GatherV2, Pad, PadV2, MirrorPad (REFLECT/SYMMETRIC). The index math is
// engine/ops/array.h and engine/ops/strided_slice.h.
#include <algorithm>
#include <functional>
#include <numeric>

#include "engine/allocation.h"
#include "engine/kernels/kernel_util.h"
#include "engine/ops/array.h"
#include "engine/ops/strided_slice.h"
#include "model/memory_budget.h"
#include "model/shape_inference.h"

namespace gds::engine {
namespace {

using kern::shapeStr;
using ops::buildStridedSlice;
using ops::gatherByDimMaps;
using ops::StridedSliceSpec;
using ops::stridesOf;
using std::int64_t;

template <typename Fn>
Status withStorage(KernelContext& ctx, DataType dtype, Fn&& fn) {
  if (!kern::dispatchStorage(dtype, fn)) return ctx.error("unsupported dtype " + model::dtypeName(dtype));
  return Status::Ok();
}

// Before runMaps' per-dimension index tables are built: the output must fit
// the budget, and so must each table (a zero dimension elsewhere can make the
// output empty while one table would be huge).
Status checkMaps(KernelContext& ctx, DataType dtype, const Shape& out_shape) {
  if (Status s = checkOutputAllocation(0, dtype, out_shape); !s.ok()) return ctx.error(s.message());
  for (size_t d = 0; d < out_shape.size(); ++d) {
    Status s = model::checkAllocation(out_shape[d], sizeof(int64_t),
                                      "index table of dimension " + std::to_string(d) + " of output 0");
    if (!s.ok()) return ctx.error(s.message());
  }
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

// Which op a ConcatKernel runs: ConcatV2 takes the axis as its last input,
// Concat as its first, Pack from an attr and stacks along a new dimension.
enum class ConcatForm { kConcatV2, kConcat, kPack };

class ConcatKernel : public OpKernel {
 public:
  explicit ConcatKernel(ConcatForm form) : form_(form) {}
  Status init(const KernelInit& init) override {
    int n = init.numInputs() - (form_ == ConcatForm::kPack ? 0 : 1);
    if (n < 1) return init.error("expects at least one value input");
    if (form_ == ConcatForm::kPack) GDS_RETURN_IF_ERROR(init.getAttrOr<int64_t>("axis", &pack_axis_, 0));
    // Static output shape when every input shape and the axis are known.
    std::vector<Shape> shapes;
    for (int i = 0; i < n; ++i) {
      Shape s;
      if (!init.inputShape(valueIndex(i), &s)) return Status::Ok();
      shapes.push_back(s);
    }
    int64_t axis = pack_axis_;
    if (form_ != ConcatForm::kPack) {
      std::vector<int64_t> a;
      const int axis_input = form_ == ConcatForm::kConcatV2 ? init.numInputs() - 1 : 0;
      if (!kern::constInts(init, axis_input, &a) || a.size() != 1) return Status::Ok();
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
    const int n = ctx.numInputs() - (form_ == ConcatForm::kPack ? 0 : 1);
    int64_t axis = pack_axis_;
    if (form_ != ConcatForm::kPack) {
      std::vector<int64_t> a;
      GDS_RETURN_IF_ERROR(kern::readInts(ctx, form_ == ConcatForm::kConcatV2 ? ctx.numInputs() - 1 : 0, "axis", &a));
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
  int valueIndex(int i) const { return form_ == ConcatForm::kConcat ? i + 1 : i; }
  bool outShape(const std::vector<Shape>& shapes, int64_t axis, Shape* out, int64_t* axis_out, std::string* err,
                bool partial) const {
    const Shape& s0 = shapes[0];
    const int64_t rank = static_cast<int64_t>(s0.size()) + (form_ == ConcatForm::kPack ? 1 : 0);
    int64_t a;
    if (!kern::normalizeAxis(axis, rank, &a)) {
      *err = "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank);
      return false;
    }
    if (axis_out) *axis_out = a;
    *out = s0;
    if (form_ == ConcatForm::kPack) out->insert(out->begin() + a, static_cast<int64_t>(shapes.size()));
    for (size_t i = 1; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      bool ok = s.size() == s0.size();
      for (size_t d = 0; ok && d < s.size(); ++d) {
        if (form_ != ConcatForm::kPack && static_cast<int64_t>(d) == a) continue;
        if (s[d] != s0[d] && !(partial && (s[d] < 0 || s0[d] < 0))) ok = false;
      }
      if (!ok) {
        *err = std::string(form_ == ConcatForm::kPack ? "all values must have the same shape" :
                                                        "dimensions of the values must match except along the axis") +
               ": value 0 is " + shapeStr(s0) + ", value " + std::to_string(i) + " is " + shapeStr(s);
        return false;
      }
      if (form_ != ConcatForm::kPack) {
        int64_t& d = (*out)[static_cast<size_t>(a)];
        d = (d < 0 || s[static_cast<size_t>(a)] < 0) ? -1 : d + s[static_cast<size_t>(a)];
      }
    }
    return true;
  }
  ConcatForm form_;
  int64_t pack_axis_ = 0;
  Shape static_;
  bool known_ = false;
};

// Which op a SplitKernel runs: Split (split_dim, value), SplitV (value,
// size_splits, split_dim) or Unpack (num and axis attrs, drops the axis).
enum class SplitForm { kSplit, kSplitV, kUnpack };

class SplitKernel : public OpKernel {
 public:
  explicit SplitKernel(SplitForm form) : form_(form) {}
  Status init(const KernelInit& init) override {
    if (form_ == SplitForm::kUnpack) {
      GDS_RETURN_IF_ERROR(init.getAttr("num", &num_));
      GDS_RETURN_IF_ERROR(init.getAttrOr<int64_t>("axis", &axis_, 0));
    } else {
      GDS_RETURN_IF_ERROR(init.getAttr("num_split", &num_));
    }
    if (num_ < 1 && form_ != SplitForm::kUnpack) return init.error("num_split must be at least 1");
    if (num_ > model::kMaxNodeOutputs)
      return init.error(std::string(form_ == SplitForm::kUnpack ? "num" : "num_split") + " is " +
                        std::to_string(num_) + "; a node has at most " + std::to_string(model::kMaxNodeOutputs) +
                        " outputs");
    return Status::Ok();
  }
  int numOutputs(const KernelInit&) const override { return static_cast<int>(std::max<int64_t>(num_, 1)); }
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    return std::vector<DataType>(static_cast<size_t>(std::max<int64_t>(num_, 1)),
                                 init.inputType(form_ == SplitForm::kSplit ? 1 : 0));
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(form_ == SplitForm::kSplit ? 1 : 0);
    int64_t axis = axis_;
    if (form_ != SplitForm::kUnpack) {
      std::vector<int64_t> a;
      GDS_RETURN_IF_ERROR(kern::readInts(ctx, form_ == SplitForm::kSplit ? 0 : 2, "split_dim", &a));
      if (a.size() != 1) return ctx.error("split_dim must be a scalar");
      axis = a[0];
    }
    int64_t ax;
    if (!kern::normalizeAxis(axis, x.dims(), &ax))
      return ctx.error("axis " + std::to_string(axis) + " is out of range for input shape " + shapeStr(x.shape()));
    const int64_t dim = x.dim(static_cast<int>(ax));
    std::vector<int64_t> sizes;
    if (form_ == SplitForm::kSplit) {
      if (dim % num_ != 0)
        return ctx.error("number of ways to split (" + std::to_string(num_) + ") must evenly divide the split "
                         "dimension (" + std::to_string(dim) + ")");
      sizes.assign(static_cast<size_t>(num_), dim / num_);
    } else if (form_ == SplitForm::kUnpack) {
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
        if (form_ == SplitForm::kUnpack) s.erase(s.begin() + ax);
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
  SplitForm form_;
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
    for (size_t d = 0; d < mult.size(); ++d) {
      if (mult[d] < 0) return ctx.error("multiples " + shapeStr(mult) + " must be non-negative");
      if (__builtin_mul_overflow(x.shape()[d], mult[d], &out_shape[d]))
        return ctx.error("multiples " + shapeStr(mult) + " of " + shapeStr(x.shape()) + " overflow 64 bits");
    }
    GDS_RETURN_IF_ERROR(checkMaps(ctx, x.dtype(), out_shape));
    std::vector<std::vector<int64_t>> maps(mult.size());
    for (size_t d = 0; d < mult.size(); ++d) {
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

// Gather gathers along axis 0; GatherV2 reads the axis from its third input.
enum class GatherForm { kGather, kGatherV2 };

class GatherKernel : public OpKernel {
 public:
  explicit GatherKernel(GatherForm form) : form_(form) {}
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
    if (form_ == GatherForm::kGatherV2) {
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
  GatherForm form_;
};

// Pad fills with zeros, PadV2 with its constant_values input, MirrorPad
// reflects the input (REFLECT or SYMMETRIC mode attr).
enum class PadForm { kPad, kPadV2, kMirrorPad };

class PadKernel : public OpKernel {
 public:
  explicit PadKernel(PadForm form) : form_(form) {}
  Status init(const KernelInit& init) override {
    if (form_ == PadForm::kMirrorPad) {
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
    if (form_ == PadForm::kPadV2) {
      pad_value = &ctx.input(2);
      if (pad_value->numElements() != 1 || pad_value->dtype() != x.dtype())
        return ctx.error("constant_values must be a scalar of the input's dtype");
    }
    Shape out_shape(r);
    std::vector<std::vector<int64_t>> maps(r);
    for (size_t d = 0; d < r; ++d) {
      const int64_t before = pads[2 * d], after = pads[2 * d + 1], dim = x.shape()[d];
      if (before < 0 || after < 0) return ctx.error("paddings " + shapeStr(pads) + " must be non-negative");
      if (form_ == PadForm::kMirrorPad) {
        const int64_t limit = reflect_ ? dim - 1 : dim;
        if (before > limit || after > limit)
          return ctx.error("paddings in dimension " + std::to_string(d) + " must be at most " + std::to_string(limit) +
                           " for " + (reflect_ ? "REFLECT" : "SYMMETRIC") + " mode with input " + shapeStr(x.shape()));
      }
      if (__builtin_add_overflow(dim, before, &out_shape[d]) || __builtin_add_overflow(out_shape[d], after, &out_shape[d]))
        return ctx.error("paddings " + shapeStr(pads) + " of " + shapeStr(x.shape()) + " overflow 64 bits");
    }
    GDS_RETURN_IF_ERROR(checkMaps(ctx, x.dtype(), out_shape));
    for (size_t d = 0; d < r; ++d) {
      const int64_t before = pads[2 * d], dim = x.shape()[d];
      maps[d].resize(static_cast<size_t>(out_shape[d]));
      for (int64_t o = 0; o < out_shape[d]; ++o) {
        int64_t i = o - before;
        if (i < 0 || i >= dim) {
          if (form_ != PadForm::kMirrorPad) i = -1;
          else if (i < 0) i = reflect_ ? -i : -i - 1;
          else i = reflect_ ? 2 * dim - 2 - i : 2 * dim - 1 - i;
        }
        maps[d][static_cast<size_t>(o)] = i;
      }
    }
    return runMaps(ctx, x, out_shape, maps, pad_value);
  }

 private:
  PadForm form_;
  bool reflect_ = true;
  Shape static_;
  bool known_ = false;
};

}  // namespace

void registerArrayKernels(KernelRegistry& r) {
  r.add("ConcatV2", [] { return std::make_unique<ConcatKernel>(ConcatForm::kConcatV2); });
  r.add("Concat", [] { return std::make_unique<ConcatKernel>(ConcatForm::kConcat); });
  r.add("Pack", [] { return std::make_unique<ConcatKernel>(ConcatForm::kPack); });
  r.add("Split", [] { return std::make_unique<SplitKernel>(SplitForm::kSplit); });
  r.add("SplitV", [] { return std::make_unique<SplitKernel>(SplitForm::kSplitV); });
  r.add("Unpack", [] { return std::make_unique<SplitKernel>(SplitForm::kUnpack); });
  r.add("Slice", [] { return std::make_unique<SliceKernel>(); });
  r.add("StridedSlice", [] { return std::make_unique<StridedSliceKernel>(); });
  r.add("Tile", [] { return std::make_unique<TileKernel>(); });
  r.add("Transpose", [] { return std::make_unique<TransposeKernel>(); });
  r.add("Gather", [] { return std::make_unique<GatherKernel>(GatherForm::kGather); });
  r.add("GatherV2", [] { return std::make_unique<GatherKernel>(GatherForm::kGatherV2); });
  r.add("Pad", [] { return std::make_unique<PadKernel>(PadForm::kPad); });
  r.add("PadV2", [] { return std::make_unique<PadKernel>(PadForm::kPadV2); });
  r.add("MirrorPad", [] { return std::make_unique<PadKernel>(PadForm::kMirrorPad); });
}

}  // namespace gds::engine
