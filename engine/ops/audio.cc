// WAV decoding, spectrogram and MFCC math (TensorFlow's algorithms, see
// engine/ops/audio.h). All intermediate arithmetic is double, as in TF (the
// spectrogram's transform through FFTW's double-precision plans).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include <fftw3.h>

#include "engine/ops/audio.h"
#include "model/memory_budget.h"

namespace gds::engine::ops {

namespace {

std::uint32_t le32(const std::string& b, size_t at) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24);
}
std::uint16_t le16(const std::string& b, size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(b[at]) |
                                    (static_cast<unsigned char>(b[at + 1]) << 8));
}

}  // namespace

std::string decodeWav(const std::string& bytes, std::int64_t desired_channels, std::int64_t desired_samples,
                      DecodedWav* out) {
  if (bytes.size() < 12 || bytes.compare(0, 4, "RIFF") != 0 || bytes.compare(8, 4, "WAVE") != 0)
    return "not a RIFF/WAVE file (header 'RIFF....WAVE' missing)";
  size_t pos = 12;
  int channels = 0, bits = 0;
  std::uint32_t rate = 0;
  bool have_fmt = false;
  const char* data = nullptr;
  size_t data_size = 0;
  while (pos + 8 <= bytes.size()) {
    const std::string id = bytes.substr(pos, 4);
    const std::uint32_t size = le32(bytes, pos + 4);
    const size_t body = pos + 8;
    if (body + size > bytes.size() && id != "data") return "WAV chunk '" + id + "' runs past the end of the file";
    if (id == "fmt ") {
      if (size < 16) return "WAV 'fmt ' chunk is shorter than 16 bytes";
      const std::uint16_t format = le16(bytes, body);
      channels = le16(bytes, body + 2);
      rate = le32(bytes, body + 4);
      bits = le16(bytes, body + 14);
      // 1 = PCM; 0xFFFE = WAVE_FORMAT_EXTENSIBLE (still PCM for 16-bit files).
      if (format != 1 && format != 0xFFFE)
        return "WAV audio format " + std::to_string(format) + " is not supported (expected PCM, 1)";
      if (bits != 16) return "WAV has " + std::to_string(bits) + " bits per sample (expected 16)";
      if (channels < 1) return "WAV has no channels";
      have_fmt = true;
    } else if (id == "data") {
      if (!have_fmt) return "WAV 'data' chunk comes before the 'fmt ' chunk";
      // TensorFlow's DecodeWav checks the samples exist before reading them;
      // zero-padding a cut file would be a silent wrong answer.
      if (size > bytes.size() - body)
        return "WAV 'data' chunk declares " + std::to_string(size) + " bytes but only " +
               std::to_string(bytes.size() - body) + " follow in the file (truncated?)";
      data = bytes.data() + body;
      data_size = size;
      break;
    }
    pos = body + size + (size & 1);
  }
  if (!have_fmt) return "WAV has no 'fmt ' chunk";
  if (!data) return "WAV has no 'data' chunk";
  const std::int64_t file_frames = static_cast<std::int64_t>(data_size / (2 * static_cast<size_t>(channels)));
  out->channels = desired_channels > 0 ? desired_channels : channels;
  out->frames = desired_samples > 0 ? desired_samples : file_frames;
  out->sample_rate = static_cast<std::int32_t>(rate);
  // desired_samples and desired_channels come from the graph.
  std::int64_t count = -1;  // an overflowing product is refused as such
  if (__builtin_mul_overflow(out->frames, out->channels, &count)) count = -1;
  if (Status fits = model::checkAllocation(count, sizeof(float),
                                           std::to_string(out->frames) + " samples of " +
                                               std::to_string(out->channels) + " channels");
      !fits.ok())
    return fits.message();
  out->samples.assign(static_cast<size_t>(out->frames * out->channels), 0.0f);
  for (std::int64_t f = 0; f < std::min(out->frames, file_frames); ++f)
    for (std::int64_t c = 0; c < out->channels; ++c) {
      const std::int64_t src_c = std::min<std::int64_t>(c, channels - 1);
      std::int16_t v;
      std::memcpy(&v, data + 2 * (f * channels + src_c), 2);  // little-endian host
      out->samples[f * out->channels + c] = static_cast<float>(v) / 32768.0f;
    }
  return "";
}

std::int64_t spectrogramFrames(std::int64_t samples, std::int64_t window_size, std::int64_t stride) {
  const std::int64_t rest = samples - window_size;
  return rest < 0 ? 0 : 1 + rest / stride;
}

