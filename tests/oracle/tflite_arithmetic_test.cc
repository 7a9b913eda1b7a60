// gdstudio's int8 arithmetic against TensorFlow Lite itself (LiteRT's
// kernels compiled to WebAssembly, tests/litert_util.h), at every tensor of
// every model, on photos or speech clips and on seeded inputs:
// --arithmetic=tflite-xnnpack against TensorFlow Lite with the XNNPACK
// delegate, --arithmetic=tflite-builtin against its built-in kernels.
// Exact: 0 steps at every int8 and int32 tensor, the same float bits. The
// float16 exports' float tensors within 5e-5 of their largest value.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/lowp/requantize.h"
#include "tests/litert_util.h"
#include "tests/oracle/oracle_models.h"
#include "tests/test_util.h"

namespace gds::oracle {
namespace {

using engine::lowp::Arithmetic;
using test::TfliteKernels;

engine::PlanOptions optionsFor(Arithmetic a) {
  engine::PlanOptions o;
  o.num_threads = 1;
  o.arithmetic = a;
  return o;
}

// Runs every model in both runtimes and expects every tensor equal.
void expectEveryTensorEqual(const std::vector<OracleModel>& models, TfliteKernels kernels, Arithmetic arithmetic) {
  ASSERT_FALSE(models.empty());
  for (const OracleModel& m : models) {
    SCOPED_TRACE(m.label);
    const test::TfliteRun tfl = test::tfliteRunAllTensors(m.path, m.samples, kernels, widenedConstants(m));
    ASSERT_TRUE(tfl.ok) << tfl.error;
    const GdstudioRun ours = runGdstudio(m, tfl.tensors, optionsFor(arithmetic));
    ASSERT_TRUE(ours.ok) << ours.error;
    std::vector<TensorDiff> diffs = compareTensors(m, tfl.tensors, tfl.samples, ours);
    // Where tensors differ, each of the first differing operators is run
    // alone in TensorFlow Lite on gdstudio's inputs: its own arithmetic
    // apart from what earlier layers pass on.
    // (A float model's hybrid operators: all of them.)
    if (countMismatches(m, diffs) > 0)
      isolateDifferences(m, tfl.tensors, ours, kernels, &diffs, m.exact_tensors.empty() ? 12 : 1000);
    const std::string report =
        reportDiffs(m.label + ": gdstudio --arithmetic=" + engine::lowp::arithmeticName(arithmetic) +
                        " vs TensorFlow Lite (" + test::tfliteKernelsName(kernels) + "), " +
                        std::to_string(m.samples.size()) + " inputs",
                    diffs);
    std::printf("%s", report.c_str());
    EXPECT_EQ(countMismatches(m, diffs), 0) << m.label << ": tensors differ (table above)";
  }
}

TEST(TfliteOracle, ExportedCorpusWithXnnpackEqualsTfliteAtEveryTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(exportedInt8Models(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
}

TEST(TfliteOracle, ExportedCorpusWithBuiltinKernelsEqualsTfliteAtEveryTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(exportedInt8Models(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

// The keyword LSTM and CRNN, their while loops unrolled: every step's
// FULLY_CONNECTED, SPLIT, LOGISTIC, TANH, MUL and ADD as TensorFlow Lite
// computes them (a one-step difference would grow through the recurrence).
TEST(TfliteOracle, UnrolledRecurrentModelsEqualTfliteAtEveryTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(exportedRecurrentModels(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
  expectEveryTensorEqual(exportedRecurrentModels(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

TEST(TfliteOracle, TensorFlowMadeFilesWithXnnpackEqualTfliteAtEveryTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(sharedTfliteModels(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
}

TEST(TfliteOracle, TensorFlowMadeFilesWithBuiltinKernelsEqualTfliteAtEveryTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(sharedTfliteModels(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

// The float16 export (--quantize=float16): TensorFlow Lite reads the
// float16 weights through DEQUANTIZE as gdstudio does; every tensor within
// the float tolerance (5e-5 of the tensor's largest value), with XNNPACK and
// with the built-in kernels.
TEST(TfliteOracle, ExportedFloat16CorpusEqualsTfliteAtEveryTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(exportedFloat16Models(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
  expectEveryTensorEqual(exportedFloat16Models(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

// A Keras model TensorFlow converted with dynamic-range quantization: its
// three hybrid FULLY_CONNECTED operators compute TFLite's bits (the
// built-in kernels' symmetric or asymmetric row quantization, XNNPACK's qd8
// arithmetic), every other float tensor within the float tolerance.
TEST(TfliteOracle, TensorFlowMadeHybridFileEqualsTfliteAtEveryHybridOperator) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(sharedHybridModels(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
  expectEveryTensorEqual(sharedHybridModels(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

// The corpus exported with dynamic-range quantization: every hybrid
// convolution, depthwise convolution and fully connected layer computes
// TFLite's bits (on gdstudio's inputs where a float difference upstream
// moved its input), with XNNPACK and with the built-in kernels.
TEST(TfliteOracle, ExportedDynamicRangeCorpusEqualsTfliteAtEveryHybridOperator) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(exportedDynamicRangeModels(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
  expectEveryTensorEqual(exportedDynamicRangeModels(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

// Selective quantization: float depthwise layers between DEQUANTIZE and
// QUANTIZE, every int8 operator around them computing TFLite's bits.
TEST(TfliteOracle, ExportedMixedCorpusEqualsTfliteAtEveryInt8Operator) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(exportedMixedModels(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
  expectEveryTensorEqual(exportedMixedModels(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

// 16x8: TensorFlow Lite runs its int16 layers on the same loops with or
// without XNNPACK (the delegate takes no int16 tensor).
TEST(TfliteOracle, Exported16x8CorpusEqualsTfliteAtEveryIntegerTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(exportedInt16x8Models(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
  expectEveryTensorEqual(exportedInt16x8Models(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

TEST(TfliteOracle, EveryExported16x8OpEqualsTflite) {
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(opCoverage16x8Models(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
  expectEveryTensorEqual(opCoverage16x8Models(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

TEST(TfliteOracle, EveryExportedInt8OpWithXnnpackEqualsTflite) {
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(opCoverageModels(), TfliteKernels::kXnnpack, Arithmetic::kTfliteXnnpack);
}

TEST(TfliteOracle, EveryExportedInt8OpWithBuiltinKernelsEqualsTflite) {
  GDS_REQUIRE_LITERT();
  expectEveryTensorEqual(opCoverageModels(), TfliteKernels::kBuiltin, Arithmetic::kTfliteBuiltin);
}

}  // namespace
}  // namespace gds::oracle
