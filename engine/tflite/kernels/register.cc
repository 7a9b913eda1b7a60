// Kernels of the TFLite dialect's ops (tfl.conv_2d, tfl.add, ...; see
// model/tflite/dialect.h), float32 and int8, with TensorFlow Lite's
// semantics: the float loops of engine/tflite/float32.h and the int8 arithmetic
// of engine/tflite/int8.h. Quantization parameters come from the dialect
// attrs of the producing nodes (inputs) and of the node itself (output 0), so
// what runs here is what the .tflite file says.
// The kernels live in one file per op family (conv.cc,
// elementwise.cc, pooling.cc, array.cc); this file
// registers them and tfl.no_value.
#include "engine/tflite/kernels/register.h"

#include <memory>
#include <vector>

#include "engine/tflite/kernels/kernel_util.h"

namespace gds::engine {

namespace {

using tensorflow::DT_FLOAT;

// tfl.no_value: the absent optional input; the consumers never read it.
class NoValueKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {DT_FLOAT}; }
  Status compute(KernelContext& ctx) override {
    ctx.allocateOutput(0, DT_FLOAT, {0});
    return Status::Ok();
  }
};

}  // namespace

void registerTfliteKernels(KernelRegistry& registry) {
  tflkern::registerConvKernels(registry);
  tflkern::registerElementwiseKernels(registry);
  tflkern::registerPoolingKernels(registry);
  tflkern::registerArrayKernels(registry);
  registry.add(tflkern::mt::kNoValueOp, tflkern::make<NoValueKernel>());
}

}  // namespace gds::engine
