// Convolution / GEMM math: hand-computed cases, and the optimized paths
// against the reference loops over a grid of shapes, paddings, strides and
// dilations.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/kernel_choice.h"
#include "engine/ops/conv.h"
#include "engine/ops/gemm.h"
#include "engine/thread_pool.h"
#include "tests/test_util.h"

namespace gds::engine::ops {
namespace {

using test::uniformFloats;

float maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  float m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

TEST(NnConvTest, WindowSizesFollowTensorFlow) {
  WindowDim d{7, 3, 2, 1, 0, 0, 0};
  ASSERT_TRUE(computeWindow(Padding::kSame, &d));
  EXPECT_EQ(d.out, 4);
  EXPECT_EQ(d.pad_before, 1);
  EXPECT_EQ(d.pad_after, 1);
  WindowDim e{224, 3, 2, 1, 0, 0, 0};  // even input, SAME, stride 2: pad only at the bottom
  ASSERT_TRUE(computeWindow(Padding::kSame, &e));
  EXPECT_EQ(e.out, 112);
  EXPECT_EQ(e.pad_before, 0);
  EXPECT_EQ(e.pad_after, 1);
  WindowDim v{7, 3, 2, 2, 0, 0, 0};  // dilation 2: effective filter 5
  ASSERT_TRUE(computeWindow(Padding::kValid, &v));
  EXPECT_EQ(v.out, 2);
  WindowDim x{5, 3, 1, 1, 2, 1, 0};
  ASSERT_TRUE(computeWindow(Padding::kExplicit, &x));
  EXPECT_EQ(x.out, 6);
  WindowDim bad{1, 3, 1, 1, 0, 0, 0};
  EXPECT_FALSE(computeWindow(Padding::kValid, &bad));
  Padding p;
  EXPECT_TRUE(parsePadding("SAME", &p));
  EXPECT_FALSE(parsePadding("same", &p));
}

// Which convolutions threads split by output channels: those whose filter
// outweighs one image's input, unless a 1x1 filter's rows divide evenly
// between the parts (ResNet-50's 14x14x256->1024 layer at 2 parts: rows;
// at 4 parts, 14 rows do not divide: slices; its 7x7x512->2048 layer:
// slices), never depthwise, several images or one part.
TEST(NnConvTest, ChannelSlicesWhereTheFilterOutweighsTheInput) {
  ConvGeometry s;
  s.in_h = s.in_w = s.out_h = s.out_w = 14;
  s.in_c = 256, s.out_c = 1024;
  EXPECT_TRUE(convChannelSlices(s, false, 2).empty());
  const auto four = convChannelSlices(s, false, 4);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four.front(), (std::pair<std::int64_t, std::int64_t>{0, 256}));
  EXPECT_EQ(four.back(), (std::pair<std::int64_t, std::int64_t>{768, 1024}));
  s.filter_h = s.filter_w = 3;  // 3x3: channels, even rows or not
  s.pad_top = s.pad_left = 1;
  EXPECT_EQ(convChannelSlices(s, false, 2).size(), 2u);
  s.filter_h = s.filter_w = 1;
  s.pad_top = s.pad_left = 0;
  s.in_h = s.in_w = s.out_h = s.out_w = 7;
  s.in_c = 512, s.out_c = 2048;
  EXPECT_EQ(convChannelSlices(s, false, 2).size(), 2u);
  EXPECT_TRUE(convChannelSlices(s, false, 1).empty());
  EXPECT_TRUE(convChannelSlices(s, true, 2).empty());
  s.batch = 2;
  EXPECT_TRUE(convChannelSlices(s, false, 2).empty());
  s.batch = 1;
  s.in_h = s.in_w = s.out_h = s.out_w = 9;
  s.in_c = s.out_c = 64;  // the input (9x9x64) outweighs the filter (64x64)
  EXPECT_TRUE(convChannelSlices(s, false, 2).empty());
}

TEST(NnConvTest, HandComputedConv) {
  // 1x3x3x1 input 1..9, 2x2x1x1 filter [1,2;3,4], VALID stride 1:
  // out(0,0) = 1*1 + 2*2 + 4*3 + 5*4 = 37, then 47, 67, 77.
  ConvGeometry s;
  s.in_h = s.in_w = 3;
  s.in_c = 1;
  s.filter_h = s.filter_w = 2;
  s.out_c = 1;
  ASSERT_TRUE(computeConvGeometry(Padding::kValid, &s));
  std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8, 9}, f = {1, 2, 3, 4}, out(4), out2(4);
  conv2dReference(s, in.data(), f.data(), out.data());
  EXPECT_EQ(out, (std::vector<float>{37, 47, 67, 77}));
  conv2dOptimized(s, in.data(), f.data(), out2.data(), nullptr);
  EXPECT_EQ(out2, out);
  // SAME: 3x3 output, bottom/right zero padding: out(2,2) = 9*1 = 9, out(0,2) = 3*1 + 6*3 = 21.
  ASSERT_TRUE(computeConvGeometry(Padding::kSame, &s));
  ASSERT_EQ(s.out_h, 3);
  std::vector<float> same(9);
  conv2dOptimized(s, in.data(), f.data(), same.data(), nullptr);
  EXPECT_EQ(same[8], 9);
  EXPECT_EQ(same[2], 21);
}

