// Pooling, batch norm, LRN, resize, mirror pad and space<->batch math: small
// cases computed by hand from TensorFlow's rules.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/ops/nn.h"
#include "engine/thread_pool.h"

namespace gds::engine::ops {
namespace {

Pool2DShape pool3x3() {
  Pool2DShape s;
  s.in_h = s.in_w = 3;
  s.channels = 1;
  s.window_h = s.window_w = 2;
  s.stride_h = s.stride_w = 2;
  s.out_h = s.out_w = 2;  // SAME: pad only bottom/right
  return s;
}

TEST(NnLayersTest, PoolingSameExcludesPadding) {
  const std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> out(4);
  maxPool(pool3x3(), in.data(), out.data(), nullptr);
  EXPECT_EQ(out, (std::vector<float>{5, 6, 8, 9}));
  avgPool(pool3x3(), in.data(), out.data(), nullptr);
  EXPECT_EQ(out, (std::vector<float>{3, 4.5, 7.5, 9}));  // divides by the valid cells
  // Negative inputs: max over valid cells only (padding is not a 0).
  const std::vector<float> neg = {-1, -2, -3, -4, -5, -6, -7, -8, -9};
  maxPool(pool3x3(), neg.data(), out.data(), nullptr);
  EXPECT_EQ(out, (std::vector<float>{-1, -3, -7, -9}));
}

TEST(NnLayersTest, PoolingThreadedMatchesSingle) {
  Pool2DShape s;
  s.batch = 2;
  s.in_h = s.in_w = 15;
  s.channels = 7;
  s.window_h = s.window_w = 3;
  s.stride_h = s.stride_w = 2;
  s.pad_top = s.pad_left = 1;
  s.out_h = s.out_w = 8;
  std::vector<float> in(2 * 15 * 15 * 7);
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(static_cast<float>(i));
  std::vector<float> a(2 * 8 * 8 * 7), b(a.size());
  ThreadPool pool(2);
  avgPool(s, in.data(), a.data(), nullptr);
  avgPool(s, in.data(), b.data(), &pool);
  EXPECT_EQ(a, b);
  // out(0,0,0,0) averages rows 0..1, cols 0..1 (top/left padding excluded).
  EXPECT_FLOAT_EQ(a[0], (in[0] + in[7] + in[15 * 7] + in[16 * 7]) / 4);
}

TEST(NnLayersTest, BatchNormAndBias) {
  const float gamma[] = {2, 1}, beta[] = {1, 0}, mean[] = {3, 0}, var[] = {4, 1};
  float scale[2], shift[2];
  batchNormCoefficients(2, gamma, beta, mean, var, 0.0f, scale, shift);
  const std::vector<float> x = {5, 2, 3, -1};  // NHWC, 2 pixels x 2 channels
  std::vector<float> y(4);
  channelAffine(x.data(), 2, 2, 1, scale, shift, y.data(), nullptr);
  EXPECT_EQ(y, (std::vector<float>{3, 2, 1, -1}));  // (5-3)/2*2+1 = 3
  // NCHW layout: [1, 2 channels, 2 pixels].
  channelAffine(x.data(), 1, 2, 2, scale, shift, y.data(), nullptr);
  EXPECT_EQ(y, (std::vector<float>{3, 0, 3, -1}));
  const float bias[] = {10, 20};
  biasAdd(x.data(), 2, 2, 1, bias, y.data(), nullptr);
  EXPECT_EQ(y, (std::vector<float>{15, 22, 13, 19}));
  float m[2], v[2];
  channelMoments(x.data(), 2, 2, 1, m, v);
  EXPECT_FLOAT_EQ(m[0], 4);
  EXPECT_FLOAT_EQ(v[0], 1);  // biased: ((5-4)^2 + (3-4)^2) / 2
  EXPECT_FLOAT_EQ(m[1], 0.5f);
  EXPECT_FLOAT_EQ(v[1], 2.25f);
}

TEST(NnLayersTest, LrnSumsSquaresOverTheDepthWindow) {
  const std::vector<float> x = {1, 2, 3};
  std::vector<float> y(3);
  lrn(x.data(), 1, 3, 1, 1.0f, 1.0f, 1.0f, y.data());
  EXPECT_FLOAT_EQ(y[0], 1.0f / 6);   // 1 / (1 + 1 + 4)
  EXPECT_FLOAT_EQ(y[1], 2.0f / 15);  // 2 / (1 + 1 + 4 + 9)
  EXPECT_FLOAT_EQ(y[2], 3.0f / 14);  // 3 / (1 + 4 + 9)
  lrn(x.data(), 1, 3, 0, 2.0f, 0.5f, 0.5f, y.data());
  EXPECT_FLOAT_EQ(y[2], 3.0f / std::sqrt(2.0f + 0.5f * 9));
}

TEST(NnLayersTest, ResizeBilinearRules) {
  const std::vector<float> in = {0, 1, 2, 3};  // 1x2x2x1
  std::vector<float> out(16);
  resizeBilinear(in.data(), 1, 2, 2, 1, 4, 4, false, false, out.data());
  EXPECT_EQ(out, (std::vector<float>{0, 0.5, 1, 1, 1, 1.5, 2, 2, 2, 2.5, 3, 3, 2, 2.5, 3, 3}));
  resizeBilinear(in.data(), 1, 2, 2, 1, 4, 4, false, true, out.data());
  EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 4), (std::vector<float>{0, 0.25, 0.75, 1}));
  std::vector<float> ac(9);
  resizeBilinear(in.data(), 1, 2, 2, 1, 3, 3, true, false, ac.data());
  EXPECT_EQ(ac, (std::vector<float>{0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3}));
  EXPECT_FLOAT_EQ(resizeScale(2, 3, true), 0.5f);
  EXPECT_FLOAT_EQ(resizeScale(2, 1, true), 2.0f);  // out == 1: align_corners ignored
}

