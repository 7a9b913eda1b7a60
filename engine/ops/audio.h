// Speech front end on raw buffers, following TensorFlow's kernels:
// decode_wav_op.cc / wav_io.cc, spectrogram.cc + audio_spectrogram_op.cc,
// mfcc.cc + mfcc_mel_filterbank.cc + mfcc_dct.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct fftw_plan_s;  // FFTW's double-precision plan type (fftw3.h)

namespace gds::engine::ops {

struct DecodedWav {
  std::vector<float> samples;  // [frames, channels] interleaved, in [-1, 1)
  std::int64_t frames = 0;
  std::int64_t channels = 0;
  std::int32_t sample_rate = 0;
};
// 16-bit PCM RIFF/WAVE. desired_channels / desired_samples <= 0 keep the
// file's. Missing channels repeat the file's last channel, extra samples are
// zero, and longer files are truncated (TF's DecodeWav). Returns "" on
// success, else what is wrong with the bytes.
std::string decodeWav(const std::string& bytes, std::int64_t desired_channels, std::int64_t desired_samples,
                      DecodedWav* out);

// AudioSpectrogram for one channel: frames of window_size samples every
// stride samples, periodic Hann window, zero-padded to the next power of two;
// output [frames, fft/2 + 1] (squared magnitude or magnitude).
std::int64_t spectrogramFrames(std::int64_t samples, std::int64_t window_size, std::int64_t stride);
std::int64_t spectrogramBins(std::int64_t window_size);

// The window and the real FFT's plan are made once (initialize) and reused
// for every clip; compute is const and may run on several threads at once.
class Spectrogram {
 public:
  // Returns "" on success, else why the parameters are invalid.
  std::string initialize(std::int64_t window_size, std::int64_t stride);
  // samples: `count` values `stride_between_samples` apart (one channel of
  // interleaved audio); output: spectrogramFrames(count, ...) * bins values.
  void compute(const float* samples, std::int64_t count, std::int64_t stride_between_samples, bool magnitude_squared,
               float* output) const;
  // Frames [first, last) only, into their rows of `output` (the whole
  // spectrogram's buffer): blocks of frames may run on several threads.
  void computeFrames(const float* samples, std::int64_t stride_between_samples, bool magnitude_squared,
                     std::int64_t first, std::int64_t last, float* output) const;
  double cyclesPerFrame() const;  // rough cost, for splitting frames between threads

 private:
  std::int64_t window_size_ = 0, stride_ = 1, fft_ = 1;
  std::vector<double> window_;
  fftw_plan_s* plan_ = nullptr;  // FFTW's r2c plan for fft_ points, owned by a process-wide cache
};
// One-off form of the above; returns what Spectrogram::initialize returns.
std::string spectrogram(const float* samples, std::int64_t count, std::int64_t stride_between_samples,
                        std::int64_t window_size, std::int64_t stride, bool magnitude_squared, float* output);

// Mfcc of a squared-magnitude spectrogram of `bins` channels per frame.
class MfccComputer {
 public:
  // Returns "" on success, else why the parameters are invalid.
  std::string initialize(std::int64_t bins, double sample_rate, double lower_frequency_limit,
                         double upper_frequency_limit, std::int64_t filterbank_channel_count,
                         std::int64_t dct_coefficient_count);
  // frame: `bins` values; output: dct_coefficient_count values.
  void compute(const float* frame, float* output) const;

 private:
  std::int64_t bins_ = 0, channels_ = 0, coefficients_ = 0;
  std::int64_t start_index_ = 0, end_index_ = 0;
  std::vector<int> band_mapper_;
  std::vector<double> weights_;
  std::vector<std::vector<double>> cosines_;
};

}  // namespace gds::engine::ops
