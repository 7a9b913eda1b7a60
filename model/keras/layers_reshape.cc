// Layers that move data: Flatten, Reshape, Permute, RepeatVector,
// ZeroPadding1D/2D, Cropping1D/2D, UpSampling1D/2D and the image layers
// Resizing and CenterCrop (keras/src/layers/reshaping, preprocessing).
// Image resizes are tf.image.resize's ops (ResizeBilinear or
// ResizeNearestNeighbor with half-pixel centers, no antialiasing).
#include <algorithm>

#include "model/keras/convert_impl.h"

namespace gds::model::keras {

namespace {

namespace tf = tensorflow;
using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

Result<std::vector<KTensor>> one(Result<KTensor> t) {
  if (!t.ok()) return t.status();
  return std::vector<KTensor>{*t};
}

KTensor batchDim(TfOps& ops, const KTensor& x) {
  return ops.sliceIndex("strided_slice", ops.shapeOf("Shape", x), 0, 0);
}

// A reshape keeping the batch: a constant shape when the batch is the only
// unknown, else the batch read at run time and packed with the rest.
KTensor reshapeKeepBatch(TfOps& ops, const std::string& name, const KTensor& x, const Shape& rest) {
  Shape out = {x.dim(0)};
  out.insert(out.end(), rest.begin(), rest.end());
  if (std::find(rest.begin(), rest.end(), -1) == rest.end()) {
    Shape target = out;
    target[0] = -1;
    KTensor y = ops.reshape(name, x, target);
    y.shape[0] = x.dim(0);
    return y;
  }
  std::vector<KTensor> parts = {batchDim(ops, x)};
  for (std::size_t i = 0; i < rest.size(); ++i) {
    HostTensor v = HostTensor::zeros(tf::DT_INT32, {});
    v.as<std::int32_t>()[0] = static_cast<std::int32_t>(rest[i]);
    parts.push_back(ops.constant(name + "/shape/" + std::to_string(i + 1), v));
  }
  // The one unknown non-batch dimension, when the others are known.
  std::int64_t known = 1, total = 1;
  for (auto d : rest) known *= d < 0 ? 1 : d;
  for (int i = 1; i < x.rank(); ++i) total = total < 0 || x.dim(i) < 0 ? -1 : total * x.dim(i);
  for (auto& d : out)
    if (&d != &out[0] && d < 0) d = total >= 0 && known > 0 ? total / known : -1;
  return ops.reshapeTo(name, x, ops.pack(name + "/shape", parts, 0), out);
}

Result<std::vector<KTensor>> flattenLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto channels_first = ctx.channelsFirst();
  if (!channels_first.ok()) return channels_first.status();
  KTensor t = *x;
  TfOps& ops = ctx.ops();
  if (*channels_first && t.rank() > 2) {  // to channels_last first, as Keras does
    std::vector<std::int64_t> perm = {0};
    for (int i = 2; i < t.rank(); ++i) perm.push_back(i);
    perm.push_back(1);
    t = ops.transpose("transpose", t, perm);
  }
  std::int64_t flat = 1;
  for (int i = 1; i < t.rank(); ++i) flat = flat < 0 || t.dim(i) < 0 ? -1 : flat * t.dim(i);
  return one(reshapeKeepBatch(ops, "Reshape", t, {flat}));
}

Result<std::vector<KTensor>> reshapeLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  const Json& target = ctx.value("target_shape");
  if (!target.is_array()) return ctx.error("target_shape is " + target.dump().substr(0, 100) + ", expected a list");
  Shape rest;
  int unknown = 0;
  for (const auto& d : target) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < -1 || d.get<std::int64_t>() > (std::int64_t{1} << 31))
      return ctx.error("target_shape " + target.dump() + " holds " + d.dump());
    rest.push_back(d.get<std::int64_t>());
    unknown += rest.back() < 0 ? 1 : 0;
  }
  if (unknown > 1) return ctx.error("target_shape " + target.dump() + " has more than one -1");
  std::int64_t total = 1, want = 1;
  for (int i = 1; i < x->rank(); ++i) total = total < 0 || x->dim(i) < 0 ? -1 : total * x->dim(i);
  for (auto d : rest) want *= d < 0 ? 1 : d;
  if (total >= 0 && ((unknown == 0 && total != want) || (unknown == 1 && (want == 0 || total % want != 0))))
    return ctx.error("cannot reshape its input " + shapeString(x->shape) + " to target_shape " + target.dump());
  return one(reshapeKeepBatch(ctx.ops(), "Reshape", *x, rest));
}