namespace {

std::int64_t nextPowerOfTwo(std::int64_t v) {
  std::int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// fftw_malloc'd storage: FFTW's SIMD codelets need the alignment the plan
// was made with, and every buffer from fftw_malloc has the same one.
template <typename T>
struct FftwBuffer {
  T* data;
  explicit FftwBuffer(std::int64_t count) : data(static_cast<T*>(fftw_malloc(sizeof(T) * static_cast<size_t>(count)))) {
    if (!data) throw std::bad_alloc();
  }
  ~FftwBuffer() { fftw_free(data); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;
};

// One real-to-complex plan per transform size for the whole process. FFTW's
// planner is not thread-safe (its execute functions are), so plans are made
// under a lock. FFTW_ESTIMATE picks the algorithm from the size alone, with
// no timing runs, so every run and every process does the same arithmetic
// and gets bit-identical spectrograms (FFTW_MEASURE could pick differently
// from one launch to the next and change the rounding).
class RealFftPlans {
 public:
  static fftw_plan forSize(std::int64_t n) {
    static RealFftPlans plans;
    std::lock_guard<std::mutex> lock(plans.mutex_);
    fftw_plan& plan = plans.by_size_[n];
    if (!plan) {
      FftwBuffer<double> in(n);
      FftwBuffer<fftw_complex> out(n / 2 + 1);
      plan = fftw_plan_dft_r2c_1d(static_cast<int>(n), in.data, out.data, FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
    }
    return plan;  // null when FFTW cannot plan this size (left in the map: asking again gives the same answer)
  }
  ~RealFftPlans() {
    for (auto& [n, plan] : by_size_)
      if (plan) fftw_destroy_plan(plan);
  }

 private:
  std::mutex mutex_;
  std::map<std::int64_t, fftw_plan> by_size_;
};

}  // namespace

std::int64_t spectrogramBins(std::int64_t window_size) { return 1 + nextPowerOfTwo(window_size) / 2; }

std::string Spectrogram::initialize(std::int64_t window_size, std::int64_t stride) {
  if (window_size < 1) return "window_size must be positive, got " + std::to_string(window_size);
  if (stride < 1) return "stride must be positive, got " + std::to_string(stride);
  if (window_size > (std::int64_t{1} << 30)) return "window_size " + std::to_string(window_size) + " is too large (at most 2^30)";
  window_size_ = window_size;
  stride_ = stride;
  fft_ = nextPowerOfTwo(window_size);
  // TF's periodic Hann window (spectrogram.cc), computed in double.
  const double pi = std::atan(1.0) * 4;
  window_.resize(static_cast<size_t>(window_size));
  for (std::int64_t i = 0; i < window_size; ++i)
    window_[i] = 0.5 - 0.5 * std::cos((2 * pi * static_cast<double>(i)) / static_cast<double>(window_size));
  plan_ = nullptr;
  if (fft_ >= 2 && !(plan_ = RealFftPlans::forSize(fft_)))
    return "FFTW could not plan a real transform of " + std::to_string(fft_) + " points";
  return "";
}

void Spectrogram::compute(const float* samples, std::int64_t count, std::int64_t stride_between_samples,
                          bool magnitude_squared, float* output) const {
  computeFrames(samples, stride_between_samples, magnitude_squared, 0, spectrogramFrames(count, window_size_, stride_),
                output);
}

double Spectrogram::cyclesPerFrame() const {
  // FFTW's real transform: about 2.5 n log2(n) flops, plus the window and the magnitudes.
  return 2.5 * static_cast<double>(fft_) * std::log2(static_cast<double>(std::max<std::int64_t>(fft_, 2))) +
         static_cast<double>(window_size_ + fft_);
}

void Spectrogram::computeFrames(const float* samples, std::int64_t stride_between_samples, bool magnitude_squared,
                                std::int64_t first, std::int64_t last, float* output) const {
  const std::int64_t bins = 1 + fft_ / 2;
  if (fft_ < 2) {  // a window of one sample: its value is its transform
    for (std::int64_t f = first; f < last; ++f) {
      const double v = samples[f * stride_ * stride_between_samples] * window_[0];
      const float power = static_cast<float>(v * v);
      output[f] = magnitude_squared ? power : std::sqrt(power);
    }
    return;
  }
  FftwBuffer<double> in(fft_);
  FftwBuffer<fftw_complex> out(bins);
  double* __restrict x = in.data;
  const double* __restrict w = window_.data();
  std::fill(x + window_size_, x + fft_, 0.0);  // the zero padding; r2c keeps its input
  for (std::int64_t f = first; f < last; ++f) {
    const float* frame = samples + f * stride_ * stride_between_samples;
    if (stride_between_samples == 1) {
      for (std::int64_t j = 0; j < window_size_; ++j) x[j] = static_cast<double>(frame[j]) * w[j];
    } else {
      for (std::int64_t j = 0; j < window_size_; ++j) x[j] = static_cast<double>(frame[j * stride_between_samples]) * w[j];
    }
    fftw_execute_dft_r2c(plan_, x, out.data);
    const double* __restrict z = &out.data[0][0];
    float* __restrict power = output + f * bins;
    // TF stores re^2 + im^2 (double) as float.
    for (std::int64_t k = 0; k < bins; ++k)
      power[k] = static_cast<float>(z[2 * k] * z[2 * k] + z[2 * k + 1] * z[2 * k + 1]);
    // TF takes the square root in float of the float power.
    if (!magnitude_squared)
      for (std::int64_t k = 0; k < bins; ++k) power[k] = std::sqrt(power[k]);
  }
}

std::string spectrogram(const float* samples, std::int64_t count, std::int64_t stride_between_samples,
                        std::int64_t window_size, std::int64_t stride, bool magnitude_squared, float* output) {
  Spectrogram s;
  std::string problem = s.initialize(window_size, stride);
  if (problem.empty()) s.compute(samples, count, stride_between_samples, magnitude_squared, output);
  return problem;
}

std::string MfccComputer::initialize(std::int64_t bins, double sample_rate, double lower, double upper,
                                     std::int64_t filterbank_channel_count, std::int64_t dct_coefficient_count) {
  bins_ = bins;
  channels_ = filterbank_channel_count;
  coefficients_ = dct_coefficient_count;
  if (channels_ < 1) return "filterbank_channel_count must be positive";
  if (sample_rate <= 0) return "sample_rate must be positive";
  if (bins < 2) return "the spectrogram needs more than one frequency bin";
  if (lower < 0) return "lower_frequency_limit must be nonnegative";
  if (upper <= lower) return "upper_frequency_limit must be greater than lower_frequency_limit";
  if (coefficients_ < 1) return "dct_coefficient_count must be positive";
  if (coefficients_ > channels_) return "dct_coefficient_count must be at most filterbank_channel_count";
  auto mel = [](double f) { return 1127.0 * std::log1p(f / 700.0); };
  std::vector<double> centers(static_cast<size_t>(channels_ + 1));
  const double mel_low = mel(lower), mel_hi = mel(upper);
  const double spacing = (mel_hi - mel_low) / static_cast<double>(channels_ + 1);
  for (std::int64_t i = 0; i < channels_ + 1; ++i) centers[i] = mel_low + spacing * static_cast<double>(i + 1);
  const double hz_per_sbin = 0.5 * sample_rate / static_cast<double>(bins - 1);
  start_index_ = static_cast<int>(1.5 + lower / hz_per_sbin);
  end_index_ = static_cast<int>(upper / hz_per_sbin);
  band_mapper_.assign(static_cast<size_t>(bins), -2);
  int channel = 0;
  for (std::int64_t i = 0; i < bins; ++i) {
    const double melf = mel(static_cast<double>(i) * hz_per_sbin);
    if (i < start_index_ || i > end_index_) continue;
    while (channel < channels_ && centers[static_cast<size_t>(channel)] < melf) ++channel;
    band_mapper_[i] = channel - 1;
  }
  weights_.assign(static_cast<size_t>(bins), 0.0);
  for (std::int64_t i = 0; i < bins; ++i) {
    if (i < start_index_ || i > end_index_) continue;
    const int c = band_mapper_[i];
    const double melf = mel(static_cast<double>(i) * hz_per_sbin);
    weights_[i] = c >= 0 ? (centers[c + 1] - melf) / (centers[c + 1] - centers[c])
                         : (centers[0] - melf) / (centers[0] - mel_low);
  }
  const double fnorm = std::sqrt(2.0 / static_cast<double>(channels_));
  const double arg = std::atan(1.0) * 4 / static_cast<double>(channels_);
  cosines_.assign(static_cast<size_t>(coefficients_), std::vector<double>(static_cast<size_t>(channels_)));
  for (std::int64_t i = 0; i < coefficients_; ++i)
    for (std::int64_t j = 0; j < channels_; ++j)
      cosines_[i][j] = fnorm * std::cos(static_cast<double>(i) * arg * (static_cast<double>(j) + 0.5));
  return "";
}

void MfccComputer::compute(const float* frame, float* output) const {
  std::vector<double> mel(static_cast<size_t>(channels_), 0.0);
  // TF skips the frame when it is too short for the filterbank (all zeros).
  if (bins_ > end_index_) {
    for (std::int64_t i = start_index_; i <= end_index_; ++i) {
      const double spec = std::sqrt(static_cast<double>(frame[i]));
      const double weighted = spec * weights_[i];
      int c = band_mapper_[i];
      if (c >= 0) mel[c] += weighted;
      ++c;
      if (c < channels_) mel[c] += spec - weighted;
    }
  }
  for (auto& v : mel) v = std::log(std::max(v, 1e-12));
  for (std::int64_t i = 0; i < coefficients_; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < channels_; ++j) sum += cosines_[i][j] * mel[j];
    output[i] = static_cast<float>(sum);
  }
}

}  // namespace gds::engine::ops
