// The fused output stages' names and checks and FusedChainRunner, whose
// Segment the prepare, firstPass and finish steps share: one unit, so one file
// (about 600 lines).
#include "engine/quantized/fused_chain.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "engine/quantized/dequantize.h"
#include "engine/quantized/ops.h"
#include "engine/quantized/quantization.h"
#include "engine/quantized/vector_loops.h"
#include "engine/thread_pool.h"

namespace gds::engine::quantized {

const char* fusedStageName(FusedStageKind kind) {
  switch (kind) {
    case FusedStageKind::kRequantize:
      return "Requantize";
    case FusedStageKind::kRequantizeToRange:
      return "RequantizeToRange";
    case FusedStageKind::kBiasAdd:
      return "BiasAdd";
    case FusedStageKind::kAdd:
      return "Add";
    case FusedStageKind::kRelu:
      return "Relu";
    case FusedStageKind::kRelu6:
      return "Relu6";
    case FusedStageKind::kDequantize:
      return "Dequantize";
  }
  return "unknown";
}

Result<FusedStageKind> parseFusedStage(const std::string& name) {
  for (FusedStageKind k :
       {FusedStageKind::kRequantize, FusedStageKind::kRequantizeToRange, FusedStageKind::kBiasAdd, FusedStageKind::kAdd,
        FusedStageKind::kRelu, FusedStageKind::kRelu6, FusedStageKind::kDequantize})
    if (name == fusedStageName(k)) return k;
  return Status::Error("unknown fused 8-bit stage '" + name +
                       "' (expected Requantize, RequantizeToRange, BiasAdd, Relu, Relu6 or Dequantize)");
}

namespace {

FusedValueType inputTypeOf(FusedStageKind k) {
  return k == FusedStageKind::kRequantize || k == FusedStageKind::kRequantizeToRange ? FusedValueType::kInt32
                                                                                     : FusedValueType::kUInt8;
}

FusedValueType outputTypeOf(FusedStageKind k) {
  switch (k) {
    case FusedStageKind::kBiasAdd:
    case FusedStageKind::kAdd:
      return FusedValueType::kInt32;
    case FusedStageKind::kDequantize:
      return FusedValueType::kFloat;
    default:
      return FusedValueType::kUInt8;
  }
}

bool isBarrier(FusedStageKind k) { return k == FusedStageKind::kRequantize; }

}  // namespace

FusedValueType fusedOutputType(const std::vector<FusedStage>& stages, FusedValueType input) {
  return stages.empty() ? input : outputTypeOf(stages.back().kind);
}

Status checkFusedStages(const std::vector<FusedStage>& stages, FusedValueType input) {
  FusedValueType current = input;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (inputTypeOf(stages[i].kind) != current)
      return Status::Error(std::string("fused stage ") + std::to_string(i) + " (" + fusedStageName(stages[i].kind) +
                           ") cannot follow a " +
                           (current == FusedValueType::kInt32   ? "qint32"
                            : current == FusedValueType::kUInt8 ? "quint8"
                                                                : "float") +
                           " value");
    current = outputTypeOf(stages[i].kind);
  }
  return Status::Ok();
}

// One run of stages between barriers, set up with the ranges known when the
// pass starts: everything a row needs is precomputed here.
struct FusedChainRunner::Segment {
  std::size_t begin = 0, end = 0;  // stage indices
  bool reduce_after = false;       // the next segment starts with a barrier
  struct Prepared {
    FusedStageKind kind;
    Requantize32To8 requantize{0, 0, 0, 0};
    BiasAddTables bias;
    std::vector<std::uint32_t> bias_tiled;  // bias.bias_total repeated over a chunk's rows
    std::uint8_t low = 0, high = 255;
    float lut[256];
    // Vectorized arithmetic in place of the tables, when it reproduces them.
    bool affine = false;
    AffineDequantize dequantize;
    AffineBiasAdd bias_add;
  };
  std::vector<Prepared> prepared;
};

