#include "tests/armnn_util.h"

#include <filesystem>

#include "model/npy.h"

namespace gds::test {
namespace {

const char* kPython = "/usr/bin/python3";

std::string script() { return sourceDir() + "/tests/armnn/armnn_run.py"; }

}  // namespace

std::string armnnUnavailable() {
  static const std::string why = [] {
    if (!std::filesystem::exists(kPython)) return std::string(kPython) + " is missing";
    CommandResult r = runProgram(kPython, {"-c", "import numpy, pyarmnn"});
    if (r.exit_code != 0) return "/usr/bin/python3 cannot import pyarmnn (install python3-pyarmnn and "
                                 "libarmnn-cpuref-backend22): " + r.err.substr(0, 300);
    return std::string();
  }();
  return why;
}

ArmnnResult armnnRun(const std::string& model, const std::vector<model::HostTensor>& inputs, bool load_only) {
  ArmnnResult result;
  const std::string dir = tempDir();
  std::vector<std::string> args = {script(), model};
  if (load_only) {
    args.push_back("--load_only");
  } else {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const std::string path = dir + "/input_" + std::to_string(i) + ".npy";
      Status s = model::writeNpy(path, inputs[i]);
      if (!s.ok()) {
        result.error = s.message();
        return result;
      }
      args.push_back("--input");
      args.push_back(path);
    }
    args.push_back("--out_dir");
    args.push_back(dir + "/out");
  }
  CommandResult r = runProgram(kPython, args);
  if (r.exit_code != 0) {
    result.error = "exit " + std::to_string(r.exit_code) + ": " + r.err + r.out;
    return result;
  }
  for (int k = 0; !load_only; ++k) {
    const std::string path = dir + "/out/output_" + std::to_string(k) + ".npy";
    if (!std::filesystem::exists(path)) break;
    auto t = model::readNpy(path);
    if (!t.ok()) {
      result.error = t.error();
      return result;
    }
    result.outputs.push_back(std::move(*t));
  }
  result.ok = true;
  return result;
}

ArmnnBatchResult armnnRunSamples(const std::string& model,
                                 const std::vector<std::vector<model::HostTensor>>& samples) {
  ArmnnBatchResult result;
  const std::string dir = tempDir();
  auto file = [&](std::size_t i, const char* kind, std::size_t k) {
    return dir + "/sample_" + std::to_string(i) + "_" + kind + "_" + std::to_string(k) + ".npy";
  };
  for (std::size_t i = 0; i < samples.size(); ++i)
    for (std::size_t k = 0; k < samples[i].size(); ++k) {
      Status s = model::writeNpy(file(i, "input", k), samples[i][k]);
      if (!s.ok()) {
        result.error = s.message();
        return result;
      }
    }
  CommandResult r = runProgram(kPython, {script(), model, "--samples", dir});
  if (r.exit_code != 0) {
    result.error = "exit " + std::to_string(r.exit_code) + ": " + r.err + r.out;
    return result;
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    std::vector<model::HostTensor> outs;
    for (std::size_t k = 0; std::filesystem::exists(file(i, "output", k)); ++k) {
      auto t = model::readNpy(file(i, "output", k));
      if (!t.ok()) {
        result.error = t.error();
        return result;
      }
      outs.push_back(std::move(*t));
    }
    result.outputs.push_back(std::move(outs));
  }
  result.ok = true;
  return result;
}

}  // namespace gds::test
