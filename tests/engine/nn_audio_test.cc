// Speech front end: DecodeWav -> AudioSpectrogram -> Mfcc on a real clip,
// checked against values derived independently from TensorFlow's algorithm by
// tests/engine/nn_audio_reference.py (pure Python, naive DFT):
//   nn_audio_reference.py yes_en-us_140.wav 480 160 40 0 40
//   nn_audio_reference.py yes_en-us_140.wav 640 320 10 25
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/ops/audio.h"
#include "tests/test_util.h"

namespace gds::engine::ops {
namespace {

std::string makeWav(const std::vector<std::int16_t>& samples, int channels, int rate) {
  auto u32 = [](std::uint32_t v) { return std::string{char(v & 255), char((v >> 8) & 255), char((v >> 16) & 255), char(v >> 24)}; };
  auto u16 = [](std::uint16_t v) { return std::string{char(v & 255), char(v >> 8)}; };
  std::string data;
  for (auto s : samples) data += u16(static_cast<std::uint16_t>(s));
  std::string fmt = u16(1) + u16(static_cast<std::uint16_t>(channels)) + u32(static_cast<std::uint32_t>(rate)) +
                    u32(static_cast<std::uint32_t>(rate * channels * 2)) + u16(static_cast<std::uint16_t>(channels * 2)) + u16(16);
  std::string body = "WAVE" + std::string("fmt ") + u32(16) + fmt + "data" + u32(static_cast<std::uint32_t>(data.size())) + data;
  return "RIFF" + u32(static_cast<std::uint32_t>(body.size())) + body;
}

TEST(NnAudioTest, DecodeWavChannelsAndLength) {
  // Stereo, 3 frames: (16384, -32768), (0, 32767), (-16384, 8192).
  const std::string wav = makeWav({16384, -32768, 0, 32767, -16384, 8192}, 2, 8000);
  DecodedWav out;
  ASSERT_EQ(decodeWav(wav, -1, -1, &out), "");
  EXPECT_EQ(out.frames, 3);
  EXPECT_EQ(out.channels, 2);
  EXPECT_EQ(out.sample_rate, 8000);
  EXPECT_EQ(out.samples, (std::vector<float>{0.5f, -1.0f, 0.0f, 32767.0f / 32768.0f, -0.5f, 0.25f}));
  // desired_channels 1 keeps channel 0; desired_samples 5 zero-pads.
  ASSERT_EQ(decodeWav(wav, 1, 5, &out), "");
  EXPECT_EQ(out.samples, (std::vector<float>{0.5f, 0.0f, -0.5f, 0.0f, 0.0f}));
  // desired_channels 3 repeats the last channel; desired_samples 1 truncates.
  ASSERT_EQ(decodeWav(wav, 3, 1, &out), "");
  EXPECT_EQ(out.samples, (std::vector<float>{0.5f, -1.0f, -1.0f}));
  EXPECT_EQ(decodeWav("RIFF1234WAVX", -1, -1, &out), "not a RIFF/WAVE file (header 'RIFF....WAVE' missing)");
  std::string eight_bit = wav;
  eight_bit[34] = 8;  // bits per sample
  EXPECT_EQ(decodeWav(eight_bit, -1, -1, &out), "WAV has 8 bits per sample (expected 16)");
}

// The specification: TF's spectrogram.cc in double with a naive DFT.
std::vector<double> naivePowerSpectrogram(const std::vector<float>& x, int channels, int channel, int window,
                                          int stride) {
  int fft = 1;
  while (fft < window) fft *= 2;
  const int samples = static_cast<int>(x.size()) / channels;
  std::vector<double> out;
  for (int start = 0; start + window <= samples; start += stride) {
    std::vector<double> frame(fft, 0.0);
    for (int i = 0; i < window; ++i)
      frame[i] = x[(start + i) * channels + channel] * (0.5 - 0.5 * std::cos(2 * M_PI * i / window));
    for (int k = 0; k <= fft / 2; ++k) {
      double r = 0, m = 0;
      for (int j = 0; j < fft; ++j) {
        r += frame[j] * std::cos(2 * M_PI * j * k / fft);
        m -= frame[j] * std::sin(2 * M_PI * j * k / fft);
      }
      out.push_back(r * r + m * m);
    }
  }
  return out;
}

TEST(NnAudioTest, SpectrogramMatchesNaiveDftOnInterleavedChannels) {
  // Two interleaved channels, a window that is not a power of two (zero padding).
  const int channels = 2, samples = 200, window = 50, stride = 30;
  std::vector<float> x(samples * channels);
  for (int i = 0; i < samples; ++i) {
    x[i * channels] = static_cast<float>(std::sin(i * 0.37) + 0.1 * std::cos(i * 2.1));
    x[i * channels + 1] = static_cast<float>(((i * 7919) % 101) / 50.0 - 1.0);
  }
  Spectrogram s;
  ASSERT_EQ(s.initialize(window, stride), "");
  const std::int64_t frames = spectrogramFrames(samples, window, stride), bins = spectrogramBins(window);
  ASSERT_EQ(frames, 6);
  ASSERT_EQ(bins, 33);
  for (int c = 0; c < channels; ++c) {
    const std::vector<double> want = naivePowerSpectrogram(x, channels, c, window, stride);
    std::vector<float> power(static_cast<size_t>(frames * bins)), mag(power.size());
    s.compute(x.data() + c, samples, channels, true, power.data());
    s.compute(x.data() + c, samples, channels, false, mag.data());
    ASSERT_EQ(want.size(), power.size());
    double peak = 0;
    for (double v : want) peak = std::max(peak, v);
    for (size_t i = 0; i < want.size(); ++i) {
      // Single precision: within float rounding of the frame's largest bin.
      EXPECT_NEAR(power[i], want[i], 1e-6 * peak) << "channel " << c << " value " << i;
      EXPECT_EQ(mag[i], std::sqrt(power[i])) << "channel " << c << " value " << i;
    }
  }
}

TEST(NnAudioTest, SpectrogramIsBitIdenticalAcrossInstancesAndThreads) {
  std::vector<float> x(16000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(i * 0.01) * std::cos(i * 0.173));
  const std::int64_t n = spectrogramFrames(16000, 640, 320) * spectrogramBins(640);
  std::vector<float> first(static_cast<size_t>(n));
  ASSERT_EQ(spectrogram(x.data(), 16000, 1, 640, 320, true, first.data()), "");
  // Several threads plan (or find the cached plan) and run at once.
  std::vector<std::vector<float>> results(4, std::vector<float>(static_cast<size_t>(n)));
  std::vector<std::thread> threads;
  for (auto& r : results)
    threads.emplace_back([&x, &r] {
      Spectrogram s;
      if (s.initialize(640, 320).empty()) s.compute(x.data(), 16000, 1, true, r.data());
    });
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r, first);
  EXPECT_EQ(Spectrogram().initialize(0, 320), "window_size must be positive, got 0");
  EXPECT_EQ(Spectrogram().initialize(640, 0), "stride must be positive, got 0");
}

TEST(NnAudioTest, SpectrogramShapesAndMagnitude) {
  EXPECT_EQ(spectrogramFrames(16000, 480, 160), 98);
  EXPECT_EQ(spectrogramFrames(16000, 640, 320), 49);
  EXPECT_EQ(spectrogramFrames(100, 480, 160), 0);
  EXPECT_EQ(spectrogramBins(480), 257);
  EXPECT_EQ(spectrogramBins(640), 513);
  // A constant signal of 1: bin 0 holds the window sum (periodic Hann: N/2).
  std::vector<float> ones(8, 1.0f), power(5), mag(5);
  spectrogram(ones.data(), 8, 1, 8, 8, true, power.data());
  spectrogram(ones.data(), 8, 1, 8, 8, false, mag.data());
  EXPECT_NEAR(power[0], 16.0f, 1e-5);
  EXPECT_NEAR(mag[0], 4.0f, 1e-6);
  EXPECT_NEAR(mag[1], 2.0f, 1e-6);  // Hann's only other nonzero bin: N/4
  EXPECT_NEAR(mag[2], 0.0f, 1e-6);
}

TEST(NnAudioTest, SpeechClipMatchesIndependentDerivation) {
  GDS_REQUIRE_SHARED();
  DecodedWav wav;
  ASSERT_EQ(decodeWav(test::readAll(test::dataPath("speech/yes_en-us_140.wav")), 1, 16000, &wav), "");
  ASSERT_EQ(wav.frames, 16000);
  ASSERT_EQ(wav.sample_rate, 16000);

  // speech_commands conv model: window 480, stride 160, 40 coefficients.
  const std::int64_t frames = spectrogramFrames(16000, 480, 160), bins = spectrogramBins(480);
  std::vector<float> spec(static_cast<size_t>(frames * bins));
  spectrogram(wav.samples.data(), 16000, 1, 480, 160, true, spec.data());
  const float* f40 = spec.data() + 40 * bins;
  EXPECT_NEAR(f40[1], 0.0028251151747830773, 1e-7);
  EXPECT_NEAR(f40[10], 5.653366541023092e-06, 1e-9);
  EXPECT_NEAR(f40[100], 0.0015540199431759425, 1e-7);

  MfccComputer mfcc;
  ASSERT_EQ(mfcc.initialize(bins, 16000, 20, 4000, 40, 40), "");
  std::vector<float> c(40);
  mfcc.compute(spec.data(), c.data());  // silent frame: log floor 1e-12 everywhere
  EXPECT_NEAR(c[0], -247.13936601179313, 1e-3);
  EXPECT_NEAR(c[1], 0.0, 1e-3);
  mfcc.compute(f40, c.data());
  EXPECT_NEAR(c[0], -21.02133551595308, 1e-3);
  EXPECT_NEAR(c[1], -12.784359509640993, 1e-3);
  EXPECT_NEAR(c[2], -3.358761441328983, 1e-3);
  EXPECT_NEAR(c[3], -0.30539531688987437, 1e-3);
}

TEST(NnAudioTest, KwsFrontEndMatchesIndependentDerivation) {
  GDS_REQUIRE_SHARED();
  DecodedWav wav;
  ASSERT_EQ(decodeWav(test::readAll(test::dataPath("speech/yes_en-us_140.wav")), 1, 16000, &wav), "");
  // ARM KWS models: window 640, stride 320, 10 coefficients.
  const std::int64_t frames = spectrogramFrames(16000, 640, 320), bins = spectrogramBins(640);
  ASSERT_EQ(frames, 49);
  std::vector<float> spec(static_cast<size_t>(frames * bins));
  spectrogram(wav.samples.data(), 16000, 1, 640, 320, true, spec.data());
  MfccComputer mfcc;
  ASSERT_EQ(mfcc.initialize(bins, 16000, 20, 4000, 40, 10), "");
  std::vector<float> c(10);
  mfcc.compute(spec.data() + 25 * bins, c.data());
  EXPECT_NEAR(c[0], -15.774648780533708, 1e-3);
  EXPECT_NEAR(c[1], -8.078711458065571, 1e-3);
}

TEST(NnAudioTest, MfccRejectsBadParameters) {
  MfccComputer m;
  EXPECT_EQ(m.initialize(257, 16000, 20, 4000, 40, 41), "dct_coefficient_count must be at most filterbank_channel_count");
  EXPECT_EQ(m.initialize(257, 16000, 4000, 20, 40, 13), "upper_frequency_limit must be greater than lower_frequency_limit");
  EXPECT_EQ(m.initialize(257, 0, 20, 4000, 40, 13), "sample_rate must be positive");
}

}  // namespace
}  // namespace gds::engine::ops
