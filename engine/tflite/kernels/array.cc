// The TFLite dialect's ops that move elements without arithmetic (int8
// keeps its quantization): tfl.transpose, tfl.strided_slice, tfl.slice,
// tfl.pad, tfl.padv2, tfl.reshape, tfl.squeeze and tfl.concatenation (which
// clamps to the fused activation).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "engine/tflite/kernels/kernel_util.h"

namespace gds::engine::tflkern {

namespace {

// tfl.transpose (reference_ops::Transpose): the elements moved, float32,
// int8 or int16 (the output keeps the input's quantization).
class TransposeKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects input and perm");
    return readType(init, /*allow_int16=*/true);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> perm;
    if (!intValues(ctx.input(1), &perm)) return ctx.error("perm (input 1) must be int32 or int64");
    const std::int64_t rank = x.dims();
    if (static_cast<std::int64_t>(perm.size()) != rank)
      return ctx.error("perm has " + std::to_string(perm.size()) + " entries for input " + shapeStr(x.shape()));
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    Shape out_shape;
    for (std::int64_t& p : perm) {
      if (p < 0) p += rank;
      if (p < 0 || p >= rank || seen[static_cast<std::size_t>(p)])
        return ctx.error("perm is not a permutation of the " + std::to_string(rank) + " dimensions of input " +
                         shapeStr(x.shape()));
      seen[static_cast<std::size_t>(p)] = true;
      out_shape.push_back(x.dim(static_cast<int>(p)));
    }
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    // Input strides in output dimension order.
    std::vector<std::int64_t> in_stride(static_cast<std::size_t>(rank), 1), stride(static_cast<std::size_t>(rank));
    for (std::int64_t d = rank - 2; d >= 0; --d)
      in_stride[static_cast<std::size_t>(d)] = in_stride[static_cast<std::size_t>(d + 1)] * x.dim(static_cast<int>(d + 1));
    for (std::int64_t d = 0; d < rank; ++d)
      stride[static_cast<std::size_t>(d)] = in_stride[static_cast<std::size_t>(perm[static_cast<std::size_t>(d)])];
    const std::size_t size = model::dtypeSize(type_);
    const auto* src = static_cast<const std::uint8_t*>(x.raw());
    auto* dst = static_cast<std::uint8_t*>(y->raw());
    std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
    const std::int64_t n = y->numElements();
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t offset = 0;
      for (std::int64_t d = 0; d < rank; ++d) offset += index[static_cast<std::size_t>(d)] * stride[static_cast<std::size_t>(d)];
      std::memcpy(dst + static_cast<std::size_t>(i) * size, src + static_cast<std::size_t>(offset) * size, size);
      for (std::int64_t d = rank - 1; d >= 0; --d) {
        if (++index[static_cast<std::size_t>(d)] < out_shape[static_cast<std::size_t>(d)]) break;
        index[static_cast<std::size_t>(d)] = 0;
      }
    }
    return Status::Ok();
  }
};

// tfl.strided_slice (strided_slice.cc, reference_ops::StridedSlice): the
// selected elements moved, of any fixed-size type (an int8 output keeps the
// input's quantization, as the converter writes it).
class SliceKernelBase : public TflKernel {
 protected:
  Status readElementType(const KernelInit& init, const char* op) {
    type_ = init.inputType(0);
    if (type_ == tensorflow::DT_STRING || model::dtypeSize(type_) == 0)
      return init.error("input 0 is " + model::dtypeName(type_) + "; this op moves fixed-size elements");
    if (type_ == DT_INT8 || type_ == DT_INT16) {
      const mt::Quantization in = inputQuantization(init, 0), out = mt::quantizationOf(init.node(), 0);
      if (!(in == out))
        return init.error(model::dtypeName(type_) + " " + op +
                          " needs the input and output quantization to be equal (input " + in.str() + ", output " +
                          out.str() + ")");
    }
    return Status::Ok();
  }
  // Index input k as int32 values.
  static Status indexValues(const KernelContext& ctx, int k, const char* what, std::vector<std::int64_t>* out) {
    const Tensor& t = ctx.input(k);
    if ((t.dtype() != DT_INT32 && t.dtype() != DT_INT64) || t.dims() != 1)
      return ctx.error(std::string(what) + " (input " + std::to_string(k) +
                       ") must be a 1-D int32 or int64 tensor, got " + model::dtypeName(t.dtype()) +
                       shapeStr(t.shape()));
    intValues(t, out);
    return Status::Ok();
  }
  Status slice(KernelContext& ctx, const tflite::StridedSliceParams& p) const {
    const Tensor& x = ctx.input(0);
    tflite::StridedSliceWalk walk;
    std::string error;
    if (!tflite::stridedSlicePlan(p, x.shape(), &walk, &error))
      return ctx.error(error + " (input " + shapeStr(x.shape()) + ")");
    Tensor* y = ctx.allocateOutput(0, type_, walk.output_shape);
    tflite::stridedSliceReference(walk, model::dtypeSize(type_), x.raw(), y->raw());
    return Status::Ok();
  }
};

