// The TFLite dialect's ops that combine a window or an axis of the input:
// tfl.average_pool_2d, tfl.max_pool_2d, tfl.mean, tfl.arg_max and
// tfl.resize_bilinear.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/tflite/fast.h"
#include "engine/tflite/kernels/kernel_util.h"

namespace gds::engine::tflkern {

namespace {

// tfl.average_pool_2d, tfl.max_pool_2d.
enum class PoolKind { kAverage, kMax };

class PoolKernel : public TflKernel {
 public:
  explicit PoolKernel(PoolKind kind) : max_(kind == PoolKind::kMax) {}
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(readType(init, true));
    GDS_RETURN_IF_ERROR(init.getAttr("padding", &padding_));
    if (padding_ != "SAME" && padding_ != "VALID") return init.error("padding must be SAME or VALID, got " + padding_);
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("stride_h", &stride_h_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("stride_w", &stride_w_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("filter_height", &k_h_, 1));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("filter_width", &k_w_, 1));
    GDS_RETURN_IF_ERROR(readActivation(init));
    if (type_ == DT_INT16) {
      QParams in, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in, DT_INT16));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out, DT_INT16));
      if (in.scale != out.scale)
        return init.error("int16 pooling needs the input and output quantization to be equal");
      GDS_RETURN_IF_ERROR(int16ActivationRange(init, out));
    }
    if (type_ == DT_INT8) {
      QParams in, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out));
      // TFLite's int8 pools work on raw values: the input and output share
      // their quantization (pooling.cc checks it).
      if (in.scale != out.scale || in.zero_point != out.zero_point)
        return init.error("int8 pooling needs the input and output quantization to be equal");
      // XNNPACK's delegate takes int8 MAX_POOL_2D (its clamp from
      // xnn_qs8_quantize of the activation's bounds), not AVERAGE_POOL_2D.
      GDS_RETURN_IF_ERROR(int8ActivationRange(init, out, max_ && xnnpack()));
      q_ = {in.scale, in.zero_point};
      if (armnn()) {
        lowp::armnn::Activation a;
        GDS_RETURN_IF_ERROR(armnnActivation(init, &a));
        armnn_activation_ = a != lowp::armnn::Activation::kNone;
        if (armnn_activation_) activation_table_ = lowp::armnn::activationTable(a, q_, q_);
      }
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    if (x.dims() != 4) return ctx.error("input must be 4-D NHWC, got " + shapeStr(x.shape()));
    ops::ConvGeometry s;
    s.batch = x.dim(0);
    s.in_h = x.dim(1);
    s.in_w = x.dim(2);
    s.in_c = s.out_c = x.dim(3);
    s.filter_h = k_h_;
    s.filter_w = k_w_;
    s.stride_h = stride_h_;
    s.stride_w = stride_w_;
    if (!windowDim(padding_, s.in_h, s.filter_h, s.stride_h, 1, &s.out_h, &s.pad_top) ||
        !windowDim(padding_, s.in_w, s.filter_w, s.stride_w, 1, &s.out_w, &s.pad_left))
      return ctx.error("the window " + std::to_string(k_h_) + "x" + std::to_string(k_w_) + " does not fit the input " +
                       shapeStr(x.shape()));
    Tensor* y = ctx.allocateOutput(0, type_, {s.batch, s.out_h, s.out_w, s.out_c});
    if (type_ == DT_FLOAT) {
      if (max_) tflite::maxPoolReference(s, fmin_, fmax_, x.data<float>(), y->data<float>());
      else tflite::averagePoolReference(s, fmin_, fmax_, x.data<float>(), y->data<float>());
    } else if (type_ == DT_INT16) {
      if (max_) tflite::maxPoolReference(s, qmin_, qmax_, x.data<std::int16_t>(), y->data<std::int16_t>());
      else tflite::averagePoolReference(s, qmin_, qmax_, x.data<std::int16_t>(), y->data<std::int16_t>());
    } else if (armnn()) {
      // Arm NN's Pooling2d in float (Exclude padding), then its activation layer.
      if (max_) lowp::armnn::maxPool(s, q_, q_, x.data<std::int8_t>(), y->data<std::int8_t>());
      else lowp::armnn::averagePool(s, q_, q_, x.data<std::int8_t>(), y->data<std::int8_t>());
      if (armnn_activation_) lowp::applyTable(activation_table_, y->data<std::int8_t>(), y->numElements(),
                                              y->data<std::int8_t>());
    } else if (ctx.referenceKernels()) {
      if (max_) tflite::maxPoolReference(s, qmin_, qmax_, x.data<std::int8_t>(), y->data<std::int8_t>());
      else tflite::averagePoolReference(s, qmin_, qmax_, x.data<std::int8_t>(), y->data<std::int8_t>());
    } else {
      const std::int8_t* in = x.data<std::int8_t>();
      std::int8_t* out = y->data<std::int8_t>();
      const double cost = static_cast<double>(s.out_w * s.out_c * s.filter_h * s.filter_w);
      ctx.pool().parallelFor(s.batch * s.out_h, cost, [&](std::int64_t begin, std::int64_t end) {
        if (max_) tflite::maxPoolRows(s, qmin_, qmax_, in, begin, end, out);
        else tflite::averagePoolRows(s, qmin_, qmax_, in, begin, end, out);
      });
    }
    return Status::Ok();
  }

 private:
  bool max_;
  std::string padding_;
  std::int64_t stride_h_ = 1, stride_w_ = 1, k_h_ = 1, k_w_ = 1;
  lowp::armnn::Quant q_;
  bool armnn_activation_ = false;
  lowp::Int8Table activation_table_{};
};

