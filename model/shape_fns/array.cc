// Array ops (array_ops.cc, math_ops.cc): shapes moved, joined and cut,
// most of them needing the known values of a shape or axis input, and the
// reductions.
#include <algorithm>
#include <set>

#include "model/shape_fns/shape_fn.h"

namespace gds::model::shape_fns {
namespace {

void reshape(ShapeContext& c) {
  const std::string& op = c.op();
  const TensorInfo& x = c.in(0);
  const auto* v = c.value(1);
  DataType dt = c.passDtype(0);
  if (op == "QuantizedReshape") {
    setQuantizedRange(c);
  }
  if (!v) {
    const TensorInfo& s = c.in(1);
    if (s.known_rank && s.shape.size() == 1 && s.shape[0] >= 0 && s.shape[0] <= 64)
      c.set(0, TensorInfo::ranked(dt, Shape(static_cast<size_t>(s.shape[0]), -1)));
    else
      c.set(0, TensorInfo::unknown(dt));
    return;
  }
  Shape out(v->begin(), v->end());
  int infer = -1;
  std::int64_t known = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == -1 && infer < 0) infer = static_cast<int>(k);
    else if (out[k] < 0) out[k] = -1;
    else known = dimMul(known, out[k]);
  }
  if (infer >= 0) {
    std::int64_t total = x.elements();
    out[infer] = total >= 0 && known > 0 && total % known == 0 ? total / known : -1;
  }
  c.set(0, TensorInfo::ranked(dt, out));
}

void squeeze(ShapeContext& c) {
  const NodeDef& n = c.def();
  const TensorInfo& x = c.in(0);
  if (!x.known_rank) {
    c.set(0, TensorInfo::unknown(c.passDtype(0)));
    return;
  }
  auto dims = attrInts(n, "squeeze_dims");
  if (dims.empty()) dims = attrInts(n, "axis");
  std::set<std::int64_t> drop;
  int rank = static_cast<int>(x.shape.size());
  for (auto d : dims) drop.insert(normAxis(d, rank));
  Shape out;
  for (int k = 0; k < rank; ++k) {
    if (dims.empty()) {
      if (x.shape[k] < 0) {  // might or might not be 1
        c.set(0, TensorInfo::unknown(c.passDtype(0)));
        return;
      }
      if (x.shape[k] == 1) continue;
    } else if (drop.count(k)) {
      continue;
    }
    out.push_back(x.shape[k]);
  }
  c.set(0, TensorInfo::ranked(c.passDtype(0), out));
}

void expandDims(ShapeContext& c) {
  const TensorInfo& x = c.in(0);
  const auto* v = c.value(1);
  if (!x.known_rank || !v || v->size() != 1) {
    c.set(0, TensorInfo::unknown(c.passDtype(0)));
    return;
  }
  std::int64_t rank = static_cast<std::int64_t>(x.shape.size());
  std::int64_t d = (*v)[0] < -rank - 1 ? -1 : ((*v)[0] < 0 ? (*v)[0] + rank + 1 : (*v)[0]);
  if (d < 0 || d > rank) {
    c.set(0, TensorInfo::unknown(c.passDtype(0)));
    return;
  }
  Shape out = x.shape;
  out.insert(out.begin() + d, 1);
  c.set(0, TensorInfo::ranked(c.passDtype(0), out));
}

void concat(ShapeContext& c) {
  const std::string& op = c.op();
  const NodeDef& n = c.def();
  int count = static_cast<int>(attrInt(n, "N", c.dataInputs() - 1));
  int first = op == "ConcatV2" ? 0 : 1;
  const auto* axis_v = c.value(op == "ConcatV2" ? count : 0);
  DataType dt = c.passDtype(first);
  if (!axis_v || axis_v->size() != 1 || count <= 0) {
    c.set(0, TensorInfo::unknown(dt));
    return;
  }
  TensorInfo acc;
  for (int k = 0; k < count; ++k) {
    const TensorInfo& t = c.in(first + k);
    if (!t.known_rank) {
      c.set(0, TensorInfo::unknown(dt));
      return;
    }
    std::int64_t rank = static_cast<std::int64_t>(t.shape.size());
    std::int64_t axis = normAxis((*axis_v)[0], rank);
    if (axis < 0 || (k > 0 && acc.shape.size() != t.shape.size())) {
      c.set(0, TensorInfo::unknown(dt));
      return;
    }
    if (k == 0) {
      acc = TensorInfo::ranked(dt, t.shape);
      continue;
    }
    for (std::int64_t d = 0; d < rank; ++d) {
      if (d == axis) acc.shape[d] = dimAdd(acc.shape[d], t.shape[d]);
      else if (acc.shape[d] < 0) acc.shape[d] = t.shape[d];
    }
  }
  c.set(0, acc);
}

