// The CPU features behind the engine's own run-time dispatch (the
// hand-vectorized 8-bit loops and GEMMs, and whether the oneDNN 8-bit
// backend counts as available). Every such check goes through cpuFeatures(),
// so one cap (KernelChoice::cpu, engine/kernel_choice.h; GDS_CPU on the
// command line) limits them all:
//   generic   the plain loops only
//   avx2      AVX2 (+FMA) paths, no AVX-512 and no VNNI
//   avx512    everything up to AVX-512 (the default: what the CPU has)
// A cap never enables what the CPU lacks. oneDNN's own JIT kernels follow
// ONEDNN_MAX_CPU_ISA instead; set both to emulate an older CPU.
#pragma once

#include <optional>
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
// The levels' names (case-insensitive); the error quotes the value and
// lists the names.
Result<CpuLevel> parseCpuLevel(const std::string& value);
// What this CPU has (all false off x86-64).
CpuFeatures detectedCpuFeatures();
// `detected` with everything above `cap` turned off.
CpuFeatures capCpuFeatures(const CpuFeatures& detected, CpuLevel cap);
// The cap cpuFeatures() applies (none: what the CPU has). Set through
// setKernelChoice (engine/kernel_choice.h). The features are fixed when a
// kernel first asks for them: a different cap after that is refused (false).
bool setCpuCap(std::optional<CpuLevel> cap);
std::optional<CpuLevel> cpuCap();
// The features the engine dispatches on: detected, capped by cpuCap(),
// fixed at the first call.
const CpuFeatures& cpuFeatures();
// A one-line description for benchmarks and logs, e.g. "avx2 (capped; CPU
// has avx512)".
std::string cpuFeaturesSummary();

}  // namespace gds::engine
