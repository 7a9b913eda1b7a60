// Recurrent layers, unrolled over a known number of time steps (Keras'
// rnn(unroll=True) path, keras/src/backend/tensorflow/rnn.py): SimpleRNN,
// LSTM (gates i, f, c, o), GRU (gates z, r, h; reset_after applies the
// reset gate after the recurrent matmul with a separate recurrent bias),
// the generic RNN around one of their cells, Bidirectional and
// TimeDistributed. Each step lives in its own name scope ("lstm/step_3").
// A Keras mask carries the previous output and state through masked steps
// (zeroing outputs with zero_output_for_mask); the initial state is zero,
// so the first step's recurrent terms are left out.
#include "model/keras/convert_impl.h"

namespace gds::model::keras {

namespace {

namespace tf = tensorflow;

enum class Cell { Simple, Lstm, Gru };

struct RnnConfig {
  Cell cell = Cell::Lstm;
  std::int64_t units = 0;
  bool use_bias = true, reset_after = true;
  bool return_sequences = false, return_state = false, go_backwards = false, zero_output_for_mask = false;
  Json activation = "tanh", recurrent_activation = "sigmoid";
};

Result<RnnConfig> readRnn(LayerContext& ctx, Cell cell) {
  RnnConfig c;
  c.cell = cell;
  auto units = ctx.integer("units");
  auto use_bias = ctx.flag("use_bias", true);
  auto reset_after = ctx.flag("reset_after", true);
  auto seq = ctx.flag("return_sequences", false);
  auto state = ctx.flag("return_state", false);
  auto back = ctx.flag("go_backwards", false);
  auto zero = ctx.flag("zero_output_for_mask", false);
  auto time_major = ctx.flag("time_major", false);
  for (const Status& s : {units.status(), use_bias.status(), reset_after.status(), seq.status(), state.status(),
                          back.status(), zero.status(), time_major.status()})
    if (!s.ok()) return s;
  if (*units < 1 || *units > (1 << 24)) return ctx.error("units is " + std::to_string(*units));
  if (*time_major) return ctx.error("time_major=True is not converted");
  c.units = *units;
  c.use_bias = *use_bias;
  c.reset_after = *reset_after;
  c.return_sequences = *seq;
  c.return_state = *state;
  c.go_backwards = *back;
  c.zero_output_for_mask = *zero;
  if (ctx.has("activation")) c.activation = ctx.value("activation");
  if (ctx.has("recurrent_activation")) c.recurrent_activation = ctx.value("recurrent_activation");
  if (cell == Cell::Simple) c.recurrent_activation = nullptr;
  const Json& initial = ctx.call().kwargs.is_object() && ctx.call().kwargs.contains("initial_state")
                            ? ctx.call().kwargs["initial_state"]
                            : Json();
  if (!initial.is_null()) return ctx.error("an initial_state given by other tensors is not converted");
  return c;
}

// The gate count and the bias shape of each cell.
std::int64_t gates(Cell c) { return c == Cell::Lstm ? 4 : c == Cell::Gru ? 3 : 1; }

struct CellWeights {
  KTensor kernel, recurrent, bias, recurrent_bias;
  bool has_bias = false, has_recurrent_bias = false;
};

Result<CellWeights> readWeights(LayerContext& ctx, const RnnConfig& c, std::int64_t features) {
  const std::int64_t g = gates(c.cell) * c.units;
  std::vector<std::string> names = {"kernel", "recurrent_kernel"};
  std::vector<Shape> shapes = {{features, g}, {c.units, g}};
  if (c.use_bias) {
    names.push_back("bias");
    shapes.push_back(c.cell == Cell::Gru && c.reset_after ? Shape{2, g} : Shape{g});
  }
  auto w = ctx.weights(names, shapes, "cell");
  if (!w.ok()) return w.status();
  CellWeights out;
  out.kernel = (*w)[0];
  out.recurrent = (*w)[1];
  if (c.use_bias) {
    out.has_bias = true;
    out.bias = (*w)[2];
    if (c.cell == Cell::Gru && c.reset_after) {
      // bias[0] for the inputs, bias[1] for the recurrent product.
      out.recurrent_bias = ctx.ops().sliceIndex("bias/unstack_1", out.bias, 0, 1);
      out.bias = ctx.ops().sliceIndex("bias/unstack", out.bias, 0, 0);
      out.has_recurrent_bias = true;
    }
  }
  return out;
}

struct State {
  KTensor h, c;
  bool zero = true;  // the initial (all-zero) state
};

// One step of the cell; returns the new state (the output is h).
Result<State> step(LayerContext& ctx, const RnnConfig& c, const CellWeights& w, const KTensor& x, const State& s) {
  TfOps& ops = ctx.ops();
  KTensor z = ops.matMul("MatMul", x, w.kernel);
  State out;
  out.zero = false;
  if (c.cell == Cell::Simple) {
    if (w.has_bias) z = ops.binary("AddV2", "add", z, w.bias);
    if (!s.zero) z = ops.binary("AddV2", "add_1", z, ops.matMul("MatMul_1", s.h, w.recurrent));
    auto h = ctx.activation(c.activation, z);
    if (!h.ok()) return h.status();
    out.h = *h;
    return out;
  }
  if (c.cell == Cell::Lstm) {
    if (!s.zero) z = ops.binary("AddV2", "add", z, ops.matMul("MatMul_1", s.h, w.recurrent));
    if (w.has_bias) z = ops.binary("AddV2", "add_1", z, w.bias);
    auto parts = ops.split("split", z, 1, 4);
    auto i = ctx.activation(c.recurrent_activation, parts[0]);
    auto cc = ctx.activation(c.activation, parts[2]);
    auto o = ctx.activation(c.recurrent_activation, parts[3]);
    for (const Status& st : {i.status(), cc.status(), o.status()})
      if (!st.ok()) return st;
    KTensor ic = ops.binary("Mul", "mul_1", *i, *cc);
    if (s.zero) {
      out.c = ic;  // the forget gate multiplies the zero initial cell state
    } else {
      auto f = ctx.activation(c.recurrent_activation, parts[1]);
      if (!f.ok()) return f.status();
      out.c = ops.binary("AddV2", "add_2", ops.binary("Mul", "mul", *f, s.c), ic);
    }
    auto act = ctx.activation(c.activation, out.c);
    if (!act.ok()) return act.status();
    out.h = ops.binary("Mul", "mul_2", *o, *act);
    return out;
  }
  // GRU
  if (w.has_bias) z = ops.binary("AddV2", "BiasAdd", z, w.bias);
  auto xs = ops.split("split", z, 1, 3);
  const std::int64_t u = c.units;
  KTensor rz, rr, rh;
  bool have_rz = false, have_rh = false;
  if (c.reset_after) {
    KTensor inner;
    bool have_inner = false;
    if (!s.zero) {
      inner = ops.matMul("MatMul_1", s.h, w.recurrent);
      have_inner = true;
    }
    if (w.has_recurrent_bias) {
      inner = have_inner ? ops.binary("AddV2", "BiasAdd_1", inner, w.recurrent_bias) : w.recurrent_bias;
      have_inner = true;
    }
    if (have_inner) {
      auto parts = ops.split("split_1", inner.shape.size() == 1 ? ops.expandDims("ExpandDims", inner, 0) : inner, 1, 3);
      rz = parts[0];
      rr = parts[1];
      rh = parts[2];
      have_rz = have_rh = true;
    }
  } else if (!s.zero) {
    KTensor inner = ops.matMul("MatMul_1", s.h, ops.slice("strided_slice", w.recurrent, {0, 0}, {kToEnd, 2 * u}));
    auto parts = ops.split("split_1", inner, 1, 2);
    rz = parts[0];
    rr = parts[1];
    have_rz = true;
  }
  auto zg = ctx.activation(c.recurrent_activation, have_rz ? ops.binary("AddV2", "add", xs[0], rz) : xs[0]);
  auto rg = ctx.activation(c.recurrent_activation, have_rz ? ops.binary("AddV2", "add_1", xs[1], rr) : xs[1]);
  if (!zg.ok()) return zg.status();
  if (!rg.ok()) return rg.status();
  KTensor hx = xs[2];
  if (c.reset_after && have_rh) {
    hx = ops.binary("AddV2", "add_2", hx, ops.binary("Mul", "mul", *rg, rh));
  } else if (!c.reset_after && !s.zero) {
    KTensor rec = ops.slice("strided_slice_1", w.recurrent, {0, 2 * u}, {kToEnd, kToEnd});
    hx = ops.binary("AddV2", "add_2", hx, ops.matMul("MatMul_2", ops.binary("Mul", "mul", *rg, s.h), rec));
  }
  auto hh = ctx.activation(c.activation, hx);
  if (!hh.ok()) return hh.status();
  // h = z * h_prev + (1 - z) * hh
  KTensor one_minus = ops.binary("Sub", "sub", ops.scalar("sub/x", 1.0f), *zg);
  KTensor new_part = ops.binary("Mul", "mul_2", one_minus, *hh);
  out.h = s.zero ? new_part : ops.binary("AddV2", "add_3", ops.binary("Mul", "mul_1", *zg, s.h), new_part);
  return out;
}

// Keeps the previous value where the step is masked (zero before the first).
KTensor keep(TfOps& ops, const std::string& name, const KTensor& mask, const KTensor& now, const KTensor* before) {
  if (!before) return ops.binary("Mul", name, now, ops.cast(name + "/Cast", mask, tf::DT_FLOAT));
  return ops.select(name, mask, now, *before);
}

Result<std::vector<KTensor>> runRnn(LayerContext& ctx, Cell cell) {
  auto c = readRnn(ctx, cell);
  if (!c.ok()) return c.status();
  auto x = ctx.input(3, {2});
  if (!x.ok()) return x.status();
  if (x->dim(1) < 0)
    return ctx.error("needs a known number of time steps to unroll; its input is " + shapeString(x->shape) +
                     " (give the input a fixed sequence length)");
  if (x->dim(1) == 0) return ctx.error("its input has no time steps");
  auto w = readWeights(ctx, *c, x->dim(2));
  if (!w.ok()) return w.status();
  TfOps& ops = ctx.ops();
  std::vector<KTensor> xs = ops.unpack("unstack", *x, 1);
  std::vector<KTensor> masks;
  if (!x->mask.empty()) {
    KTensor m{x->mask, {x->dim(0), x->dim(1)}, tf::DT_BOOL, ""};
    for (const auto& mt : ops.unpack("unstack_mask", m, 1)) masks.push_back(ops.expandDims("ExpandDims", mt, 1));
  }
  if (c->go_backwards) {
    std::reverse(xs.begin(), xs.end());
    std::reverse(masks.begin(), masks.end());
  }
  State s;
  std::vector<KTensor> outputs;
  for (std::size_t t = 0; t < xs.size(); ++t) {
    auto scope = ops.builder().scope("step_" + std::to_string(t));
    auto next = step(ctx, *c, *w, xs[t], s);
    if (!next.ok()) return next.status();
    KTensor out = next->h;
    if (!masks.empty()) {
      const KTensor& m = masks[t];
      out = keep(ops, "output", m, next->h, outputs.empty() ? nullptr : &outputs.back());
      next->h = keep(ops, "h", m, next->h, s.zero ? nullptr : &s.h);
      if (cell == Cell::Lstm) next->c = keep(ops, "c", m, next->c, s.zero ? nullptr : &s.c);
    }
    outputs.push_back(out);
    s = *next;
  }
  KTensor result;
  if (c->return_sequences) {
    result = ops.pack("stack", outputs, 1);
    if (!masks.empty() && c->zero_output_for_mask) {
      KTensor m{x->mask, {x->dim(0), x->dim(1)}, tf::DT_BOOL, ""};
      if (c->go_backwards) m = ops.reverse("ReverseV2", m, 1);
      result = keep(ops, "zero_masked", ops.expandDims("ExpandDims_1", m, 2), result, nullptr);
    }
    result.mask = x->mask;
  } else {
    result = outputs.back();
    if (!masks.empty() && c->zero_output_for_mask) result = keep(ops, "zero_masked", masks.back(), result, nullptr);
  }
  std::vector<KTensor> out = {result};
  if (c->return_state) {
    out.push_back(s.h);
    if (cell == Cell::Lstm) out.push_back(s.c);
  }
  return out;
}

// keras.layers.RNN around one cell: the cell's config with the RNN's own
// settings, converted as the matching layer (weights under "cell" alike).
Result<std::vector<KTensor>> genericRnnLayer(LayerContext& ctx) {
  const Json& cell = ctx.value("cell");
  if (!cell.is_object() || !cell.contains("class_name") || !cell.contains("config") || !cell["config"].is_object())
    return ctx.error("its cell " + cell.dump().substr(0, 100) + " cannot be read");
  static const std::map<std::string, std::string> kCells = {
      {"LSTMCell", "LSTM"}, {"GRUCell", "GRU"}, {"SimpleRNNCell", "SimpleRNN"}};
  auto it = kCells.find(cell.value("class_name", ""));
  if (it == kCells.end()) return ctx.error("its cell class " + cell["class_name"].dump() + " is not converted");
  Json merged = cell["config"];
  for (const char* key : {"return_sequences", "return_state", "go_backwards", "time_major", "zero_output_for_mask"})
    if (ctx.has(key)) merged[key] = ctx.value(key);
  merged["name"] = ctx.layer().name;
  Json inner = {{"class_name", it->second}, {"config", merged}};
  return ctx.callInner(inner, ctx.inputs(), "", ctx.layer().name);
}

Result<std::vector<KTensor>> bidirectionalLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto mode = ctx.value("merge_mode").is_null() && ctx.config().contains("merge_mode")
                  ? Result<std::string>(std::string("none"))
                  : ctx.string("merge_mode", "concat");
  if (!mode.ok()) return mode.status();
  const Json& layer = ctx.value("layer");
  if (!layer.is_object() || !layer.contains("config") || !layer["config"].is_object())
    return ctx.error("its wrapped layer cannot be read");
  Json backward = ctx.value("backward_layer");
  if (!backward.is_object()) {
    backward = layer;
    backward["config"]["go_backwards"] = !layer["config"].value("go_backwards", false);
    backward["config"]["name"] = "backward_" + layer["config"].value("name", std::string("layer"));
  }
  Json forward = layer;
  forward["config"]["name"] = "forward_" + layer["config"].value("name", std::string("layer"));
  const bool sequences = layer["config"].value("return_sequences", false);
  // Keras forces zero_output_for_mask to return_sequences in both directions.
  forward["config"]["zero_output_for_mask"] = sequences;
  backward["config"]["zero_output_for_mask"] = sequences;
  auto f = ctx.callInner(forward, {*x}, "forward_layer", "forward");
  if (!f.ok()) return f.status();
  auto b = ctx.callInner(backward, {*x}, "backward_layer", "backward");
  if (!b.ok()) return b.status();
  TfOps& ops = ctx.ops();
  KTensor y = (*f)[0], y_rev = (*b)[0];
  if (sequences) y_rev = ops.reverse("ReverseV2", y_rev, 1);
  std::vector<KTensor> out;
  if (*mode == "concat") out.push_back(ops.concat("concat", {y, y_rev}, -1));
  else if (*mode == "sum") out.push_back(ops.binary("AddV2", "add", y, y_rev));
  else if (*mode == "mul") out.push_back(ops.binary("Mul", "mul", y, y_rev));
  else if (*mode == "ave")
    out.push_back(ops.binary("RealDiv", "truediv", ops.binary("AddV2", "add", y, y_rev), ops.scalar("truediv/y", 2.0f)));
  else if (*mode == "none") out = {y, y_rev};
  else return ctx.error("merge_mode '" + *mode + "' is not concat, sum, mul, ave or None");
  if (sequences && !x->mask.empty())
    for (auto& o : out) o.mask = x->mask;
  out.insert(out.end(), f->begin() + 1, f->end());
  out.insert(out.end(), b->begin() + 1, b->end());
  return out;
}

// TimeDistributed: the batch and time axes merged, the wrapped layer
// applied, and split again (tf.keras' reshape path).
Result<std::vector<KTensor>> timeDistributedLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  if (x->rank() < 3) return ctx.error("needs an input of rank 3 or more, got " + shapeString(x->shape));
  for (int i = 2; i < x->rank(); ++i)
    if (x->dim(i) < 0) return ctx.error("needs the per-step shape of its input " + shapeString(x->shape) + " to be known");
  TfOps& ops = ctx.ops();
  Shape merged = {-1};
  merged.insert(merged.end(), x->shape.begin() + 2, x->shape.end());
  KTensor flat = ops.reshape("Reshape", *x, merged);
  auto inner = ctx.callInner(ctx.value("layer"), {flat}, "layer", "layer");
  if (!inner.ok()) return inner.status();
  if (inner->size() != 1) return ctx.error("its wrapped layer returns " + std::to_string(inner->size()) + " tensors");
  const KTensor& y = (*inner)[0];
  for (int i = 1; i < y.rank(); ++i)
    if (y.dim(i) < 0) return ctx.error("the wrapped layer's output shape " + shapeString(y.shape) + " is not static");
  std::vector<KTensor> parts;
  KTensor shape = ops.shapeOf("Shape", *x);
  parts.push_back(ops.sliceIndex("strided_slice", shape, 0, 0));
  parts.push_back(ops.sliceIndex("strided_slice_1", shape, 0, 1));
  Shape out = {x->dim(0), x->dim(1)};
  for (int i = 1; i < y.rank(); ++i) {
    HostTensor v = HostTensor::zeros(tf::DT_INT32, {});
    v.as<std::int32_t>()[0] = static_cast<std::int32_t>(y.dim(i));
    parts.push_back(ops.constant("Reshape_1/shape/" + std::to_string(i + 1), v));
    out.push_back(y.dim(i));
  }
  KTensor result = ops.reshapeTo("Reshape_1", y, ops.pack("Reshape_1/shape", parts, 0), out);
  result.mask = x->mask;
  return std::vector<KTensor>{result};
}

}  // namespace

void addRecurrentLayers(LayerRegistry& r) {
  r["SimpleRNN"] = [](LayerContext& ctx) { return runRnn(ctx, Cell::Simple); };
  r["LSTM"] = [](LayerContext& ctx) { return runRnn(ctx, Cell::Lstm); };
  r["GRU"] = [](LayerContext& ctx) { return runRnn(ctx, Cell::Gru); };
  r["RNN"] = genericRnnLayer;
  r["Bidirectional"] = bidirectionalLayer;
  r["TimeDistributed"] = timeDistributedLayer;
}

}  // namespace gds::model::keras
