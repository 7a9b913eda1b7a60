// Fused 8-bit layers made by the inference rewrite's 8-bit fusion
// (engine/rewrite/quantized_fusion.h): a QuantizedConv2D or QuantizedMatMul
// followed by the ops quantize_nodes puts after it (RequantizationRange +
// Requantize, QuantizedBiasAdd, QuantizedRelu/Relu6, Dequantize), computed by
// one kernel whose GEMM epilogue runs the output stages on blocks still in
// cache.
//
//   _FusedQuantizedConv2D / _FusedQuantizedMatMul
//     inputs: the head op's six (data, weights, their min/max), then per
//             stage: RequantizeToRange -> requested min, max;
//             BiasAdd -> bias, bias min, bias max.
//     attrs:  the head op's, fused_ops (list of stage names, see
//             engine/quantized/fused_chain.h), dequantize_mode.
//     outputs: (quint8 or qint32, min, max), or one float after Dequantize.
#include <algorithm>
#include <limits>
#include <vector>

#include "engine/ops/nn.h"
#include "engine/quantized/dequantize.h"
#include "engine/quantized/fused_chain.h"
#include "engine/quantized/kernels/kernel_util.h"
#include "engine/quantized/ops.h"
#include "engine/quantized/vector_loops.h"

namespace gds::engine {

namespace {

using quantized::FusedStage;
using quantized::FusedStageKind;
using quantized::FusedValueType;

// A fused node's Dequantize mode attr `name` (MIN_FIRST or MIN_COMBINED);
// fallback null: the attr is required.
Status readDequantizeMode(const KernelInit& init, const char* name, const char* fallback, quantized::QuantizeMode* mode) {
  std::string text;
  if (fallback) GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>(name, &text, fallback));
  else GDS_RETURN_IF_ERROR(init.getAttr(name, &text));
  if (text != "MIN_FIRST" && text != "MIN_COMBINED")
    return init.error(std::string(name) + " must be MIN_FIRST or MIN_COMBINED, is '" + text + "'");
  *mode = text == "MIN_FIRST" ? quantized::QuantizeMode::kMinFirst : quantized::QuantizeMode::kMinCombined;
  return Status::Ok();
}

// The fused_ops of a node and where their extra inputs are.
class FusedStages {
 public:
  Status init(const KernelInit& init, int first_extra_input, FusedValueType input) {
    std::vector<std::string> names;
    GDS_RETURN_IF_ERROR(init.getAttrOr("fused_ops", &names, {}));
    quantized::QuantizeMode mode;
    GDS_RETURN_IF_ERROR(readDequantizeMode(init, "dequantize_mode", "MIN_FIRST", &mode));
    int next_input = first_extra_input;
    for (const std::string& name : names) {
      Result<FusedStageKind> kind = quantized::parseFusedStage(name);
      if (!kind.ok()) return init.error(kind.error());
      FusedStage stage;
      stage.kind = *kind;
      stage.min_first = mode == quantized::QuantizeMode::kMinFirst;
      stages_.push_back(stage);
      first_input_.push_back(next_input);
      if (stage.kind == FusedStageKind::kRequantizeToRange) next_input += 2;
      if (stage.kind == FusedStageKind::kBiasAdd || stage.kind == FusedStageKind::kAdd) next_input += 3;
    }
    if (Status s = quantized::checkFusedStages(stages_, input); !s.ok()) return init.error(s.message());
    if (init.numInputs() != next_input)
      return init.error("expected " + std::to_string(next_input) + " inputs for fused_ops, got " +
                        std::to_string(init.numInputs()));
    output_type_ = quantized::fusedOutputType(stages_, input);
    return Status::Ok();
  }
  // Reads the stages' run-time inputs (requested ranges, biases).
  Status read(const KernelContext& ctx, int output_rank) {
    for (std::size_t i = 0; i < stages_.size(); ++i) {
      FusedStage& st = stages_[i];
      const int in = first_input_[i];
      if (st.kind == FusedStageKind::kRequantizeToRange) {
        GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, in, "requested_output_min", &st.requested_min));
        GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, in + 1, "requested_output_max", &st.requested_max));
      } else if (st.kind == FusedStageKind::kBiasAdd || st.kind == FusedStageKind::kAdd) {
        const bool add = st.kind == FusedStageKind::kAdd;
        GDS_RETURN_IF_ERROR(qkern::requireType(ctx, in, tensorflow::DT_QUINT8, add ? "y" : "bias"));
        const Tensor& bias = ctx.input(in);
        if (!add && bias.dims() != 1) return ctx.error("Biases must be 1D: " + model::shapeString(bias.shape()));
        if (add) {
          // A vector along the channels (any leading 1s) or a single value.
          for (int d = 0; d + 1 < bias.dims(); ++d)
            if (bias.dim(d) != 1 || bias.dims() > output_rank)
              return ctx.error("y of the fused QuantizedAdd must be a vector over the channels, got " +
                               model::shapeString(bias.shape()));
        }
        st.bias = bias.data<std::uint8_t>();
        st.bias_size = bias.numElements();
        GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, in + 1, add ? "min_y" : "min_bias", &st.bias_min));
        GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, in + 2, add ? "max_y" : "max_bias", &st.bias_max));
      }
    }
    return Status::Ok();
  }
  const std::vector<FusedStage>& stages() const { return stages_; }
  FusedValueType outputType() const { return output_type_; }
  int numOutputs() const { return output_type_ == FusedValueType::kFloat ? 1 : 3; }
  std::vector<DataType> outputTypes() const {
    if (output_type_ == FusedValueType::kFloat) return {tensorflow::DT_FLOAT};
    return {output_type_ == FusedValueType::kUInt8 ? tensorflow::DT_QUINT8 : tensorflow::DT_QINT32,
            tensorflow::DT_FLOAT, tensorflow::DT_FLOAT};
  }
  DataType outputDtype() const { return outputTypes()[0]; }

 private:
  std::vector<FusedStage> stages_;
  std::vector<int> first_input_;  // per stage: its first extra input
  FusedValueType output_type_ = FusedValueType::kInt32;
};