namespace {

GDS_VECTOR_CLONES void clampRow(const std::uint8_t* in, std::int64_t n, std::uint8_t low, std::uint8_t high,
                                std::uint8_t* out) {
  for (std::int64_t j = 0; j < n; ++j) {
    const std::uint8_t v = in[j] < low ? low : in[j];
    out[j] = v > high ? high : v;
  }
}

struct RowBuffers {
  std::vector<std::int32_t> i32;
  std::vector<std::uint8_t> u8;
};

// Runs a prepared segment on rows [r0, r1) of acc; the last stage writes to
// `out` (type of the segment's result, m x n) and the min/max of an int32
// result is accumulated into *lo / *hi when `reduce`.
// Rows are processed in chunks of about this many values: every stage then
// runs over a whole chunk (one call per stage, not per row), in cache.
constexpr std::int64_t kChunkValues = 4096;
// Fewer values than this are not worth waking another thread for.
constexpr std::int64_t kParallelValues = 65536;
std::int64_t chunkRows(std::int64_t n) {
  return std::max<std::int64_t>(1, kChunkValues / std::max<std::int64_t>(1, n));
}

void runSegmentRows(const FusedChainRunner::Segment& seg, std::int32_t* acc, const std::uint8_t* in_u8, std::int64_t n,
                    std::int64_t r0, std::int64_t r1, void* out, bool reduce, std::int32_t* lo, std::int32_t* hi) {
  const std::int64_t chunk_rows = chunkRows(n);
  thread_local RowBuffers buffers;
  buffers.i32.resize(static_cast<std::size_t>(chunk_rows * n));
  buffers.u8.resize(static_cast<std::size_t>(chunk_rows * n));
  std::int32_t local_lo = std::numeric_limits<std::int32_t>::max();
  std::int32_t local_hi = std::numeric_limits<std::int32_t>::lowest();
  const std::size_t count = seg.prepared.size();
  for (std::int64_t r = r0; r < r1; r += chunk_rows) {
    const std::int64_t values = std::min(chunk_rows, r1 - r) * n;
    const std::int32_t* i32 = acc + r * n;
    const std::uint8_t* u8 = in_u8 ? in_u8 + r * n : nullptr;
    for (std::size_t s = 0; s < count; ++s) {
      const auto& p = seg.prepared[s];
      const bool last = s + 1 == count;
      switch (p.kind) {
        case FusedStageKind::kRequantize:
        case FusedStageKind::kRequantizeToRange: {
          std::uint8_t* dst = last ? static_cast<std::uint8_t*>(out) + r * n : buffers.u8.data();
          p.requantize.apply(i32, values, dst);
          u8 = dst;
          break;
        }
        case FusedStageKind::kBiasAdd:
        case FusedStageKind::kAdd: {
          // The per-channel values repeated over a chunk's rows, so the chunk
          // is one flat loop (chunks start at a row).
          std::int32_t* dst = last ? static_cast<std::int32_t*>(out) + r * n : buffers.i32.data();
          if (p.affine)
            affineBiasAddRow(p.bias_add, u8, p.bias_tiled.data(), values, dst);
          else
            biasAddRow(u8, p.bias.table, p.bias_tiled.data(), values, dst);
          i32 = dst;
          break;
        }
        case FusedStageKind::kRelu:
        case FusedStageKind::kRelu6: {
          std::uint8_t* dst = last ? static_cast<std::uint8_t*>(out) + r * n : buffers.u8.data();
          clampRow(u8, values, p.low, p.high, dst);
          u8 = dst;
          break;
        }
        case FusedStageKind::kDequantize: {
          // Always last (float ends the chain).
          if (p.affine)
            affineDequantizeRow(p.dequantize, u8, values, static_cast<float*>(out) + r * n);
          else
            lookupRow(u8, p.lut, values, static_cast<float*>(out) + r * n);
          break;
        }
      }
    }
    if (reduce) {
      const std::int32_t* v = count == 0 ? acc + r * n : static_cast<const std::int32_t*>(out) + r * n;
      std::int32_t chunk_lo, chunk_hi;
      minMaxInt32(v, values, &chunk_lo, &chunk_hi);
      local_lo = std::min(local_lo, chunk_lo);
      local_hi = std::max(local_hi, chunk_hi);
    }
  }
  if (reduce) {
    *lo = std::min(*lo, local_lo);
    *hi = std::max(*hi, local_hi);
  }
}

// Sets up stages [begin, end) starting from the range [*lo, *hi], which is
// advanced to the segment's output range. int_lo / int_hi: the reduced int32
// min/max of the values entering a barrier stage.
Status prepareSegment(const std::vector<FusedStage>& stages, FusedChainRunner::Segment* seg, std::int64_t m,
                      std::int64_t n, std::int32_t int_lo, std::int32_t int_hi, float* lo, float* hi) {
  seg->prepared.clear();
  seg->prepared.reserve(seg->end - seg->begin);
  for (std::size_t i = seg->begin; i < seg->end; ++i) {
    const FusedStage& st = stages[i];
    seg->prepared.emplace_back();
    auto& p = seg->prepared.back();
    p.kind = st.kind;
    switch (st.kind) {
      case FusedStageKind::kRequantize: {
        // RequantizationRange (requantizationRange in quantization.cc).
        const float out_min = std::min(0.0f, quantizedToFloat<std::int32_t>(int_lo, *lo, *hi));
        const float out_max = std::max(0.0f, quantizedToFloat<std::int32_t>(int_hi, *lo, *hi));
        p.requantize = Requantize32To8(*lo, *hi, out_min, out_max);
        *lo = out_min;
        *hi = out_max;
        break;
      }
      case FusedStageKind::kRequantizeToRange:
        if (!(st.requested_min <= 0.0f))
          return Status::Error("requested_output_min must be <= 0, but got " + std::to_string(st.requested_min));
        if (!(st.requested_max >= 0.0f))
          return Status::Error("requested_output_max must be >= 0, but got " + std::to_string(st.requested_max));
        p.requantize = Requantize32To8(*lo, *hi, st.requested_min, st.requested_max);
        *lo = st.requested_min;
        *hi = st.requested_max;
        break;
      case FusedStageKind::kBiasAdd:
        if (st.bias_size != n)
          return Status::Error("Must provide as many biases as the last dimension of the input tensor: [" +
                               std::to_string(st.bias_size) + "] vs. " + std::to_string(n) + " channels");
        biasAddTables(*lo, *hi, st.bias, st.bias_size, st.bias_min, st.bias_max, &p.bias);
        {
          // The table's formula (biasAddTables): QuantizeParams<int32> of
          // DequantizeParams<quint8>.
          const DequantizeParams<std::uint8_t> q2f(*lo, *hi);
          const QuantizeParams<std::int32_t> f2q(p.bias.output_min, p.bias.output_max);
          p.bias_add.o = q2f.offset();
          p.bias_add.s = q2f.range_scale;
          p.bias_add.scale = f2q.range_scale;
          p.bias_add.c = f2q.range_min_scaled - f2q.lowest();
          p.affine = affineBiasAddMatches(p.bias_add, p.bias.table);
        }
        *lo = p.bias.output_min;
        *hi = p.bias.output_max;
        break;
      case FusedStageKind::kAdd: {
        // QuantizedAdd (quantized_add_op.cc) with the vector broadcast over
        // the channels: both operands through addTableLinear into the output
        // range, a single-element operand through RequantizeInNewRange.
        if (st.bias_size != n && st.bias_size != 1)
          return Status::Error("Incompatible shapes: [" + std::to_string(st.bias_size) + "] vs. " + std::to_string(n) +
                               " channels");
        if (!(*hi > *lo)) return Status::Error("max_x must be larger than min_x.");
        if (!(st.bias_max > st.bias_min)) return Status::Error("max_y must be larger than min_y.");
        float z_min, z_max;
        addOutputRange(*lo, *hi, st.bias_min, st.bias_max, &z_min, &z_max);
        std::int32_t y_table[256];
        addTableLinear(*lo, *hi, z_min, z_max, p.bias.table);
        addTableLinear(st.bias_min, st.bias_max, z_min, z_max, y_table);
        if (m * n == 1) {
          for (int v = 0; v < 256; ++v)
            p.bias.table[v] =
                requantizeInNewRange<std::uint8_t, std::int32_t>(static_cast<std::uint8_t>(v), *lo, *hi, z_min, z_max);
        } else if (st.bias_size == 1) {
          y_table[st.bias[0]] =
              requantizeInNewRange<std::uint8_t, std::int32_t>(st.bias[0], st.bias_min, st.bias_max, z_min, z_max);
        }
        p.bias.bias_total.resize(static_cast<std::size_t>(n));
        for (std::int64_t c = 0; c < n; ++c)
          p.bias.bias_total[static_cast<std::size_t>(c)] =
              static_cast<std::uint32_t>(y_table[st.bias[st.bias_size == 1 ? 0 : c]]);
        p.bias.output_min = z_min;
        p.bias.output_max = z_max;
        p.affine = false;
        *lo = z_min;
        *hi = z_max;
        break;
      }
      case FusedStageKind::kRelu:
      case FusedStageKind::kRelu6:
        // QuantizedRelu / QuantizedRelu6: the range passes through.
        p.low = floatToQuantized<std::uint8_t>(0.0f, *lo, *hi);
        p.high = st.kind == FusedStageKind::kRelu6 ? floatToQuantized<std::uint8_t>(6.0f, *lo, *hi) : std::uint8_t{255};
        break;
      case FusedStageKind::kDequantize: {
        // The 256 levels through the Dequantize kernel's own function: the
        // table holds exactly what it would compute for each value.
        quantized::dequantizeLevels(st.min_first ? quantized::QuantizeMode::kMinFirst : quantized::QuantizeMode::kMinCombined, *lo,
                              *hi, p.lut);
        if (st.min_first && *lo != *hi) {
          // QuantizedToFloat's double formula (quantization_utils.h).
          const double range = (static_cast<double>(*hi) - *lo) * (256.0 / 255.0);
          const double range_scale = range / 256.0;
          p.dequantize.b = range_scale;
          p.dequantize.a = std::round(*lo / static_cast<float>(range_scale)) * static_cast<float>(range_scale);
          p.affine = affineDequantizeMatches(p.dequantize, p.lut);
        }
        break;
      }
    }
  }
  for (auto& p : seg->prepared) {
    if (p.kind != FusedStageKind::kBiasAdd && p.kind != FusedStageKind::kAdd) continue;
    const std::int64_t rows = chunkRows(n);
    p.bias_tiled.resize(static_cast<std::size_t>(rows * n));
    for (std::int64_t r = 0; r < rows; ++r)
      std::copy(p.bias.bias_total.begin(), p.bias.bias_total.end(), p.bias_tiled.begin() + r * n);
  }
  return Status::Ok();
}

std::mutex& reduceMutex() {
  static std::mutex mu;
  return mu;
}

}  // namespace

