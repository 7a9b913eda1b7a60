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
#include "model/memory_budget.h"
#include "model/npy.h"
#include "model/tensor.h"
#include "tests/media_files.h"
#include "tests/sanitize/fuzz_util.h"
#include "tests/test_util.h"

namespace gds::fuzz {
namespace {

using test::encodeJpeg;
using test::encodePng;
using test::makeWav;

std::vector<std::string> imageSeeds() {
  std::vector<std::string> seeds = {
      encodeJpeg(13, 9, 3, false, 0), encodeJpeg(16, 16, 1, false, 1), encodeJpeg(21, 7, 3, true, 0),
      encodePng(11, 6, PNG_COLOR_TYPE_RGB, 8, false), encodePng(9, 9, PNG_COLOR_TYPE_GRAY, 8, true),
      encodePng(8, 5, PNG_COLOR_TYPE_RGB_ALPHA, 8, false), encodePng(7, 7, PNG_COLOR_TYPE_PALETTE, 4, false),
      encodePng(6, 4, PNG_COLOR_TYPE_RGB, 16, true), encodePng(5, 3, PNG_COLOR_TYPE_GRAY_ALPHA, 8, false)};
  return seeds;
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
  // Half of the sanitizer's largest allocation: sizes from headers and
  // tensor values are refused by the budget's checks before they reach it.
  model::setMemoryBudget(std::int64_t{256} << 20);
  std::vector<std::string> corpus = imageSeeds();
  if (test::sharedAvailable()) corpus.push_back(test::readAll(test::dataPath("images/rocket.jpg")));
  auto outcome = forkedLoop("jpeg/png", 4000, [&](long i) {
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
  expectClean(outcome);
}

TEST(DecodeFuzz, Wav) {
  // Half of the sanitizer's largest allocation: sizes from headers and
  // tensor values are refused by the budget's checks before they reach it.
  model::setMemoryBudget(std::int64_t{256} << 20);
  std::vector<std::string> corpus = {makeWav(1, 40, false), makeWav(2, 25, true), makeWav(3, 7, false)};
  if (test::sharedAvailable()) corpus.push_back(test::readAll(test::dataPath("speech/yes_en-us_140.wav")));
  auto outcome = forkedLoop("wav", 4000, [&](long i) {
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
  expectClean(outcome);
}

TEST(DecodeFuzz, Npy) {
  // Half of the sanitizer's largest allocation: sizes from headers and
  // tensor values are refused by the budget's checks before they reach it.
  model::setMemoryBudget(std::int64_t{256} << 20);
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
  auto outcome = forkedLoop("npy", 6000, [&](long i) {
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
  expectClean(outcome);
}

}  // namespace
}  // namespace gds::fuzz
