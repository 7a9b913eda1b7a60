#include "engine/cpu_features.h"

#include <algorithm>
#include <atomic>
#include <cctype>

namespace gds::engine {

namespace {

CpuLevel levelOf(const CpuFeatures& f) {
  if (f.avx512) return CpuLevel::kAvx512;
  if (f.avx2) return CpuLevel::kAvx2;
  return CpuLevel::kGeneric;
}

}  // namespace

const char* cpuLevelName(CpuLevel level) {
  switch (level) {
    case CpuLevel::kGeneric: return "generic";
    case CpuLevel::kAvx2: return "avx2";
    case CpuLevel::kAvx512: return "avx512";
  }
  return "unknown";
}

Result<CpuLevel> parseCpuLevel(const std::string& value) {
  std::string v = value;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (v == "generic") return CpuLevel::kGeneric;
  if (v == "avx2") return CpuLevel::kAvx2;
  if (v == "avx512") return CpuLevel::kAvx512;
  return Status::Error("'" + value + "' is not a CPU level (expected generic, avx2 or avx512)");
}

CpuFeatures detectedCpuFeatures() {
  CpuFeatures f;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("fma") != 0;
  f.avx512 = f.avx2 && __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512bw") != 0;
  f.avx512_vnni = f.avx512 && __builtin_cpu_supports("avx512vnni") != 0;
#endif
  return f;
}

CpuFeatures capCpuFeatures(const CpuFeatures& detected, CpuLevel cap) {
  CpuFeatures f = detected;
  if (cap < CpuLevel::kAvx512) f.avx512 = f.avx512_vnni = false;
  if (cap < CpuLevel::kAvx2) f.avx2 = false;
  return f;
}

namespace {

// -1: no cap, else a CpuLevel. `g_fixed` once cpuFeatures() has been read.
std::atomic<int> g_cap{-1};
std::atomic<bool> g_fixed{false};

}  // namespace

bool setCpuCap(std::optional<CpuLevel> cap) {
  const int value = cap ? static_cast<int>(*cap) : -1;
  if (g_fixed.load()) return g_cap.load() == value;
  g_cap.store(value);
  return true;
}

std::optional<CpuLevel> cpuCap() {
  const int value = g_cap.load();
  if (value < 0) return std::nullopt;
  return static_cast<CpuLevel>(value);
}

const CpuFeatures& cpuFeatures() {
  static const CpuFeatures features = [] {
    g_fixed.store(true);
    const auto cap = cpuCap();
    return cap ? capCpuFeatures(detectedCpuFeatures(), *cap) : detectedCpuFeatures();
  }();
  return features;
}

std::string cpuFeaturesSummary() {
  const CpuLevel used = levelOf(cpuFeatures());
  const CpuLevel has = levelOf(detectedCpuFeatures());
  std::string s = cpuLevelName(used);
  if (cpuFeatures().avx512_vnni) s += "+vnni";
  if (used != has) s += std::string(" (capped; CPU has ") + cpuLevelName(has) + ")";
  return s;
}

}  // namespace gds::engine