FusedChainRunner::FusedChainRunner(const std::vector<FusedStage>& stages, std::int64_t m, std::int64_t n, float acc_min,
                                   float acc_max, FusedValueType input)
    : stages_(stages), m_(m), n_(n), input_(input), range_min_(acc_min), range_max_(acc_max) {}

FusedChainRunner::~FusedChainRunner() = default;

Status FusedChainRunner::prepare() {
  GDS_RETURN_IF_ERROR(checkFusedStages(stages_, input_));
  // Segments start at 0 and at every barrier; a barrier first leaves an
  // empty first segment that only reduces the accumulators.
  std::vector<std::size_t> starts = {0};
  for (std::size_t i = 0; i < stages_.size(); ++i)
    if (isBarrier(stages_[i].kind)) starts.push_back(i);
  segments_.assign(starts.size(), Segment{});
  for (std::size_t k = 0; k < starts.size(); ++k) {
    segments_[k].begin = starts[k];
    segments_[k].end = k + 1 < starts.size() ? starts[k + 1] : stages_.size();
    segments_[k].reduce_after = k + 1 < starts.size();
  }
  reduced_lo_ = std::numeric_limits<std::int32_t>::max();
  reduced_hi_ = std::numeric_limits<std::int32_t>::lowest();
  // The bias add between two barriers (quantize_nodes' Conv2D -> BiasAdd,
  // or a float op -> BiasAdd) need not be written out to find its range:
  // from the per-channel min/max of its input the range follows exactly
  // (every step is monotonic; checked in finish), and it then runs in the
  // same pass as the next segment.
  auto kinds = [&](std::size_t k) {
    std::vector<FusedStageKind> v;
    for (std::size_t i = segments_[k].begin; i < segments_[k].end; ++i) v.push_back(stages_[i].kind);
    return v;
  };
  using K = FusedStageKind;
  if (input_ == FusedValueType::kInt32 && segments_.size() >= 3 && kinds(0).empty() &&
      (kinds(1) == std::vector<K>{K::kRequantize, K::kBiasAdd} || kinds(1) == std::vector<K>{K::kRequantize, K::kAdd}))
    analytic_segment_ = 1;
  else if (input_ == FusedValueType::kUInt8 && segments_.size() >= 2 &&
           (kinds(0) == std::vector<K>{K::kBiasAdd} || kinds(0) == std::vector<K>{K::kAdd}))
    analytic_segment_ = 0;
  else
    analytic_segment_ = -1;
  if (analytic_segment_ >= 0) {
    channel_lo_.assign(static_cast<std::size_t>(n_), std::numeric_limits<std::int32_t>::max());
    channel_hi_.assign(static_cast<std::size_t>(n_), std::numeric_limits<std::int32_t>::lowest());
  }
  // The first segment starts from the GEMM's range; range_min_/range_max_
  // now hold the range after it.
  return prepareSegment(stages_, &segments_[0], m_, n_, 0, 0, &range_min_, &range_max_);
}

