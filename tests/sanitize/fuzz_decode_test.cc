// Loop fuzzing of the decoders that read user files: .npy (model::parseNpy),
// WAV (DecodeWav's front end), JPEG and PNG (DecodeJpeg/DecodePng), under
// AddressSanitizer + UBSan. Seeds are small files made here (every PNG colour
// type, baseline and progressive JPEG, WAVs with extra chunks, .npy of each
// dtype) plus the corpus's sample files; each iteration decodes a mutated
// seed and checks what a success returns against its own header.
//
// A crash, a sanitizer report or a leak fails the test. Decoders that take an
// image or array size from the header and allocate it unchecked show up as
// "unbounded allocation" (the sanitizer refuses allocations over
// max_allocation_size_mb): they are listed, counted and left to the memory
// budget's checks.
#include <gtest/gtest.h>

#include <jpeglib.h>
#include <png.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/ops/audio.h"
#include "engine/ops/image_decode.h"
#include "model/npy.h"
#include "model/tensor.h"
#include "tests/sanitize/fuzz_util.h"
#include "tests/test_util.h"

namespace gds::fuzz {
namespace {

std::string readBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A gradient image with `channels` channels.
std::vector<std::uint8_t> gradient(int width, int height, int channels) {
  std::vector<std::uint8_t> px(static_cast<std::size_t>(width * height * channels));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) px[(y * width + x) * channels + c] = static_cast<std::uint8_t>(x * 16 + y * 8 + c * 60);
  return px;
}

std::string encodeJpeg(int width, int height, int channels, bool progressive, int restart_rows) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(width);
  cinfo.image_height = static_cast<JDIMENSION>(height);
  cinfo.input_components = channels;
  cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 85, TRUE);
  if (progressive) jpeg_simple_progression(&cinfo);
  cinfo.restart_in_rows = restart_rows;
  jpeg_start_compress(&cinfo, TRUE);
  std::vector<std::uint8_t> px = gradient(width, height, channels);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = px.data() + static_cast<std::size_t>(cinfo.next_scanline) * width * channels;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::string out(reinterpret_cast<const char*>(buffer), size);
  free(buffer);
  return out;
}

void appendPng(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), length);
}

std::string encodePng(int width, int height, int color_type, int bit_depth, bool interlaced) {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return {};
  }
  png_set_write_fn(png, &out, appendPng, nullptr);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), bit_depth, color_type,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  int channels = 1;
  if (color_type == PNG_COLOR_TYPE_PALETTE) {
    png_color palette[16];
    for (int i = 0; i < 16; ++i) palette[i] = {static_cast<png_byte>(i * 16), static_cast<png_byte>(255 - i * 16), 80};
    png_set_PLTE(png, info, palette, 16);
    png_byte alpha[4] = {0, 64, 128, 255};
    png_set_tRNS(png, info, alpha, 4, nullptr);
  } else if (color_type == PNG_COLOR_TYPE_RGB) {
    channels = 3;
  } else if (color_type == PNG_COLOR_TYPE_RGB_ALPHA) {
    channels = 4;
  } else if (color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
    channels = 2;
  }
  png_write_info(png, info);
  const int bytes = bit_depth == 16 ? 2 : 1;
  std::vector<std::uint8_t> px = gradient(width, height, channels * bytes);
  if (color_type == PNG_COLOR_TYPE_PALETTE)
    for (auto& v : px) v &= 0x0f;
  std::vector<png_bytep> rows(static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y) rows[y] = px.data() + static_cast<std::size_t>(y) * width * channels * bytes;
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