// Working space (the accumulators, quantized or summed values). Nodes of a
// plan run one at a time on the calling thread: one buffer per thread and
// element type serves every fused node.
template <typename T>
T* threadScratch(std::int64_t count) {
  thread_local std::vector<T> scratch;
  if (static_cast<std::int64_t>(scratch.size()) < count) scratch.resize(static_cast<std::size_t>(count));
  return scratch.data();
}

class QuantizedFusedGemmKernel : public OpKernel {
 public:
  explicit QuantizedFusedGemmKernel(qkern::QuantizedGemmLayer::Kind kind) : kind_(kind) {}

  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(layer_.init(init, kind_));
    return stages_.init(init, 6, FusedValueType::kInt32);
  }
  int numOutputs(const KernelInit&) const override { return stages_.numOutputs(); }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return stages_.outputTypes(); }

  Status compute(KernelContext& ctx) override {
    GDS_RETURN_IF_ERROR(layer_.prepare(ctx));
    GDS_RETURN_IF_ERROR(stages_.read(ctx, static_cast<int>(layer_.outputShape().size())));
    const std::int64_t m = layer_.rows(), n = layer_.columns();
    void* output = ctx.allocateOutput(0, stages_.outputDtype(), layer_.outputShape())->raw();
    // A float or int32 output's buffer holds the accumulators: each row is
    // read before the row's results are written.
    std::int32_t* acc =
        stages_.outputType() == FusedValueType::kUInt8 ? threadScratch<std::int32_t>(m * n)
                                                       : static_cast<std::int32_t*>(output);
    quantized::FusedChainRunner runner(stages_.stages(), m, n, layer_.outputMin(), layer_.outputMax());
    if (Status s = runner.prepare(); !s.ok()) return ctx.error(s.message());
    layer_.run(ctx, acc, [&](std::int64_t r0, std::int64_t r1) { runner.firstPass(acc, r0, r1, output); });
    float out_min = 0, out_max = 0;
    if (Status s = runner.finish(acc, output, &out_min, &out_max, &ctx.pool()); !s.ok()) return ctx.error(s.message());
    if (stages_.outputType() != FusedValueType::kFloat) {
      qkern::setScalar(ctx, 1, out_min);
      qkern::setScalar(ctx, 2, out_max);
    }
    return Status::Ok();
  }

  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const override {
    return layer_.flops(in, out);
  }

 private:
  qkern::QuantizedGemmLayer::Kind kind_;
  qkern::QuantizedGemmLayer layer_;
  FusedStages stages_;
};

