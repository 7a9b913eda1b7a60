// RandomUniform: floats in [0, 1). Seeding follows TF's attrs (seed, seed2;
// both 0 means a non-deterministic seed) and every run draws new values from
// the same stream, but the generator is a 64-bit Mersenne Twister rather than
// TF's Philox, so values do not match TensorFlow bit for bit.
#include <random>

#include "engine/kernels/nn_kernel_util.h"

namespace gds::engine {

namespace {

class RandomUniformKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    std::int64_t seed = 0, seed2 = 0;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("seed", &seed, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("seed2", &seed2, 0));
    GDS_RETURN_IF_ERROR(init.getAttrOr("dtype", &dtype_, tensorflow::DT_FLOAT));
    if (dtype_ != tensorflow::DT_FLOAT && dtype_ != tensorflow::DT_DOUBLE)
      return init.error("dtype " + model::dtypeName(dtype_) + " is not supported (float or double)");
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      engine_.seed((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
    } else {
      std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                        static_cast<std::uint32_t>(seed2), static_cast<std::uint32_t>(seed2 >> 32)};
      engine_.seed(seq);
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
    for (std::int64_t i = 0; i < n; ++i) {
      // 24 (53) random mantissa bits: uniform in [0, 1) without rounding up to 1.
      const std::uint64_t r = engine_();
      if (dtype_ == tensorflow::DT_FLOAT) out->data<float>()[i] = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
      else out->data<double>()[i] = static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0);
    }
    return Status::Ok();
  }

 private:
  DataType dtype_ = tensorflow::DT_FLOAT;
  std::mt19937_64 engine_;
};

}  // namespace

void registerRandomKernels(KernelRegistry& registry) {
  registry.add("RandomUniform", [] { return std::unique_ptr<OpKernel>(new RandomUniformKernel()); });
}

}  // namespace gds::engine
