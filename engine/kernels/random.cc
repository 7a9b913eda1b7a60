// Stateful random ops as TensorFlow computes them on CPU
// (tensorflow/core/kernels/random_op.cc, random_op_cpu.h): RandomUniform,
// RandomStandardNormal and TruncatedNormal, float and double.
//
// The generator is Philox4x32-10 keyed by the `seed` attr with `seed2` in the
// upper counter words; seed == seed2 == 0 means fresh random seeds
// (GuardedPhiloxRandom::Init). Each run reserves output_size * 256 128-bit
// samples (ReserveRandomOutputs(n, 256)) and fills from the start of its
// reservation, so run k of a seeded node gives TensorFlow's k-th Session.run.
#include <mutex>
#include <random>

#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/philox.h"

namespace gds::engine {

namespace {

using philox::PhiloxRandom;

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

// TensorFlow reserves this many 128-bit samples per output element (and a
// truncated-normal group starts this many 32-bit samples per element apart).
constexpr std::uint64_t kReservedSamplesPerOutput = 256;

// Fixed samples per output (uniform, normal): group g of G outputs comes from
// the g-th 128-bit sample (two 32-bit words per double).
template <typename T>
void fillFixed(Distribution dist, PhiloxRandom gen, T* out, std::int64_t n) {
  constexpr int kGroup = sizeof(T) == 4 ? 4 : 2;
  T group[kGroup];
  for (std::int64_t offset = 0; offset < n; offset += kGroup) {
    const philox::Block s = gen();
    if constexpr (sizeof(T) == 4) {
      if (dist == Distribution::kUniform) {
        for (int i = 0; i < 4; ++i) group[i] = philox::uint32ToFloat(s[i]);
      } else {
        philox::boxMullerFloat(s[0], s[1], &group[0], &group[1]);
        philox::boxMullerFloat(s[2], s[3], &group[2], &group[3]);
      }
    } else {
      if (dist == Distribution::kUniform) {
        group[0] = philox::uint64ToDouble(s[0], s[1]);
        group[1] = philox::uint64ToDouble(s[2], s[3]);
      } else {
        philox::boxMullerDouble(s[0], s[1], s[2], s[3], &group[0], &group[1]);
      }
    }
    for (int i = 0; i < kGroup && offset + i < n; ++i) out[offset + i] = group[i];
  }
}

// One 32-bit word at a time from a 128-bit generator (SingleSampleAdapter).
class SingleSamples {
 public:
  explicit SingleSamples(PhiloxRandom gen) : gen_(gen) {}
  std::uint32_t operator()() {
    if (used_ == 4) {
      block_ = gen_();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  PhiloxRandom gen_;
  philox::Block block_{};
  int used_ = 4;
};

// Truncated normal (|x| < 2, resampling the rest): a variable number of
// samples per output, so group g of G outputs starts from the reservation's
// start skipped by g * G * 256 / 4 samples, whatever the others consumed.
template <typename T>
void fillTruncatedNormal(PhiloxRandom base, T* out, std::int64_t n) {
  constexpr int kGroup = sizeof(T) == 4 ? 4 : 2;
  constexpr std::uint64_t kSkipPerGroup = kGroup * kReservedSamplesPerOutput / 4;
  constexpr T kTruncate = T(2);
  const std::int64_t groups = (n + kGroup - 1) / kGroup;
  for (std::int64_t g = 0; g < groups; ++g) {
    PhiloxRandom gen = base;
    gen.skip(static_cast<std::uint64_t>(g) * kSkipPerGroup);
    SingleSamples samples(gen);
    T group[kGroup];
    int index = 0;
    while (index < kGroup) {
      T pair[2];
      if constexpr (sizeof(T) == 4) {
        const std::uint32_t x0 = samples(), x1 = samples();
        philox::boxMullerFloat(x0, x1, &pair[0], &pair[1]);
      } else {
        const std::uint32_t x0 = samples(), x1 = samples(), x2 = samples(), x3 = samples();
        philox::boxMullerDouble(x0, x1, x2, x3, &pair[0], &pair[1]);
      }
      for (int k = 0; k < 2 && index < kGroup; ++k)
        if (std::abs(pair[k]) < kTruncate) group[index++] = pair[k];
    }
    const std::int64_t offset = g * kGroup;
    for (int i = 0; i < kGroup && offset + i < n; ++i) out[offset + i] = group[i];
  }
}

class PhiloxRandomKernel : public OpKernel {
 public:
  explicit PhiloxRandomKernel(Distribution dist) : dist_(dist) {}

  Status init(const KernelInit& init) override {
    std::int64_t seed = 0, seed2 = 0;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("seed", &seed, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("seed2", &seed2, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr("dtype", &dtype_, tensorflow::DT_FLOAT));
    if (dtype_ != tensorflow::DT_FLOAT && dtype_ != tensorflow::DT_DOUBLE)
      return init.error("dtype " + model::dtypeName(dtype_) + " is not supported (float or double)");
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      auto draw64 = [&rd] { return (static_cast<std::uint64_t>(rd()) << 32) | rd(); };
      const std::uint64_t s = draw64();
      generator_ = PhiloxRandom(s, draw64());
    } else {
      generator_ = PhiloxRandom(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed2));
    }
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    DataType t = tensorflow::DT_FLOAT;
    (void)init.getAttrOr("dtype", &t, tensorflow::DT_FLOAT);
    return {t};
  }
  Status compute(KernelContext& ctx) override {
    std::vector<std::int64_t> dims;
    if (!nn::intValues(ctx.input(0), &dims) || ctx.input(0).dims() != 1)
      return ctx.error("shape must be a 1-D int32/int64 tensor");
    for (auto d : dims)
      if (d < 0) return ctx.error("shape " + nn::listString(dims) + " has a negative dimension");
    Tensor* out = ctx.allocateOutput(0, dtype_, dims);
    const std::int64_t n = out->numElements();
    PhiloxRandom gen;
    {
      // GuardedPhiloxRandom::ReserveRandomOutputs: concurrent runs of one
      // plan get disjoint parts of the stream.
      std::lock_guard<std::mutex> lock(mu_);
      gen = generator_;
      generator_.skip(static_cast<std::uint64_t>(n) * kReservedSamplesPerOutput);
    }
    const bool is_float = dtype_ == tensorflow::DT_FLOAT;
    if (dist_ == Distribution::kTruncatedNormal) {
      if (is_float) fillTruncatedNormal(gen, out->data<float>(), n);
      else fillTruncatedNormal(gen, out->data<double>(), n);
    } else {
      if (is_float) fillFixed(dist_, gen, out->data<float>(), n);
      else fillFixed(dist_, gen, out->data<double>(), n);
    }
    return Status::Ok();
  }

 private:
  Distribution dist_;
  DataType dtype_ = tensorflow::DT_FLOAT;
  std::mutex mu_;
  PhiloxRandom generator_;
};

}  // namespace

void registerRandomKernels(KernelRegistry& registry) {
  registry.add("RandomUniform", [] { return std::make_unique<PhiloxRandomKernel>(Distribution::kUniform); });
  registry.add("RandomStandardNormal", [] { return std::make_unique<PhiloxRandomKernel>(Distribution::kNormal); });
  registry.add("TruncatedNormal",
               [] { return std::make_unique<PhiloxRandomKernel>(Distribution::kTruncatedNormal); });
}

}  // namespace gds::engine
