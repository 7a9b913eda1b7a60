// The int8 models the arithmetic oracles run, with their inputs, and
// gdstudio's value of every tensor of them: the corpus models as gdstudio's
// converter exports them (int8 with float inputs and outputs, and int8
// throughout) and the TensorFlow-made .tflite files of ../shared/models/tflite.
// Exports are made once per test process.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "graph.pb.h"
#include "model/tensor.h"
#include "tests/litert_util.h"

namespace gds::oracle {

struct OracleModel {
  std::string label;  // "mobilenet_v1_0.25_128_frozen.pb int8, float in/out"
  std::string path;   // the .tflite file
  tensorflow::GraphDef graph;        // as gdstudio reads the file
  std::vector<std::string> inputs;   // Placeholder names, in the model's input order
  // One tensor per input: the photos or speech clips the model takes, then
  // inputs drawn from a seeded generator over the input's range.
  std::vector<std::vector<model::HostTensor>> samples;
  std::vector<std::string> sample_names;  // "chelsea.png", "seed 1", ...
  // A float model: compared within a relative tolerance (float kernels sum
  // in their own order), not bit for bit: float_tolerance of each tensor's
  // largest value.
  bool float_model = false;
  double float_tolerance = 1e-5;
  // Float tensors that must be exact all the same: the outputs of hybrid
  // operators (float input, int8 weights), whose integer product and float
  // steps are TFLite's. Each equals TFLite's end to end, or else run alone
  // in TFLite on gdstudio's inputs (isolateDifferences), since a float
  // difference upstream may move a value across a quantization step.
  std::set<std::string> exact_tensors;
};

// The exported corpus models (tests/transforms/tflite_corpus.h), int8 with
// float and with int8 inputs and outputs; empty when ../shared is absent.
// max_data_samples caps the photos or clips per model.
const std::vector<OracleModel>& exportedInt8Models(std::size_t max_data_samples = 12);
// The same models exported with float16 weights (--quantize=float16), float
// models: compared within 5e-5 of each tensor's largest value (MobileNet
// 0.25's deeper layers differ by up to 2.3e-5, as its float32 export's do:
// the order of the float sums).
const std::vector<OracleModel>& exportedFloat16Models(std::size_t max_data_samples = 3);
// The same models exported with dynamic-range quantization
// (--quantize=dynamic): float models whose hybrid operators' outputs are
// exact_tensors.
const std::vector<OracleModel>& exportedDynamicRangeModels(std::size_t max_data_samples = 3);
// MobileNet 0.25 and kws_ds_cnn_s exported int8 with every
// DEPTHWISE_CONV_2D kept float (--denylisted_ops): float models whose
// integer tensors are exact_tensors.
const std::vector<OracleModel>& exportedMixedModels(std::size_t max_data_samples = 3);
// The same models exported 16x8 (--quantize=int16x8: int16 activations,
// int8 weights, int64 biases), with float and with int16 inputs and
// outputs: every integer tensor exact; inception_mini's MUL and SUB stay
// float (no int16 form in gdstudio's 16x8).
const std::vector<OracleModel>& exportedInt16x8Models(std::size_t max_data_samples = 3);
// The keyword LSTM and CRNN, whose TensorFlow 1.x while loops the converter
// unrolls, exported float (compared within the float tolerance) and int8
// with float inputs and outputs.
const std::vector<OracleModel>& exportedRecurrentModels(std::size_t max_data_samples = 3);
// ../shared/models/tflite's files with their stored input and seeded ones.
const std::vector<OracleModel>& sharedTfliteModels();
// TensorFlow-made dynamic-range (hybrid) files of ../shared/models/keras
// with their stored input and seeded ones: float models whose hybrid
// operators' outputs are exact_tensors.
const std::vector<OracleModel>& sharedHybridModels();
// One branch per op gdstudio's int8 exporter writes, exported with float and
// with int8 inputs and outputs (tests/oracle/op_models.cc); no ../shared needed.
const std::vector<OracleModel>& opCoverageModels();
// The same without the ops Arm NN 20.08 cannot parse (GATHER).
const std::vector<OracleModel>& opCoverageArmnnModels();
// The same graph exported 16x8, with float and with int16 inputs and
// outputs: the ops without an int16 form here stay float (float tensors
// within the float tolerance), every integer tensor exact.
const std::vector<OracleModel>& opCoverage16x8Models();
// Float tensors within the float tolerance, every integer tensor exact
// (for models with float operators among integer ones).
void markIntegerTensorsExact(OracleModel* m);

// Where an oracle model file is written: GDS_ORACLE_KEEP's folder when that
// variable is set (to look at the files after the tests), else the test's
// temporary folder.
std::string oracleModelPath(const std::string& file_name);
// Reads a .tflite into m (path, graph, inputs); a test failure when it cannot.
bool loadOracleModel(const std::string& path, OracleModel* m);
// A float value for model input k as the int8 tensor an int8-input model
// takes (the input's quantization, rounded to nearest).
model::HostTensor quantizedInput(const OracleModel& m, std::size_t k, const model::HostTensor& value);

// The model written again with every tensor an operator writes among its
// outputs (after its own outputs), for runtimes that return only outputs
// (Arm NN); names receives their TensorFlow Lite names in output order.
// Empty on an error (reported as a test failure).
std::string allTensorsModel(const OracleModel& m, std::vector<std::string>* names);

// How a TensorFlow Lite tensor name maps to gdstudio's "node:port".
std::map<std::string, std::string> tfliteTensorNames(const tensorflow::GraphDef& graph);
// The TensorFlow Lite names of the DEQUANTIZE outputs that widen a constant
// (float16 weights): computed once by TensorFlow Lite and not readable as
// outputs (test::tfliteRunAllTensors' skip); the widening is exact.
std::set<std::string> widenedConstants(const OracleModel& m);

// gdstudio's value of each named tensor on every sample ([sample][name];
// an empty HostTensor for a name gdstudio's graph does not have).
struct GdstudioRun {
  bool ok = false;
  std::string error;
  std::vector<std::vector<model::HostTensor>> samples;
};
GdstudioRun runGdstudio(const OracleModel& m, const std::vector<std::string>& tensor_names,
                        const engine::PlanOptions& options);

// One tensor's comparison over all samples.
struct TensorDiff {
  std::string name;
  std::string op;  // gdstudio's op producing it
  bool compared = false;
  std::string why_not;     // when !compared
  double max_diff = 0;     // integer tensors: steps; float: absolute
  double max_rel = 0;      // float tensors: relative to the largest |value|
  std::int64_t differing = 0, total = 0;
  bool integer = false;
  bool exact = false;  // one of the model's exact_tensors
  int first_sample = -1;  // the first sample where it differs
  // The operator run alone in the oracle on gdstudio's values of its inputs
  // (isolateDifferences): its own arithmetic, apart from what earlier
  // layers pass on.
  bool isolated = false;
  std::string isolated_error;
  double isolated_max = 0;
  double isolated_rel = 0;  // float tensors: isolated_max over the largest |value|
  std::int64_t isolated_differing = 0, isolated_total = 0;
};
std::vector<TensorDiff> compareTensors(const OracleModel& m, const std::vector<std::string>& names,
                                       const std::vector<std::vector<model::HostTensor>>& oracle,
                                       const GdstudioRun& ours);
// For the first `limit` differing tensors of an int8 model (of a float
// model: its exact_tensors, and with hybrid operators those beyond the
// float tolerance): runs the
// operator writing each alone in TensorFlow Lite (tfliteRunOperator) on
// gdstudio's values of its inputs in the first sample where it differs.
void isolateDifferences(const OracleModel& m, const std::vector<std::string>& names, const GdstudioRun& ours,
                        test::TfliteKernels kernels, std::vector<TensorDiff>* diffs, int limit = 12);

// The tensors that differ beyond what the model allows (exactly equal for
// int8 models and their int8/int32 tensors; float_tolerance relative for
// the float tensors of a float model, end to end or, in a model with
// hybrid operators (whose input quantization moves a float difference
// upstream by a step), when run alone; exact_tensors equal end to end or
// when run alone) or could not be compared.
int countMismatches(const OracleModel& m, const std::vector<TensorDiff>& diffs);
// A table: every tensor that differs (or all with `all`), in execution
// order, and a summary line: tensors compared, differing, the first.
std::string reportDiffs(const std::string& title, const std::vector<TensorDiff>& diffs, bool all = false);

}  // namespace gds::oracle