void pad(ShapeContext& c) {
  const TensorInfo& x = c.in(0);
  const auto* p = c.value(1);
  if (!x.known_rank) {
    c.set(0, TensorInfo::unknown(c.passDtype(0)));
    return;
  }
  Shape out = x.shape;
  if (!p || p->size() != 2 * out.size()) {
    std::fill(out.begin(), out.end(), -1);
  } else {
    for (size_t d = 0; d < out.size(); ++d) out[d] = dimAdd(out[d], dimAdd((*p)[2 * d], (*p)[2 * d + 1]));
  }
  c.set(0, TensorInfo::ranked(c.passDtype(0), out));
}

void shape(ShapeContext& c) {
  const std::string& op = c.op();
  const NodeDef& n = c.def();
  DataType dt = attrType(n, "out_type", tensorflow::DT_INT32);
  int count = op == "Shape" ? 1 : c.dataInputs();
  for (int k = 0; k < count; ++k) {
    const TensorInfo& x = c.in(k);
    c.set(k, x.known_rank ? TensorInfo::ranked(dt, {static_cast<std::int64_t>(x.shape.size())})
                           : TensorInfo::ranked(dt, {-1}));
    if (x.fullyKnown()) c.setValue(k, x.shape);
  }
}

void sizeOrRank(ShapeContext& c) {
  const std::string& op = c.op();
  const NodeDef& n = c.def();
  DataType dt = op == "Rank" ? tensorflow::DT_INT32 : attrType(n, "out_type", tensorflow::DT_INT32);
  c.set(0, TensorInfo::ranked(dt, {}));
  const TensorInfo& x = c.in(0);
  if (op == "Rank" && x.known_rank) c.setValue(0, {static_cast<std::int64_t>(x.shape.size())});
  if (op == "Size" && x.fullyKnown()) c.setValue(0, {x.elements()});
}

void split(ShapeContext& c) {
  const std::string& op = c.op();
  const NodeDef& n = c.def();
  int num = static_cast<int>(std::clamp<std::int64_t>(attrInt(n, op == "Unpack" ? "num" : "num_split", 0), 0,
                                                      static_cast<std::int64_t>(c.numOutputs())));
  const TensorInfo& x = c.in(op == "Split" ? 1 : 0);
  DataType dt = c.passDtype(op == "Split" ? 1 : 0);
  std::vector<std::int64_t> axis_v;
  if (op == "Unpack") axis_v = {attrInt(n, "axis", 0)};
  else if (const auto* v = c.value(op == "Split" ? 0 : 2)) axis_v = *v;
  if (!x.known_rank || axis_v.size() != 1 || num <= 0) {
    for (int k = 0; k < num; ++k) c.set(k, TensorInfo::unknown(dt));
    return;
  }
  std::int64_t rank = static_cast<std::int64_t>(x.shape.size());
  std::int64_t axis = normAxis(axis_v[0], rank);
  if (axis < 0) {
    for (int k = 0; k < num; ++k) c.set(k, TensorInfo::unknown(dt));
    return;
  }
  const auto* sizes = op == "SplitV" ? c.value(1) : nullptr;
  for (int k = 0; k < num; ++k) {
    Shape s = x.shape;
    if (op == "Unpack") {
      s.erase(s.begin() + axis);
    } else if (op == "Split") {
      s[axis] = s[axis] < 0 ? -1 : s[axis] / num;
    } else {
      std::int64_t size = sizes && static_cast<int>(sizes->size()) == num ? (*sizes)[k] : -1;
      if (size == -1 && sizes && x.shape[axis] >= 0) {
        std::int64_t rest = 0;
        for (auto z : *sizes) rest = dimAdd(rest, z == -1 ? 0 : z);
        size = x.shape[axis] - rest;
      }
      s[axis] = size;
    }
    c.set(k, TensorInfo::ranked(dt, s));
  }
}

