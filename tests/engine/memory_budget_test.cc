// The memory budget in the engine and the decoders: sizes that come from
// tensor values, Const contents and file headers are checked before they are
// allocated; damaged media are errors.
#include "model/memory_budget.h"

#include <gtest/gtest.h>
#include <png.h>

#include "engine/allocation.h"
#include "engine/ops/audio.h"
#include "engine/ops/image_decode.h"
#include "engine/ops/nn.h"
#include "tests/engine/core_test_util.h"
#include "tests/media_files.h"

namespace gds::engine {
namespace {

using coretest::F;
using coretest::I;
using coretest::OpRun;
using coretest::runOp;

// Sets the budget for one test and restores the default after it.
class Budget {
 public:
  explicit Budget(std::int64_t bytes) { model::setMemoryBudget(bytes); }
  ~Budget() { model::setMemoryBudget(0); }
};

TEST(MemoryBudget, KernelOutputsAreCheckedWhereTheyAreAllocated) {
  Budget budget(1 << 20);
  OpRun r = runOp("Fill", {I({2}, {1000, 1000}), F({}, {1.f})}, "attr { key: 'index_type' value { type: DT_INT32 } }",
                  1, false, "");
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.message(),
            "node 'op' (Fill): output 0 float[1000,1000]: 1000000 elements (3.8 MiB) exceed the "
            "memory budget of 1.0 MiB (set GDS_MEMORY_BUDGET to change it)");
  // Just under it, the same node runs.
  r = runOp("Fill", {I({2}, {500, 500}), F({}, {1.f})}, "", 1, false, "");
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (Shape{500, 500}));
}

TEST(MemoryBudget, TileAndPadCheckBeforeBuildingTheirIndexTables) {
  Budget budget(1 << 20);
  // An empty output whose second dimension alone would need 8 TB of index table.
  OpRun r = runOp("Tile", {F({0, 1}, {}), I({2}, {1, 1000000000})}, "", 1, false, "T");
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.message(),
            "node 'op' (Tile): index table of dimension 1 of output 0: 1000000000 elements (7.5 GiB) "
            "exceed the memory budget of 1.0 MiB (set GDS_MEMORY_BUDGET to change it)");
  r = runOp("Tile", {F({2}, {1, 2}), I({1}, {2000000000})}, "", 1, false, "T");
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("node 'op' (Tile): output 0 float[4000000000]: "), std::string::npos)
      << r.status.message();
  r = runOp("Pad", {F({1}, {1}), I({1, 2}, {0, 2000000000})}, "", 1, false, "T");
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("node 'op' (Pad): output 0 float[2000000001]: "), std::string::npos)
      << r.status.message();
  // Sizes that overflow int64 are named as such (no wrap-around).
  Tensor big_multiple(tensorflow::DT_INT64, {1});
  big_multiple.data<std::int64_t>()[0] = std::int64_t{1} << 62;
  r = runOp("Tile", {F({4}, {1, 2, 3, 4}), big_multiple}, "attr { key: 'Tmultiples' value { type: DT_INT64 } }", 1,
            false, "T");
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.message(), "node 'op' (Tile): multiples [4611686018427387904] of [4] overflow 64 bits");
}

TEST(MemoryBudget, RangeBeyondInt64IsAnError) {
  OpRun r = runOp("Range", {F({}, {0.f}), F({}, {1e30f}), F({}, {1e-30f})}, "", 1, false, "Tidx");
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("node 'op' (Range): requires ((limit - start) / delta) <= 2^63 - 1"),
            std::string::npos)
      << r.status.message();
}

TEST(MemoryBudget, ConstsAreCheckedAsTheyAreDecoded) {
  Budget budget(1 << 20);
  tensorflow::TensorProto proto;
  proto.set_dtype(tensorflow::DT_FLOAT);
  proto.mutable_tensor_shape()->add_dim()->set_size(1 << 20);
  proto.add_float_val(1.f);
  auto decoded = model::decodeTensor(proto);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error(),
            "tensor float[1048576]: 1048576 elements (4.0 MiB) exceed the memory budget of 1.0 MiB "
            "(set GDS_MEMORY_BUDGET to change it)");
  // A tensor allocated anywhere in the engine is checked too.
  EXPECT_THROW(Tensor(tensorflow::DT_FLOAT, {1 << 20}), AllocationRefused);
  EXPECT_THROW(Tensor(tensorflow::DT_FLOAT, {-3}), AllocationRefused);
  EXPECT_NO_THROW(Tensor(tensorflow::DT_FLOAT, {1 << 10}));
}

