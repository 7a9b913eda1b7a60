// The CPU features behind the engine's own run-time dispatch (the
// hand-vectorized 8-bit loops and GEMMs, and whether the oneDNN 8-bit
// backend counts as available). Every such check goes through cpuFeatures(),
// so one environment variable caps them all:
//   GDS_CPU=generic   the plain loops only
//   GDS_CPU=avx2      AVX2 (+FMA) paths, no AVX-512 and no VNNI
//   GDS_CPU=avx512    everything up to AVX-512 (the default: what the CPU has)
// A cap never enables what the CPU lacks. oneDNN's own JIT kernels follow
// ONEDNN_MAX_CPU_ISA instead; set both to emulate an older CPU.
#pragma once

#include <string>

#include "model/status.h"

namespace gds::engine {

struct CpuFeatures {
  bool avx2 = false;         // AVX2 and FMA
  bool avx512 = false;       // AVX-512 F and BW
  bool avx512_vnni = false;  // AVX-512 VNNI (oneDNN's u8s8 kernels)
};

enum class CpuLevel { kGeneric, kAvx2, kAvx512 };

const char* cpuLevelName(CpuLevel level);  // "generic", "avx2", "avx512"
// GDS_CPU's values (case-insensitive); the error names the variable.
Result<CpuLevel> parseCpuLevel(const std::string& value);
// What this CPU has (all false off x86-64).
CpuFeatures detectedCpuFeatures();
// `detected` with everything above `cap` turned off.
CpuFeatures capCpuFeatures(const CpuFeatures& detected, CpuLevel cap);
// `detected` capped by a GDS_CPU value (null or empty: no cap). A value that
// does not parse leaves the features uncapped and sets *warning.
CpuFeatures cpuFeaturesFor(const char* gds_cpu, const CpuFeatures& detected, std::string* warning);
// The features the engine dispatches on: detected, capped by GDS_CPU, read
// once per process (a bad value is reported once on stderr).
const CpuFeatures& cpuFeatures();
// A one-line description for benchmarks and logs, e.g. "avx2 (GDS_CPU=avx2;
// CPU has avx512)".
std::string cpuFeaturesSummary();

}  // namespace gds::engine
