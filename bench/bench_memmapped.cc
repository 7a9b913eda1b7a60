// Resident memory of a model opened as a frozen GraphDef versus the same model
// in TensorFlow's memory-mapped format (convert_graphdef_memmapped_format).
//
// Each variant runs in its own freshly exec'd process (no pages inherited from
// the parent or the other variant), which loads the file with model::load,
// compiles a Plan and runs it once, reading /proc/self/smaps_rollup before
// loading and after each step. Numbers are MB above the process's own start:
//   rss        resident set (anonymous + file-backed)
//   anon       anonymous memory: what the process owns (heap, copies)
//   priv_dirty private dirty pages: cannot be dropped, only swapped
//   file       file-backed resident pages (Rss - Anonymous): clean, shared,
//              the kernel drops them under pressure and re-reads the file
//   weights    resident pages of the mapped model file itself
//   peak       highest RSS so far (VmHWM)
// A run reads every weight once, so after a run the mapped weights are
// resident too, but as clean file-backed pages instead of anonymous copies.
//
//   bench_memmapped [--models=DIR] [--model=REL.pb ...] [--input=input]
//                   [--output=MobilenetV1/Predictions/Reshape_1]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/kernel_environment.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "model/memmapped.h"

namespace {

struct Mem {
  double rss = 0, anon = 0, priv_dirty = 0, file = 0, weights = 0, peak = 0;
};

double kbField(const std::string& line, const char* key) {
  return line.rfind(key, 0) == 0 ? std::atof(line.c_str() + std::strlen(key)) / 1024.0 : -1;
}

// The whole process from smaps_rollup, the model file's mapping from smaps.
Mem residentNow(const std::string& mapped_path) {
  Mem m;
  std::ifstream rollup("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(rollup, line)) {
    double v;
    if ((v = kbField(line, "Rss:")) >= 0) m.rss = v;
    if ((v = kbField(line, "Anonymous:")) >= 0) m.anon = v;
    if ((v = kbField(line, "Private_Dirty:")) >= 0) m.priv_dirty = v;
  }
  m.file = m.rss - m.anon;
  std::ifstream status("/proc/self/status");
  while (std::getline(status, line)) {
    double v;
    if ((v = kbField(line, "VmHWM:")) >= 0) m.peak = v;
  }
  if (!mapped_path.empty()) {
    std::ifstream smaps("/proc/self/smaps");
    bool inside = false;
    while (std::getline(smaps, line)) {
      const bool header = !line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
                          line.find(':') > line.find('-');
      if (header) {
        inside = line.size() >= mapped_path.size() &&
                 line.compare(line.size() - mapped_path.size(), mapped_path.size(), mapped_path) == 0;
      } else if (inside) {
        double v;
        if ((v = kbField(line, "Rss:")) >= 0) m.weights += v;
      }
    }
  }
  return m;
}

std::string format(const char* stage, const Mem& m, const Mem& start) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s %.2f %.2f %.2f %.2f %.2f %.2f\n", stage, m.rss - start.rss, m.anon - start.anon,
                m.priv_dirty - start.priv_dirty, m.file - start.file, m.weights, m.peak - start.rss);
  return buf;
}

// Child: load `path`, compile, run once; prints one line per stage and the
// fetched values so the parent can check both variants agree.
int child(const std::string& path, const std::string& input, const std::string& output, bool mapped) {
  char resolved[4096];
  const std::string real = realpath(path.c_str(), resolved) ? resolved : path;
  const std::string watch = mapped ? real : std::string();
  const Mem start = residentNow(watch);
  std::string report;
  auto loaded = gds::model::load(path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s\n", loaded.error().c_str());
    return 1;
  }
  if (loaded->memmapped != mapped) {
    std::fprintf(stderr, "%s: expected %s\n", path.c_str(), mapped ? "a memmapped package" : "a frozen GraphDef");
    return 1;
  }
  auto graph = std::make_shared<tensorflow::GraphDef>();
  graph->Swap(&loaded->graph);
  report += format("load", residentNow(watch), start);
  auto plan = gds::engine::compileForInference(std::shared_ptr<const tensorflow::GraphDef>(graph), {input}, {output});
  if (!plan.ok()) {
    std::fprintf(stderr, "%s\n", plan.error().c_str());
    return 1;
  }
  report += format("compile", residentNow(watch), start);
  if ((*plan)->feedType(0) != tensorflow::DT_FLOAT) {
    std::fprintf(stderr, "%s: input '%s' must be float32 (this benchmark feeds a float ramp)\n", path.c_str(),
                 input.c_str());
    return 1;
  }
  bool known = true;
  auto shape = (*plan)->feedShape(0, &known);
  for (auto& d : shape)
    if (d < 0) d = 1;
  gds::engine::Tensor in((*plan)->feedType(0), shape);
  for (std::int64_t i = 0; i < in.numElements(); ++i)
    in.data<float>()[i] = static_cast<float>(i % 255) / 127.5f - 1.0f;
  auto out = (*plan)->run({in});
  if (!out.ok()) {
    std::fprintf(stderr, "%s\n", out.error().c_str());
    return 1;
  }
  report += format("run", residentNow(watch), start);
  // The fetched values, exactly (hex floats), for the parent's comparison.
  const gds::engine::Tensor& result = (*out)[0];
  report += "out " + std::to_string(result.numElements());
  char value[64];
  for (std::int64_t i = 0; i < result.numElements(); ++i) {
    std::snprintf(value, sizeof value, " %a", static_cast<double>(result.data<float>()[i]));
    report += value;
  }
  std::printf("%s\n", report.c_str());
  return 0;
}

