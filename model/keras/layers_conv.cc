// Convolution layers: Conv1D/2D (groups, causal padding), DepthwiseConv1D/
// 2D, SeparableConv1D/2D and Conv2DTranspose, as TensorFlow runs them
// (keras/src/backend/tensorflow/nn.py conv, depthwise_conv, separable_conv,
// conv_transpose): 1-D convolutions through ExpandDims/Conv2D/Squeeze as
// tf.nn.conv1d does, channels_first inputs transposed to NHWC and back
// (TensorFlow's CPU kernels take NHWC only), the bias as a BiasAdd.
#include "model/keras/convert_impl.h"

namespace gds::model::keras {

namespace {

// The window parameters shared by the convolution layers.
struct ConvConfig {
  int spatial = 2;  // 1 or 2
  std::vector<std::int64_t> kernel, strides, dilation;
  std::string padding;  // Keras': valid, same, causal
  bool channels_first = false;
  bool use_bias = true;
};

Result<ConvConfig> readConv(LayerContext& ctx, int spatial) {
  ConvConfig c;
  c.spatial = spatial;
  const auto n = static_cast<std::size_t>(spatial);
  auto kernel = ctx.ints("kernel_size", n);
  auto strides = ctx.ints("strides", n, 1);
  auto dilation = ctx.ints("dilation_rate", n, 1);
  auto padding = ctx.string("padding", "valid");
  auto channels_first = ctx.channelsFirst();
  auto use_bias = ctx.flag("use_bias", true);
  for (const Status& s : {kernel.status(), strides.status(), dilation.status(), padding.status(),
                          channels_first.status(), use_bias.status()})
    if (!s.ok()) return s;
  c.kernel = *kernel;
  c.strides = *strides;
  c.dilation = *dilation;
  c.padding = *padding;
  c.channels_first = *channels_first;
  c.use_bias = *use_bias;
  for (std::size_t i = 0; i < n; ++i) {
    if (c.kernel[i] < 1 || c.strides[i] < 1 || c.dilation[i] < 1)
      return ctx.error("kernel_size, strides and dilation_rate must be positive");
    if (c.strides[i] > 1 && c.dilation[i] > 1)
      return ctx.error("strides > 1 together with dilation_rate > 1 is not a valid convolution");
  }
  if (c.padding != "valid" && c.padding != "same" && !(c.padding == "causal" && spatial == 1))
    return ctx.error("padding '" + c.padding + "' is not valid" + (spatial == 1 ? ", same or causal" : " or same"));
  return c;
}

// The input channels-last with 2 spatial axes (1-D inputs get an axis of
// size 1 in front of their one, as tf.nn.conv1d's ExpandDims does).
Result<KTensor> toNhwc(LayerContext& ctx, const ConvConfig& c, const std::string& prefix) {
  auto x = ctx.input(c.spatial + 2);
  if (!x.ok()) return x;
  KTensor t = *x;
  TfOps& ops = ctx.ops();
  if (c.channels_first)
    t = ops.transpose("transpose", t, c.spatial == 1 ? std::vector<std::int64_t>{0, 2, 1}
                                                      : std::vector<std::int64_t>{0, 2, 3, 1});
  if (t.dim(-1) < 0) return ctx.error("needs the channel count of its input " + shapeString(x->shape) + " to be known");
  if (c.padding == "causal") {
    const std::int64_t left = c.dilation[0] * (c.kernel[0] - 1);
    t = ops.pad("Pad", t, {{0, 0}, {left, 0}, {0, 0}});
  }
  if (c.spatial == 1) t = ops.expandDims(prefix + "/ExpandDims", t, 1);
  return t;
}

// The output back in the layer's layout (1-D: the extra axis removed).
KTensor fromNhwc(LayerContext& ctx, const ConvConfig& c, KTensor y, const std::string& prefix) {
  TfOps& ops = ctx.ops();
  if (c.spatial == 1) y = ops.squeeze(prefix + "/Squeeze", y, {1});
  return y;
}

KTensor restoreLayout(LayerContext& ctx, const ConvConfig& c, KTensor y) {
  if (!c.channels_first) return y;
  return ctx.ops().transpose("transpose_1", y, c.spatial == 1 ? std::vector<std::int64_t>{0, 2, 1}
                                                                : std::vector<std::int64_t>{0, 3, 1, 2});
}

TfOps::Window window(const ConvConfig& c) {
  TfOps::Window w;
  w.strides = c.spatial == 1 ? std::vector<std::int64_t>{1, c.strides[0]} : c.strides;
  w.dilations = c.spatial == 1 ? std::vector<std::int64_t>{1, c.dilation[0]} : c.dilation;
  w.padding = c.padding == "same" ? "SAME" : "VALID";
  return w;
}

// A weight made 4-D for the 2-D op (1-D kernels get a leading axis).
KTensor kernel2d(LayerContext& ctx, const ConvConfig& c, const KTensor& k, const std::string& name) {
  return c.spatial == 1 ? ctx.ops().expandDims(name, k, 0) : k;
}

Shape kernelShape(const ConvConfig& c, std::int64_t in, std::int64_t out) {
  Shape s(c.kernel.begin(), c.kernel.end());
  s.push_back(in);
  s.push_back(out);
  return s;
}

Result<std::vector<KTensor>> finish(LayerContext& ctx, const ConvConfig& c, KTensor y, const KTensor* bias) {
  if (bias) y = ctx.ops().biasAdd("BiasAdd", y, *bias);
  y = restoreLayout(ctx, c, y);
  auto out = ctx.activation(ctx.value("activation"), y);
  if (!out.ok()) return out.status();
  return std::vector<KTensor>{*out};
}

Result<std::vector<KTensor>> convLayer(LayerContext& ctx, int spatial) {
  auto c = readConv(ctx, spatial);
  if (!c.ok()) return c.status();
  auto filters = ctx.integer("filters");
  auto groups = ctx.integer("groups", 1);
  if (!filters.ok()) return filters.status();
  if (!groups.ok()) return groups.status();
  const std::string op = spatial == 1 ? "Conv1D" : "Conv2D";
  auto x = toNhwc(ctx, *c, op);
  if (!x.ok()) return x.status();
  const std::int64_t channels = x->dim(-1);
  if (*filters < 1 || *groups < 1 || channels % *groups != 0 || *filters % *groups != 0)
    return ctx.error("filters (" + std::to_string(*filters) + ") and the input's " + std::to_string(channels) +
                     " channels must be divisible by groups (" + std::to_string(*groups) + ")");
  std::vector<std::string> names = {"kernel"};
  std::vector<Shape> shapes = {kernelShape(*c, channels / *groups, *filters)};
  if (c->use_bias) {
    names.push_back("bias");
    shapes.push_back({*filters});
  }
  auto w = ctx.weights(names, shapes);
  if (!w.ok()) return w.status();
  TfOps& ops = ctx.ops();
  KTensor filter = kernel2d(ctx, *c, (*w)[0], op + "/ExpandDims_1");
  KTensor y;
  if (*groups == 1) {
    y = ops.conv2d(op, *x, filter, window(*c));
  } else {
    // Grouped: one convolution per group of channels, concatenated (what
    // XLA does with Keras' grouped tf.nn.convolution).
    const int g = static_cast<int>(*groups);
    auto xs = ops.split(op + "/split", *x, 3, g);
    auto fs = ops.split(op + "/split_1", filter, 3, g);
    std::vector<KTensor> parts;
    for (int k = 0; k < g; ++k) parts.push_back(ops.conv2d(op + "/group_" + std::to_string(k), xs[static_cast<std::size_t>(k)], fs[static_cast<std::size_t>(k)], window(*c)));
    y = ops.concat(op + "/concat", parts, 3);
  }
  y = fromNhwc(ctx, *c, y, op);
  return finish(ctx, *c, y, c->use_bias ? &(*w)[1] : nullptr);
}

Result<std::vector<KTensor>> depthwiseLayer(LayerContext& ctx, int spatial) {
  auto c = readConv(ctx, spatial);
  if (!c.ok()) return c.status();
  auto multiplier = ctx.integer("depth_multiplier", 1);
  if (!multiplier.ok()) return multiplier.status();
  if (*multiplier < 1) return ctx.error("depth_multiplier must be positive");
  auto x = toNhwc(ctx, *c, "depthwise");
  if (!x.ok()) return x.status();
  const std::int64_t channels = x->dim(-1);
  std::vector<std::string> names = {"depthwise_kernel"};
  std::vector<Shape> shapes = {kernelShape(*c, channels, *multiplier)};
  if (c->use_bias) {
    names.push_back("bias");
    shapes.push_back({channels * *multiplier});
  }
  auto w = ctx.weights(names, shapes);
  if (!w.ok()) return w.status();
  KTensor filter = kernel2d(ctx, *c, (*w)[0], "depthwise/ExpandDims_1");
  KTensor y = ctx.ops().depthwiseConv2d("depthwise", *x, filter, window(*c));
  y = fromNhwc(ctx, *c, y, "depthwise");
  return finish(ctx, *c, y, c->use_bias ? &(*w)[1] : nullptr);
}

// tf.nn.separable_conv2d: the depthwise convolution (strides, dilations,
// padding), then a 1x1 VALID convolution.
Result<std::vector<KTensor>> separableLayer(LayerContext& ctx, int spatial) {
  auto c = readConv(ctx, spatial);
  if (!c.ok()) return c.status();
  auto filters = ctx.integer("filters");
  auto multiplier = ctx.integer("depth_multiplier", 1);
  if (!filters.ok()) return filters.status();
  if (!multiplier.ok()) return multiplier.status();
  if (*filters < 1 || *multiplier < 1) return ctx.error("filters and depth_multiplier must be positive");
  auto x = toNhwc(ctx, *c, "separable_conv2d");
  if (!x.ok()) return x.status();
  const std::int64_t channels = x->dim(-1);
  Shape pointwise(static_cast<std::size_t>(spatial), 1);
  pointwise.push_back(channels * *multiplier);
  pointwise.push_back(*filters);
  std::vector<std::string> names = {"depthwise_kernel", "pointwise_kernel"};
  std::vector<Shape> shapes = {kernelShape(*c, channels, *multiplier), pointwise};
  if (c->use_bias) {
    names.push_back("bias");
    shapes.push_back({*filters});
  }
  auto w = ctx.weights(names, shapes);
  if (!w.ok()) return w.status();
  TfOps& ops = ctx.ops();
  KTensor dk = kernel2d(ctx, *c, (*w)[0], "separable_conv2d/ExpandDims_1");
  KTensor pk = kernel2d(ctx, *c, (*w)[1], "separable_conv2d/ExpandDims_2");
  KTensor d = ops.depthwiseConv2d("separable_conv2d/depthwise", *x, dk, window(*c));
  KTensor y = ops.conv2d("separable_conv2d", d, pk, TfOps::Window{});
  y = fromNhwc(ctx, *c, y, "separable_conv2d");
  return finish(ctx, *c, y, c->use_bias ? &(*w)[2] : nullptr);
}

// Keras' deconv_output_length (keras/src/utils/conv_utils / backend_utils).
std::int64_t deconvLength(std::int64_t in, std::int64_t k, const std::string& padding, std::int64_t output_padding,
                          bool has_output_padding, std::int64_t stride, std::int64_t dilation) {
  if (in < 0) return -1;
  k = k + (k - 1) * (dilation - 1);
  if (!has_output_padding) {
    if (padding == "valid") return in * stride + std::max<std::int64_t>(k - stride, 0);
    return in * stride;
  }
  const std::int64_t pad = padding == "same" ? k / 2 : 0;
  return (in - 1) * stride + k - 2 * pad + output_padding;
}

// Conv2DTranspose: Conv2DBackpropInput to the output size Keras computes;
// the kernel is [h, w, filters, in_channels], TensorFlow's layout for it.
Result<std::vector<KTensor>> convTransposeLayer(LayerContext& ctx) {
  auto c = readConv(ctx, 2);
  if (!c.ok()) return c.status();
  auto filters = ctx.integer("filters");
  if (!filters.ok()) return filters.status();
  if (*filters < 1) return ctx.error("filters must be positive");
  std::vector<std::int64_t> output_padding{0, 0};
  const bool has_output_padding = ctx.has("output_padding");
  if (has_output_padding) {
    auto op = ctx.ints("output_padding", 2);
    if (!op.ok()) return op.status();
    output_padding = *op;
  }
  auto x = toNhwc(ctx, *c, "conv2d_transpose");
  if (!x.ok()) return x.status();
  if (x->dim(1) < 0 || x->dim(2) < 0)
    return ctx.error("needs the spatial size of its input " + shapeString(x->shape) + " to be known");
  const std::int64_t channels = x->dim(-1);
  std::vector<std::string> names = {"kernel"};
  std::vector<Shape> shapes = {kernelShape(*c, *filters, channels)};
  if (c->use_bias) {
    names.push_back("bias");
    shapes.push_back({*filters});
  }
  auto w = ctx.weights(names, shapes);
  if (!w.ok()) return w.status();
  Shape out = {x->dim(0), 0, 0, *filters};
  for (int i = 0; i < 2; ++i)
    out[static_cast<std::size_t>(i + 1)] =
        deconvLength(x->dim(i + 1), c->kernel[static_cast<std::size_t>(i)], c->padding,
                     output_padding[static_cast<std::size_t>(i)], has_output_padding,
                     c->strides[static_cast<std::size_t>(i)], c->dilation[static_cast<std::size_t>(i)]);
  KTensor y = ctx.ops().conv2dTranspose("conv2d_transpose", *x, (*w)[0], window(*c), out);
  return finish(ctx, *c, y, c->use_bias ? &(*w)[1] : nullptr);
}

}  // namespace

void addConvLayers(LayerRegistry& r) {
  r["Conv1D"] = [](LayerContext& ctx) { return convLayer(ctx, 1); };
  r["Conv2D"] = [](LayerContext& ctx) { return convLayer(ctx, 2); };
  r["Convolution1D"] = r["Conv1D"];
  r["Convolution2D"] = r["Conv2D"];
  r["DepthwiseConv1D"] = [](LayerContext& ctx) { return depthwiseLayer(ctx, 1); };
  r["DepthwiseConv2D"] = [](LayerContext& ctx) { return depthwiseLayer(ctx, 2); };
  r["SeparableConv1D"] = [](LayerContext& ctx) { return separableLayer(ctx, 1); };
  r["SeparableConv2D"] = [](LayerContext& ctx) { return separableLayer(ctx, 2); };
  r["SeparableConvolution1D"] = r["SeparableConv1D"];
  r["SeparableConvolution2D"] = r["SeparableConv2D"];
  r["Conv2DTranspose"] = convTransposeLayer;
  r["Convolution2DTranspose"] = convTransposeLayer;
}

}  // namespace gds::model::keras
