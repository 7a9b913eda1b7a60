// The output side of a fused 8-bit layer: the elementwise ops quantize_nodes
// puts after a QuantizedConv2D / QuantizedMatMul (Requantize with its
// RequantizationRange, QuantizedBiasAdd, QuantizedAdd of a bias vector,
// QuantizedRelu/Relu6, Dequantize), or after a QuantizeV2, applied to the
// values in chunks of rows while they are in cache, with no intermediate
// tensors.
//
// Each stage computes exactly what its TensorFlow op computes, with the same
// functions the standalone kernels use (Requantize32To8, the QuantizedBiasAdd
// and QuantizedAdd tables, clampQuantized, Dequantize), so a fused layer's
// output is bit for bit the unfused graph's. A Requantize whose range comes
// from a RequantizationRange of the same tensor needs the min/max of all the
// values first: that is a barrier, reduced during the previous pass. Two
// shortcuts keep the passes few, both exact:
//  - the range after a bias add follows from per-channel input ranges
//    (every step is monotonic, checked at run time), so the bias add is not
//    written out before the next Requantize;
//  - after the first Requantize of a layer with many rows, the remaining
//    stages are one lookup in a per-channel table of the 256 levels, made by
//    running those stages on the levels themselves.
// Vectorized arithmetic replaces a stage's table only where it reproduces
// all 256 entries (engine/quantized/vector_loops.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/status.h"

namespace gds::engine {
class ThreadPool;
}

namespace gds::engine::quantized {

enum class FusedStageKind {
  kRequantize,         // int32 -> quint8; range from a RequantizationRange of the input (a barrier)
  kRequantizeToRange,  // int32 -> quint8; range given (frozen ranges, fallback_min/max)
  kBiasAdd,            // quint8 -> int32, QuantizedBiasAdd with a quint8 bias per channel
  kAdd,                // quint8 -> int32, QuantizedAdd of a quint8 vector per channel (or a scalar)
  kRelu,               // quint8 -> quint8, QuantizedRelu
  kRelu6,              // quint8 -> quint8, QuantizedRelu6
  kDequantize,         // quint8 -> float, Dequantize (MIN_FIRST or MIN_COMBINED)
};

// Name used in the fused node's "fused_ops" attr and in profiles.
const char* fusedStageName(FusedStageKind kind);
Result<FusedStageKind> parseFusedStage(const std::string& name);

struct FusedStage {
  FusedStageKind kind = FusedStageKind::kRequantize;
  // kRequantizeToRange: the requested output range.
  float requested_min = 0, requested_max = 0;
  // kBiasAdd: one quint8 value per output channel and its range; kAdd: the
  // same, or one value for all channels.
  const std::uint8_t* bias = nullptr;
  std::int64_t bias_size = 0;
  float bias_min = 0, bias_max = 0;
  // kDequantize: true for MIN_FIRST, false for MIN_COMBINED.
  bool min_first = true;
};

enum class FusedValueType { kInt32, kUInt8, kFloat };

// The value type after the last stage (`input` when there are none).
FusedValueType fusedOutputType(const std::vector<FusedStage>& stages, FusedValueType input = FusedValueType::kInt32);
// Checks the order of types (Requantize takes int32, BiasAdd/Relu/Dequantize
// quint8), starting from `input` (int32 after a GEMM, quint8 after a
// QuantizeV2); the message names the first stage that does not fit.
Status checkFusedStages(const std::vector<FusedStage>& stages, FusedValueType input = FusedValueType::kInt32);

// Applies the stages to `acc` (m x n int32, row-major, channel = column) whose
// float range is [acc_min, acc_max]. The result goes to `output` (m x n of
// the output type: uint8, int32 or float; it may alias `acc` when it is int32
// or float). *out_min / *out_max receive the output's range (for float
// outputs, the range of the last quantized value). Errors (a requested range
// without zero, a bias of the wrong length) name the stage.
//
// `first_pass_done`: the caller already ran the stages before the first
// barrier, and reduced the min/max of the values entering it, during the
// GEMM (see FusedChainRunner below); plain callers pass nothing.
Status applyFusedStages(const std::vector<FusedStage>& stages, std::int32_t* acc, std::int64_t m, std::int64_t n,
                        float acc_min, float acc_max, void* output, float* out_min, float* out_max,
                        const ThreadPool* pool);

// The same, split so that the first pass runs inside the GEMM's epilogue
// while each block of rows is still in cache:
//   FusedChainRunner run(stages, m, n, acc_min, acc_max);
//   GDS_RETURN_IF_ERROR(run.prepare());
//   gemm(..., acc, ..., [&](r0, r1) { run.firstPass(acc, r0, r1, output); });
//   GDS_RETURN_IF_ERROR(run.finish(acc, output, &min, &max, pool));
class FusedChainRunner {
 public:
  // input: kInt32 (the values start in acc) or kUInt8 (they start in the
  // quint8 buffer given to firstPass; acc is then int32 working space).
  FusedChainRunner(const std::vector<FusedStage>& stages, std::int64_t m, std::int64_t n, float acc_min, float acc_max,
                   FusedValueType input = FusedValueType::kInt32);
  ~FusedChainRunner();
  Status prepare();
  // Thread-safe for disjoint row ranges.
  void firstPass(std::int32_t* acc, std::int64_t row_begin, std::int64_t row_end, void* output,
                 const std::uint8_t* input_u8 = nullptr);
  Status finish(std::int32_t* acc, void* output, float* out_min, float* out_max, const ThreadPool* pool);

  struct Segment;

 private:
  const std::vector<FusedStage>& stages_;
  std::int64_t m_, n_;
  FusedValueType input_;
  float range_min_, range_max_;  // the GEMM's range, then the range after the first segment
  std::vector<Segment> segments_;
  std::int32_t reduced_lo_ = 0, reduced_hi_ = 0;  // min/max entering the first barrier
  // The segment whose output range is derived from per-channel input ranges
  // (-1: none), those ranges, and the quint8 input seen by firstPass.
  int analytic_segment_ = -1;
  std::vector<std::int32_t> channel_lo_, channel_hi_;
  const std::uint8_t* input_u8_ = nullptr;
  bool analyticRange(const Segment& seg, std::int32_t* out_lo, std::int32_t* out_hi) const;
  // finish's last pass as a per-channel table of the 256 quint8 levels.
  void runTablePass(const Segment& merged, const std::uint8_t* input_u8, std::int32_t* acc, void* output,
                    std::int64_t block_rows, const ThreadPool* pool);
};

}  // namespace gds::engine::quantized
