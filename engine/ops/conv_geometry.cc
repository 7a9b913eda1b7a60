#include "engine/ops/conv_geometry.h"

#include <algorithm>

namespace gds::engine::ops {

bool parsePadding(const std::string& text, Padding* padding) {
  if (text == "VALID") *padding = Padding::kValid;
  else if (text == "SAME") *padding = Padding::kSame;
  else if (text == "EXPLICIT") *padding = Padding::kExplicit;
  else return false;
  return true;
}

bool computeWindow(Padding padding, WindowDim* d) {
  if (d->stride <= 0 || d->dilation <= 0 || d->filter <= 0 || d->in < 0) return false;
  const std::int64_t effective = (d->filter - 1) * d->dilation + 1;
  switch (padding) {
    case Padding::kValid:
      d->out = (d->in - effective + d->stride) / d->stride;
      d->pad_before = d->pad_after = 0;
      break;
    case Padding::kSame: {
      d->out = (d->in + d->stride - 1) / d->stride;
      const std::int64_t needed = std::max<std::int64_t>(0, (d->out - 1) * d->stride + effective - d->in);
      d->pad_before = needed / 2;
      d->pad_after = needed - d->pad_before;
      break;
    }
    case Padding::kExplicit:
      if (d->pad_before < 0 || d->pad_after < 0) return false;
      d->out = (d->in + d->pad_before + d->pad_after - effective + d->stride) / d->stride;
      break;
  }
  return d->out >= 0;
}

ConvGeometry convRowBand(const ConvGeometry& s, std::int64_t row_begin, std::int64_t row_end,
                        std::int64_t* first_input_row) {
  const std::int64_t eff_h = (s.filter_h - 1) * s.dilation_h + 1;
  const std::int64_t top = row_begin * s.stride_h - s.pad_top, bottom = (row_end - 1) * s.stride_h - s.pad_top + eff_h;
  const std::int64_t in0 = std::max<std::int64_t>(0, top), in1 = std::min(s.in_h, bottom);
  ConvGeometry band = s;
  band.in_h = in1 - in0;
  band.pad_top = in0 - top;
  band.out_h = row_end - row_begin;
  *first_input_row = in0;
  return band;
}

std::int64_t convThreadParts(const ConvGeometry& s, bool depthwise, std::int64_t threads, double ops_per_part) {
  if (depthwise) return std::max<std::int64_t>(1, threads);
  const double ops = 2.0 * static_cast<double>(s.batch * s.out_h * s.out_w * s.outputChannels(depthwise)) *
                     static_cast<double>(s.filter_h * s.filter_w * s.in_c);
  return std::max<std::int64_t>(1, std::min<std::int64_t>(threads, static_cast<std::int64_t>(ops / ops_per_part)));
}

std::vector<std::pair<std::int64_t, std::int64_t>> convChannelSlices(const ConvGeometry& s, bool depthwise,
                                                                     std::int64_t parts) {
  std::vector<std::pair<std::int64_t, std::int64_t>> slices;
  if (parts < 2 || s.batch != 1 || depthwise || s.out_c < 32 * parts ||
      s.filter_h * s.filter_w * s.in_c * s.out_c <= s.in_h * s.in_w * s.in_c ||
      (s.filter_h == 1 && s.filter_w == 1 && s.out_h % parts == 0))
    return slices;
  const std::int64_t groups = s.out_c / 16;
  for (std::int64_t i = 0; i < parts; ++i)
    slices.emplace_back(16 * (groups * i / parts), i + 1 == parts ? s.out_c : 16 * (groups * (i + 1) / parts));
  return slices;
}

bool computeConvGeometry(Padding padding, ConvGeometry* s, const std::vector<std::int64_t>& explicit_pads) {
  WindowDim h{s->in_h, s->filter_h, s->stride_h, s->dilation_h, 0, 0, 0};
  WindowDim w{s->in_w, s->filter_w, s->stride_w, s->dilation_w, 0, 0, 0};
  if (padding == Padding::kExplicit) {
    if (explicit_pads.size() != 4) return false;
    h.pad_before = explicit_pads[0];
    h.pad_after = explicit_pads[1];
    w.pad_before = explicit_pads[2];
    w.pad_after = explicit_pads[3];
  }
  if (!computeWindow(padding, &h) || !computeWindow(padding, &w)) return false;
  s->out_h = h.out;
  s->out_w = w.out;
  s->pad_top = h.pad_before;
  s->pad_left = w.pad_before;
  return true;
}

}  // namespace gds::engine::ops
