#include "engine/cpu_features.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

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
  return Status::Error("GDS_CPU='" + value + "' is not a CPU level (expected generic, avx2 or avx512)");
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

CpuFeatures cpuFeaturesFor(const char* gds_cpu, const CpuFeatures& detected, std::string* warning) {
  if (gds_cpu == nullptr || *gds_cpu == '\0') return detected;
  Result<CpuLevel> level = parseCpuLevel(gds_cpu);
  if (!level.ok()) {
    if (warning) *warning = level.error() + "; ignored, using every feature of this CPU";
    return detected;
  }
  return capCpuFeatures(detected, *level);
}

const CpuFeatures& cpuFeatures() {
  static const CpuFeatures features = [] {
    std::string warning;
    const CpuFeatures f = cpuFeaturesFor(std::getenv("GDS_CPU"), detectedCpuFeatures(), &warning);
    if (!warning.empty()) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    return f;
  }();
  return features;
}

std::string cpuFeaturesSummary() {
  const CpuLevel used = levelOf(cpuFeatures());
  const CpuLevel has = levelOf(detectedCpuFeatures());
  std::string s = cpuLevelName(used);
  if (cpuFeatures().avx512_vnni) s += "+vnni";
  if (used != has) {
    const char* env = std::getenv("GDS_CPU");
    s += std::string(" (GDS_CPU=") + (env ? env : "") + "; CPU has " + cpuLevelName(has) + ")";
  }
  return s;
}

}  // namespace gds::engine
