// Whether the hand-vectorized 8-bit loops of every arithmetic (TensorFlow's
// quantized ops, the per-channel layers, TensorFlow Lite's int8 kernels) may
// take their AVX2 or AVX-512 paths: engine::cpuFeatures() (capped by
// GDS_CPU; false off x86-64).
#pragma once

namespace gds::engine::lowp {

bool cpuHasAvx2();
bool cpuHasAvx512();  // AVX-512 F and BW

}  // namespace gds::engine::lowp
