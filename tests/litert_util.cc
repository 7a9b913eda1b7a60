#include "tests/litert_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/npy.h"

namespace gds::test {
namespace fs = std::filesystem;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string batchScript() { return sourceDir() + "/tests/oracle/litert_batch.mjs"; }

// The sample inputs as sample_<i>_input_<k>.npy in dir.
std::string writeSamples(const std::string& dir, const std::vector<std::vector<model::HostTensor>>& samples) {
  for (std::size_t i = 0; i < samples.size(); ++i)
    for (std::size_t k = 0; k < samples[i].size(); ++k) {
      const std::string path = dir + "/sample_" + std::to_string(i) + "_input_" + std::to_string(k) + ".npy";
      Status s = model::writeNpy(path, samples[i][k]);
      if (!s.ok()) return s.message();
    }
  return "";
}

}  // namespace

std::string litertDir() {
  if (const char* env = std::getenv("GDS_LITERT_DIR"); env && *env) return env;
  return binaryDir() + "/oracle/litert";
}

std::string litertUnavailable() {
  static const std::string why = [] {
    if (runProgram("node", {"--version"}).exit_code != 0) return std::string("node is not installed");
    const fs::path dir = litertDir();
    if (!fs::exists(dir / "run_tflite.mjs"))
      return "no " + (dir / "run_tflite.mjs").string() +
             " (the oracle_litert test copies ../shared/tools/litert there; set GDS_LITERT_DIR to use another copy)";
    if (!fs::exists(dir / "node_modules" / "@litertjs" / "core" / "package.json"))
      return "@litertjs/core is not installed in " + dir.string() +
             " (npm ci --ignore-scripts there failed or could not reach the registry)";
    return std::string();
  }();
  return why;
}

const char* tfliteKernelsName(TfliteKernels k) { return k == TfliteKernels::kXnnpack ? "xnnpack" : "builtin"; }

TfliteRun tfliteRunAllTensors(const std::string& model, const std::vector<std::vector<model::HostTensor>>& samples,
                              TfliteKernels kernels, const std::set<std::string>& skip) {
  TfliteRun run;
  if (samples.empty()) {
    run.error = "no samples";
    return run;
  }
  const std::string dir = tempDir();
  run.error = writeSamples(dir, samples);
  if (!run.error.empty()) return run;
  // 1. run_tflite.mjs on the first sample: the rewritten model (every
  // intermediate tensor an output, or those named; XNNPACK on or kept off)
  // and the names.
  const std::string rewritten = dir + "/model_all_tensors.tflite";
  auto first = [&](const std::string& which) -> std::string {
    std::vector<std::string> args = {litertDir() + "/run_tflite.mjs", model};
    for (std::size_t k = 0; k < samples[0].size(); ++k)
      args.push_back(dir + "/sample_0_input_" + std::to_string(k) + ".npy");
    for (const std::string& a : {which, std::string("--out"), dir + "/first", "--save-model=" + rewritten})
      args.push_back(a);
    if (kernels == TfliteKernels::kXnnpack) args.push_back("--xnnpack");
    CommandResult r = runProgram("node", args);
    if (r.exit_code != 0)
      return "run_tflite.mjs failed (exit " + std::to_string(r.exit_code) + "): " + r.err.substr(0, 2000);
    run.tensors.clear();
    try {
      auto manifest = nlohmann::json::parse(readFile(dir + "/first/manifest.json"));
      for (const auto& o : manifest.at("outputs")) run.tensors.push_back(o.at("name").get<std::string>());
    } catch (const std::exception& e) {
      return std::string("run_tflite.mjs wrote no readable manifest.json: ") + e.what();
    }
    return "";
  };
  run.error = first("--all-tensors");
  if (!run.error.empty()) return run;
  std::string kept;
  bool skipped = false;
  for (const std::string& t : run.tensors) {
    if (skip.count(t)) skipped = true;
    else kept += (kept.empty() ? "" : ",") + t;
  }
  if (skipped) {
    run.error = first("--tensors=" + kept);
    if (!run.error.empty()) return run;
  }
  // 2. Every sample through the rewritten model in one process.
  CommandResult r = runProgram("env", {"LITERT_DIR=" + litertDir(), "node", batchScript(), rewritten, dir});
  if (r.exit_code != 0) {
    run.error = "litert_batch.mjs failed (exit " + std::to_string(r.exit_code) + "): " + r.err.substr(0, 2000);
    return run;
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    std::vector<model::HostTensor> tensors;
    for (std::size_t t = 0; t < run.tensors.size(); ++t) {
      auto h = model::readNpy(dir + "/sample_" + std::to_string(i) + "_output_" + std::to_string(t) + ".npy");
      if (!h.ok()) {
        run.error = "sample " + std::to_string(i) + ", tensor " + run.tensors[t] + ": " + h.error();
        return run;
      }
      tensors.push_back(std::move(*h));
    }
    run.samples.push_back(std::move(tensors));
  }
  run.ok = true;
  return run;
}

TfliteOperatorRun tfliteRunOperator(const std::string& model, int op_index,
                                    const std::vector<std::pair<std::string, model::HostTensor>>& inputs,
                                    TfliteKernels kernels) {
  TfliteOperatorRun run;
  const std::string dir = tempDir();
  std::vector<std::string> args = {litertDir() + "/run_tflite.mjs", model};
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::string path = dir + "/input_" + std::to_string(k) + ".npy";
    Status s = model::writeNpy(path, inputs[k].second);
    if (!s.ok()) {
      run.error = s.message();
      return run;
    }
    args.push_back(inputs[k].first + "=" + path);
  }
  args.push_back("--ops=" + std::to_string(op_index));
  args.push_back("--out");
  args.push_back(dir + "/out");
  if (kernels == TfliteKernels::kXnnpack) args.push_back("--xnnpack");
  const CommandResult r = runProgram("node", args);
  if (r.exit_code != 0) {
    run.error = "run_tflite.mjs --ops=" + std::to_string(op_index) + " failed (exit " + std::to_string(r.exit_code) +
                "): " + r.err.substr(0, 1000);
    return run;
  }
  try {
    const nlohmann::json manifest = nlohmann::json::parse(readFile(dir + "/out/manifest.json"));
    for (const auto& o : manifest.at("outputs")) {
      auto h = model::readNpy(dir + "/out/" + o.at("file").get<std::string>());
      if (!h.ok()) {
        run.error = h.error();
        return run;
      }
      run.tensors.push_back(o.at("name").get<std::string>());
      run.values.push_back(std::move(*h));
    }
  } catch (const std::exception& e) {
    run.error = std::string("run_tflite.mjs wrote no readable manifest.json: ") + e.what();
    return run;
  }
  run.ok = true;
  return run;
}

}  // namespace gds::test
