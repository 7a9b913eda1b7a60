// DecodeWav, AudioSpectrogram and Mfcc kernels (TensorFlow's speech front
// end; the math is in engine/ops/audio.h).
#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/audio.h"

namespace gds::engine {

namespace {

class DecodeWavKernel : public OpKernel {
 public:
  int numOutputs(const KernelInit&) const override { return 2; }
  std::vector<DataType> outputTypes(const KernelInit&) const override {
    return {tensorflow::DT_FLOAT, tensorflow::DT_INT32};
  }
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("desired_channels", &channels_, -1));
    return init.getAttrOr<std::int64_t>("desired_samples", &samples_, -1);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& contents = ctx.input(0);
    if (contents.dtype() != tensorflow::DT_STRING || contents.numElements() != 1)
      return ctx.error("contents must be a string scalar holding the WAV file bytes");
    ops::DecodedWav wav;
    const std::string problem = ops::decodeWav(contents.strings()[0], channels_, samples_, &wav);
    if (!problem.empty()) return ctx.error(problem);
    Tensor* audio = ctx.allocateOutput(0, tensorflow::DT_FLOAT, {wav.frames, wav.channels});
    std::copy(wav.samples.begin(), wav.samples.end(), audio->data<float>());
    Tensor* rate = ctx.allocateOutput(1, tensorflow::DT_INT32, {});
    *rate->data<std::int32_t>() = wav.sample_rate;
    return Status::Ok();
  }

 private:
  std::int64_t channels_ = -1, samples_ = -1;
};

class AudioSpectrogramKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 0));
    GDS_RETURN_IF_ERROR(init.getAttr("window_size", &window_));
    GDS_RETURN_IF_ERROR(init.getAttr("stride", &stride_));
    GDS_RETURN_IF_ERROR(init.getAttrOr("magnitude_squared", &squared_, false));
    if (window_ < 2) return init.error("window_size must be at least 2, got " + std::to_string(window_));
    if (stride_ < 1) return init.error("stride must be positive, got " + std::to_string(stride_));
    const std::string problem = spectrogram_.initialize(window_, stride_);
    return problem.empty() ? Status::Ok() : init.error(problem);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dims() != 2) return ctx.error("input must be 2-D [samples, channels], got " + model::shapeString(x.shape()));
    const std::int64_t samples = x.dim(0), channels = x.dim(1);
    const std::int64_t frames = ops::spectrogramFrames(samples, window_, stride_);
    const std::int64_t bins = ops::spectrogramBins(window_);
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, {channels, frames, bins});
    for (std::int64_t c = 0; c < channels; ++c)
      ctx.pool().parallelFor(frames, spectrogram_.cyclesPerFrame(), [&](std::int64_t first, std::int64_t last) {
        spectrogram_.computeFrames(x.data<float>() + c, channels, squared_, first, last,
                                   out->data<float>() + c * frames * bins);
      });
    return Status::Ok();
  }

 private:
  std::int64_t window_ = 0, stride_ = 0;
  bool squared_ = false;
  ops::Spectrogram spectrogram_;  // Hann window and FFT plan for window_
};

class MfccKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(nn::requireFloatInput(init, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr("upper_frequency_limit", &upper_, 4000.0f));
    GDS_RETURN_IF_ERROR(init.getAttrOr("lower_frequency_limit", &lower_, 20.0f));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("filterbank_channel_count", &filters_, 40));
    return init.getAttrOr<std::int64_t>("dct_coefficient_count", &coefficients_, 13);
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& spec = ctx.input(0);
    const Tensor& rate = ctx.input(1);
    if (spec.dims() != 3)
      return ctx.error("spectrogram must be 3-D [channels, frames, bins], got " + model::shapeString(spec.shape()));
    if (rate.dtype() != tensorflow::DT_INT32 || rate.numElements() != 1)
      return ctx.error("sample_rate must be an int32 scalar");
    const std::int64_t channels = spec.dim(0), frames = spec.dim(1), bins = spec.dim(2);
    const std::int32_t sample_rate = *rate.data<std::int32_t>();
    if (!computer_ || bins != bins_ || sample_rate != rate_) {
      computer_ = std::make_unique<ops::MfccComputer>();
      const std::string problem =
          computer_->initialize(bins, sample_rate, lower_, upper_, filters_, coefficients_);
      if (!problem.empty()) {
        computer_.reset();
        return ctx.error(problem);
      }
      bins_ = bins;
      rate_ = sample_rate;
    }
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, {channels, frames, coefficients_});
    // About 10 cycles per bin (square root, filterbank) and a log and a DCT row per channel.
    const double cost = 10.0 * static_cast<double>(bins) + 40.0 * static_cast<double>(filters_ + coefficients_);
    ctx.pool().parallelFor(channels * frames, cost, [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t f = first; f < last; ++f)
        computer_->compute(spec.data<float>() + f * bins, out->data<float>() + f * coefficients_);
    });
    return Status::Ok();
  }

 private:
  float upper_ = 4000, lower_ = 20;
  std::int64_t filters_ = 40, coefficients_ = 13;
  std::unique_ptr<ops::MfccComputer> computer_;  // filterbank for (bins_, rate_)
  std::int64_t bins_ = -1;
  std::int32_t rate_ = -1;
};

}  // namespace

void registerAudioKernels(KernelRegistry& registry) {
  registry.add("DecodeWav", [] { return std::unique_ptr<OpKernel>(new DecodeWavKernel()); });
  registry.add("AudioSpectrogram", [] { return std::unique_ptr<OpKernel>(new AudioSpectrogramKernel()); });
  registry.add("Mfcc", [] { return std::unique_ptr<OpKernel>(new MfccKernel()); });
}

}  // namespace gds::engine