namespace {
// Per-channel min/max of rows [r0, r1) of an m x n buffer.
template <typename T>
void channelMinMaxRows(const T* data, std::int64_t n, std::int64_t r0, std::int64_t r1, std::int32_t* lo,
                       std::int32_t* hi) {
  for (std::int64_t r = r0; r < r1; ++r) {
    const T* row = data + r * n;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int32_t v = row[j];
      lo[j] = v < lo[j] ? v : lo[j];
      hi[j] = v > hi[j] ? v : hi[j];
    }
  }
}
GDS_VECTOR_CLONES void channelMinMax(const std::int32_t* data, std::int64_t n, std::int64_t r0, std::int64_t r1,
                                     std::int32_t* lo, std::int32_t* hi) {
  channelMinMaxRows(data, n, r0, r1, lo, hi);
}
GDS_VECTOR_CLONES void channelMinMax(const std::uint8_t* data, std::int64_t n, std::int64_t r0, std::int64_t r1,
                                     std::int32_t* lo, std::int32_t* hi) {
  channelMinMaxRows(data, n, r0, r1, lo, hi);
}
}  // namespace

void FusedChainRunner::firstPass(std::int32_t* acc, std::int64_t row_begin, std::int64_t row_end, void* output,
                                 const std::uint8_t* input_u8) {
  if (analytic_segment_ >= 0) {
    // Only the per-channel range of the input; the values stay where they are.
    std::vector<std::int32_t> lo(static_cast<std::size_t>(n_), std::numeric_limits<std::int32_t>::max());
    std::vector<std::int32_t> hi(static_cast<std::size_t>(n_), std::numeric_limits<std::int32_t>::lowest());
    if (input_u8)
      channelMinMax(input_u8, n_, row_begin, row_end, lo.data(), hi.data());
    else
      channelMinMax(acc, n_, row_begin, row_end, lo.data(), hi.data());
    std::lock_guard<std::mutex> lock(reduceMutex());
    input_u8_ = input_u8;
    for (std::int64_t j = 0; j < n_; ++j) {
      const std::size_t k = static_cast<std::size_t>(j);
      channel_lo_[k] = std::min(channel_lo_[k], lo[k]);
      channel_hi_[k] = std::max(channel_hi_[k], hi[k]);
    }
    return;
  }
  const Segment& seg = segments_[0];
  // A middle segment keeps int32 values in acc; the last writes the output.
  void* out = segments_.size() == 1 ? output : acc;
  std::int32_t lo = std::numeric_limits<std::int32_t>::max();
  std::int32_t hi = std::numeric_limits<std::int32_t>::lowest();
  runSegmentRows(seg, acc, input_u8, n_, row_begin, row_end, out, seg.reduce_after, &lo, &hi);
  if (seg.reduce_after) {
    std::lock_guard<std::mutex> lock(reduceMutex());
    reduced_lo_ = std::min(reduced_lo_, lo);
    reduced_hi_ = std::max(reduced_hi_, hi);
  }
}

