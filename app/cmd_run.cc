// gdstudio run: runs a graph once in the interpreter on inputs from files
// and writes every fetched tensor as .npy, with a one-line summary each.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/flags.h"
#include "engine/eval/feeds.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "model/npy.h"
#include "model/staged_file.h"

namespace gds::app {
namespace {

std::string fileNameFor(const std::string& tensor) {
  std::string s = tensor;
  std::replace(s.begin(), s.end(), '/', '_');
  std::replace(s.begin(), s.end(), ':', '_');
  return s + ".npy";
}

// "name: float[1,1001] min=0 max=0.93 mean=0.000999 argmax=282"
std::string summaryLine(const std::string& name, const engine::Tensor& t) {
  std::string line = name + ": " + model::dtypeName(t.dtype()) + model::shapeString(t.shape());
  const std::int64_t n = t.numElements();
  if (t.dtype() == tensorflow::DT_STRING) {
    if (n == 1) line += " \"" + t.strings()[0].substr(0, 60) + "\"";
    return line;
  }
  if (n <= 0 || model::dtypeSize(t.dtype()) == 0) return line;
  double mn = std::numeric_limits<double>::infinity(), mx = -mn, sum = 0;
  std::int64_t arg = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double v = t.valueAt(i);
    if (v > mx) {
      mx = v;
      arg = i;
    }
    mn = std::min(mn, v);
    sum += v;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, " min=%.6g max=%.6g mean=%.6g", mn, mx, sum / static_cast<double>(n));
  line += buf;
  int non_unit = 0;
  for (auto d : t.shape())
    if (d != 1) ++non_unit;
  if (non_unit == 1) line += " argmax=" + std::to_string(arg);
  return line;
}

int runRun(int argc, char** argv) {
  Flags flags("run", "gdstudio run --graph=FILE --input=NAME=FILE.npy [--input=...] --output=NAME[,NAME...] "
                     "--out_dir=DIR [--num_threads=N] [--reference] [--winograd=false]",
              {{"graph", FlagSpec::Type::String, "", "model file (.pb, .pbtxt, .meta or SavedModel)", kRequired | kPath},
               {"input", FlagSpec::Type::Repeated, "",
                "NAME=FILE: a tensor to feed (node or node:port) and its value as .npy; for string inputs "
                "any file, passed as one string (for example a WAV file for wav_data)"},
               {"output", FlagSpec::Type::Repeated, "", "tensors to fetch, comma separated (node or node:port)"},
               {"out_dir", FlagSpec::Type::String, "", "folder for the outputs (<name with / and : as _>.npy)",
                kRequired | kPath},
               {"num_threads", FlagSpec::Type::Int, "1", "intra-op threads: -1 or 0 all cores, N threads (1: no workers)"},
               {"reference", FlagSpec::Type::Bool, "false", "use the plain reference kernels"},
               {"winograd", FlagSpec::Type::Bool, "true",
                "let float 3x3 stride-1 convolutions with 64+ channels use Winograd's algorithm (F(2x2,3x3) on "
                "AVX-512, F(4x4,3x3) on AVX2; faster; rounding differs from the direct convolution by a few 1e-6 "
                "relative)"}});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  std::vector<std::string> outputs;
  for (const auto& v : flags.all("output"))
    for (const auto& o : splitString(v, ','))
      if (!o.empty()) outputs.push_back(o);
  if (outputs.empty()) return fail("--output is required (one or more tensor names)");
  auto threads = flags.numThreads();
  if (!threads.ok()) return fail(threads.error());

  std::vector<std::string> feed_names, feed_files;
  for (const auto& in : flags.all("input")) {
    size_t eq = in.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == in.size())
      return fail("--input=" + in + ": expected NAME=FILE");
    feed_names.push_back(in.substr(0, eq));
    feed_files.push_back(expandPath(in.substr(eq + 1)));
  }

  auto loaded = model::load(flags.str("graph"));
  if (!loaded.ok()) return fail(loaded.error());
  auto graph = std::make_shared<tensorflow::GraphDef>(std::move(loaded->graph));
  engine::PlanOptions options;
  options.num_threads = static_cast<int>(*threads);
  options.reference_kernels = flags.boolean("reference");
  options.winograd = flags.boolean("winograd");
  auto plan =
      engine::compileForInference(std::shared_ptr<const tensorflow::GraphDef>(graph), feed_names, outputs, options);
  if (!plan.ok()) return fail(flags.str("graph") + ": " + plan.error());

  std::vector<engine::Tensor> feeds;
  for (size_t i = 0; i < feed_names.size(); ++i) {
    auto t = engine::tensorFromFile(feed_files[i], (*plan)->feedType(static_cast<int>(i)), "--input " + feed_names[i]);
    if (!t.ok()) return fail(t.error());
    feeds.push_back(std::move(t).value());
  }

  auto result = (*plan)->run(feeds);
  if (!result.ok()) return fail(result.error());

  const std::string dir = flags.str("out_dir");
  // Two fetched tensors whose file names coincide (a/b and a_b both become
  // a_b.npy) would overwrite one another: refused before anything is written.
  std::map<std::string, std::string> file_owner;
  for (const auto& o : outputs) {
    auto [it, inserted] = file_owner.emplace(fileNameFor(o), o);
    if (!inserted && it->second != o)
      return fail("--output: " + it->second + " and " + o + " would both be written to " + dir + "/" + it->first +
                  "; fetch one of them in another run");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail("--out_dir " + dir + ": cannot create the folder (" + ec.message() + ")");
  // Every output is staged to a temporary first and renamed only when all
  // were written: a failed write leaves none of the new files behind.
  std::vector<model::StagedFile> staged;
  std::set<std::string> written;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const engine::Tensor& t = (*result)[i];
    std::printf("%s\n", summaryLine(outputs[i], t).c_str());
    if (!t.valid()) continue;
    if (t.dtype() == tensorflow::DT_STRING || model::dtypeSize(t.dtype()) == 0) {
      std::fprintf(stderr, "note: %s is %s; not written as .npy\n", outputs[i].c_str(),
                   model::dtypeName(t.dtype()).c_str());
      continue;
    }
    if (!written.insert(outputs[i]).second) continue;  // fetched twice: one file
    auto file = model::StagedFile::create(dir + "/" + fileNameFor(outputs[i]), model::toNpy(t.toHost()));
    if (!file.ok()) return fail(file.error());
    staged.push_back(std::move(file).value());
  }
  for (auto& file : staged) {
    Status s = file.commit();
    if (!s.ok()) return fail(s.message());
  }
  return 0;
}

CommandRegistration reg({"run", "run a graph on .npy inputs and write its outputs as .npy", &runRun});

}  // namespace
}  // namespace gds::app
