// What every oneDNN primitive of the engine shares (engine/ops/dnnl_float.cc,
// engine/lowp/conv_dnnl.cc): one CPU engine, one stream per thread, and
// scratch memory per thread. Primitives run single-threaded on the calling
// thread; the engine's pool runs several at once on slices of the work, so
// each is made with a user scratchpad (oneDNN's global one is not safe when
// primitives run concurrently) pointed at the running thread's scratch.
// Only for files compiled with GDS_HAVE_DNNL.
#pragma once

#ifdef GDS_HAVE_DNNL
#include <cstddef>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "engine/ops/conv.h"

namespace gds::engine::dnnl_common {

dnnl::engine& cpuEngine();
// This thread's stream on cpuEngine().
dnnl::stream& threadStream();
// oneDNN in Debian is built on OpenMP: keeps the calling thread's primitive
// to one thread.
void singleThreaded();
// Attributes to start from: user scratchpad.
dnnl::primitive_attr baseAttr();
// 64-byte aligned bytes of this thread, reused by every primitive it runs
// (contents undefined between calls).
char* threadScratch(std::size_t bytes);
inline std::size_t roundUp64(std::size_t n) { return (n + 63) / 64 * 64; }
// oneDNN's reference kernels are far slower than ours: never worth taking.
inline bool isReference(const std::string& impl) { return impl.find("ref") != std::string::npos; }

// TensorFlow's padding: the pads before come from the shape; the pads after
// are what makes the output size come out (never negative: VALID drops the
// rows that do not fit a window).
void padsAfter(const ops::ConvGeometry& s, std::int64_t* bottom, std::int64_t* right);
// TensorFlow's filter layout described by strides in oneDNN's dimension
// order: HWIO with rows of ld values as [out, in, h, w], or, when depthwise,
// [h, w, C, multiplier] as groups C of `multiplier` outputs and 1 input each.
void filterLayout(const ops::ConvGeometry& s, bool depthwise, std::int64_t ld, dnnl::memory::dims* dims,
                  dnnl::memory::dims* strides);

}  // namespace gds::engine::dnnl_common
#endif
