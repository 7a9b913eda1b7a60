// Pooling layers: Max/AveragePooling1D/2D (1-D through ExpandDims/Squeeze
// as tf.nn.max_pool1d does; channels_first transposed to NHWC and back as
// keras/src/backend/tensorflow/nn.py max_pool does) and the global poolings
// (a Mean or Max over the spatial axes; GlobalAveragePooling1D honours a
// Keras mask as its masked mean).
#include "model/keras/convert_impl.h"

namespace gds::model::keras {

namespace {

namespace tf = tensorflow;

Result<std::vector<KTensor>> poolLayer(LayerContext& ctx, int spatial, const std::string& op) {
  const auto n = static_cast<std::size_t>(spatial);
  auto pool = ctx.ints("pool_size", n, 2);
  if (!pool.ok()) return pool.status();
  auto strides = ctx.has("strides") ? ctx.ints("strides", n) : Result<std::vector<std::int64_t>>(*pool);
  auto padding = ctx.string("padding", "valid");
  auto channels_first = ctx.channelsFirst();
  for (const Status& s : {strides.status(), padding.status(), channels_first.status()})
    if (!s.ok()) return s;
  if (*padding != "valid" && *padding != "same") return ctx.error("padding '" + *padding + "' is not valid or same");
  for (std::size_t i = 0; i < n; ++i)
    if ((*pool)[i] < 1 || (*strides)[i] < 1) return ctx.error("pool_size and strides must be positive");
  auto x = ctx.input(spatial + 2);
  if (!x.ok()) return x.status();
  TfOps& ops = ctx.ops();
  KTensor t = *x;
  const std::vector<std::int64_t> to_last = spatial == 1 ? std::vector<std::int64_t>{0, 2, 1}
                                                         : std::vector<std::int64_t>{0, 2, 3, 1};
  const std::vector<std::int64_t> to_first = spatial == 1 ? std::vector<std::int64_t>{0, 2, 1}
                                                          : std::vector<std::int64_t>{0, 3, 1, 2};
  if (*channels_first) t = ops.transpose("transpose", t, to_last);
  if (spatial == 1) t = ops.expandDims(op + "/ExpandDims", t, 1);
  TfOps::Window w;
  w.strides = spatial == 1 ? std::vector<std::int64_t>{1, (*strides)[0]} : *strides;
  w.padding = *padding == "same" ? "SAME" : "VALID";
  std::vector<std::int64_t> k = spatial == 1 ? std::vector<std::int64_t>{1, (*pool)[0]} : *pool;
  KTensor y = ops.pool(op, op, t, k, w);
  if (spatial == 1) y = ops.squeeze(op + "/Squeeze", y, {1});
  if (*channels_first) y = ops.transpose("transpose_1", y, to_first);
  return std::vector<KTensor>{y};
}

Result<std::vector<KTensor>> globalPoolLayer(LayerContext& ctx, int spatial, const std::string& op) {
  auto channels_first = ctx.channelsFirst();
  auto keepdims = ctx.flag("keepdims", false);
  if (!channels_first.ok()) return channels_first.status();
  if (!keepdims.ok()) return keepdims.status();
  auto x = ctx.input(spatial + 2);
  if (!x.ok()) return x.status();
  std::vector<std::int64_t> axes;
  for (int i = 0; i < spatial; ++i) axes.push_back(*channels_first ? 2 + i : 1 + i);
  TfOps& ops = ctx.ops();
  if (op == "Mean" && spatial == 1 && !x->mask.empty()) {
    // Keras' masked mean: sum(x * mask) / sum(mask) over the steps.
    KTensor mask{x->mask, {x->dim(0), x->dim(*channels_first ? 2 : 1)}, tf::DT_BOOL, ""};
    KTensor m = ops.expandDims("ExpandDims", ops.cast("Cast", mask, tf::DT_FLOAT), *channels_first ? 1 : 2);
    KTensor sum = ops.reduce("Sum", "Sum", ops.binary("Mul", "mul", *x, m), axes, *keepdims);
    KTensor count = ops.reduce("Sum", "Sum_1", m, axes, *keepdims);
    return std::vector<KTensor>{ops.binary("RealDiv", "truediv", sum, count)};
  }
  return std::vector<KTensor>{ops.reduce(op, op, *x, axes, *keepdims)};
}

}  // namespace

void addPoolingLayers(LayerRegistry& r) {
  r["MaxPooling1D"] = [](LayerContext& ctx) { return poolLayer(ctx, 1, "MaxPool"); };
  r["MaxPooling2D"] = [](LayerContext& ctx) { return poolLayer(ctx, 2, "MaxPool"); };
  r["AveragePooling1D"] = [](LayerContext& ctx) { return poolLayer(ctx, 1, "AvgPool"); };
  r["AveragePooling2D"] = [](LayerContext& ctx) { return poolLayer(ctx, 2, "AvgPool"); };
  r["MaxPool1D"] = r["MaxPooling1D"];
  r["MaxPool2D"] = r["MaxPooling2D"];
  r["AvgPool1D"] = r["AveragePooling1D"];
  r["AvgPool2D"] = r["AveragePooling2D"];
  r["GlobalAveragePooling1D"] = [](LayerContext& ctx) { return globalPoolLayer(ctx, 1, "Mean"); };
  r["GlobalAveragePooling2D"] = [](LayerContext& ctx) { return globalPoolLayer(ctx, 2, "Mean"); };
  r["GlobalAveragePooling3D"] = [](LayerContext& ctx) { return globalPoolLayer(ctx, 3, "Mean"); };
  r["GlobalMaxPooling1D"] = [](LayerContext& ctx) { return globalPoolLayer(ctx, 1, "Max"); };
  r["GlobalMaxPooling2D"] = [](LayerContext& ctx) { return globalPoolLayer(ctx, 2, "Max"); };
  r["GlobalMaxPooling3D"] = [](LayerContext& ctx) { return globalPoolLayer(ctx, 3, "Max"); };
  r["GlobalAvgPool1D"] = r["GlobalAveragePooling1D"];
  r["GlobalAvgPool2D"] = r["GlobalAveragePooling2D"];
  r["GlobalMaxPool1D"] = r["GlobalMaxPooling1D"];
  r["GlobalMaxPool2D"] = r["GlobalMaxPooling2D"];
}

}  // namespace gds::model::keras