// The input of a QuantizeV2OwnRangeKernel: one float tensor
// (_QuantizeV2OwnRange) or a residual sum (_QuantizedAddOwnRange).
enum class OwnRangeInput { kFloat, kResidualSum };

// _QuantizeV2OwnRange: quantize_nodes' Reshape(x, [-1]) -> Min, Max ->
// QuantizeV2(x, min, max) to quint8 as one node with input x, followed by
// fused_ops on the quint8 values (QuantizedBiasAdd, Requantize, Relu,
// Dequantize, as after a GEMM). Attrs: QuantizeV2's, fused_ops,
// dequantize_mode. Outputs (quint8 or qint32, min, max), or one float.
//
// _QuantizedAddOwnRange: the same with x = Add(Dequantize(a), Dequantize(b))
// (a residual sum of two 8-bit tensors of one shape, which quantize_nodes
// leaves in float): inputs a, a_min, a_max, b, b_min, b_max, then the
// stages'; attrs add_op, mode_a, mode_b (the Dequantizes' modes). The float
// sums are those of the unfused ops: each operand's 256 levels dequantized
// by the Dequantize kernel's own function, added in float.
class QuantizeV2OwnRangeKernel : public OpKernel {
 public:
  explicit QuantizeV2OwnRangeKernel(OwnRangeInput input) : input_(input) {}

  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(qkern::readQuantizeV2Options(init, &options_));
    if (input_ == OwnRangeInput::kResidualSum) {
      std::string add_op;
      GDS_RETURN_IF_ERROR(init.getAttr("add_op", &add_op));
      if (add_op != "Add" && add_op != "AddV2") return init.error("add_op must be Add or AddV2, is '" + add_op + "'");
      for (const char* name : {"mode_a", "mode_b"}) {
        quantized::QuantizeMode mode;
        GDS_RETURN_IF_ERROR(readDequantizeMode(init, name, nullptr, &mode));
        operand_modes_.push_back(mode);
      }
    }
    return stages_.init(init, input_ == OwnRangeInput::kResidualSum ? 6 : 1, FusedValueType::kUInt8);
  }
  int numOutputs(const KernelInit&) const override { return stages_.numOutputs(); }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return stages_.outputTypes(); }

  Status compute(KernelContext& ctx) override {
    // Min and Max of the whole tensor, as the Reshape/Min/Max nodes computed
    // them (an empty tensor gives the reductions' initial values).
    constexpr std::int64_t kChunk = 16384;
    // Fewer values than this are not worth waking another thread for.
    constexpr std::int64_t kParallelValues = 65536;
    const ThreadPool& pool = ctx.pool();
    const Tensor& x = ctx.input(0);
    const Shape& shape = x.shape();
    const std::int64_t count = x.numElements();
    const std::int64_t chunks = (count + kChunk - 1) / kChunk;
    std::vector<float> part_lo(static_cast<std::size_t>(chunks)), part_hi(static_cast<std::size_t>(chunks));
    const float* in = nullptr;
    if (input_ == OwnRangeInput::kResidualSum) {
      GDS_RETURN_IF_ERROR(residualSums(ctx, kChunk, kParallelValues, &part_lo, &part_hi, &in));
    } else if (x.dtype() != tensorflow::DT_FLOAT) {
      return ctx.error("input must be float, got " + model::dtypeName(x.dtype()));
    } else {
      in = x.data<float>();
    }
    GDS_RETURN_IF_ERROR(stages_.read(ctx, static_cast<int>(shape.size())));
    auto reduce = [&](std::int64_t c0, std::int64_t c1) {
      for (std::int64_t c = c0; c < c1; ++c) {
        const std::int64_t b = c * kChunk;
        quantized::minMaxFloat(in + b, std::min(count, b + kChunk) - b, &part_lo[static_cast<std::size_t>(c)],
                               &part_hi[static_cast<std::size_t>(c)]);
      }
    };
    if (input_ == OwnRangeInput::kResidualSum) {
      // found with the sums
    } else if (pool.numThreads() > 1 && count >= kParallelValues) {
      pool.parallelFor(chunks, kChunk * 1.0, reduce);
    } else {
      reduce(0, chunks);
    }
    float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
    for (std::int64_t c = 0; c < chunks; ++c) {
      lo = std::min(lo, part_lo[static_cast<std::size_t>(c)]);
      hi = std::max(hi, part_hi[static_cast<std::size_t>(c)]);
    }
    float q_min = 0, q_max = 0;
    if (!quantized::quantizeV2<std::uint8_t>(nullptr, 0, 1, lo, hi, options_, nullptr, &q_min, &q_max))
      return ctx.error("input_max_range must be larger than input_min_range.");
    // Rows for the stages: the last dimension (the channels of a bias add).
    const std::int64_t n = !shape.empty() ? shape.back() : 1;
    const std::int64_t m = n > 0 ? count / n : 0;
    Tensor* out = ctx.allocateOutput(0, stages_.outputDtype(), shape);
    // A lone QuantizedRelu/Relu6 (ResNet's block outputs) clamps the
    // quantized values in place; its range passes through.
    const auto& stages = stages_.stages();
    const bool lone_relu = stages.size() == 1 && (stages[0].kind == quantized::FusedStageKind::kRelu ||
                                                  stages[0].kind == quantized::FusedStageKind::kRelu6);
    const bool plain = stages.empty() || lone_relu;
    std::uint8_t relu_low = 0, relu_high = 255;
    if (lone_relu) {
      relu_low = quantized::floatToQuantized<std::uint8_t>(0.0f, q_min, q_max);
      if (stages[0].kind == quantized::FusedStageKind::kRelu6)
        relu_high = quantized::floatToQuantized<std::uint8_t>(6.0f, q_min, q_max);
    }
    std::uint8_t* q = plain ? out->data<std::uint8_t>() : threadScratch<std::uint8_t>(count);
    // QuantizeV2 by chunks: its constants depend only on the range.
    auto quantize = [&](std::int64_t c0, std::int64_t c1) {
      for (std::int64_t c = c0; c < c1; ++c) {
        const std::int64_t b = c * kChunk;
        float unused_min, unused_max;
        const std::int64_t n_values = std::min(count, b + kChunk) - b;
        quantized::quantizeV2<std::uint8_t>(in + b, n_values, 1, lo, hi, options_, q + b, &unused_min, &unused_max);
        if (lone_relu) quantized::clampU8(q + b, n_values, relu_low, relu_high);
      }
    };
    if (pool.numThreads() > 1 && count >= kParallelValues)
      pool.parallelFor(chunks, kChunk * 8.0, quantize);
    else
      quantize(0, chunks);
    float out_min = q_min, out_max = q_max;
    if (!plain) {
      std::int32_t* acc =
          stages_.outputType() == FusedValueType::kUInt8 ? threadScratch<std::int32_t>(count)
                                                         : static_cast<std::int32_t*>(out->raw());
      quantized::FusedChainRunner runner(stages_.stages(), m, n, q_min, q_max, FusedValueType::kUInt8);
      if (Status s = runner.prepare(); !s.ok()) return ctx.error(s.message());
      void* output = out->raw();
      const std::int64_t block_rows = std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(1, n));
      const std::int64_t blocks = (m + block_rows - 1) / block_rows;
      auto first = [&](std::int64_t b0, std::int64_t b1) {
        runner.firstPass(acc, b0 * block_rows, std::min(m, b1 * block_rows), output, q);
      };
      if (pool.numThreads() > 1 && count >= kParallelValues)
        pool.parallelFor(blocks, block_rows * n * 4.0, first);
      else
        first(0, blocks);
      if (Status s = runner.finish(acc, output, &out_min, &out_max, &pool); !s.ok()) return ctx.error(s.message());
    }
    if (stages_.outputType() != FusedValueType::kFloat) {
      qkern::setScalar(ctx, 1, out_min);
      qkern::setScalar(ctx, 2, out_max);
    }
    return Status::Ok();
  }

 private:
  // The residual's float sums into thread scratch (*sums), with each
  // chunk's min and max.
  Status residualSums(KernelContext& ctx, std::int64_t chunk, std::int64_t parallel_values, std::vector<float>* lo,
                      std::vector<float>* hi, const float** sums) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(3);
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, tensorflow::DT_QUINT8, "a"));
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 3, tensorflow::DT_QUINT8, "b"));
    if (a.shape() != b.shape())
      return ctx.error("the residual's operands must have one shape, got " + model::shapeString(a.shape()) + " and " +
                       model::shapeString(b.shape()));
    float range[4];
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 1, "a_min", &range[0]));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "a_max", &range[1]));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 4, "b_min", &range[2]));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 5, "b_max", &range[3]));
    float ta[256], tb[256];
    quantized::dequantizeLevels(operand_modes_[0], range[0], range[1], ta);
    quantized::dequantizeLevels(operand_modes_[1], range[2], range[3], tb);
    const std::int64_t count = a.numElements();
    float* s = threadScratch<float>(count);
    const std::uint8_t* pa = a.data<std::uint8_t>();
    const std::uint8_t* pb = b.data<std::uint8_t>();
    auto sum = [&](std::int64_t c0, std::int64_t c1) {
      for (std::int64_t c = c0; c < c1; ++c) {
        const std::int64_t begin = c * chunk, end = std::min(count, begin + chunk);
        quantized::lookupSumRow(pa + begin, ta, pb + begin, tb, end - begin, s + begin,
                                &(*lo)[static_cast<std::size_t>(c)], &(*hi)[static_cast<std::size_t>(c)]);
      }
    };
    const std::int64_t chunks = static_cast<std::int64_t>(lo->size());
    if (ctx.pool().numThreads() > 1 && count >= parallel_values)
      ctx.pool().parallelFor(chunks, static_cast<double>(chunk) * 4.0, sum);
    else
      sum(0, chunks);
    *sums = s;
    return Status::Ok();
  }

  OwnRangeInput input_;
  std::vector<quantized::QuantizeMode> operand_modes_;  // of a and b (residual)
  quantized::QuantizeV2Options options_;
  FusedStages stages_;
};

