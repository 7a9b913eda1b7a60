// Arm NN 20.08 (Debian's python3-pyarmnn, CpuRef backend) as the independent
// TensorFlow Lite runtime of the tests: tests/armnn/armnn_run.py run on .npy
// files. Tests skip with a message when /usr/bin/python3 cannot import pyarmnn.
#pragma once

#include <string>
#include <vector>

#include "model/tensor.h"
#include "tests/test_util.h"

namespace gds::test {

// Empty when Arm NN can be used, else why not.
std::string armnnUnavailable();

struct ArmnnResult {
  bool ok = false;
  std::string error;                       // the script's message when !ok
  std::vector<model::HostTensor> outputs;  // in the model's output order
};

// Loads `model` only (inputs empty and load_only), or runs it on `inputs`.
ArmnnResult armnnRun(const std::string& model, const std::vector<model::HostTensor>& inputs, bool load_only = false);

// Runs `model` on every sample (one Arm NN load); outputs[i] are sample i's.
struct ArmnnBatchResult {
  bool ok = false;
  std::string error;
  std::vector<std::vector<model::HostTensor>> outputs;
};
ArmnnBatchResult armnnRunSamples(const std::string& model, const std::vector<std::vector<model::HostTensor>>& samples);

}  // namespace gds::test

#define GDS_REQUIRE_ARMNN()                                                     \
  do {                                                                          \
    const std::string gds_armnn_why = ::gds::test::armnnUnavailable();          \
    if (!gds_armnn_why.empty()) GTEST_SKIP() << "Arm NN unavailable: " << gds_armnn_why; \
  } while (0)