class StridedSliceKernel : public SliceKernelBase {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 4) return init.error("expects input, begin, end and strides");
    GDS_RETURN_IF_ERROR(readElementType(init, "STRIDED_SLICE"));
    for (const char* mask : {"ellipsis_mask", "new_axis_mask"}) {
      std::int64_t value = 0;
      GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>(mask, &value, 0));
      if (value != 0)
        return init.error(std::string(mask) + " is " + std::to_string(value) +
                          "; gdstudio runs STRIDED_SLICE without ellipsis and new axes (TensorFlow's converter "
                          "rewrites them into the begin/end masks and a RESHAPE)");
    }
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("begin_mask", &params_.begin_mask, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("end_mask", &params_.end_mask, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("shrink_axis_mask", &params_.shrink_axis_mask, 0));
    return init.getAttrOr<bool>("offset", &params_.offset, false);
  }
  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    tflite::StridedSliceParams p = params_;
    GDS_RETURN_IF_ERROR(indexValues(ctx, 1, "begin", &p.begin));
    GDS_RETURN_IF_ERROR(indexValues(ctx, 2, "end", &p.end));
    GDS_RETURN_IF_ERROR(indexValues(ctx, 3, "strides", &p.strides));
    return slice(ctx, p);
  }

 private:
  tflite::StridedSliceParams params_;
};

// tfl.slice (slice.cc, reference_ops::Slice): size[d] elements from
// begin[d] (-1: to the end); begin + size must stay inside the input.
class SliceKernel : public SliceKernelBase {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 3) return init.error("expects input, begin and size");
    return readElementType(init, "SLICE");
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> begin, size;
    GDS_RETURN_IF_ERROR(indexValues(ctx, 1, "begin", &begin));
    GDS_RETURN_IF_ERROR(indexValues(ctx, 2, "size", &size));
    if (static_cast<int>(begin.size()) != x.dims() || static_cast<int>(size.size()) != x.dims())
      return ctx.error("begin and size need one entry per dimension of input " + shapeStr(x.shape()));
    tflite::StridedSliceParams p;
    for (int d = 0; d < x.dims(); ++d) {
      const std::int64_t b = begin[static_cast<std::size_t>(d)], n = size[static_cast<std::size_t>(d)];
      if (b < 0 || b > x.dim(d) || n < -1 || (n >= 0 && b + n > x.dim(d)))
        return ctx.error("begin " + std::to_string(b) + " and size " + std::to_string(n) + " of dimension " +
                         std::to_string(d) + " do not fit input " + shapeStr(x.shape()));
      p.begin.push_back(b);
      p.end.push_back(n < 0 ? x.dim(d) : b + n);
      p.strides.push_back(1);
    }
    return slice(ctx, p);
  }
};

