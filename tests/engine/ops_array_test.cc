// Shape and data-movement kernels with exact values: StridedSlice masks,
// negative axes, Concat/Pack/Split/Unpack, Pad/MirrorPad, Gather, Tile,
// Transpose, Reshape (-1), Squeeze, ExpandDims, Fill, Range, OneHot.
#include "tests/engine/core_test_util.h"

namespace gds::engine {
namespace {

using namespace coretest;

Tensor run1(const std::string& op, const std::vector<Tensor>& in, const std::string& attrs = "",
            const std::string& type_attr = "T") {
  OpRun r = runOp(op, in, attrs, 1, false, type_attr);
  EXPECT_TRUE(r.status.ok()) << op << ": " << r.status.message();
  return r.status.ok() ? r.outputs[0] : Tensor();
}

std::string masks(int begin, int end, int ellipsis, int new_axis, int shrink) {
  auto a = [](const char* k, int v) { return std::string(" attr { key: '") + k + "' value { i: " + std::to_string(v) + " } }"; };
  return a("begin_mask", begin) + a("end_mask", end) + a("ellipsis_mask", ellipsis) + a("new_axis_mask", new_axis) +
         a("shrink_axis_mask", shrink) + " attr { key: 'Index' value { type: DT_INT32 } }";
}

Tensor iota(Shape s) {
  Tensor t(tensorflow::DT_FLOAT, s);
  for (std::int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

TEST(OpsArray, StridedSliceMasks) {
  Tensor x = iota({3, 4});
  // x[1:3, ::2]
  Tensor a = run1("StridedSlice", {x, I({2}, {1, 0}), I({2}, {3, 0}), I({2}, {1, 2})}, masks(0, 2, 0, 0, 0));
  EXPECT_EQ(a.shape(), (Shape{2, 2}));
  EXPECT_EQ(values<float>(a), (std::vector<float>{4, 6, 8, 10}));
  // x[-1] (shrink) -> [8,9,10,11]
  Tensor b = run1("StridedSlice", {x, I({1}, {-1}), I({1}, {0}), I({1}, {1})}, masks(0, 0, 0, 0, 1));
  EXPECT_EQ(b.shape(), (Shape{4}));
  EXPECT_EQ(values<float>(b), (std::vector<float>{8, 9, 10, 11}));
  // x[::-1, -1] -> [11, 7, 3]
  Tensor c = run1("StridedSlice", {x, I({2}, {0, -1}), I({2}, {0, 0}), I({2}, {-1, 1})}, masks(1, 1, 0, 0, 2));
  EXPECT_EQ(c.shape(), (Shape{3}));
  EXPECT_EQ(values<float>(c), (std::vector<float>{11, 7, 3}));
  // x[..., 1] -> [1, 5, 9]
  Tensor d = run1("StridedSlice", {x, I({2}, {0, 1}), I({2}, {0, 2}), I({2}, {1, 1})}, masks(0, 0, 1, 0, 2));
  EXPECT_EQ(d.shape(), (Shape{3}));
  EXPECT_EQ(values<float>(d), (std::vector<float>{1, 5, 9}));
  // x[tf.newaxis, 1:, :2] -> shape [1,2,2]
  Tensor e = run1("StridedSlice", {x, I({3}, {0, 1, 0}), I({3}, {0, 0, 2}), I({3}, {1, 1, 1})}, masks(0, 2, 0, 1, 0));
  EXPECT_EQ(e.shape(), (Shape{1, 2, 2}));
  EXPECT_EQ(values<float>(e), (std::vector<float>{4, 5, 8, 9}));
  // Out-of-range end indices clamp: x[1:100] -> rows 1..2
  Tensor f = run1("StridedSlice", {x, I({1}, {1}), I({1}, {100}), I({1}, {1})}, masks(0, 0, 0, 0, 0));
  EXPECT_EQ(f.shape(), (Shape{2, 4}));
  OpRun bad = runOp("StridedSlice", {x, I({1}, {5}), I({1}, {6}), I({1}, {1})}, masks(0, 0, 0, 0, 1));
  EXPECT_EQ(bad.status.message(),
            "node 'op' (StridedSlice): slice index 5 of dimension 0 out of bounds (size 3) (input shape [3,4])");
}

TEST(OpsArray, ConcatPackSplitUnpackWithNegativeAxes) {
  Tensor a = F({2, 2}, {1, 2, 3, 4}), b = F({2, 1}, {5, 6});
  Tensor c = run1("ConcatV2", {a, b, I({}, {-1})}, "attr { key: 'N' value { i: 2 } } attr { key: 'Tidx' value { type: DT_INT32 } }");
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(c), (std::vector<float>{1, 2, 5, 3, 4, 6}));
  OpRun old = runOp("Concat", {I({}, {0}), a, a}, "attr { key: 'N' value { i: 2 } }", 1, false, "");
  ASSERT_TRUE(old.status.ok()) << old.status.message();
  EXPECT_EQ(old.outputs[0].shape(), (Shape{4, 2}));
  Tensor p = run1("Pack", {F({2}, {1, 2}), F({2}, {3, 4}), F({2}, {5, 6})}, "attr { key: 'N' value { i: 3 } } attr { key: 'axis' value { i: -1 } }");
  EXPECT_EQ(p.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(p), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  OpRun u = runOp("Unpack", {p}, "attr { key: 'num' value { i: 3 } } attr { key: 'axis' value { i: 1 } }", 3);
  ASSERT_TRUE(u.status.ok()) << u.status.message();
  EXPECT_EQ(values<float>(u.outputs[2]), (std::vector<float>{5, 6}));
  OpRun s = runOp("Split", {I({}, {-1}), iota({2, 4})}, "attr { key: 'num_split' value { i: 2 } } attr { key: 'T' value { type: DT_FLOAT } }", 2, false, "");
  ASSERT_TRUE(s.status.ok()) << s.status.message();
  EXPECT_EQ(values<float>(s.outputs[1]), (std::vector<float>{2, 3, 6, 7}));
  OpRun sv = runOp("SplitV", {iota({5}), I({2}, {-1, 2}), I({}, {0})}, "attr { key: 'num_split' value { i: 2 } }", 2);
  ASSERT_TRUE(sv.status.ok()) << sv.status.message();
  EXPECT_EQ(values<float>(sv.outputs[0]), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(values<float>(sv.outputs[1]), (std::vector<float>{3, 4}));
  OpRun bad = runOp("Split", {I({}, {0}), iota({3})}, "attr { key: 'num_split' value { i: 2 } } attr { key: 'T' value { type: DT_FLOAT } }", 2, false, "");
  EXPECT_EQ(bad.status.message(),
            "node 'op' (Split): number of ways to split (2) must evenly divide the split dimension (3)");
  // A corrupt count is refused before anything is sized by it (found by fuzzing).
  OpRun huge = runOp("Split", {I({}, {0}), iota({3})},
                     "attr { key: 'num_split' value { i: 34359738367 } } attr { key: 'T' value { type: DT_FLOAT } }",
                     1, false, "");
  EXPECT_EQ(huge.status.message(), "node 'op' (Split): num_split is 34359738367; a node has at most 4096 outputs");
}

TEST(OpsArray, ReshapeSqueezeExpandDims) {
  Tensor x = iota({2, 3});
  Tensor r = run1("Reshape", {x, I({2}, {-1, 2})});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_TRUE(r.sharesBufferWith(x) || r.raw() == x.raw());
  OpRun bad = runOp("Reshape", {x, I({2}, {4, -1})});
  EXPECT_EQ(bad.status.message(),
            "node 'op' (Reshape): cannot reshape a tensor with 6 elements to shape [4,-1] (input shape [2,3])");
  Tensor e = run1("ExpandDims", {x, I({}, {-1})});
  EXPECT_EQ(e.shape(), (Shape{2, 3, 1}));
  Tensor sq = run1("Squeeze", {e}, "attr { key: 'squeeze_dims' value { list { i: -1 } } }");
  EXPECT_EQ(sq.shape(), (Shape{2, 3}));
  Tensor all = run1("Squeeze", {iota({1, 2, 1, 3})});
  EXPECT_EQ(all.shape(), (Shape{2, 3}));
  OpRun nsq = runOp("Squeeze", {x}, "attr { key: 'squeeze_dims' value { list { i: 0 } } }");
  EXPECT_EQ(nsq.status.message(),
            "node 'op' (Squeeze): cannot squeeze dim[0] of shape [2,3]: expected a dimension of 1, got 2");
}

TEST(OpsArray, PadMirrorPadTileTranspose) {
  Tensor x = F({2, 2}, {1, 2, 3, 4});
  Tensor p = run1("Pad", {x, I({2, 2}, {1, 0, 0, 1})});
  EXPECT_EQ(p.shape(), (Shape{3, 3}));
  EXPECT_EQ(values<float>(p), (std::vector<float>{0, 0, 0, 1, 2, 0, 3, 4, 0}));
  Tensor p2 = run1("PadV2", {x, I({2, 2}, {0, 0, 1, 1}), F({}, {9})});
  EXPECT_EQ(values<float>(p2), (std::vector<float>{9, 1, 2, 9, 9, 3, 4, 9}));
  Tensor r = run1("MirrorPad", {F({3}, {1, 2, 3}), I({1, 2}, {2, 2})}, "attr { key: 'mode' value { s: 'REFLECT' } }");
  EXPECT_EQ(values<float>(r), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  Tensor s = run1("MirrorPad", {F({3}, {1, 2, 3}), I({1, 2}, {2, 3})}, "attr { key: 'mode' value { s: 'SYMMETRIC' } }");
  EXPECT_EQ(values<float>(s), (std::vector<float>{2, 1, 1, 2, 3, 3, 2, 1}));
  OpRun bad = runOp("MirrorPad", {F({3}, {1, 2, 3}), I({1, 2}, {3, 0})}, "attr { key: 'mode' value { s: 'REFLECT' } }");
  EXPECT_EQ(bad.status.message(),
            "node 'op' (MirrorPad): paddings in dimension 0 must be at most 2 for REFLECT mode with input [3]");
  Tensor t = run1("Tile", {x, I({2}, {2, 1})});
  EXPECT_EQ(values<float>(t), (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4}));
  Tensor tr = run1("Transpose", {iota({2, 3, 4}), I({3}, {2, 0, 1})});
  EXPECT_EQ(tr.shape(), (Shape{4, 2, 3}));
  // out[k][i][j] = in[i][j][k] = 12i + 4j + k
  EXPECT_EQ(tr.data<float>()[1 * 6 + 1 * 3 + 2], 12 + 8 + 1);
  EXPECT_EQ(tr.data<float>()[3 * 6 + 0 * 3 + 1], 4 + 3);
}

TEST(OpsArray, GatherFillRangeOneHotShape) {
  Tensor params = iota({3, 2});
  Tensor g = run1("GatherV2", {params, I({2, 2}, {2, 0, 1, 1}), I({}, {0})}, "attr { key: 'Tparams' value { type: DT_FLOAT } }", "");
  EXPECT_EQ(g.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(values<float>(g), (std::vector<float>{4, 5, 0, 1, 2, 3, 2, 3}));
  Tensor g1 = run1("GatherV2", {params, I({1}, {1}), I({}, {-1})}, "", "");
  EXPECT_EQ(g1.shape(), (Shape{3, 1}));
  EXPECT_EQ(values<float>(g1), (std::vector<float>{1, 3, 5}));
  OpRun bad = runOp("Gather", {params, I({1}, {3})}, "", 1, false, "");
  EXPECT_EQ(bad.status.message(), "node 'op' (Gather): indices[0] = 3 is not in [0, 3)");
  OpRun fill = runOp("Fill", {I({2}, {2, 2}), F({}, {7})}, "", 1, false, "");
  ASSERT_TRUE(fill.status.ok());
  EXPECT_EQ(values<float>(fill.outputs[0]), (std::vector<float>{7, 7, 7, 7}));
  OpRun range = runOp("Range", {I({}, {3}), I({}, {-4}), I({}, {-3})}, "", 1, false, "Tidx");
  ASSERT_TRUE(range.status.ok()) << range.status.message();
  EXPECT_EQ(values<std::int32_t>(range.outputs[0]), (std::vector<std::int32_t>{3, 0, -3}));
  OpRun frange = runOp("Range", {F({}, {0}), F({}, {1}), F({}, {0.3f})}, "", 1, false, "Tidx");
  ASSERT_TRUE(frange.status.ok());
  EXPECT_EQ(frange.outputs[0].shape(), (Shape{4}));
  OpRun oh = runOp("OneHot", {I({3}, {0, 2, 5}), I({}, {3}), F({}, {1}), F({}, {0})}, "attr { key: 'axis' value { i: -1 } }",
                   1, false, "TI");
  ASSERT_TRUE(oh.status.ok()) << oh.status.message();
  EXPECT_EQ(oh.outputs[0].shape(), (Shape{3, 3}));
  EXPECT_EQ(values<float>(oh.outputs[0]), (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0}));
  OpRun shape = runOp("Shape", {iota({2, 5})}, "attr { key: 'out_type' value { type: DT_INT64 } }");
  ASSERT_TRUE(shape.status.ok());
  EXPECT_EQ(values<std::int64_t>(shape.outputs[0]), (std::vector<std::int64_t>{2, 5}));
  OpRun rank = runOp("Rank", {iota({2, 5, 1})});
  EXPECT_EQ(rank.outputs[0].data<std::int32_t>()[0], 3);
  OpRun size = runOp("Size", {iota({2, 5, 1})});
  EXPECT_EQ(size.outputs[0].data<std::int32_t>()[0], 10);
}

TEST(OpsArray, StringsMoveThroughDataOps) {
  Tensor s(tensorflow::DT_STRING, {3});
  s.strings() = {"a", "bb", "ccc"};
  Tensor g = run1("GatherV2", {s, I({2}, {2, 0}), I({}, {0})}, "", "");
  EXPECT_EQ(g.strings(), (std::vector<std::string>{"ccc", "a"}));
  Tensor t = run1("Tile", {s, I({1}, {2})});
  EXPECT_EQ(t.strings().size(), 6u);
  EXPECT_EQ(t.strings()[4], "bb");
  Tensor id = run1("Identity", {s});
  EXPECT_EQ(id.strings()[1], "bb");
}

}  // namespace
}  // namespace gds::engine