TEST(NnConvTest, HandComputedDepthwise) {
  // 1x2x2x2 input, 1x1 filter with multiplier 2: out channel c*2+m = x[c] * w[c][m].
  ConvGeometry s;
  s.in_h = s.in_w = 2;
  s.in_c = 2;
  s.out_c = 2;
  ASSERT_TRUE(computeConvGeometry(Padding::kValid, &s));
  std::vector<float> in = {1, 10, 2, 20, 3, 30, 4, 40}, f = {1, 2, 3, 4}, out(16), ref(16);
  depthwiseConv2dReference(s, in.data(), f.data(), ref.data());
  EXPECT_EQ(std::vector<float>(ref.begin(), ref.begin() + 4), (std::vector<float>{1, 2, 30, 40}));
  depthwiseConv2dOptimized(s, in.data(), f.data(), out.data(), nullptr);
  EXPECT_EQ(out, ref);
}

struct ConvCase {
  int n, h, w, c, kh, kw, oc, sh, sw, dh, dw;
  Padding padding;
};

class NnConvBackendTest : public ::testing::TestWithParam<GemmBackend> {
 protected:
  void SetUp() override {
    if (!gemmBackendAvailable(GetParam())) GTEST_SKIP() << gemmBackendName(GetParam()) << " is not built in";
    choice_ = std::make_unique<ScopedKernelChoice>(GetParam());
  }
  void TearDown() override { choice_.reset(); }
  std::unique_ptr<ScopedKernelChoice> choice_;
};

INSTANTIATE_TEST_SUITE_P(Backends, NnConvBackendTest, ::testing::Values(GemmBackend::kEigen, GemmBackend::kOneDnn),
                         [](const auto& info) { return std::string(gemmBackendName(info.param)); });

TEST_P(NnConvBackendTest, OptimizedConvMatchesReferenceOnGrid) {
  ThreadPool pool(2);
  const std::vector<ConvCase> cases = {
      {1, 8, 8, 3, 3, 3, 4, 1, 1, 1, 1, Padding::kSame},   {1, 8, 8, 3, 3, 3, 4, 1, 1, 1, 1, Padding::kValid},
      {2, 9, 7, 5, 3, 3, 6, 2, 2, 1, 1, Padding::kSame},   {2, 9, 7, 5, 3, 3, 6, 2, 2, 1, 1, Padding::kValid},
      {1, 10, 10, 4, 3, 3, 5, 1, 1, 2, 2, Padding::kSame}, {1, 10, 10, 4, 3, 3, 5, 1, 1, 2, 2, Padding::kValid},
      {1, 6, 6, 8, 1, 1, 16, 1, 1, 1, 1, Padding::kSame},  {1, 6, 6, 8, 1, 1, 16, 2, 2, 1, 1, Padding::kValid},
      {1, 11, 13, 3, 7, 7, 8, 2, 2, 1, 1, Padding::kSame}, {1, 5, 5, 2, 5, 1, 3, 1, 3, 1, 1, Padding::kSame},
      {3, 4, 4, 16, 2, 2, 7, 2, 1, 1, 1, Padding::kValid}, {1, 12, 12, 3, 3, 3, 2, 3, 3, 2, 1, Padding::kSame},
  };
  unsigned seed = 1;
  for (const auto& k : cases) {
    for (bool threaded : {false, true}) {
      ConvGeometry s;
      s.batch = k.n;
      s.in_h = k.h;
      s.in_w = k.w;
      s.in_c = k.c;
      s.filter_h = k.kh;
      s.filter_w = k.kw;
      s.out_c = k.oc;
      s.stride_h = k.sh;
      s.stride_w = k.sw;
      s.dilation_h = k.dh;
      s.dilation_w = k.dw;
      ASSERT_TRUE(computeConvGeometry(k.padding, &s));
      const auto in = uniformFloats(s.batch * s.in_h * s.in_w * s.in_c, seed++);
      const auto f = uniformFloats(s.filter_h * s.filter_w * s.in_c * s.out_c, seed++);
      const size_t out_n = static_cast<size_t>(s.batch * s.out_h * s.out_w * s.out_c);
      std::vector<float> ref(out_n), opt(out_n, 123.0f);
      conv2dReference(s, in.data(), f.data(), ref.data());
      conv2dOptimized(s, in.data(), f.data(), opt.data(), threaded ? &pool : nullptr);
      EXPECT_LE(maxAbsDiff(ref, opt), 1e-4f) << "conv case h=" << k.h << " k=" << k.kh << " stride=" << k.sh
                                             << " dilation=" << k.dh << " threaded=" << threaded;
      // Depthwise on the same geometry with multiplier 1 and 3.
      for (std::int64_t mult : {1, 3}) {
        ConvGeometry d = s;
        d.out_c = mult;
        const auto df = uniformFloats(d.filter_h * d.filter_w * d.in_c * mult, seed++);
        const size_t dn = static_cast<size_t>(d.batch * d.out_h * d.out_w * d.in_c * mult);
        std::vector<float> dref(dn), dopt(dn, 7.0f);
        depthwiseConv2dReference(d, in.data(), df.data(), dref.data());
        depthwiseConv2dOptimized(d, in.data(), df.data(), dopt.data(), threaded ? &pool : nullptr);
        EXPECT_LE(maxAbsDiff(dref, dopt), 1e-4f) << "depthwise case h=" << k.h << " mult=" << mult;
      }
    }
  }
}