// _QuantizedPadMaxPool: Dequantize(a) -> Pad (spatial, zeros) -> Reshape / Min
// / Max -> QuantizeV2 -> QuantizedMaxPool (VALID) as one node (see
// engine/rewrite/quantized_fusion.cc). Inputs a, a_min, a_max; attrs
// QuantizeV2's, ksize, strides, pad_hw (top, bottom, left, right),
// dequantize_mode. Outputs quint8, min, max, bit for bit those of the unfused
// ops: quantization is monotonic, so the pool of the quantized values is the
// quantization of the pool of the float ones; and when dequantization is
// monotonic too (checked on its 256 levels), the float pool is a table lookup
// of the 8-bit pool of a, padding cells adding the Pad's zero.
class QuantizedPadMaxPoolKernel : public OpKernel {
 public:
  int numOutputs(const KernelInit&) const override { return 3; }
  std::vector<DataType> outputTypes(const KernelInit&) const override {
    return {tensorflow::DT_QUINT8, tensorflow::DT_FLOAT, tensorflow::DT_FLOAT};
  }
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(qkern::readQuantizeV2Options(init, &options_));
    std::vector<std::int64_t> ksize, strides;
    GDS_RETURN_IF_ERROR(init.getAttr("ksize", &ksize));
    GDS_RETURN_IF_ERROR(init.getAttr("strides", &strides));
    GDS_RETURN_IF_ERROR(init.getAttr("pad_hw", &pads_));
    if (ksize.size() != 4 || strides.size() != 4 || ksize[0] != 1 || ksize[3] != 1 || strides[0] != 1 ||
        strides[3] != 1 || ksize[1] < 1 || ksize[2] < 1 || strides[1] < 1 || strides[2] < 1)
      return init.error("ksize and strides must be [1, h, w, 1] with positive h and w");
    if (pads_.size() != 4 || *std::min_element(pads_.begin(), pads_.end()) < 0)
      return init.error("pad_hw must hold four non-negative paddings (top, bottom, left, right)");
    window_h_ = ksize[1], window_w_ = ksize[2], stride_h_ = strides[1], stride_w_ = strides[2];
    return readDequantizeMode(init, "dequantize_mode", "MIN_FIRST", &mode_);
  }

  Status compute(KernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    GDS_RETURN_IF_ERROR(qkern::requireType(ctx, 0, tensorflow::DT_QUINT8, "input"));
    if (a.dims() != 4) return ctx.error("input must be 4-dimensional, got " + model::shapeString(a.shape()));
    float range[2];
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 1, "min_range", &range[0]));
    GDS_RETURN_IF_ERROR(qkern::rangeInput(ctx, 2, "max_range", &range[1]));
    ops::Pool2DShape s;
    s.batch = a.dim(0), s.in_h = a.dim(1), s.in_w = a.dim(2), s.channels = a.dim(3);
    s.window_h = window_h_, s.window_w = window_w_, s.stride_h = stride_h_, s.stride_w = stride_w_;
    s.pad_top = pads_[0], s.pad_left = pads_[2];
    const std::int64_t padded_h = s.in_h + pads_[0] + pads_[1], padded_w = s.in_w + pads_[2] + pads_[3];
    if (padded_h < window_h_ || padded_w < window_w_)
      return ctx.error("the window " + std::to_string(window_h_) + "x" + std::to_string(window_w_) +
                       " does not fit the padded input " + std::to_string(padded_h) + "x" + std::to_string(padded_w));
    s.out_h = (padded_h - window_h_) / stride_h_ + 1;
    s.out_w = (padded_w - window_w_) / stride_w_ + 1;
    const bool padded = pads_[0] + pads_[1] + pads_[2] + pads_[3] > 0;
    float table[256];
    quantized::dequantizeLevels(mode_, range[0], range[1], table);
    bool monotonic = true;
    for (int v = 1; v < 256 && monotonic; ++v) monotonic = table[v] >= table[v - 1];
    // A window inside the padding only would hold the Pad's zero alone.
    monotonic = monotonic && pads_[0] < window_h_ && pads_[1] < window_h_ && pads_[2] < window_w_ &&
                pads_[3] < window_w_;
    const std::int64_t count = a.numElements();
    const std::int64_t out_count = s.batch * s.out_h * s.out_w * s.channels;
    std::vector<float> pooled(static_cast<std::size_t>(out_count));
    float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
    if (monotonic) {
      // Min and Max of the padded float tensor: the table at the extreme
      // levels present, and the padding's zero.
      const std::uint8_t* x = a.data<std::uint8_t>();
      std::uint8_t qlo = 255, qhi = 0;
      for (std::int64_t i = 0; i < count; ++i) {
        qlo = x[i] < qlo ? x[i] : qlo;
        qhi = x[i] > qhi ? x[i] : qhi;
      }
      if (count > 0) lo = table[qlo], hi = table[qhi];
      std::vector<std::uint8_t> q(static_cast<std::size_t>(out_count));
      quantized::maxPoolU8(s, x, q.data(), &ctx.pool());
      for (std::int64_t i = 0; i < out_count; ++i) pooled[static_cast<std::size_t>(i)] = table[q[static_cast<std::size_t>(i)]];
      if (padded) {
        // Windows reaching into the padding also hold a zero.
        for (std::int64_t row = 0; row < s.batch * s.out_h; ++row) {
          const std::int64_t y0 = (row % s.out_h) * s.stride_h - s.pad_top;
          const bool rows_out = y0 < 0 || y0 + s.window_h > s.in_h;
          for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
            const std::int64_t x0 = ox * s.stride_w - s.pad_left;
            if (!rows_out && x0 >= 0 && x0 + s.window_w <= s.in_w) continue;
            float* v = pooled.data() + (row * s.out_w + ox) * s.channels;
            for (std::int64_t c = 0; c < s.channels; ++c) v[c] = 0.0f > v[c] ? 0.0f : v[c];
          }
        }
      }
    } else {
      // The float ops themselves: dequantize, then the max pool with the
      // padding's zeros taking part.
      std::vector<float> values(static_cast<std::size_t>(count));
      quantized::dequantize(a.raw(), quantized::QuantizedType::kQUInt8, 1, 1, count, mode_, &range[0], &range[1], false,
                      values.data());
      quantized::minMaxFloat(values.data(), count, &lo, &hi);
      s.pad_takes_part = true;
      s.pad_value = 0.0f;
      ops::maxPool(s, values.data(), pooled.data(), &ctx.pool());
    }
    if (padded) {
      lo = 0.0f < lo ? 0.0f : lo;
      hi = 0.0f > hi ? 0.0f : hi;
    }
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_QUINT8, {s.batch, s.out_h, s.out_w, s.channels});
    float out_min = 0, out_max = 0;
    if (!quantized::quantizeV2<std::uint8_t>(pooled.data(), out_count, 1, lo, hi, options_, out->data<std::uint8_t>(),
                                             &out_min, &out_max))
      return ctx.error("input_max_range must be larger than input_min_range.");
    qkern::setScalar(ctx, 1, out_min);
    qkern::setScalar(ctx, 2, out_max);
    return Status::Ok();
  }

 private:
  quantized::QuantizeV2Options options_;
  std::vector<std::int64_t> pads_;
  std::int64_t window_h_ = 1, window_w_ = 1, stride_h_ = 1, stride_w_ = 1;
  quantized::QuantizeMode mode_ = quantized::QuantizeMode::kMinFirst;
};

}  // namespace

void registerQuantizedFusedKernels(KernelRegistry& registry) {
  registry.add("_QuantizedPadMaxPool", [] { return std::unique_ptr<OpKernel>(new QuantizedPadMaxPoolKernel()); });
  registry.add("_QuantizeV2OwnRange", [] {
    return std::unique_ptr<OpKernel>(new QuantizeV2OwnRangeKernel(OwnRangeInput::kFloat));
  });
  registry.add("_QuantizedAddOwnRange", [] {
    return std::unique_ptr<OpKernel>(new QuantizeV2OwnRangeKernel(OwnRangeInput::kResidualSum));
  });
  registry.add("_FusedQuantizedConv2D", [] {
    return std::unique_ptr<OpKernel>(new QuantizedFusedGemmKernel(qkern::QuantizedGemmLayer::kConv2D));
  });
  registry.add("_FusedQuantizedMatMul", [] {
    return std::unique_ptr<OpKernel>(new QuantizedFusedGemmKernel(qkern::QuantizedGemmLayer::kMatMul));
  });
}

}  // namespace gds::engine