// tfl.mean over adjacent axes.
class MeanKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects input and axis");
    GDS_RETURN_IF_ERROR(readType(init, /*allow_int16=*/true));
    GDS_RETURN_IF_ERROR(init.getAttrOr("keep_dims", &keep_dims_, false));
    if (type_ == DT_INT8 || type_ == DT_INT16) {
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in_, type_));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out_, type_));
    }
    if (type_ == DT_INT16) {
      if (armnn())
        return init.error("16x8 (int16 activations) is outside the Arm NN arithmetic; run it with "
                          "--arithmetic=tflite-builtin");
      if (in_.zero_point != 0 || out_.zero_point != 0) return init.error("int16 MEAN takes zero points 0");
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> axes;
    if (!intValues(ctx.input(1), &axes)) return ctx.error("axis (input 1) must be int32 or int64");
    const std::int64_t rank = x.dims();
    std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
    for (std::int64_t a : axes) {
      if (a < -rank || a >= rank)
        return ctx.error("axis " + std::to_string(a) + " is out of range for input " + shapeStr(x.shape()));
      reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
    }
    std::int64_t first = -1, last = -1;
    for (std::int64_t d = 0; d < rank; ++d)
      if (reduced[static_cast<std::size_t>(d)]) {
        if (first < 0) first = d;
        else if (last != d - 1)
          return ctx.error("MEAN over axes that are not adjacent is not supported (input " + shapeStr(x.shape()) + ")");
        last = d;
      }
    if (first < 0) first = last = rank;  // nothing reduced
    else if (last < 0) last = first;
    std::int64_t outer = 1, inner = 1, trailing = 1;
    Shape out_shape;
    for (std::int64_t d = 0; d < rank; ++d) {
      const std::int64_t n = x.dim(static_cast<int>(d));
      if (d < first) outer *= n;
      else if (d <= last) inner *= n;
      else trailing *= n;
      if (d < first || d > last) out_shape.push_back(n);
      else if (keep_dims_) out_shape.push_back(1);
    }
    Tensor* y = ctx.allocateOutput(0, type_, out_shape);
    if (type_ == DT_FLOAT)
      tflite::meanReference(x.data<float>(), outer, inner, trailing, y->data<float>());
    else if (type_ == DT_INT16)
      // 16x8: reference_ops::QuantizedMeanOrSum whatever the runtime.
      tflite::meanReference(tflite::meanParams(in_.scale, 0, out_.scale, 0, inner, false), x.data<std::int16_t>(),
                            outer, inner, trailing, y->data<std::int16_t>());
    else
      meanInt8(x.data<std::int8_t>(), axes, rank, outer, inner, trailing, y->data<std::int8_t>());
    return Status::Ok();
  }

  // The int8 MEAN of each runtime:
  // - TFLite's built-in kernel: reduce.cc takes optimized_integer_ops::Mean
  //   for keep_dims, a 4-D input and axis exactly [1, 2] or [2, 1] (the axis
  //   values as given, not normalized): the raw sum, a multiplier for
  //   in_scale / (count * out_scale) and a rounded bias (float);
  // - its reference kernel: reference_integer_ops::Mean for that case (the
  //   sum less the zero points, times in_scale / out_scale, divided by the
  //   count, halves away from zero);
  // - both elsewhere: reference_ops::QuantizedMeanOrSum (meanParams);
  // - XNNPACK (any axes): the float sum's mean (xnnMean);
  // - Arm NN: decoded, summed in float, divided, encoded.
  void meanInt8(const std::int8_t* in, const std::vector<std::int64_t>& axes, std::int64_t rank, std::int64_t outer,
                std::int64_t inner, std::int64_t trailing, std::int8_t* out) const {
    if (armnn()) {
      lowp::armnn::mean({in_.scale, in_.zero_point}, {out_.scale, out_.zero_point}, in, outer, inner, trailing, out);
      return;
    }
    const bool spatial = keep_dims_ && rank == 4 && axes.size() == 2 &&
                         ((axes[0] == 1 && axes[1] == 2) || (axes[0] == 2 && axes[1] == 1));
    if (!xnnpack() && !spatial) {
      const tflite::MeanParams p = tflite::meanParams(in_.scale, in_.zero_point, out_.scale, out_.zero_point, inner, false);
      tflite::meanReference(p, in, outer, inner, trailing, out);
      return;
    }
    std::vector<std::int32_t> sums(static_cast<std::size_t>(trailing));
    const float xnn_scale = lowp::xnnMeanScale(in_.scale, out_.scale, inner);
    const lowp::TfliteMeanBuiltin builtin_p =
        lowp::tfliteMeanBuiltinParams(in_.scale, in_.zero_point, out_.scale, out_.zero_point, inner);
    const lowp::FixedMultiplier reference_m =
        lowp::quantizeMultiplier(static_cast<double>(in_.scale) / static_cast<double>(out_.scale));
    for (std::int64_t o = 0; o < outer; ++o) {
      std::fill(sums.begin(), sums.end(), 0);
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::int8_t* row = in + (o * inner + i) * trailing;
        for (std::int64_t k = 0; k < trailing; ++k) sums[static_cast<std::size_t>(k)] += row[k];
      }
      for (std::int64_t k = 0; k < trailing; ++k) {
        const std::int32_t sum = sums[static_cast<std::size_t>(k)];
        std::int8_t v;
        if (xnnpack()) {
          v = lowp::xnnMean(sum, inner, in_.zero_point, xnn_scale, out_.zero_point);
        } else if (builtin()) {
          v = lowp::tfliteMeanBuiltin(builtin_p, sum);
        } else {
          const auto n = static_cast<std::int32_t>(inner);
          std::int32_t acc = lowp::multiplyDoubleRounding(
              static_cast<std::int32_t>(sum - inner * in_.zero_point), reference_m);
          acc = acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n;
          v = static_cast<std::int8_t>(std::min(std::max(acc + out_.zero_point, -128), 127));
        }
        out[o * trailing + k] = v;
      }
    }
  }

 private:
  bool keep_dims_ = false;
  QParams in_, out_;
};

