// WAV decoding, spectrogram and MFCC math (TensorFlow's algorithms, see
// engine/ops/audio.h). All intermediate arithmetic is double, as in TF.
#include <algorithm>
#include <cmath>
#include <cstring>

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

namespace {

// e^{-2*pi*i*k/n} for k < n/2: one table per transform size, so the
// butterflies do no trigonometry (computing cos/sin in every butterfly was
// most of AudioSpectrogram's time). A butterfly of length len uses every
// (n/len)-th entry.
struct Twiddles {
  std::vector<double> re, im;
  explicit Twiddles(size_t n) : re(n / 2), im(n / 2) {
    const double pi = std::atan(1.0) * 4;
    for (size_t k = 0; k < n / 2; ++k) {
      const double angle = -2 * pi * static_cast<double>(k) / static_cast<double>(n);
      re[k] = std::cos(angle);
      im[k] = std::sin(angle);
    }
  }
};

// Radix-2 decimation in time, n a power of two (twiddles made for n).
void fftWithTwiddles(const Twiddles& w, std::vector<double>* re_v, std::vector<double>* im_v) {
  std::vector<double>& re = *re_v;
  std::vector<double>& im = *im_v;
  const size_t n = re.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      std::swap(re[i], re[j]);
      std::swap(im[i], im[j]);
    }
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t half = len / 2, step = n / len;
    for (size_t i = 0; i < n; i += len)
      for (size_t k = 0; k < half; ++k) {
        const double wr = w.re[k * step], wi = w.im[k * step];
        const size_t a = i + k, b = i + k + half;
        const double xr = re[b] * wr - im[b] * wi;
        const double xi = re[b] * wi + im[b] * wr;
        re[b] = re[a] - xr;
        im[b] = im[a] - xi;
        re[a] += xr;
        im[a] += xi;
      }
  }
}

}  // namespace

void fftInPlace(std::vector<double>* re_v, std::vector<double>* im_v) {
  if (re_v->size() < 2) return;
  fftWithTwiddles(Twiddles(re_v->size()), re_v, im_v);
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
}  // namespace

std::int64_t spectrogramBins(std::int64_t window_size) { return 1 + nextPowerOfTwo(window_size) / 2; }

void spectrogram(const float* samples, std::int64_t count, std::int64_t stride_between_samples,
                 std::int64_t window_size, std::int64_t stride, bool magnitude_squared, float* output) {
  const std::int64_t fft = nextPowerOfTwo(window_size);
  const std::int64_t bins = 1 + fft / 2;
  const double pi = std::atan(1.0) * 4;
  std::vector<double> window(static_cast<size_t>(window_size));
  for (std::int64_t i = 0; i < window_size; ++i)
    window[i] = 0.5 - 0.5 * std::cos((2 * pi * static_cast<double>(i)) / static_cast<double>(window_size));
  const std::int64_t frames = spectrogramFrames(count, window_size, stride);
  // The input is real, so one complex transform of half the size does the
  // work (as TF's rdft does): z[k] = x[2k] + i x[2k+1], Z = FFT(z), then
  // X[k] = (Z[k] + conj Z[h-k]) / 2 - i e^{-2 pi i k / n} (Z[k] - conj Z[h-k]) / 2.
  const std::int64_t half = fft / 2;
  std::vector<double> re(static_cast<size_t>(std::max<std::int64_t>(half, 1)));
  std::vector<double> im(re.size());
  const Twiddles half_twiddles(re.size());
  const Twiddles twiddles(static_cast<size_t>(fft));  // e^{-2 pi i k / n}, k < n/2
  auto emit = [&](std::int64_t f, std::int64_t b, double xr, double xi) {
    // TF stores re^2 + im^2 as float, then takes sqrt in float.
    const float power = static_cast<float>(xr * xr + xi * xi);
    output[f * bins + b] = magnitude_squared ? power : std::sqrt(power);
  };
  auto sample = [&](std::int64_t f, std::int64_t j) {
    return j < window_size ? static_cast<double>(samples[(f * stride + j) * stride_between_samples]) * window[j] : 0.0;
  };
  for (std::int64_t f = 0; f < frames; ++f) {
    if (fft < 2) {  // a window of one sample: its value is its transform
      emit(f, 0, sample(f, 0), 0.0);
      continue;
    }
    for (std::int64_t k = 0; k < half; ++k) {
      re[k] = sample(f, 2 * k);
      im[k] = sample(f, 2 * k + 1);
    }
    if (half >= 2) fftWithTwiddles(half_twiddles, &re, &im);
    // k = 0 and k = n/2: the sum and difference of Z[0]'s parts.
    emit(f, 0, re[0] + im[0], 0.0);
    emit(f, half, re[0] - im[0], 0.0);
    for (std::int64_t k = 1; k < half; ++k) {
      const double ar = re[k], ai = im[k], br = re[half - k], bi = -im[half - k];  // Z[k], conj Z[h-k]
      const double er = 0.5 * (ar + br), ei = 0.5 * (ai + bi);                    // even part
      const double dr = 0.5 * (ar - br), di = 0.5 * (ai - bi);                    // (Z[k] - conj Z[h-k]) / 2
      const double orr = di, oi = -dr;                                            // odd part: that / i
      const double wr = twiddles.re[k], wi = twiddles.im[k];
      emit(f, k, er + wr * orr - wi * oi, ei + wr * oi + wi * orr);
    }
  }
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