TEST_P(NnConvBackendTest, LargeConvUsesChunkedPatchesCorrectly) {
  // More patch rows than one chunk holds (k = 3*3*64 = 576, rows = 2*40*40).
  ConvGeometry s;
  s.batch = 2;
  s.in_h = s.in_w = 40;
  s.in_c = 64;
  s.filter_h = s.filter_w = 3;
  s.out_c = 8;
  ASSERT_TRUE(computeConvGeometry(Padding::kSame, &s));
  const auto in = uniformFloats(s.batch * s.in_h * s.in_w * s.in_c, 99);
  const auto f = uniformFloats(3 * 3 * 64 * 8, 98);
  std::vector<float> ref(static_cast<size_t>(2 * 40 * 40 * 8)), opt(ref.size());
  conv2dReference(s, in.data(), f.data(), ref.data());
  ThreadPool pool(2);
  std::vector<float> scratch;
  conv2dOptimized(s, in.data(), f.data(), opt.data(), &pool, &scratch);
  EXPECT_LE(maxAbsDiff(ref, opt), 1e-4f);
}

TEST(NnConvTest, GemmMatchesReferenceWithTransposes) {
  ThreadPool pool(2);
  unsigned seed = 5;
  // Shapes that take every split: tiny (one call), many rows (row blocks),
  // few rows and many columns (column blocks).
  for (auto dims : std::vector<std::array<int, 3>>{{1, 1, 1}, {3, 5, 7}, {64, 33, 129}, {17, 256, 40}, {200, 70, 64}, {7, 300, 150}}) {
    const int m = dims[0], n = dims[1], k = dims[2];
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      const auto a = uniformFloats(m * k, seed++);
      const auto b = uniformFloats(k * n, seed++);
      std::vector<float> ref(static_cast<size_t>(m * n)), one(ref.size()), two(ref.size());
      gemmReference(a.data(), b.data(), ref.data(), m, n, k, ta, tb);
      for (GemmBackend backend : {GemmBackend::kEigen, GemmBackend::kOneDnn}) {
        if (!gemmBackendAvailable(backend)) continue;
        ASSERT_TRUE(gemmWith(backend, a.data(), b.data(), one.data(), m, n, k, ta, tb, nullptr));
        ASSERT_TRUE(gemmWith(backend, a.data(), b.data(), two.data(), m, n, k, ta, tb, &pool));
        EXPECT_LE(maxAbsDiff(ref, one), 1e-4f) << gemmBackendName(backend) << " " << m << "x" << n << "x" << k << " t=" << t;
        EXPECT_LE(maxAbsDiff(ref, two), 1e-4f) << gemmBackendName(backend) << " " << m << "x" << n << "x" << k << " t=" << t;
      }
    }
  }
  // [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]]
  const float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
  float c[4];
  gemm(a, b, c, 2, 2, 2, false, false, nullptr);
  EXPECT_EQ(std::vector<float>(c, c + 4), (std::vector<float>{19, 22, 43, 50}));
  gemm(a, b, c, 2, 2, 2, true, false, nullptr);  // A^T B = [[26,30],[38,44]]
  EXPECT_EQ(std::vector<float>(c, c + 4), (std::vector<float>{26, 30, 38, 44}));
}

TEST(NnConvTest, LayoutTransposesRoundTrip) {
  const auto x = uniformFloats(2 * 3 * 4 * 5, 3);
  std::vector<float> nhwc(x.size()), back(x.size());
  nchwToNhwc(x.data(), nhwc.data(), 2, 3, 4, 5);
  EXPECT_EQ(nhwc[1], x[4 * 5]);  // (n0,h0,w0,c1) = (n0,c1,h0,w0)
  nhwcToNchw(nhwc.data(), back.data(), 2, 4, 5, 3);
  EXPECT_EQ(back, x);
}

}  // namespace
}  // namespace gds::engine::ops
