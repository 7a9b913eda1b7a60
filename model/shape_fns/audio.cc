// The audio front end (tensorflow/core/ops/audio_ops.cc): a spectrogram of
// [samples, channels] audio is [channels, 1 + (samples - window) / stride,
// 1 + NextPowerOfTwo(window) / 2] (no frame when the clip is shorter than a
// window); MFCCs keep channels and frames and give dct_coefficient_count.
#include "model/shape_fns/shape_fn.h"

namespace gds::model::shape_fns {
namespace {

void decodeWav(ShapeContext& c) {
  const NodeDef& n = c.def();
  c.set(0, TensorInfo::ranked(tensorflow::DT_FLOAT,
                               {attrInt(n, "desired_samples", -1), attrInt(n, "desired_channels", -1)}));
  c.set(1, TensorInfo::ranked(tensorflow::DT_INT32, {}));
}

void audioSpectrogram(ShapeContext& c) {
  const NodeDef& n = c.def();
  const TensorInfo& x = c.in(0);
  const std::int64_t window = attrInt(n, "window_size", -1), stride = attrInt(n, "stride", -1);
  std::int64_t channels = -1, frames = -1, bins = -1;
  if (x.known_rank && x.shape.size() == 2) channels = x.shape[1];
  if (x.known_rank && x.shape.size() == 2 && x.shape[0] >= 0 && window > 0 && stride > 0)
    frames = x.shape[0] < window ? 0 : 1 + (x.shape[0] - window) / stride;
  if (window > 0 && window <= (std::int64_t(1) << 30)) {
    std::int64_t fft = 1;
    while (fft < window) fft <<= 1;
    bins = 1 + fft / 2;
  }
  c.set(0, TensorInfo::ranked(tensorflow::DT_FLOAT, {channels, frames, bins}));
}

void mfcc(ShapeContext& c) {
  const NodeDef& n = c.def();
  const TensorInfo& s = c.in(0);
  std::int64_t channels = -1, frames = -1;
  if (s.known_rank && s.shape.size() == 3) {
    channels = s.shape[0];
    frames = s.shape[1];
  }
  const std::int64_t dct = attrInt(n, "dct_coefficient_count", 13);
  c.set(0, TensorInfo::ranked(tensorflow::DT_FLOAT, {channels, frames, dct > 0 ? dct : -1}));
}

}  // namespace

void registerAudioShapeFns(ShapeFnRegistry& r) {
  r.add({"DecodeWav"}, decodeWav);
  r.add({"AudioSpectrogram"}, audioSpectrogram);
  r.add({"Mfcc"}, mfcc);
}

}  // namespace gds::model::shape_fns