TEST(DamagedMedia, JpegTruncatedAnywhereIsAnError) {
  for (bool progressive : {false, true}) {
    const std::string full = test::encodeJpeg(40, 24, 3, progressive, 0);
    ops::DecodedImage im;
    ASSERT_EQ(ops::decodeJpeg(full, 3, &im), "");
    for (std::size_t keep = 0; keep < full.size(); ++keep) {
      const std::string error = ops::decodeJpeg(full.substr(0, keep), 3, &im);
      EXPECT_EQ(error.rfind("invalid JPEG data: ", 0), 0u)
          << (progressive ? "progressive" : "baseline") << " JPEG cut to " << keep << " of " << full.size()
          << " bytes decoded: '" << error << "'";
    }
  }
  ops::DecodedImage im;
  EXPECT_EQ(ops::decodeJpeg(test::encodeJpeg(40, 24, 3, false, 0).substr(0, 600), 3, &im),
            "invalid JPEG data: Premature end of JPEG file");
}

TEST(DamagedMedia, ImageHeadersBeyondTheBudgetAreRefusedBeforeDecoding) {
  Budget budget(1 << 20);
  ops::DecodedImage im;
  EXPECT_EQ(ops::decodePng(test::pngClaimingSize(100000, 100000), 0, &im),
            "an image of 100000x100000 pixels, 3 channels: 30000000000 elements (28 GiB) exceed the memory budget "
            "of 1.0 MiB (set GDS_MEMORY_BUDGET to change it)");
  EXPECT_EQ(ops::decodeJpeg(test::jpegClaimingSize(1000, 1000), 0, &im),
            "an image of 1000x1000 pixels, 3 channels: 3000000 elements (2.9 MiB) exceed the memory budget of 1.0 MiB "
            "(set GDS_MEMORY_BUDGET to change it)");
  // Within it, the same decoders work.
  ASSERT_EQ(ops::decodePng(test::encodePng(300, 200, PNG_COLOR_TYPE_RGB, 8, false), 4, &im), "");
  EXPECT_EQ(im.pixels.size(), 300u * 200u * 4u);
}

TEST(DamagedMedia, WavDataChunkRunningPastTheEndIsAnError) {
  const std::string wav = test::makeWav(2, 50, true);
  ops::DecodedWav out;
  ASSERT_EQ(ops::decodeWav(wav, -1, -1, &out), "");
  EXPECT_EQ(out.frames, 50);
  EXPECT_EQ(ops::decodeWav(wav.substr(0, wav.size() - 1), -1, -1, &out),
            "WAV 'data' chunk declares 200 bytes but only 199 follow in the file (truncated?)");
  Budget budget(1 << 20);
  EXPECT_EQ(ops::decodeWav(wav, 2, 1000000, &out),
            "1000000 samples of 2 channels: 2000000 elements (7.6 MiB) exceed the memory budget of 1.0 MiB (set "
            "GDS_MEMORY_BUDGET to change it)");
}

TEST(DamagedMedia, ResizeFromEightBitPixelsEqualsResizeFromFloats) {
  const std::string png = test::encodePng(37, 23, PNG_COLOR_TYPE_RGB, 8, false);
  ops::DecodedImage im;
  ASSERT_EQ(ops::decodePng(png, 3, &im), "");
  const std::vector<float> as_float(im.pixels.begin(), im.pixels.end());
  for (auto [h, w] : {std::pair<int, int>{224, 224}, {10, 7}, {23, 37}}) {
    std::vector<float> a(static_cast<std::size_t>(h * w * 3)), b(a.size());
    ops::resizeBilinear(im.pixels.data(), 1, im.height, im.width, 3, h, w, false, false, a.data());
    ops::resizeBilinear(as_float.data(), 1, im.height, im.width, 3, h, w, false, false, b.data());
    EXPECT_EQ(a, b);
  }
}

}  // namespace
}  // namespace gds::engine