std::string le(std::uint32_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

std::string makeWav(int channels, int frames, bool extra_chunk) {
  std::string data;
  for (int i = 0; i < frames * channels; ++i) data += le(static_cast<std::uint16_t>(i * 977), 2);
  std::string fmt = "fmt " + le(16, 4) + le(1, 2) + le(channels, 2) + le(16000, 4) + le(16000 * 2 * channels, 4) +
                    le(2 * channels, 2) + le(16, 2);
  std::string extra = extra_chunk ? "LIST" + le(6, 4) + "INFOab" : "";
  std::string body = "WAVE" + fmt + extra + "data" + le(static_cast<std::uint32_t>(data.size()), 4) + data;
  return "RIFF" + le(static_cast<std::uint32_t>(body.size()), 4) + body;
}

std::vector<std::string> imageSeeds() {
  std::vector<std::string> seeds = {
      encodeJpeg(13, 9, 3, false, 0), encodeJpeg(16, 16, 1, false, 1), encodeJpeg(21, 7, 3, true, 0),
      encodePng(11, 6, PNG_COLOR_TYPE_RGB, 8, false), encodePng(9, 9, PNG_COLOR_TYPE_GRAY, 8, true),
      encodePng(8, 5, PNG_COLOR_TYPE_RGB_ALPHA, 8, false), encodePng(7, 7, PNG_COLOR_TYPE_PALETTE, 4, false),
      encodePng(6, 4, PNG_COLOR_TYPE_RGB, 16, true), encodePng(5, 3, PNG_COLOR_TYPE_GRAY_ALPHA, 8, false)};
  return seeds;
}

// A sanitizer report or crash fails; unbounded allocations are printed.
void expectClean(const FuzzOutcome& outcome, long minimum_iterations) {
  EXPECT_GE(outcome.iterations, minimum_iterations);
  EXPECT_EQ(outcome.failures(), "");
  for (const Finding& f : outcome.findings)
    if (f.kind == "unbounded allocation")
      std::printf("unbounded allocation at iteration %ld (replay: GDS_FUZZ_ONLY=%ld):\n%s\n", f.iteration, f.iteration,
                  f.report.substr(0, 1500).c_str());
}

TEST(DecodeFuzz, ImagesSeedsDecode) {
  for (const std::string& seed : imageSeeds()) {
    engine::ops::DecodedImage im;
    ASSERT_EQ(engine::ops::decodeImage(seed, 0, &im), "");
    EXPECT_GT(im.height * im.width, 0);
    EXPECT_EQ(im.pixels.size(), static_cast<std::size_t>(im.height * im.width * im.channels));
  }
}

TEST(DecodeFuzz, JpegAndPng) {
  std::vector<std::string> corpus = imageSeeds();
  if (test::sharedAvailable()) corpus.push_back(readBytes(test::dataPath("images/rocket.jpg")));
  auto outcome = forkedLoop("jpeg/png", 4000, 60, [&](long i) {
    Rng rng = iterationRng(0x1a6e, i);
    // The large corpus photo decodes slowly: mutate the small seeds mostly.
    std::vector<std::string> pick = {corpus[rng.below(rng.oneIn(20) ? corpus.size() : corpus.size() - 1)]};
    const std::string bytes = mutateBytes(pick, rng);
    static const int kChannels[] = {0, 1, 3, 4};
    const int channels = kChannels[rng.below(4)];
    engine::ops::DecodedImage im;
    const std::string error = engine::ops::decodeImage(bytes, channels, &im);
    if (error.empty()) {
      // What the success says must hold: PNG allows 4 channels, JPEG 1 or 3.
      if (im.height <= 0 || im.width <= 0 || (channels != 0 && im.channels != channels) ||
          im.pixels.size() != static_cast<std::size_t>(im.height * im.width * im.channels)) {
        std::fprintf(stderr, "decoded image %lldx%lldx%lld with %zu bytes, asked for %d channels\n",
                     static_cast<long long>(im.height), static_cast<long long>(im.width),
                     static_cast<long long>(im.channels), im.pixels.size(), channels);
        std::abort();
      }
    }
  });
  expectClean(outcome, 200);
}

TEST(DecodeFuzz, Wav) {
  std::vector<std::string> corpus = {makeWav(1, 40, false), makeWav(2, 25, true), makeWav(3, 7, false)};
  if (test::sharedAvailable()) corpus.push_back(readBytes(test::dataPath("speech/yes_en-us_140.wav")));
  auto outcome = forkedLoop("wav", 4000, 40, [&](long i) {
    Rng rng = iterationRng(0x3a7, i);
    const std::string bytes = mutateBytes(corpus, rng);
    static const std::int64_t kChannels[] = {-1, 1, 2};
    static const std::int64_t kSamples[] = {-1, 10, 16000};
    const std::int64_t channels = kChannels[rng.below(3)], samples = kSamples[rng.below(3)];
    engine::ops::DecodedWav wav;
    if (!engine::ops::decodeWav(bytes, channels, samples, &wav).empty()) return;
    bool ok = wav.frames >= 0 && wav.channels > 0 && wav.samples.size() == static_cast<std::size_t>(wav.frames * wav.channels) &&
              (channels <= 0 || wav.channels == channels) && (samples <= 0 || wav.frames == samples);
    for (float v : wav.samples) ok = ok && v >= -1.0f && v < 1.0f;
    if (!ok) {
      std::fprintf(stderr, "decoded WAV of %lld frames x %lld channels, %zu samples\n", static_cast<long long>(wav.frames),
                   static_cast<long long>(wav.channels), wav.samples.size());
      std::abort();
    }
  });
  expectClean(outcome, 200);
}

TEST(DecodeFuzz, Npy) {
  std::vector<std::string> corpus;
  const std::pair<tensorflow::DataType, model::Shape> seeds[] = {
      {tensorflow::DT_FLOAT, {2, 3}}, {tensorflow::DT_INT32, {}},       {tensorflow::DT_UINT8, {4}},
      {tensorflow::DT_INT64, {1, 2, 2}}, {tensorflow::DT_DOUBLE, {3, 1}}, {tensorflow::DT_INT8, {0, 5}},
      {tensorflow::DT_BOOL, {2}},     {tensorflow::DT_HALF, {2, 2}}};
  for (const auto& [dtype, shape] : seeds) {
    model::HostTensor t = model::HostTensor::zeros(dtype, shape);
    for (std::size_t k = 0; k < t.data.size(); ++k) t.data[k] = static_cast<std::uint8_t>(dtype == tensorflow::DT_BOOL ? k % 2 : k * 37);
    corpus.push_back(model::toNpy(t));
    auto back = model::parseNpy(corpus.back(), "seed.npy");
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->data, t.data);
  }
  auto outcome = forkedLoop("npy", 6000, 40, [&](long i) {
    Rng rng = iterationRng(0x6e9, i);
    const std::string bytes = mutateBytes(corpus, rng);
    auto t = model::parseNpy(bytes, "fuzz.npy");
    if (!t.ok()) {
      if (t.error().find("fuzz.npy") == std::string::npos) {
        std::fprintf(stderr, "error without the file name: %s\n", t.error().c_str());
        std::abort();
      }
      return;
    }
    const std::int64_t n = t->size();
    const std::size_t expected = t->dtype == tensorflow::DT_STRING ? 0 : static_cast<std::size_t>(n) * model::dtypeSize(t->dtype);
    if (n < 0 || t->data.size() != expected) {
      std::fprintf(stderr, "parsed %lld elements of %s with %zu bytes\n", static_cast<long long>(n),
                   model::dtypeName(t->dtype).c_str(), t->data.size());
      std::abort();
    }
  });
  expectClean(outcome, 500);
}

}  // namespace
}  // namespace gds::fuzz
