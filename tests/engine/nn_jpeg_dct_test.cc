// DecodeJpeg's dct_method as TensorFlow reads it: "" and INTEGER_FAST decode
// with libjpeg's JDCT_IFAST (TensorFlow's default), INTEGER_ACCURATE with
// JDCT_ISLOW. The JPEG is made here with libjpeg at quality 100 from noise,
// where the two inverse DCTs give different pixels; the expected pixels are
// libjpeg's own decodes with each method.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <jpeglib.h>

#include "engine/ops/image_decode.h"
#include "tests/engine/core_test_util.h"

namespace gds::engine {
namespace {

constexpr int kW = 48, kH = 32;

std::string encodeNoiseJpeg() {
  std::vector<unsigned char> rgb(static_cast<size_t>(kW * kH * 3));
  unsigned state = 12345;
  for (size_t i = 0; i < rgb.size(); ++i) {
    state = state * 1103515245u + 12345u;
    // Noise over a gradient: every 8x8 block has energy in high frequencies.
    rgb[i] = static_cast<unsigned char>(((state >> 16) & 0x7f) + (i % (kW * 3)) * 2 % 128);
  }
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  unsigned char* mem = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&c, &mem, &size);
  c.image_width = kW;
  c.image_height = kH;
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 100, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = rgb.data() + static_cast<size_t>(c.next_scanline) * kW * 3;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::string bytes(reinterpret_cast<char*>(mem), size);
  std::free(mem);
  return bytes;
}

// libjpeg's decode with the given method, RGB, fancy upsampling (its default).
std::vector<std::uint8_t> libjpegDecode(const std::string& bytes, J_DCT_METHOD method) {
  jpeg_decompress_struct d;
  jpeg_error_mgr err;
  d.err = jpeg_std_error(&err);
  jpeg_create_decompress(&d);
  jpeg_mem_src(&d, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&d, TRUE);
  d.dct_method = method;
  d.out_color_space = JCS_RGB;
  jpeg_start_decompress(&d);
  std::vector<std::uint8_t> out(static_cast<size_t>(d.output_width * d.output_height * 3));
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = out.data() + static_cast<size_t>(d.output_scanline) * d.output_width * 3;
    jpeg_read_scanlines(&d, &row, 1);
  }
  jpeg_finish_decompress(&d);
  jpeg_destroy_decompress(&d);
  return out;
}

std::vector<std::uint8_t> decodeWithKernel(const std::string& bytes, const std::string& dct_attr, Status* status) {
  Tensor contents(tensorflow::DT_STRING, {});
  contents.strings()[0] = bytes;
  std::string attrs = "attr { key: 'channels' value { i: 3 } }";
  if (!dct_attr.empty()) attrs += " attr { key: 'dct_method' value { s: '" + dct_attr + "' } }";
  auto r = coretest::runOp("DecodeJpeg", {contents}, attrs, 1, false, "");
  *status = r.status;
  if (!r.status.ok()) return {};
  return coretest::values<std::uint8_t>(r.outputs[0]);
}

TEST(JpegDctMethod, DefaultIsIntegerFastLikeTensorFlow) {
  const std::string jpeg = encodeNoiseJpeg();
  const auto fast = libjpegDecode(jpeg, JDCT_IFAST);
  const auto accurate = libjpegDecode(jpeg, JDCT_ISLOW);
  ASSERT_EQ(fast.size(), static_cast<size_t>(kW * kH * 3));
  ASSERT_NE(fast, accurate) << "the test image must decode differently with the two methods";

  ops::DecodedImage im;
  ASSERT_EQ(ops::decodeJpeg(jpeg, 3, &im), "");
  EXPECT_EQ(im.pixels, fast);
  ASSERT_EQ(ops::decodeJpeg(jpeg, 3, &im, ops::JpegDct::kIntegerAccurate), "");
  EXPECT_EQ(im.pixels, accurate);
  // DecodeImage (datasets, label_image) decodes JPEG as TensorFlow's DecodeImage: IFAST.
  ASSERT_EQ(ops::decodeImage(jpeg, 3, &im), "");
  EXPECT_EQ(im.pixels, fast);
}

TEST(JpegDctMethod, KernelHonoursTheAttr) {
  const std::string jpeg = encodeNoiseJpeg();
  const auto fast = libjpegDecode(jpeg, JDCT_IFAST);
  const auto accurate = libjpegDecode(jpeg, JDCT_ISLOW);
  Status s;
  EXPECT_EQ(decodeWithKernel(jpeg, "", &s), fast) << s.message();
  EXPECT_EQ(decodeWithKernel(jpeg, "INTEGER_FAST", &s), fast) << s.message();
  EXPECT_EQ(decodeWithKernel(jpeg, "INTEGER_ACCURATE", &s), accurate) << s.message();
  decodeWithKernel(jpeg, "FLOAT", &s);
  EXPECT_EQ(s.message(),
            "node 'op' (DecodeJpeg): dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}, got 'FLOAT'");
}

}  // namespace
}  // namespace gds::engine