// tfl.pad, tfl.padv2 (constant padding).
class PadKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() < 2) return init.error("expects input and paddings");
    type_ = init.inputType(0);
    if (type_ != DT_FLOAT && type_ != DT_INT8 && type_ != DT_INT16)
      return init.error("input 0 must be float32, int8 or int16");
    if (type_ == DT_INT16) {
      QParams out;
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out, DT_INT16));  // zero point 0: the pad value
    }
    if (type_ == DT_INT8) {
      QParams out;
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
      // pad.cc: int8 tensors are padded with the output zero point. Arm NN
      // 20.08's Pad.cpp encodes its pad value 0.0f with scale 1 and offset 0
      // instead ("for quantized types Pad Value should not be quantized"):
      // the stored value 0, whatever the zero point.
      pad_int8_ = init.arithmetic() == lowp::Arithmetic::kArmnn ? 0 : static_cast<std::int8_t>(out.zero_point);
    }
    has_value_ = init.numInputs() > 2 && !absent(init, 2);
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> pads;
    if (!intValues(ctx.input(1), &pads) || static_cast<std::int64_t>(pads.size()) != 2 * x.dims())
      return ctx.error("paddings (input 1) must be int32/int64 [" + std::to_string(x.dims()) + ", 2], got " +
                       shapeStr(ctx.input(1).shape()));
    Shape out_shape;
    for (int d = 0; d < x.dims(); ++d) {
      const std::int64_t lo = pads[2 * static_cast<std::size_t>(d)], hi = pads[2 * static_cast<std::size_t>(d) + 1];
      if (lo < 0 || hi < 0) return ctx.error("paddings must be >= 0");
      out_shape.push_back(x.dim(d) + lo + hi);
    }
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    const std::size_t esize = type_ == DT_FLOAT ? 4 : type_ == DT_INT16 ? 2 : 1;
    // Fill with the pad value, then copy the input rows in.
    if (type_ == DT_FLOAT) {
      float v = 0.0f;
      if (has_value_) {
        GDS_RETURN_IF_ERROR(requireType(ctx, 2, DT_FLOAT));
        v = ctx.input(2).data<float>()[0];
      }
      std::fill(y->data<float>(), y->data<float>() + y->numElements(), v);
    } else if (type_ == DT_INT16) {
      std::int16_t v = 0;
      if (has_value_) {
        GDS_RETURN_IF_ERROR(requireType(ctx, 2, DT_INT16));
        v = ctx.input(2).data<std::int16_t>()[0];
      }
      std::fill(y->data<std::int16_t>(), y->data<std::int16_t>() + y->numElements(), v);
    } else {
      std::int8_t v = pad_int8_;
      if (has_value_) {
        GDS_RETURN_IF_ERROR(requireType(ctx, 2, DT_INT8));
        v = ctx.input(2).data<std::int8_t>()[0];
      }
      std::fill(y->data<std::int8_t>(), y->data<std::int8_t>() + y->numElements(), v);
    }
    if (x.numElements() == 0) return Status::Ok();
    // The input's rows along the last padded dimension (`last`) are
    // contiguous in both tensors, with the unpadded dimensions after it:
    // one copy each (a [1, 224, 224, 3] image padded in height and width:
    // 224 copies of 672 bytes, not 50176 of 3).
    int last = -1;
    for (int d = 0; d < x.dims(); ++d)
      if (pads[2 * static_cast<std::size_t>(d)] != 0 || pads[2 * static_cast<std::size_t>(d) + 1] != 0) last = d;
    std::int64_t inner = 1;
    for (int d = last + 1; d < x.dims(); ++d) inner *= x.dim(d);
    const std::int64_t row = last < 0 ? inner : x.dim(last) * inner;
    const std::int64_t rows = x.numElements() / row;
    std::vector<std::int64_t> idx(static_cast<std::size_t>(std::max(last, 0)), 0);
    const auto* src = static_cast<const unsigned char*>(x.raw());
    auto* dst = static_cast<unsigned char*>(y->raw());
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t off = 0;  // in elements of the output, over dimensions [0, last]
      for (int d = 0; d <= last; ++d) {
        const std::int64_t i = d < last ? idx[static_cast<std::size_t>(d)] : 0;
        off = off * out_shape[static_cast<std::size_t>(d)] + i + pads[2 * static_cast<std::size_t>(d)];
      }
      std::memcpy(dst + static_cast<std::size_t>(off * inner) * esize, src + static_cast<std::size_t>(r * row) * esize,
                  static_cast<std::size_t>(row) * esize);
      for (int d = last - 1; d >= 0; --d) {
        if (++idx[static_cast<std::size_t>(d)] < x.dim(d)) break;
        idx[static_cast<std::size_t>(d)] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  std::int8_t pad_int8_ = 0;
  bool has_value_ = false;
};