// The exact min/max of the analytic segment's output from the per-channel
// input ranges: Requantize32To8 is monotonic while x * scale does not wrap,
// the bias table is monotonic when checked so, and the sum with the
// per-channel bias is monotonic while it stays in int32. False when any
// condition fails (the caller then runs the segment).
bool FusedChainRunner::analyticRange(const Segment& seg, std::int32_t* out_lo, std::int32_t* out_hi) const {
  if (m_ == 0 || seg.prepared.empty()) return false;
  const Segment::Prepared& bias = seg.prepared.back();
  const Segment::Prepared* requantize = seg.prepared.size() == 2 ? &seg.prepared[0] : nullptr;
  for (int v = 0; v < 255; ++v)
    if (bias.bias.table[v] > bias.bias.table[v + 1]) return false;
  const std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 2;
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::lowest();
  for (std::int64_t j = 0; j < n_; ++j) {
    const std::size_t k = static_cast<std::size_t>(j);
    std::int32_t a = channel_lo_[k], b = channel_hi_[k];
    if (requantize) {
      const std::int64_t scale = requantize->requantize.range_scale_fp;
      const std::int64_t biggest =
          std::max(std::abs(static_cast<std::int64_t>(a)), std::abs(static_cast<std::int64_t>(b)));
      if (scale < 0 || (biggest > 0 && scale > limit / biggest)) return false;
      a = requantize->requantize(a);
      b = requantize->requantize(b);
    }
    const std::int64_t total = static_cast<std::int32_t>(bias.bias.bias_total[k]);
    const std::int64_t v_lo = static_cast<std::int64_t>(bias.bias.table[a]) + total;
    const std::int64_t v_hi = static_cast<std::int64_t>(bias.bias.table[b]) + total;
    if (v_lo < std::numeric_limits<std::int32_t>::lowest() || v_hi > std::numeric_limits<std::int32_t>::max())
      return false;
    lo = std::min(lo, v_lo);
    hi = std::max(hi, v_hi);
  }
  *out_lo = static_cast<std::int32_t>(lo);
  *out_hi = static_cast<std::int32_t>(hi);
  return true;
}