// tfl.arg_max (arg_min_max.cc, reference_ops::ArgMinMax): the index of the
// first largest value along the axis (an int8 input compares its stored
// values, which order as the real ones), as int64 or int32.
class ArgMaxKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects input and axis");
    GDS_RETURN_IF_ERROR(readType(init));
    const std::vector<DataType> types = outputTypes(init);
    out_type_ = types.empty() ? DT_INT64 : types[0];
    if (out_type_ != DT_INT64 && out_type_ != DT_INT32)
      return init.error("the output is " + model::dtypeName(out_type_) + "; ARG_MAX writes int32 or int64");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> axes;
    if (!intValues(ctx.input(1), &axes) || axes.size() != 1)
      return ctx.error("axis (input 1) must be one int32 or int64 value");
    std::int64_t axis = axes[0];
    if (axis < 0) axis += x.dims();
    if (axis < 0 || axis >= x.dims())
      return ctx.error("axis " + std::to_string(axes[0]) + " is out of range for input " + shapeStr(x.shape()));
    Shape out_shape;
    std::int64_t outer = 1, inner = 1;
    for (int d = 0; d < x.dims(); ++d) {
      if (d != axis) out_shape.push_back(x.dim(d));
      if (d < axis) outer *= x.dim(d);
      if (d > axis) inner *= x.dim(d);
    }
    const std::int64_t size = x.dim(static_cast<int>(axis));
    if (size < 1) return ctx.error("cannot take the arg max over an empty axis of " + shapeStr(x.shape()));
    Tensor* y = ctx.allocateOutput(0, out_type_, out_shape);
    auto run = [&](const auto* v) {
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          std::int64_t best = 0;
          for (std::int64_t k = 1; k < size; ++k)
            if (v[(o * size + k) * inner + i] > v[(o * size + best) * inner + i]) best = k;
          if (out_type_ == DT_INT64)
            y->data<std::int64_t>()[o * inner + i] = best;
          else
            y->data<std::int32_t>()[o * inner + i] = static_cast<std::int32_t>(best);
        }
    };
    if (type_ == DT_FLOAT)
      run(x.data<float>());
    else
      run(x.data<std::int8_t>());
    return Status::Ok();
  }

 private:
  DataType out_type_ = DT_INT64;
};