// tfl.reshape and tfl.squeeze: the same bytes under a new shape.
enum class ReshapeForm { kReshape, kSqueeze };

class ReshapeKernel : public TflKernel {
 public:
  explicit ReshapeKernel(ReshapeForm form) : squeeze_(form == ReshapeForm::kSqueeze) {}
  Status init(const KernelInit& init) override {
    if (squeeze_) return init.getAttrOr<std::vector<std::int64_t>>("squeeze_dims", &dims_, {});
    has_shape_input_ = init.numInputs() > 1 && !absent(init, 1);
    if (!has_shape_input_) GDS_RETURN_IF_ERROR(init.getAttrOr<std::vector<std::int64_t>>("new_shape", &dims_, {}));
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Shape shape;
    if (squeeze_) {
      std::vector<bool> drop(static_cast<std::size_t>(x.dims()), false);
      for (std::int64_t d : dims_) {
        if (d < -x.dims() || d >= x.dims())
          return ctx.error("squeeze_dims " + std::to_string(d) + " is out of range for " + shapeStr(x.shape()));
        const std::int64_t k = d < 0 ? d + x.dims() : d;
        if (x.dim(static_cast<int>(k)) != 1)
          return ctx.error("cannot squeeze dimension " + std::to_string(k) + " of " + shapeStr(x.shape()));
        drop[static_cast<std::size_t>(k)] = true;
      }
      for (int d = 0; d < x.dims(); ++d)
        if (!(dims_.empty() ? x.dim(d) == 1 : drop[static_cast<std::size_t>(d)])) shape.push_back(x.dim(d));
    } else {
      std::vector<std::int64_t> dims = dims_;
      if (has_shape_input_ && !intValues(ctx.input(1), &dims))
        return ctx.error("shape (input 1) must be int32 or int64");
      std::int64_t known = 1, unknown = -1;
      for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == -1 && unknown < 0) unknown = static_cast<std::int64_t>(i);
        else if (dims[i] < 0) return ctx.error("new shape has an invalid dimension " + std::to_string(dims[i]));
        else known *= dims[i];
      }
      if (unknown >= 0) {
        if (known == 0 || x.numElements() % known != 0)
          return ctx.error("cannot reshape " + shapeStr(x.shape()) + " to " + shapeStr(dims));
        dims[static_cast<std::size_t>(unknown)] = x.numElements() / known;
      }
      shape = dims;
    }
    if (model::numElements(shape) != x.numElements())
      return ctx.error("cannot reshape " + shapeStr(x.shape()) + " (" + std::to_string(x.numElements()) +
                       " elements) to " + shapeStr(shape));
    ctx.setOutput(0, x.reshaped(shape));
    return Status::Ok();
  }

 private:
  bool squeeze_;
  bool has_shape_input_ = false;
  std::vector<std::int64_t> dims_;
};