Result<std::vector<KTensor>> permuteLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  const Json& dims = ctx.value("dims");
  std::vector<std::int64_t> perm = {0};
  if (!dims.is_array() || static_cast<int>(dims.size()) != x->rank() - 1)
    return ctx.error("dims " + dims.dump().substr(0, 100) + " does not permute the input's " +
                     std::to_string(x->rank() - 1) + " non-batch axes");
  for (const auto& d : dims) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 1 || d.get<std::int64_t>() >= x->rank())
      return ctx.error("dims " + dims.dump() + " holds " + d.dump());
    perm.push_back(d.get<std::int64_t>());
  }
  std::vector<std::int64_t> sorted(perm);
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return ctx.error("dims " + dims.dump() + " repeats an axis");
  return one(ctx.ops().transpose("transpose", *x, perm));
}

Result<std::vector<KTensor>> repeatVectorLayer(LayerContext& ctx) {
  auto x = ctx.input(2);
  if (!x.ok()) return x.status();
  auto n = ctx.integer("n");
  if (!n.ok()) return n.status();
  if (*n < 1 || *n > (std::int64_t{1} << 31)) return ctx.error("n is " + std::to_string(*n));
  TfOps& ops = ctx.ops();
  return one(ops.tile("Tile", ops.expandDims("ExpandDims", *x, 1), {1, *n, 1}));
}

// Keras' padding/cropping spec: an int, n ints (symmetric) or n pairs.
Result<Pairs> readPairs(LayerContext& ctx, const char* key, std::size_t n) {
  const Json& v = ctx.value(key);
  Pairs out;
  auto isInt = [](const Json& j) { return j.is_number_integer() && j.get<std::int64_t>() >= 0 && j.get<std::int64_t>() < (std::int64_t{1} << 31); };
  if (isInt(v)) return Pairs(n, {v.get<std::int64_t>(), v.get<std::int64_t>()});
  if (v.is_array() && n == 1 && v.size() == 2 && isInt(v[0]) && isInt(v[1]))
    return Pairs{{v[0].get<std::int64_t>(), v[1].get<std::int64_t>()}};
  if (v.is_array() && v.size() == n) {
    for (const auto& e : v) {
      if (isInt(e)) out.push_back({e.get<std::int64_t>(), e.get<std::int64_t>()});
      else if (e.is_array() && e.size() == 2 && isInt(e[0]) && isInt(e[1]))
        out.push_back({e[0].get<std::int64_t>(), e[1].get<std::int64_t>()});
      else return ctx.error("'" + std::string(key) + "' is " + v.dump().substr(0, 100));
    }
    return out;
  }
  return ctx.error("'" + std::string(key) + "' is " + v.dump().substr(0, 100) + ", expected " + std::to_string(n) +
                   " (before, after) pairs");
}

// The spatial axes of a 1-D or 2-D layer's input.
Result<std::vector<int>> spatialAxes(LayerContext& ctx, int spatial) {
  bool first = false;
  if (spatial == 2) {
    auto f = ctx.channelsFirst();
    if (!f.ok()) return f.status();
    first = *f;
  }
  std::vector<int> axes;
  for (int i = 0; i < spatial; ++i) axes.push_back(first ? 2 + i : 1 + i);
  return axes;
}

Result<std::vector<KTensor>> zeroPaddingLayer(LayerContext& ctx, int spatial) {
  auto pads = readPairs(ctx, "padding", static_cast<std::size_t>(spatial));
  auto axes = spatialAxes(ctx, spatial);
  if (!pads.ok()) return pads.status();
  if (!axes.ok()) return axes.status();
  auto x = ctx.input(spatial + 2);
  if (!x.ok()) return x.status();
  Pairs all(static_cast<std::size_t>(x->rank()), {0, 0});
  for (int i = 0; i < spatial; ++i) all[static_cast<std::size_t>((*axes)[static_cast<std::size_t>(i)])] = (*pads)[static_cast<std::size_t>(i)];
  return one(ctx.ops().pad("Pad", *x, all));
}

