// TensorFlow Lite itself as the tests' oracle: LiteRT.js (TensorFlow Lite's
// runtime and kernels compiled to WebAssembly) under Node, from a copy of
// ../shared/tools/litert that the ctest fixture "oracle_litert"
// (tests/oracle/setup_litert.cmake) installs into <build>/oracle/litert with
// `npm ci --ignore-scripts`. Tests skip with a message when Node, that copy
// or its packages are absent (no registry, no npm).
//
// Every intermediate tensor is compared, not only the outputs: the model is
// rewritten once by run_tflite.mjs --save-model with all of them added to
// its outputs, then tests/oracle/litert_batch.mjs runs all the samples in one
// Node process (one process per model and kernel choice, not per sample).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/tensor.h"
#include "tests/test_util.h"

namespace gds::test {

// The folder with run_tflite.mjs and node_modules/@litertjs/core: env
// GDS_LITERT_DIR, else <build>/oracle/litert.
std::string litertDir();
// Empty when the oracle can run, else why not.
std::string litertUnavailable();

// Which of TensorFlow Lite's kernels run the model.
enum class TfliteKernels {
  kBuiltin,  // the built-in kernels only (run_tflite.mjs keeps XNNPACK off)
  kXnnpack,  // the XNNPACK delegate where it takes the operator, built-in elsewhere
};
const char* tfliteKernelsName(TfliteKernels k);  // "builtin", "xnnpack"

struct TfliteRun {
  bool ok = false;
  std::string error;
  // TensorFlow Lite tensor names, in the order of each sample's tensors: the
  // model's outputs, then every tensor an operator writes.
  std::vector<std::string> tensors;
  std::vector<std::vector<model::HostTensor>> samples;  // samples[i][t]
};
// Runs `model` on each sample (one tensor per model input, in input order).
// `skip`: TensorFlow Lite tensor names not to fetch (the float32 widening of
// a float16 constant: TensorFlow Lite computes it once, at Prepare, into a
// persistent buffer that does not read back as a model output, and making
// it one spoils later runs).
TfliteRun tfliteRunAllTensors(const std::string& model, const std::vector<std::vector<model::HostTensor>>& samples,
                              TfliteKernels kernels, const std::set<std::string>& skip = {});

// Operator `op_index` of subgraph 0 alone (run_tflite.mjs --ops=K), fed
// `inputs` (TensorFlow Lite tensor name -> value): the operator's own
// arithmetic on another program's values of its inputs. values[k] is the
// tensor named tensors[k].
struct TfliteOperatorRun {
  bool ok = false;
  std::string error;
  std::vector<std::string> tensors;
  std::vector<model::HostTensor> values;
};
TfliteOperatorRun tfliteRunOperator(const std::string& model, int op_index,
                                    const std::vector<std::pair<std::string, model::HostTensor>>& inputs,
                                    TfliteKernels kernels);

}  // namespace gds::test

#define GDS_REQUIRE_LITERT()                                                                       \
  do {                                                                                             \
    const std::string gds_litert_why = ::gds::test::litertUnavailable();                           \
    if (!gds_litert_why.empty()) GTEST_SKIP() << "TensorFlow Lite oracle unavailable: " << gds_litert_why; \
  } while (0)
