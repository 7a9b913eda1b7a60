// DecodeJpeg / DecodePng on the images in data/images. PNG dimensions, byte
// sums and a pixel were derived independently (a pure-Python zlib PNG
// decoder); the JPEG checksum is libjpeg's ISLOW output (dct_method
// INTEGER_ACCURATE; nn_jpeg_dct_test.cc covers TF's default INTEGER_FAST).
#include <gtest/gtest.h>

#include <fstream>
#include <numeric>
#include <sstream>

#include "engine/ops/image_decode.h"
#include "tests/test_util.h"

namespace gds::engine::ops {
namespace {

std::uint64_t byteSum(const DecodedImage& im) {
  return std::accumulate(im.pixels.begin(), im.pixels.end(), std::uint64_t{0});
}

TEST(NnImageTest, PngMatchesIndependentDecoder) {
  GDS_REQUIRE_SHARED();
  struct Case {
    const char* file;
    std::int64_t h, w;
    std::uint64_t sum;
    std::uint8_t px[3];  // pixel (row 10, column 20)
  };
  const Case cases[] = {{"astronaut.png", 512, 512, 90124324, {3, 1, 8}},
                        {"chelsea.png", 300, 451, 46802357, {151, 129, 115}},
                        {"coffee.png", 400, 600, 71003487, {30, 20, 11}},
                        {"motorcycle_left.png", 500, 741, 119713739, {101, 44, 23}}};
  for (const auto& c : cases) {
    DecodedImage im;
    ASSERT_EQ(decodePng(test::readAll(test::dataPath(std::string("images/") + c.file)), 0, &im), "") << c.file;
    EXPECT_EQ(im.height, c.h);
    EXPECT_EQ(im.width, c.w);
    EXPECT_EQ(im.channels, 3);
    EXPECT_EQ(byteSum(im), c.sum) << c.file;
    const std::uint8_t* p = im.pixels.data() + (10 * c.w + 20) * 3;
    EXPECT_EQ(p[0], c.px[0]);
    EXPECT_EQ(p[1], c.px[1]);
    EXPECT_EQ(p[2], c.px[2]);
  }
}

TEST(NnImageTest, PngChannelConversion) {
  GDS_REQUIRE_SHARED();
  const std::string bytes = test::readAll(test::dataPath("images/chelsea.png"));
  DecodedImage rgba, gray;
  ASSERT_EQ(decodePng(bytes, 4, &rgba), "");
  EXPECT_EQ(rgba.channels, 4);
  EXPECT_EQ(rgba.pixels[3], 255);
  EXPECT_EQ(rgba.pixels[0 + 4 * (10 * 451 + 20)], 151);
  ASSERT_EQ(decodePng(bytes, 1, &gray), "");
  EXPECT_EQ(gray.channels, 1);
  // BT.601 luma of (151, 129, 115): 0.299*151 + 0.587*129 + 0.114*115 = 133.9
  EXPECT_EQ(gray.pixels[10 * 451 + 20], 134);
}

TEST(NnImageTest, JpegDimensionsAndChecksums) {
  GDS_REQUIRE_SHARED();
  for (const char* file : {"china.jpg", "flower.jpg", "rocket.jpg"}) {
    const std::string bytes = test::readAll(test::dataPath(std::string("images/") + file));
    DecodedImage im, gray, sniffed;
    ASSERT_EQ(decodeJpeg(bytes, 3, &im), "") << file;
    EXPECT_EQ(im.height, 427);
    EXPECT_EQ(im.width, 640);
    EXPECT_EQ(im.channels, 3);
    ASSERT_EQ(decodeJpeg(bytes, 1, &gray), "");
    EXPECT_EQ(gray.channels, 1);
    EXPECT_EQ(gray.pixels.size(), 427u * 640u);
    ASSERT_EQ(decodeImage(bytes, 0, &sniffed), "");
    EXPECT_EQ(sniffed.pixels, im.pixels);
    // Mean intensity is a photo's, not a blank or garbage image.
    const double mean = static_cast<double>(byteSum(im)) / static_cast<double>(im.pixels.size());
    EXPECT_GT(mean, 40.0) << file;
    EXPECT_LT(mean, 215.0) << file;
  }
}

TEST(NnImageTest, JpegChecksumIsStable) {
  GDS_REQUIRE_SHARED();
  DecodedImage im;
  ASSERT_EQ(decodeJpeg(test::readAll(test::dataPath("images/china.jpg")), 3, &im, JpegDct::kIntegerAccurate), "");
  EXPECT_EQ(byteSum(im), 117812912u);  // libjpeg ISLOW, fancy upsampling
}

TEST(NnImageTest, BadDataIsAnError) {
  DecodedImage im;
  EXPECT_EQ(decodePng("not a png", 0, &im), "invalid PNG data: bad signature");
  EXPECT_EQ(decodeJpeg("\xFF\xD8garbage", 0, &im).rfind("invalid JPEG data: ", 0), 0u);
  EXPECT_EQ(decodeImage("GIF89a", 0, &im), "unknown image format (expected JPEG or PNG)");
  EXPECT_EQ(decodeJpeg("", 4, &im), "channels must be 0, 1 or 3 for JPEG, got 4");
}

}  // namespace
}  // namespace gds::engine::ops