Result<std::vector<KTensor>> croppingLayer(LayerContext& ctx, int spatial) {
  auto crops = readPairs(ctx, "cropping", static_cast<std::size_t>(spatial));
  auto axes = spatialAxes(ctx, spatial);
  if (!crops.ok()) return crops.status();
  if (!axes.ok()) return axes.status();
  auto x = ctx.input(spatial + 2);
  if (!x.ok()) return x.status();
  std::vector<std::int64_t> begin(static_cast<std::size_t>(x->rank()), 0), end(begin.size(), kToEnd);
  for (int i = 0; i < spatial; ++i) {
    const auto axis = static_cast<std::size_t>((*axes)[static_cast<std::size_t>(i)]);
    const auto& c = (*crops)[static_cast<std::size_t>(i)];
    if (x->shape[axis] >= 0 && c.first + c.second >= x->shape[axis])
      return ctx.error("crops " + std::to_string(c.first) + "+" + std::to_string(c.second) + " leave nothing of " +
                       shapeString(x->shape));
    begin[axis] = c.first;
    end[axis] = c.second > 0 ? -c.second : kToEnd;
  }
  return one(ctx.ops().slice("strided_slice", *x, begin, end));
}

Result<std::string> interpolation(LayerContext& ctx, const std::string& fallback) {
  auto i = ctx.string("interpolation", fallback);
  if (!i.ok()) return i;
  if (*i == "nearest") return std::string("ResizeNearestNeighbor");
  if (*i == "bilinear") return std::string("ResizeBilinear");
  return ctx.error("interpolation '" + *i + "' is not converted (nearest and bilinear are)");
}

// NHWC in, the layer's layout out.
KTensor toLast(TfOps& ops, const KTensor& x, bool first) {
  return first ? ops.transpose("transpose", x, {0, 2, 3, 1}) : x;
}
KTensor toFirst(TfOps& ops, const KTensor& x, bool first) {
  return first ? ops.transpose("transpose_1", x, {0, 3, 1, 2}) : x;
}

Result<std::vector<KTensor>> upSampling2dLayer(LayerContext& ctx) {
  auto size = ctx.ints("size", 2, 2);
  auto first = ctx.channelsFirst();
  auto op = interpolation(ctx, "nearest");
  for (const Status& s : {size.status(), first.status(), op.status()})
    if (!s.ok()) return s;
  auto x = ctx.input(4);
  if (!x.ok()) return x.status();
  TfOps& ops = ctx.ops();
  KTensor t = toLast(ops, *x, *first);
  const std::int64_t fh = (*size)[0], fw = (*size)[1];
  if (fh < 1 || fw < 1) return ctx.error("size must be positive");
  KTensor y;
  if (t.dim(1) >= 0 && t.dim(2) >= 0) {
    y = ops.resize(*op, *op, t, t.dim(1) * fh, t.dim(2) * fw, true);
  } else {
    // The size read at run time, as Keras' traced shape arithmetic does.
    KTensor hw = ops.slice("strided_slice", ops.shapeOf("Shape", t), {1}, {3});
    KTensor scaled_hw = ops.binary("Mul", "mul", hw, ops.int32s("Const", {fh, fw}));
    y = ops.resize(*op, *op, t, -1, -1, true, scaled_hw.name);
    y.shape = {t.dim(0), t.dim(1) < 0 ? -1 : t.dim(1) * fh, t.dim(2) < 0 ? -1 : t.dim(2) * fw, t.dim(3)};
  }
  return one(toFirst(ops, y, *first));
}

Result<std::vector<KTensor>> upSampling1dLayer(LayerContext& ctx) {
  auto size = ctx.integer("size", 2);
  if (!size.ok()) return size.status();
  if (*size < 1) return ctx.error("size must be positive");
  auto x = ctx.input(3, {1, 2});
  if (!x.ok()) return x.status();
  TfOps& ops = ctx.ops();
  KTensor t = ops.tile("Tile", ops.expandDims("ExpandDims", *x, 2), {1, 1, *size, 1});
  return one(reshapeKeepBatch(ops, "Reshape", t, {x->dim(1) * *size, x->dim(2)}));
}

