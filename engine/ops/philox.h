// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011) with TensorFlow's seeding, stream advance and conversions to
// floating point (tensorflow/core/lib/random/philox_random.h,
// random_distributions_utils.h, random_distributions.h), so the stateful
// random ops give TensorFlow's numbers for the same seed and seed2.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace gds::engine::philox {

using Block = std::array<std::uint32_t, 4>;  // one 128-bit sample
using Key = std::array<std::uint32_t, 2>;

// Ten rounds of Philox4x32 on `counter` with `key` (the Random123 function
// philox4x32_R(10, ctr, key)).
inline Block philox4x32_10(Block counter, Key key) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kW0;
      key[1] += kW1;
    }
    const std::uint64_t p0 = static_cast<std::uint64_t>(kM0) * counter[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kM1) * counter[2];
    const Block next = {static_cast<std::uint32_t>(p1 >> 32) ^ counter[1] ^ key[0], static_cast<std::uint32_t>(p1),
                        static_cast<std::uint32_t>(p0 >> 32) ^ counter[3] ^ key[1], static_cast<std::uint32_t>(p0)};
    counter = next;
  }
  return counter;
}

// TensorFlow's random::PhiloxRandom: a 128-bit counter and a 64-bit key;
// each call returns philox4x32_10(counter, key) and increments the counter.
class PhiloxRandom {
 public:
  PhiloxRandom() = default;
  // PhiloxRandom(seed_lo, seed_hi): the key is `seed`, the upper half of the
  // counter is `seed2` (GuardedPhiloxRandom::Init(seed, seed2)).
  PhiloxRandom(std::uint64_t seed, std::uint64_t seed2) {
    key_ = {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
    counter_ = {0, 0, static_cast<std::uint32_t>(seed2), static_cast<std::uint32_t>(seed2 >> 32)};
  }
  PhiloxRandom(Block counter, Key key) : counter_(counter), key_(key) {}

  const Block& counter() const { return counter_; }
  const Key& key() const { return key_; }

  Block operator()() {
    Block out = philox4x32_10(counter_, key_);
    skip(1);
    return out;
  }

  // Advances by `count` 128-bit samples, word by word as PhiloxRandom::Skip.
  void skip(std::uint64_t count) {
    const auto count_lo = static_cast<std::uint32_t>(count);
    auto count_hi = static_cast<std::uint32_t>(count >> 32);
    counter_[0] += count_lo;
    if (counter_[0] < count_lo) ++count_hi;
    counter_[1] += count_hi;
    if (counter_[1] < count_hi && ++counter_[2] == 0) ++counter_[3];
  }

 private:
  Block counter_{};
  Key key_{};
};

// Uniform [0, 1): 23 random mantissa bits under the exponent of 1.0, minus 1.
inline float uint32ToFloat(std::uint32_t x) {
  const std::uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}

// Uniform [0, 1) from 52 mantissa bits: the low 20 bits of x0 above x1.
inline double uint64ToDouble(std::uint32_t x0, std::uint32_t x1) {
  const std::uint64_t mantissa = (static_cast<std::uint64_t>(x0 & 0xfffffu) << 32) | x1;
  const std::uint64_t bits = (static_cast<std::uint64_t>(1023) << 52) | mantissa;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

// Box-Muller on two uniform words (BoxMullerFloat): the first uniform is
// clamped to 1e-7 before the log; sin goes to f0, cos to f1.
inline void boxMullerFloat(std::uint32_t x0, std::uint32_t x1, float* f0, float* f1) {
  float u1 = uint32ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  // 2.0f * M_PI is a double product, rounded to float as TensorFlow does.
  const float v1 = static_cast<float>(2.0f * M_PI * uint32ToFloat(x1));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  ::sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

inline void boxMullerDouble(std::uint32_t x0, std::uint32_t x1, std::uint32_t x2, std::uint32_t x3, double* d0,
                            double* d1) {
  double u1 = uint64ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * uint64ToDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  ::sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

}  // namespace gds::engine::philox