struct ChildResult {
  bool ok = false;
  std::vector<std::pair<std::string, Mem>> stages;
  std::vector<double> output;
};

ChildResult spawn(const std::string& path, const std::string& input, const std::string& output, bool mapped) {
  ChildResult r;
  int fds[2];
  if (pipe(fds) != 0) return r;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    std::string a_path = "--path=" + path, a_in = "--input=" + input, a_out = "--output=" + output;
    const char* argv[] = {"bench_memmapped", "--child", mapped ? "--mapped" : "--frozen", a_path.c_str(),
                          a_in.c_str(), a_out.c_str(), nullptr};
    execv("/proc/self/exe", const_cast<char* const*>(argv));
    _exit(127);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return r;
  std::istringstream in(text);
  std::string stage;
  while (in >> stage) {
    if (stage == "out") {
      std::size_t n = 0;
      in >> n;
      std::string v;
      for (std::size_t i = 0; i < n && in >> v; ++i) r.output.push_back(std::strtod(v.c_str(), nullptr));
      continue;
    }
    Mem m;
    in >> m.rss >> m.anon >> m.priv_dirty >> m.file >> m.weights >> m.peak;
    r.stages.push_back({stage, m});
  }
  r.ok = r.stages.size() == 3 && !r.output.empty();
  return r;
}

double ratio(double a, double b) { return b > 0.05 ? a / b : 0.0; }

int benchModel(const std::string& models, const std::string& model, const std::string& input,
               const std::string& output) {
  const std::string pb = models + "/" + model;
  char tmpl[] = "/tmp/bench_memmapped_XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return 1;
  close(fd);
  const std::string mm = tmpl;
  gds::model::MemmappedWriteResult written;
  {
    auto loaded = gds::model::load(pb);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.error().c_str());
      return 1;
    }
    auto w = gds::model::writeMemmapped(loaded->graph, mm);
    if (!w.ok()) {
      std::fprintf(stderr, "%s\n", w.error().c_str());
      return 1;
    }
    written = *w;
  }
  ChildResult frozen = spawn(pb, input, output, false);
  ChildResult mapped = spawn(mm, input, output, true);
  unlink(mm.c_str());
  if (!frozen.ok || !mapped.ok) {
    std::fprintf(stderr, "%s: a child process failed\n", model.c_str());
    return 1;
  }
  double max_diff = frozen.output.size() == mapped.output.size() ? 0.0 : -1.0;
  for (std::size_t i = 0; max_diff >= 0 && i < frozen.output.size(); ++i)
    max_diff = std::max(max_diff, std::fabs(frozen.output[i] - mapped.output[i]));
  std::string outputs = max_diff == 0.0 ? "identical" : max_diff < 0 ? "of different sizes" : "";
  if (max_diff > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "differ by up to %.3g", max_diff);
    outputs = buf;
  }
  std::printf("\nmodel\t%s: %d Consts mapped, %.2f MB of weights in regions; outputs %s\n", model.c_str(),
              written.converted, static_cast<double>(written.region_bytes) / 1048576.0, outputs.c_str());
  std::printf("stage\tvariant\trss_mb\tanon_mb\tpriv_dirty_mb\tfile_mb\tweights_mapped_mb\tpeak_mb\trss_ratio\tanon_ratio\n");
  for (size_t s = 0; s < 3; ++s) {
    const Mem& a = frozen.stages[s].second;
    const Mem& b = mapped.stages[s].second;
    const char* stage = frozen.stages[s].first.c_str();
    std::printf("%s\tfrozen .pb\t%.2f\t%.2f\t%.2f\t%.2f\t-\t%.2f\t1.00\t1.00\n", stage, a.rss, a.anon, a.priv_dirty,
                a.file, a.peak);
    std::printf("%s\tmemmapped\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", stage, b.rss, b.anon,
                b.priv_dirty, b.file, b.weights, b.peak, ratio(b.rss, a.rss), ratio(b.anon, a.anon));
  }
  return max_diff >= 0 && max_diff <= 1e-5 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  gds::app::applyKernelEnvironment();
  std::string models = "../shared/models", input = "input", output = "MobilenetV1/Predictions/Reshape_1", path;
  std::vector<std::string> list;
  bool is_child = false, mapped = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag, std::string* out) {
      std::string f = std::string("--") + flag + "=";
      if (a.rfind(f, 0) != 0) return false;
      *out = a.substr(f.size());
      return true;
    };
    std::string v;
    if (a == "--child") is_child = true;
    else if (a == "--mapped") mapped = true;
    else if (a == "--frozen") mapped = false;
    else if (value("path", &path) || value("models", &models) || value("input", &input) ||
             value("output", &output)) {
    } else if (value("model", &v)) list.push_back(v);
    else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  if (is_child) return child(path, input, output, mapped);
  if (list.empty()) list = {"mobilenet_v1_0.25_128_frozen.pb", "generated/mobilenet_v1_1.0_224_random.pb"};
  std::printf("MB above each process's start; each variant in its own exec'd process; ratio = memmapped / frozen\n");
  int rc = 0;
  for (const auto& m : list) rc |= benchModel(models, m, input, output);
  return rc;
}