// tfl.resize_bilinear: input NHWC, size int32 [2].
class ResizeBilinearKernel : public TflKernel {
 public:
  Status init(const KernelInit& init) override {
    if (init.numInputs() != 2) return init.error("expects input and size");
    GDS_RETURN_IF_ERROR(readType(init, /*allow_int16=*/true));
    GDS_RETURN_IF_ERROR(init.getAttrOr("align_corners", &align_corners_, false));
    GDS_RETURN_IF_ERROR(init.getAttrOr("half_pixel_centers", &half_pixel_centers_, false));
    if (type_ == DT_INT8 || type_ == DT_INT16) {
      if (type_ == DT_INT16 && armnn())
        return init.error("16x8 (int16 activations) is outside the Arm NN arithmetic; run it with "
                          "--arithmetic=tflite-builtin");
      QParams in, out;
      GDS_RETURN_IF_ERROR(perTensor(init, 0, &in, type_));
      GDS_RETURN_IF_ERROR(perTensor(init, -1, &out, type_));
      if (in.scale != out.scale || in.zero_point != out.zero_point)
        return init.error("integer RESIZE_BILINEAR needs the input and output quantization to be equal");
      q_ = {in.scale, in.zero_point};
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    GDS_RETURN_IF_ERROR(requireType(ctx, 0, type_));
    std::vector<std::int64_t> size;
    if (x.dims() != 4) return ctx.error("input must be 4-D NHWC, got " + shapeStr(x.shape()));
    if (!intValues(ctx.input(1), &size) || size.size() != 2 || size[0] < 1 || size[1] < 1)
      return ctx.error("size (input 1) must be two positive int32 values");
    if (x.dim(1) < 1 || x.dim(2) < 1) return ctx.error("cannot resize an empty image " + shapeStr(x.shape()));
    Tensor* y = ctx.allocateOutput(0, type_, {x.dim(0), size[0], size[1], x.dim(3)});
    if (type_ == DT_FLOAT)
      tflite::resizeBilinearReference(x.data<float>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0], size[1],
                                  align_corners_, half_pixel_centers_, y->data<float>());
    else if (type_ == DT_INT16)
      // 16x8: TensorFlow Lite's reference loop whatever the runtime (XNNPACK
      // takes no int16 tensor).
      tflite::resizeBilinearReference(x.data<std::int16_t>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0],
                                      size[1], align_corners_, half_pixel_centers_, y->data<std::int16_t>());
    else if (xnnpack())
      xnnResize(x.data<std::int8_t>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0], size[1], y->data<std::int8_t>());
    else if (armnn())
      // Arm NN 20.08's TfLite parser reads align_corners but not
      // half_pixel_centers (TfLiteParser.cpp ParseResize): it resizes as if
      // it were false.
      lowp::armnn::resizeBilinear(q_, q_, x.data<std::int8_t>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0],
                                  size[1], align_corners_, false, y->data<std::int8_t>());
    else
      tflite::resizeBilinearReference(x.data<std::int8_t>(), x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0], size[1],
                                  align_corners_, half_pixel_centers_, y->data<std::int8_t>());
    return Status::Ok();
  }

 private:
  // XNNPACK's s8 bilinear resize: per output row and column two taps and a
  // weight in 1/2048, the rows blended first (xnnBilinear).
  void xnnResize(const std::int8_t* in, std::int64_t batch, std::int64_t in_h, std::int64_t in_w, std::int64_t c_n,
                 std::int64_t out_h, std::int64_t out_w, std::int8_t* out) const {
    const std::vector<lowp::XnnResizeTap> ys = lowp::xnnResizeTaps(in_h, out_h, align_corners_, half_pixel_centers_);
    const std::vector<lowp::XnnResizeTap> xs = lowp::xnnResizeTaps(in_w, out_w, align_corners_, half_pixel_centers_);
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t oy = 0; oy < out_h; ++oy) {
        const lowp::XnnResizeTap& ty = ys[static_cast<std::size_t>(oy)];
        const std::int8_t* top = in + (b * in_h + ty.first) * in_w * c_n;
        const std::int8_t* bottom = in + (b * in_h + ty.second) * in_w * c_n;
        for (std::int64_t ox = 0; ox < out_w; ++ox) {
          const lowp::XnnResizeTap& tx = xs[static_cast<std::size_t>(ox)];
          std::int8_t* o = out + ((b * out_h + oy) * out_w + ox) * c_n;
          for (std::int64_t c = 0; c < c_n; ++c)
            o[c] = lowp::xnnBilinear(top[tx.first * c_n + c], top[tx.second * c_n + c], bottom[tx.first * c_n + c],
                                     bottom[tx.second * c_n + c], tx.weight, ty.weight);
        }
      }
  }

  bool align_corners_ = false, half_pixel_centers_ = false;
  lowp::armnn::Quant q_;
};

}  // namespace

void registerPoolingKernels(KernelRegistry& registry) {
  registry.add("tfl.average_pool_2d", make<PoolKernel>(PoolKind::kAverage));
  registry.add("tfl.max_pool_2d", make<PoolKernel>(PoolKind::kMax));
  registry.add("tfl.mean", make<MeanKernel>());
  registry.add("tfl.arg_max", make<ArgMaxKernel>());
  registry.add("tfl.resize_bilinear", make<ResizeBilinearKernel>());
}

}  // namespace gds::engine::tflkern