// The table is made by running the merged pass's very stages on the 256
// levels of every channel, so it holds their exact results.
void FusedChainRunner::runTablePass(const Segment& merged, const std::uint8_t* input_u8, std::int32_t* acc,
                                    void* output, std::int64_t block_rows, const ThreadPool* pool) {
  const std::int64_t blocks = (m_ + block_rows - 1) / block_rows;
  const std::size_t lead = input_u8 ? 0 : 1;  // the Requantize from int32 stays per element
  Segment tail;
  tail.prepared.assign(merged.prepared.begin() + static_cast<std::ptrdiff_t>(lead), merged.prepared.end());
  const bool to_float = tail.prepared.back().kind == FusedStageKind::kDequantize;
  std::vector<std::uint8_t> levels(static_cast<std::size_t>(256 * n_));
  for (int v = 0; v < 256; ++v)
    std::fill(levels.begin() + v * n_, levels.begin() + (v + 1) * n_, static_cast<std::uint8_t>(v));
  std::vector<std::uint8_t> table(static_cast<std::size_t>(256 * n_) * (to_float ? sizeof(float) : 1));
  std::int32_t unused_lo = 0, unused_hi = 0;
  runSegmentRows(tail, acc, levels.data(), n_, 0, 256, table.data(), false, &unused_lo, &unused_hi);
  const Segment::Prepared* first = lead ? &merged.prepared[0] : nullptr;
  const std::uint8_t* in_u8 = input_u8;
  const std::int64_t n = n_;
  auto run = [&](std::int64_t b0, std::int64_t b1) {
    thread_local std::vector<std::uint8_t> levels_of_block;
    const std::int64_t r0 = b0 * block_rows, r1 = std::min(m_, b1 * block_rows);
    for (std::int64_t r = r0; r < r1; r += block_rows) {
      const std::int64_t rows = std::min(block_rows, r1 - r);
      const std::uint8_t* v = in_u8 ? in_u8 + r * n : nullptr;
      if (first) {
        levels_of_block.resize(static_cast<std::size_t>(rows * n));
        first->requantize.apply(acc + r * n, rows * n, levels_of_block.data());
        v = levels_of_block.data();
      }
      if (to_float) {
        const float* t = reinterpret_cast<const float*>(table.data());
        float* o = static_cast<float*>(output) + r * n;
        for (std::int64_t i = 0; i < rows; ++i)
          for (std::int64_t c = 0; c < n; ++c) o[i * n + c] = t[v[i * n + c] * n + c];
      } else {
        const std::uint8_t* t = table.data();
        std::uint8_t* o = static_cast<std::uint8_t*>(output) + r * n;
        for (std::int64_t i = 0; i < rows; ++i)
          for (std::int64_t c = 0; c < n; ++c) o[i * n + c] = t[v[i * n + c] * n + c];
      }
    }
  };
  if (pool && pool->numThreads() > 1 && m_ * n_ >= kParallelValues)
    pool->parallelFor(blocks, static_cast<double>(block_rows * n_) * 4.0, run);
  else
    run(0, blocks);
}

