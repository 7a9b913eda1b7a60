// Resident memory of a model loaded as a frozen GraphDef versus the same
// model in TensorFlow's memory-mapped format, each measured in a fresh child
// process: load, compile a Plan, run once. Anonymous memory is what the
// process owns; file-backed pages of the mapping are clean and shared, and the
// kernel can drop them under pressure.
//
//   bench_memmapped [--models=DIR] [--model=mobilenet_v1_0.25_128_frozen.pb] [--input=input]
//                   [--output=MobilenetV1/Predictions/Reshape_1]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "engine/plan.h"
#include "model/io.h"
#include "model/memmapped.h"

namespace {

struct Mem {
  long anon_kb = 0, file_kb = 0;
};
Mem residentNow() {
  Mem m;
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("RssAnon:", 0) == 0) m.anon_kb = std::atol(line.c_str() + 8);
    if (line.rfind("RssFile:", 0) == 0) m.file_kb = std::atol(line.c_str() + 8);
  }
  return m;
}

struct Sample {
  long anon_kb = -1, file_kb = -1;
  double load_ms = 0;
  int ok = 0;
};

// Runs `fn` in a child and returns what it measured.
template <typename Fn>
Sample inChild(Fn fn) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Sample s = fn();
    ssize_t n = write(fds[1], &s, sizeof s);
    _exit(n == sizeof s ? 0 : 1);
  }
  close(fds[1]);
  Sample s;
  if (read(fds[0], &s, sizeof s) != sizeof s) s = {};
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return s;
}

Sample measure(bool mapped, const std::string& pb, const std::string& mm, const std::string& input,
               const std::string& output) {
  using clock = std::chrono::steady_clock;
  Mem before = residentNow();
  auto t0 = clock::now();
  std::shared_ptr<gds::model::MemmappedFile> file;
  auto graph = std::make_shared<tensorflow::GraphDef>();
  if (mapped) {
    auto f = gds::model::MemmappedFile::open(mm);
    if (!f.ok()) {
      std::fprintf(stderr, "%s\n", f.error().c_str());
      return {};
    }
    file = f.value();
    *graph = file->graph();
  } else {
    auto m = gds::model::load(pb);
    if (!m.ok()) {
      std::fprintf(stderr, "%s\n", m.error().c_str());
      return {};
    }
    graph->Swap(&m->graph);
  }
  auto plan = gds::engine::Plan::compile(graph, {input}, {output});
  if (!plan.ok()) {
    std::fprintf(stderr, "%s\n", plan.error().c_str());
    return {};
  }
  double load_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  bool known = true;
  auto shape = (*plan)->feedShape(0, &known);
  for (auto& d : shape)
    if (d < 0) d = 1;
  gds::engine::Tensor in((*plan)->feedType(0), shape);
  std::memset(in.raw(), 0, in.bytes());
  auto out = (*plan)->run({in});
  if (!out.ok()) {
    std::fprintf(stderr, "%s\n", out.error().c_str());
    return {};
  }
  Mem after = residentNow();
  Sample s;
  s.anon_kb = after.anon_kb - before.anon_kb;
  s.file_kb = after.file_kb - before.file_kb;
  s.load_ms = load_ms;
  s.ok = 1;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string models = "../shared/models", model = "mobilenet_v1_0.25_128_frozen.pb", input = "input",
              output = "MobilenetV1/Predictions/Reshape_1";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) {
      std::string f = std::string("--") + flag + "=";
      return a.rfind(f, 0) == 0 ? a.substr(f.size()) : std::string();
    };
    if (!value("models").empty()) models = value("models");
    else if (!value("model").empty()) model = value("model");
    else if (!value("input").empty()) input = value("input");
    else if (!value("output").empty()) output = value("output");
    else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  std::string pb = models + "/" + model;
  char tmpl[] = "/tmp/bench_memmapped_XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return 1;
  close(fd);
  std::string mm = tmpl;
  auto loaded = gds::model::load(pb);
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s\n", loaded.error().c_str());
    return 1;
  }
  auto written = gds::model::writeMemmapped(loaded->graph, mm);
  if (!written.ok()) {
    std::fprintf(stderr, "%s\n", written.error().c_str());
    return 1;
  }
  Sample a = inChild([&] { return measure(false, pb, mm, input, output); });
  Sample b = inChild([&] { return measure(true, pb, mm, input, output); });
  unlink(mm.c_str());
  if (!a.ok || !b.ok) return 1;
  std::printf("model\t%s (%d Consts mapped, %lld bytes in regions)\n", model.c_str(), written->converted,
              static_cast<long long>(written->region_bytes));
  std::printf("variant\tanon_rss_kb\tfile_rss_kb\tload_ms\tanon_ratio\n");
  std::printf("frozen .pb\t%ld\t%ld\t%.2f\t1.00\n", a.anon_kb, a.file_kb, a.load_ms);
  std::printf("memmapped\t%ld\t%ld\t%.2f\t%.2f\n", b.anon_kb, b.file_kb, b.load_ms,
              a.anon_kb > 0 ? static_cast<double>(b.anon_kb) / static_cast<double>(a.anon_kb) : 0.0);
  return 0;
}
