// Load + index + summarize speed on a large real MetaGraphDef (Inception v3
// from TF-Hub, 11k nodes) and on a ~100 MB frozen graph generated here (big
// random Consts). The peer is the floor: reading the file and a bare
// protobuf parse of it, measured in the same run.
// Targets: the 100 MB graph in under 1 s, the 11k-node graph in under 0.3 s.
//
// Usage: bench_load [--models=DIR] [--runs=N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "model/graph_builder.h"
#include "model/io.h"
#include "model/summary.h"

namespace fs = std::filesystem;
using namespace gds::model;

namespace {

double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Timing {
  double peer = 0, load = 0, index = 0, summarize = 0;
  double total() const { return load + index + summarize; }
  int nodes = 0;
  double mb = 0;
};

Timing measure(const std::string& path, bool meta, int runs) {
  std::vector<double> peer, load_ms, index_ms, sum_ms;
  Timing t;
  for (int r = 0; r < runs; ++r) {
    double a = nowMs();
    auto bytes = readFile(path);
    if (!bytes.ok()) {
      std::fprintf(stderr, "%s\n", bytes.error().c_str());
      std::exit(1);
    }
    // Parsed messages are destroyed after the clock stops, as load()'s are.
    tensorflow::MetaGraphDef parsed_meta;
    tensorflow::GraphDef parsed_graph;
    bool ok = meta ? parsed_meta.ParseFromString(*bytes) : parsed_graph.ParseFromString(*bytes);
    double b = nowMs();
    if (!ok) {
      std::fprintf(stderr, "%s: protobuf parse failed\n", path.c_str());
      std::exit(1);
    }
    peer.push_back(b - a);

    double c = nowMs();
    auto m = load(path);
    double d = nowMs();
    if (!m.ok()) {
      std::fprintf(stderr, "%s\n", m.error().c_str());
      std::exit(1);
    }
    auto g = Graph::build(m->graph);
    double e = nowMs();
    if (!g.ok()) {
      std::fprintf(stderr, "%s\n", g.error().c_str());
      std::exit(1);
    }
    Summary s = summarize(*g, {path, m->file_bytes, {}});
    std::string text = formatSummaryText(s);
    double f = nowMs();
    load_ms.push_back(d - c);
    index_ms.push_back(e - d);
    sum_ms.push_back(f - e);
    t.nodes = g->size();
    t.mb = static_cast<double>(m->file_bytes) / 1e6;
  }
  t.peer = median(peer);
  t.load = median(load_ms);
  t.index = median(index_ms);
  t.summarize = median(sum_ms);
  return t;
}

// A frozen graph of about `mb` megabytes: a chain of MatMuls whose 1 MB
// weight Consts (random floats, so nothing compresses) hold the bytes.
std::string makeBigGraph(const std::string& dir, int mb) {
  GraphBuilder b;
  std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 512});
  std::uint64_t state = 42;
  std::vector<float> w(512 * 512);
  for (int layer = 0; layer < mb; ++layer) {
    auto scope = b.scope("layer" + std::to_string(layer));
    for (auto& v : w) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      v = static_cast<float>(static_cast<std::int32_t>(state >> 32)) * 1e-10f;
    }
    std::string weights = b.identity("weights/read", b.constantFloat("weights", {512, 512}, w));
    x = b.relu("Relu", b.biasAdd("BiasAdd", b.matMul("MatMul", x, weights),
                                 b.constantFloat("bias", {512}, std::vector<float>(512, 0.01f))));
  }
  b.softmax("output", x);
  std::string path = dir + "/big_frozen.pb";
  gds::Status s = saveGraph(b.graph(), path);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    std::exit(1);
  }
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  std::string models = "../shared/models";
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--models=", 0) == 0) models = a.substr(9);
    else if (a.rfind("--runs=", 0) == 0) runs = std::max(1, std::atoi(a.c_str() + 7));
    else {
      std::fprintf(stderr, "usage: bench_load [--models=DIR] [--runs=N]\n");
      return 1;
    }
  }
  char tmpl[] = "/tmp/gds-bench-load-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  std::string dir = tmpl;
  struct Case {
    std::string name, path;
    bool meta;
    double target_ms;
  };
  std::vector<Case> cases;
  std::string inception = models + "/tfnet_inception_v3_hub.meta";
  if (fs::exists(inception)) cases.push_back({"inception_v3_hub.meta (11k nodes)", inception, true, 300});
  else std::fprintf(stderr, "note: %s not found (pass --models=DIR); skipping it\n", inception.c_str());
  double g0 = nowMs();
  cases.push_back({"generated frozen ~100 MB", makeBigGraph(dir, 100), false, 1000});
  std::printf("(generated the 100 MB graph in %.0f ms)\n\n", nowMs() - g0);

  std::printf("%-34s %8s %7s %10s %9s %9s %9s %9s %8s %8s %7s\n", "graph", "MB", "nodes", "peer ms", "load ms",
              "index ms", "summ ms", "total ms", "MB/s", "vs peer", "target");
  for (const auto& c : cases) {
    Timing t = measure(c.path, c.meta, runs);
    std::printf("%-34s %8.1f %7d %10.1f %9.1f %9.1f %9.1f %9.1f %8.0f %7.2fx %4s %s\n", c.name.c_str(), t.mb, t.nodes,
                t.peer, t.load, t.index, t.summarize, t.total(), t.mb / (t.total() / 1000.0), t.total() / t.peer,
                t.total() < c.target_ms ? "ok" : "MISS", (c.target_ms < 1000 ? "<0.3 s" : "<1 s"));
  }
  std::printf("\npeer = read + bare protobuf ParseFromString (the floor); median of %d runs.\n", runs);
  fs::remove_all(dir);
  return 0;
}