void pack(ShapeContext& c) {
  const NodeDef& n = c.def();
  int count = c.dataInputs();
  const TensorInfo& x = c.in(0);
  DataType dt = c.passDtype(0);
  if (!x.known_rank) {
    c.set(0, TensorInfo::unknown(dt));
    return;
  }
  std::int64_t rank = static_cast<std::int64_t>(x.shape.size()) + 1;
  std::int64_t axis = normAxis(attrInt(n, "axis", 0), rank);
  if (axis < 0) {
    c.set(0, TensorInfo::unknown(dt));
    return;
  }
  Shape out = x.shape;
  out.insert(out.begin() + axis, count);
  c.set(0, TensorInfo::ranked(dt, out));
  if (x.shape.empty()) {  // packing known scalars gives a known vector
    std::vector<std::int64_t> vals;
    for (int k = 0; k < count; ++k) {
      const auto* v = c.value(k);
      if (!v || v->size() != 1) return;
      vals.push_back((*v)[0]);
    }
    c.setValue(0, vals);
  }
}

void transpose(ShapeContext& c) {
  const TensorInfo& x = c.in(0);
  const auto* perm = c.value(1);
  if (!x.known_rank || !perm || perm->size() != x.shape.size()) {
    c.set(0, x.known_rank ? TensorInfo::ranked(c.passDtype(0), Shape(x.shape.size(), -1))
                           : TensorInfo::unknown(c.passDtype(0)));
    return;
  }
  Shape out(x.shape.size());
  for (size_t k = 0; k < out.size(); ++k) {
    std::int64_t p = (*perm)[k];
    out[k] = p >= 0 && p < static_cast<std::int64_t>(x.shape.size()) ? x.shape[p] : -1;
  }
  c.set(0, TensorInfo::ranked(c.passDtype(0), out));
}

void fill(ShapeContext& c) {
  const auto* dims = c.value(0);
  DataType dt = c.passDtype(1);
  c.set(0, dims ? TensorInfo::ranked(dt, Shape(dims->begin(), dims->end())) : TensorInfo::unknown(dt));
}

void tile(ShapeContext& c) {
  const TensorInfo& x = c.in(0);
  const auto* m = c.value(1);
  if (!x.known_rank || !m || m->size() != x.shape.size()) {
    c.set(0, TensorInfo::unknown(c.passDtype(0)));
    return;
  }
  Shape out = x.shape;
  for (size_t k = 0; k < out.size(); ++k) out[k] = dimMul(out[k], (*m)[k]);
  c.set(0, TensorInfo::ranked(c.passDtype(0), out));
}

void slice(ShapeContext& c) {
  const TensorInfo& x = c.in(0);
  const auto* b = c.value(1);
  const auto* s = c.value(2);
  if (!x.known_rank || !b || !s || b->size() != x.shape.size() || s->size() != x.shape.size()) {
    c.set(0, TensorInfo::unknown(c.passDtype(0)));
    return;
  }
  Shape out(x.shape.size());
  for (size_t k = 0; k < out.size(); ++k)
    out[k] = (*s)[k] == -1 ? (x.shape[k] < 0 || (*b)[k] < 0 || (*b)[k] > x.shape[k] ? -1 : x.shape[k] - (*b)[k])
                           : (*s)[k];
  c.set(0, TensorInfo::ranked(c.passDtype(0), out));
}