Status FusedChainRunner::finish(std::int32_t* acc, void* output, float* out_min, float* out_max,
                                const ThreadPool* pool) {
  float lo = range_min_, hi = range_max_;
  std::int32_t in_lo = reduced_lo_, in_hi = reduced_hi_;
  // Rows per block: a few thousand values, so a block stays in L1/L2.
  const std::int64_t block_rows = std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(1, n_));
  const std::int64_t blocks = (m_ + block_rows - 1) / block_rows;
  std::size_t s = 1;
  const std::uint8_t* pass_input_u8 = nullptr;
  Segment merged;
  if (analytic_segment_ >= 0) {
    const std::size_t a = static_cast<std::size_t>(analytic_segment_);
    Segment& seg = segments_[a];
    if (a > 0) {
      // Its input is the accumulators: their global range is the barrier's.
      for (std::int64_t j = 0; j < n_; ++j) {
        in_lo = std::min(in_lo, channel_lo_[static_cast<std::size_t>(j)]);
        in_hi = std::max(in_hi, channel_hi_[static_cast<std::size_t>(j)]);
      }
      GDS_RETURN_IF_ERROR(prepareSegment(stages_, &seg, m_, n_, in_lo, in_hi, &lo, &hi));
    }
    std::int32_t next_lo = 0, next_hi = 0;
    if (analyticRange(seg, &next_lo, &next_hi)) {
      // Run the analytic segment and the next one as one pass.
      Segment& next = segments_[a + 1];
      GDS_RETURN_IF_ERROR(prepareSegment(stages_, &next, m_, n_, next_lo, next_hi, &lo, &hi));
      merged.prepared = seg.prepared;
      merged.prepared.insert(merged.prepared.end(), next.prepared.begin(), next.prepared.end());
      merged.reduce_after = next.reduce_after;
      pass_input_u8 = a == 0 ? input_u8_ : nullptr;
      s = a + 1;  // the merged pass stands for segment a + 1
    } else if (a == 0) {
      // Materialize the first segment as firstPass would have.
      std::int32_t l = std::numeric_limits<std::int32_t>::max(), h = std::numeric_limits<std::int32_t>::lowest();
      runSegmentRows(seg, acc, input_u8_, n_, 0, m_, segments_.size() == 1 ? output : acc, seg.reduce_after, &l, &h);
      in_lo = l;
      in_hi = h;
      s = 1;
    } else {
      s = 1;  // segment 1 runs normally below (already prepared)
    }
  }
  // The merged pass as a per-channel table: once the first Requantize has
  // made a quint8 value v, the rest (bias add, requantize, relu,
  // dequantize) depends only on (v, channel); worth it when the layer has
  // many more rows than 256.
  if (!merged.prepared.empty() && !merged.reduce_after && s + 1 == segments_.size() && m_ >= 1024 && n_ <= 1024) {
    runTablePass(merged, pass_input_u8, acc, output, block_rows, pool);
    *out_min = lo;
    *out_max = hi;
    return Status::Ok();
  }
  for (; s < segments_.size(); ++s) {
    const bool use_merged = !merged.prepared.empty();
    Segment& seg = use_merged ? merged : segments_[s];
    if (!use_merged && !(analytic_segment_ == 1 && s == 1))
      GDS_RETURN_IF_ERROR(prepareSegment(stages_, &seg, m_, n_, in_lo, in_hi, &lo, &hi));
    void* out = s + 1 == segments_.size() ? output : acc;
    std::int32_t next_lo = std::numeric_limits<std::int32_t>::max();
    std::int32_t next_hi = std::numeric_limits<std::int32_t>::lowest();
    const std::uint8_t* in_u8 = pass_input_u8;
    auto run = [&](std::int64_t b0, std::int64_t b1) {
      std::int32_t l = std::numeric_limits<std::int32_t>::max();
      std::int32_t h = std::numeric_limits<std::int32_t>::lowest();
      runSegmentRows(seg, acc, in_u8, n_, b0 * block_rows, std::min(m_, b1 * block_rows), out, seg.reduce_after, &l,
                     &h);
      if (seg.reduce_after) {
        std::lock_guard<std::mutex> lock(reduceMutex());
        next_lo = std::min(next_lo, l);
        next_hi = std::max(next_hi, h);
      }
    };
    if (pool && pool->numThreads() > 1 && m_ * n_ >= kParallelValues)
      pool->parallelFor(blocks, static_cast<double>(block_rows * n_) * 4.0, run);
    else
      run(0, blocks);
    in_lo = next_lo;
    in_hi = next_hi;
    merged.prepared.clear();
    pass_input_u8 = nullptr;
  }
  *out_min = lo;
  *out_max = hi;
  return Status::Ok();
}

Status applyFusedStages(const std::vector<FusedStage>& stages, std::int32_t* acc, std::int64_t m, std::int64_t n,
                        float acc_min, float acc_max, void* output, float* out_min, float* out_max,
                        const ThreadPool* pool) {
  FusedChainRunner runner(stages, m, n, acc_min, acc_max);
  GDS_RETURN_IF_ERROR(runner.prepare());
  runner.firstPass(acc, 0, m, output);
  return runner.finish(acc, output, out_min, out_max, pool);
}

}  // namespace gds::engine::quantized
