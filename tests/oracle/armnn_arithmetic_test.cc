// gdstudio --arithmetic=armnn against Arm NN 20.08 (python3-pyarmnn,
// TfLiteParser, CpuRef backend) at every tensor: each model is written again
// with all its tensors as outputs and run once per sample in Arm NN; int8
// tensors must be equal, float tensors of int8 models bit for bit. Files
// Arm NN 20.08 cannot load or run are reported, with Arm NN's message.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/lowp/requantize.h"
#include "tests/armnn_util.h"
#include "tests/oracle/oracle_models.h"
#include "tests/test_util.h"

namespace gds::oracle {
namespace {

using engine::lowp::Arithmetic;

engine::PlanOptions armnnOptions() {
  engine::PlanOptions o;
  o.num_threads = 1;
  o.arithmetic = Arithmetic::kArmnn;
  return o;
}

void expectEveryTensorEqualToArmnn(const std::vector<OracleModel>& models) {
  ASSERT_FALSE(models.empty());
  for (const OracleModel& m : models) {
    SCOPED_TRACE(m.label);
    std::vector<std::string> names;
    const std::string path = allTensorsModel(m, &names);
    ASSERT_FALSE(path.empty());
    const test::ArmnnBatchResult armnn = test::armnnRunSamples(path, m.samples);
    // Every model here is one Arm NN 20.08 runs: one it cannot load would
    // leave its tensors unchecked, so it fails.
    if (!armnn.ok) {
      ADD_FAILURE() << m.label << ": Arm NN 20.08 cannot run it: " << armnn.error.substr(0, 400);
      continue;
    }
    const GdstudioRun ours = runGdstudio(m, names, armnnOptions());
    ASSERT_TRUE(ours.ok) << ours.error;
    const std::vector<TensorDiff> diffs = compareTensors(m, names, armnn.outputs, ours);
    std::printf("%s", reportDiffs(m.label + ": gdstudio --arithmetic=armnn vs Arm NN 20.08 CpuRef, " +
                                      std::to_string(m.samples.size()) + " inputs",
                                  diffs)
                          .c_str());
    EXPECT_EQ(countMismatches(m, diffs), 0) << m.label << ": tensors differ (table above)";
  }
}

TEST(ArmnnOracle, ExportedCorpusEqualsArmnnAtEveryTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  expectEveryTensorEqualToArmnn(exportedInt8Models());
}

TEST(ArmnnOracle, UnrolledRecurrentModelsEqualArmnnAtEveryTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  expectEveryTensorEqualToArmnn(exportedRecurrentModels());
}

TEST(ArmnnOracle, TensorFlowMadeFilesEqualArmnnAtEveryTensor) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  expectEveryTensorEqualToArmnn(sharedTfliteModels());
}

TEST(ArmnnOracle, EveryExportedInt8OpEqualsArmnn) {
  GDS_REQUIRE_ARMNN();
  expectEveryTensorEqualToArmnn(opCoverageArmnnModels());
}

}  // namespace
}  // namespace gds::oracle