void gather(ShapeContext& c) {
  const std::string& op = c.op();
  const NodeDef& n = c.def();
  const TensorInfo& p = c.in(0);
  const TensorInfo& idx = c.in(1);
  DataType dt = attrType(n, "Tparams", p.dtype);
  std::vector<std::int64_t> axis_v = {0};
  if (op == "GatherV2") {
    const auto* v = c.value(2);
    if (!v) axis_v.clear();
    else axis_v = *v;
  }
  if (!p.known_rank || !idx.known_rank || axis_v.size() != 1) {
    c.set(0, TensorInfo::unknown(dt));
    return;
  }
  std::int64_t rank = static_cast<std::int64_t>(p.shape.size());
  std::int64_t axis = normAxis(axis_v[0], rank);
  if (axis < 0) {
    c.set(0, TensorInfo::unknown(dt));
    return;
  }
  Shape out(p.shape.begin(), p.shape.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), p.shape.begin() + axis + 1, p.shape.end());
  c.set(0, TensorInfo::ranked(dt, out));
}

void range(ShapeContext& c) {
  const NodeDef& n = c.def();
  DataType dt = attrType(n, "Tidx", tensorflow::DT_INT32);
  const auto* s = c.value(0);
  const auto* l = c.value(1);
  const auto* d = c.value(2);
  std::int64_t len = -1;
  auto small = [](const std::vector<std::int64_t>* v) {
    return v && v->size() == 1 && (*v)[0] > -(1LL << 40) && (*v)[0] < (1LL << 40);
  };
  if (small(s) && small(l) && small(d) && (*d)[0] != 0) {
    std::int64_t span = (*l)[0] - (*s)[0];
    len = std::max<std::int64_t>(0, (span + (*d)[0] + ((*d)[0] > 0 ? -1 : 1)) / (*d)[0]);
  }
  c.set(0, TensorInfo::ranked(dt, {len}));
}

void reduce(ShapeContext& c) {
  const std::string& op = c.op();
  const NodeDef& n = c.def();
  bool arg = op == "ArgMax" || op == "ArgMin";
  DataType dt = arg ? attrType(n, "output_type", tensorflow::DT_INT64)
                    : (isOneOf(op, {"Any", "All"}) ? tensorflow::DT_BOOL : c.passDtype(0));
  const TensorInfo& x = c.in(0);
  const auto* axes = c.value(1);
  bool keep = !arg && (attrBool(n, "keep_dims", false) || attrBool(n, "keepdims", false));
  if (!x.known_rank || !axes) {
    // Without the axes only keep_dims fixes the rank.
    if (x.known_rank && keep) c.set(0, TensorInfo::ranked(dt, Shape(x.shape.size(), -1)));
    else c.set(0, TensorInfo::unknown(dt));
    return;
  }
  std::int64_t rank = static_cast<std::int64_t>(x.shape.size());
  std::set<std::int64_t> red;
  for (auto a : *axes) {
    std::int64_t d = normAxis(a, rank);
    if (d < 0) {
      c.set(0, TensorInfo::unknown(dt));
      return;
    }
    red.insert(d);
  }
  Shape out;
  for (std::int64_t d = 0; d < rank; ++d) {
    if (!red.count(d)) out.push_back(x.shape[d]);
    else if (keep) out.push_back(1);
  }
  c.set(0, TensorInfo::ranked(dt, out));
}

}  // namespace

void registerArrayShapeFns(ShapeFnRegistry& r) {
  r.add({"Reshape", "QuantizedReshape"}, reshape);
  r.add({"Squeeze"}, squeeze);
  r.add({"ExpandDims"}, expandDims);
  r.add({"ConcatV2", "Concat", "QuantizedConcat"}, concat);
  r.add({"Pad", "PadV2", "MirrorPad"}, pad);
  r.add({"Shape", "ShapeN"}, shape);
  r.add({"Size", "Rank"}, sizeOrRank);
  r.add({"Split", "SplitV", "Unpack"}, split);
  r.add({"Pack"}, pack);
  r.add({"Transpose"}, transpose);
  r.add({"Fill"}, fill);
  r.add({"Tile"}, tile);
  r.add({"Slice"}, slice);
  r.add({"GatherV2", "Gather"}, gather);
  r.add({"Range"}, range);
}

void registerReductionShapeFns(ShapeFnRegistry& r) {
  r.add({"Sum", "Mean", "Max", "Min", "Prod", "Any", "All", "EuclideanNorm", "ArgMax", "ArgMin"}, reduce);
}

}  // namespace gds::model::shape_fns