// tf.image.resize's crop to the target's aspect ratio (Keras' smart_resize
// and crop_to_aspect_ratio): the centred window of the input.
KTensor cropToAspect(TfOps& ops, const KTensor& x, std::int64_t th, std::int64_t tw) {
  const std::int64_t h = x.dim(1), w = x.dim(2);
  std::int64_t ch = static_cast<std::int64_t>(static_cast<double>(w * th) / static_cast<double>(tw));
  std::int64_t cw = static_cast<std::int64_t>(static_cast<double>(h * tw) / static_cast<double>(th));
  ch = std::max<std::int64_t>(std::min(h, ch), 1);
  cw = std::max<std::int64_t>(std::min(w, cw), 1);
  const auto hs = static_cast<std::int64_t>(static_cast<double>(h - ch) / 2);
  const auto ws = static_cast<std::int64_t>(static_cast<double>(w - cw) / 2);
  if (ch == h && cw == w) return x;
  return ops.slice("crop", x, {0, hs, ws, 0}, {kToEnd, hs + ch, ws + cw, kToEnd});
}

Result<std::vector<KTensor>> resizingLayer(LayerContext& ctx) {
  auto h = ctx.integer("height");
  auto w = ctx.integer("width");
  auto first = ctx.channelsFirst();
  auto op = interpolation(ctx, "bilinear");
  auto crop = ctx.flag("crop_to_aspect_ratio", false);
  auto pad = ctx.flag("pad_to_aspect_ratio", false);
  for (const Status& s : {h.status(), w.status(), first.status(), op.status(), crop.status(), pad.status()})
    if (!s.ok()) return s;
  if (*pad) return ctx.error("pad_to_aspect_ratio is not converted");
  if (*h < 1 || *w < 1 || *h > (1 << 24) || *w > (1 << 24)) return ctx.error("height and width must be positive");
  const Json& antialias = ctx.value("antialias");
  if (antialias.is_boolean() && antialias.get<bool>()) return ctx.error("antialias=True is not converted");
  auto x = ctx.input(4);
  if (!x.ok()) return x.status();
  TfOps& ops = ctx.ops();
  KTensor t = toLast(ops, *x, *first);
  if (*crop) {
    if (t.dim(1) < 0 || t.dim(2) < 0) return ctx.error("crop_to_aspect_ratio needs a known input size");
    t = cropToAspect(ops, t, *h, *w);
  }
  return one(toFirst(ops, ops.resize(*op, *op, t, *h, *w, true), *first));
}

Result<std::vector<KTensor>> centerCropLayer(LayerContext& ctx) {
  auto h = ctx.integer("height");
  auto w = ctx.integer("width");
  auto first = ctx.channelsFirst();
  for (const Status& s : {h.status(), w.status(), first.status()})
    if (!s.ok()) return s;
  auto x = ctx.input(4);
  if (!x.ok()) return x.status();
  TfOps& ops = ctx.ops();
  KTensor t = toLast(ops, *x, *first);
  if (t.dim(1) < 0 || t.dim(2) < 0) return ctx.error("needs a known input size, got " + shapeString(x->shape));
  if (*h < 1 || *w < 1) return ctx.error("height and width must be positive");
  const std::int64_t dh = t.dim(1) - *h, dw = t.dim(2) - *w;
  KTensor y;
  if (dh >= 0 && dw >= 0) {
    y = ops.slice("strided_slice", t, {0, dh / 2, dw / 2, 0}, {kToEnd, dh / 2 + *h, dw / 2 + *w, kToEnd});
  } else {  // smaller than the target: smart_resize
    y = ops.resize("ResizeBilinear", "resize", cropToAspect(ops, t, *h, *w), *h, *w, true);
  }
  return one(toFirst(ops, y, *first));
}

}  // namespace

void addReshapingLayers(LayerRegistry& r) {
  r["Flatten"] = flattenLayer;
  r["Reshape"] = reshapeLayer;
  r["Permute"] = permuteLayer;
  r["RepeatVector"] = repeatVectorLayer;
  r["ZeroPadding1D"] = [](LayerContext& ctx) { return zeroPaddingLayer(ctx, 1); };
  r["ZeroPadding2D"] = [](LayerContext& ctx) { return zeroPaddingLayer(ctx, 2); };
  r["Cropping1D"] = [](LayerContext& ctx) { return croppingLayer(ctx, 1); };
  r["Cropping2D"] = [](LayerContext& ctx) { return croppingLayer(ctx, 2); };
  r["UpSampling1D"] = upSampling1dLayer;
  r["UpSampling2D"] = upSampling2dLayer;
  r["Resizing"] = resizingLayer;
  r["CenterCrop"] = centerCropLayer;
}

}  // namespace gds::model::keras