// tfl.concatenation.
class ConcatKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() < 1) return init.error("expects at least one input");
    GDS_RETURN_IF_ERROR(readType(init, true));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("axis", &axis_, 0));
    GDS_RETURN_IF_ERROR(readActivation(init));
    if (type_ != DT_FLOAT) {
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out_, type_));
      if (type_ == DT_INT16) GDS_RETURN_IF_ERROR(int16ActivationRange(init, out_));
      else GDS_RETURN_IF_ERROR(int8ActivationRange(init, out_));
      // concatenation.cc Prepare: int8 and int16 inputs are not rescaled,
      // each must have the output's scale and zero point (the converter
      // requantizes).
      const std::string name = model::dtypeName(type_);
      for (int i = 0; i < init.numInputs(); ++i) {
        QParams q;
        GDS_RETURN_IF_ERROR(perTensor(init, i, &q, type_));
        if (q.scale != out_.scale || q.zero_point != out_.zero_point)
          return init.error("input " + std::to_string(i) + " has scale " + std::to_string(q.scale) + " zero point " +
                            std::to_string(q.zero_point) + "; TensorFlow Lite's " + name +
                            " CONCATENATION needs the output's (" + std::to_string(out_.scale) + ", " +
                            std::to_string(out_.zero_point) + ")");
      }
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x0 = ctx.input(0);
    const std::int64_t rank = x0.dims();
    std::int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    if (axis < 0 || axis >= rank) return ctx.error("axis " + std::to_string(axis_) + " is out of range for " + shapeStr(x0.shape()));
    Shape out_shape = x0.shape();
    out_shape[static_cast<std::size_t>(axis)] = 0;
    for (int i = 0; i < ctx.numInputs(); ++i) {
      const Tensor& x = ctx.input(i);
      GDS_RETURN_IF_ERROR(requireType(ctx, i, type_));
      if (x.dims() != rank) return ctx.error("input " + std::to_string(i) + " has rank " + std::to_string(x.dims()));
      for (std::int64_t d = 0; d < rank; ++d)
        if (d != axis && x.dim(static_cast<int>(d)) != x0.dim(static_cast<int>(d)))
          return ctx.error("input " + std::to_string(i) + " " + shapeStr(x.shape()) + " does not match " +
                           shapeStr(x0.shape()) + " outside axis " + std::to_string(axis));
      out_shape[static_cast<std::size_t>(axis)] += x.dim(static_cast<int>(axis));
    }
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    std::int64_t outer = 1;
    for (std::int64_t d = 0; d < axis; ++d) outer *= out_shape[static_cast<std::size_t>(d)];
    const std::int64_t out_row = outer == 0 ? 0 : y->numElements() / std::max<std::int64_t>(outer, 1);
    std::int64_t col = 0;
    for (int i = 0; i < ctx.numInputs(); ++i) {
      const Tensor& x = ctx.input(i);
      const std::int64_t row = outer == 0 ? 0 : x.numElements() / std::max<std::int64_t>(outer, 1);
      for (std::int64_t o = 0; o < outer; ++o) {
        if (type_ == DT_FLOAT) {
          const float* src = x.data<float>() + o * row;
          float* dst = y->data<float>() + o * out_row + col;
          for (std::int64_t j = 0; j < row; ++j) dst[j] = std::min(std::max(src[j], fmin_), fmax_);
        } else if (type_ == DT_INT16) {
          copyClamped(x.data<std::int16_t>() + o * row, row, y->data<std::int16_t>() + o * out_row + col);
        } else {
          copyClamped(x.data<std::int8_t>() + o * row, row, y->data<std::int8_t>() + o * out_row + col);
        }
      }
      col += row;
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void copyClamped(const T* src, std::int64_t n, T* dst) const {
    for (std::int64_t j = 0; j < n; ++j)
      dst[j] = static_cast<T>(std::min<std::int32_t>(std::max<std::int32_t>(src[j], qmin_), qmax_));
  }

  std::int64_t axis_ = 0;
  QParams out_;
};

}  // namespace

void registerArrayKernels(KernelRegistry& registry) {
  registry.add("tfl.pad", make<PadKernel>());
  registry.add("tfl.padv2", make<PadKernel>());
  registry.add("tfl.reshape", make<ReshapeKernel>(ReshapeForm::kReshape));
  registry.add("tfl.squeeze", make<ReshapeKernel>(ReshapeForm::kSqueeze));
  registry.add("tfl.concatenation", make<ConcatKernel>());
  registry.add("tfl.transpose", make<TransposeKernel>());
  registry.add("tfl.strided_slice", make<StridedSliceKernel>());
  registry.add("tfl.slice", make<SliceKernel>());
}

}  // namespace gds::engine::tflkern