TEST(NnLayersTest, ResizeNearestRules) {
  const std::vector<std::int32_t> row = {10, 20, 30, 40};  // 1x1x4x1
  std::vector<std::int32_t> out(3);
  resizeNearest(row.data(), 4, 1, 1, 4, 1, 1, 3, false, true, out.data());  // (i+0.5)*4/3 -> 0, 2, 3
  EXPECT_EQ(out, (std::vector<std::int32_t>{10, 30, 40}));
  resizeNearest(row.data(), 4, 1, 1, 4, 1, 1, 3, false, false, out.data());  // floor(i*4/3) -> 0, 1, 2
  EXPECT_EQ(out, (std::vector<std::int32_t>{10, 20, 30}));
  resizeNearest(row.data(), 4, 1, 1, 4, 1, 1, 3, true, false, out.data());  // round(i*1.5) -> 0, 2, 3
  EXPECT_EQ(out, (std::vector<std::int32_t>{10, 30, 40}));
  const std::vector<std::uint8_t> two = {1, 2};
  std::vector<std::uint8_t> up(4);
  resizeNearest(two.data(), 1, 1, 1, 2, 1, 1, 4, false, false, up.data());
  EXPECT_EQ(up, (std::vector<std::uint8_t>{1, 1, 2, 2}));
}

TEST(NnLayersTest, MirrorPadModes) {
  const std::vector<float> in = {1, 2, 3};
  const std::int64_t shape[4] = {1, 1, 3, 1};
  const std::int64_t pads[4][2] = {{0, 0}, {0, 0}, {2, 2}, {0, 0}};
  std::vector<float> out(7);
  mirrorPad4D(in.data(), shape, pads, true, out.data());
  EXPECT_EQ(out, (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  mirrorPad4D(in.data(), shape, pads, false, out.data());
  EXPECT_EQ(out, (std::vector<float>{2, 1, 1, 2, 3, 3, 2}));
}

TEST(NnLayersTest, SpaceToBatchAndBack) {
  // TF's documented example: [1,4,4,1], block [2,2].
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i + 1);
  std::vector<float> b(16);
  spaceToBatch(x.data(), 4, {1, 4, 4, 1}, {2, 2}, {0, 0}, {4, 2, 2, 1}, b.data());
  EXPECT_EQ(b, (std::vector<float>{1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}));
  std::vector<float> back(16, 0);
  batchToSpace(b.data(), 4, {4, 2, 2, 1}, {2, 2}, {0, 0}, {1, 4, 4, 1}, back.data());
  EXPECT_EQ(back, x);
  // Padding (dilated conv pattern): [1,2,2,1] padded by 1 on each side -> [4,2,2,1].
  const std::vector<float> small = {1, 2, 3, 4};
  std::vector<float> padded(16);
  spaceToBatch(small.data(), 4, {1, 2, 2, 1}, {2, 2}, {1, 1}, {4, 2, 2, 1}, padded.data());
  // batch 0 takes padded rows/cols 0,2 -> only (2,2) = x(1,1) = 4 is inside.
  EXPECT_EQ(std::vector<float>(padded.begin(), padded.begin() + 4), (std::vector<float>{0, 0, 0, 4}));
  EXPECT_EQ(std::vector<float>(padded.begin() + 12, padded.end()), (std::vector<float>{1, 0, 0, 0}));
  std::vector<float> cropped(4);
  batchToSpace(padded.data(), 4, {4, 2, 2, 1}, {2, 2}, {1, 1}, {1, 2, 2, 1}, cropped.data());
  EXPECT_EQ(cropped, small);
  // A trailing "rest" dimension (channels) moves as a block.
  const std::vector<std::int16_t> ch = {1, -1, 2, -2};  // [1, 2, 2] (block on dim 1)
  std::vector<std::int16_t> chb(4);
  spaceToBatch(ch.data(), 2, {1, 2, 2}, {2}, {0}, {2, 1, 2}, chb.data());
  EXPECT_EQ(chb, (std::vector<std::int16_t>{1, -1, 2, -2}));
}

}  // namespace
}  // namespace gds::engine::ops
