// Loop fuzzing of `run`'s path through the interpreter (Plan::compile and
// Plan::run, as cmd_run.cc calls them) on mutated small graphs with fixed
// inputs, under AddressSanitizer + UBSan. Seeds are the one-op test graphs
// of the corpus (op_tests_*), its small generated CNNs and the bundled sample
// model. Most mutations edit the graph's meaning rather than its bytes:
// attribute values (strides, axes, shapes, dtypes, padding), Const shapes and
// contents, op types, inputs rewired; some edit the serialized bytes. Every
// Placeholder is fed a fixed tensor of its declared dtype and shape.
//
// A crash, a sanitizer report or a leak fails the test; an error from compile
// or run is the expected answer to most mutants. Sizes taken from the graph
// and allocated unchecked show up as "unbounded allocation" (see
// fuzz_util.h): listed and counted, left to the memory budget's checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>

#include "engine/eval/feeds.h"
#include "engine/plan.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/graph_builder.h"
#include "model/io.h"
#include "model/memory_budget.h"
#include "tests/sanitize/fuzz_util.h"
#include "tests/test_util.h"

namespace gds::fuzz {
namespace {

struct Seed {
  std::string name;
  tensorflow::GraphDef graph;
};

std::vector<Seed> seeds() {
  std::vector<Seed> out;
  out.push_back({"sample_model", model::makeSampleModel()});
  if (!test::sharedAvailable()) return out;
  std::vector<std::string> files = {"generated/tiny_cnn.pb", "generated/inception_mini.pb"};
  for (const char* dir : {"op_tests_migraphx", "op_tests_nnfusion"}) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(test::modelPath(dir), ec))
      if (entry.path().extension() == ".pb" && entry.file_size() < 64 * 1024)
        files.push_back(std::string(dir) + "/" + entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());  // the same order everywhere: iterations replay
  for (const std::string& f : files) {
    auto m = model::load(test::modelPath(f));
    if (m.ok() && m->graph.node_size() > 0) out.push_back({f, std::move(m->graph)});
  }
  return out;
}

std::int64_t interestingInt(Rng& rng) {
  static const std::int64_t kValues[] = {0, 1, 2, 3, 4, 7, -1, -2, 64, 255, 1 << 20, 2147483647, -2147483648LL,
                                         std::numeric_limits<std::int64_t>::max()};
  return kValues[rng.below(sizeof kValues / sizeof kValues[0])];
}

tensorflow::DataType randomDtype(Rng& rng) {
  static const tensorflow::DataType kTypes[] = {tensorflow::DT_FLOAT,  tensorflow::DT_INT32,  tensorflow::DT_INT64,
                                                tensorflow::DT_UINT8,  tensorflow::DT_BOOL,   tensorflow::DT_HALF,
                                                tensorflow::DT_QUINT8, tensorflow::DT_STRING, tensorflow::DT_DOUBLE,
                                                tensorflow::DT_INT8,   tensorflow::DT_QINT32, tensorflow::DT_INVALID};
  return kTypes[rng.below(sizeof kTypes / sizeof kTypes[0])];
}

// Edits one attribute value of `node` in place.
void mutateAttr(tensorflow::NodeDef* node, Rng& rng) {
  auto* attrs = node->mutable_attr();
  if (attrs->empty()) return;
  auto it = attrs->begin();
  std::advance(it, rng.below(attrs->size()));
  tensorflow::AttrValue& a = it->second;
  switch (a.value_case()) {
    case tensorflow::AttrValue::kI: a.set_i(interestingInt(rng)); break;
    case tensorflow::AttrValue::kF: a.set_f(rng.oneIn(2) ? -1.0f : 1e30f); break;
    case tensorflow::AttrValue::kB: a.set_b(!a.b()); break;
    case tensorflow::AttrValue::kType: a.set_type(randomDtype(rng)); break;
    case tensorflow::AttrValue::kS: {
      static const char* kStrings[] = {"SAME", "VALID", "NCHW", "NHWC", "", "EXPLICIT", "bogus"};
      a.set_s(kStrings[rng.below(7)]);
      break;
    }
    case tensorflow::AttrValue::kShape: {
      auto* shape = a.mutable_shape();
      if (rng.oneIn(4)) shape->set_unknown_rank(!shape->unknown_rank());
      else if (shape->dim_size() == 0 || rng.oneIn(3)) shape->add_dim()->set_size(1 + static_cast<std::int64_t>(rng.below(4)));
      else shape->mutable_dim(static_cast<int>(rng.below(shape->dim_size())))->set_size(rng.oneIn(2) ? -1 : interestingInt(rng) % 9);
      break;
    }
    case tensorflow::AttrValue::kList: {
      auto* list = a.mutable_list();
      if (list->i_size() > 0) {
        if (rng.oneIn(4)) list->add_i(interestingInt(rng));
        else if (rng.oneIn(4)) list->mutable_i()->RemoveLast();
        else list->set_i(static_cast<int>(rng.below(list->i_size())), interestingInt(rng) % 5);
      } else if (list->type_size() > 0) {
        list->set_type(static_cast<int>(rng.below(list->type_size())), randomDtype(rng));
      }
      break;
    }
    case tensorflow::AttrValue::kTensor: {
      auto* t = a.mutable_tensor();
      auto* shape = t->mutable_tensor_shape();
      switch (rng.below(5)) {
        case 0:  // a dimension changed: the contents no longer match the shape
          if (shape->dim_size() > 0) shape->mutable_dim(static_cast<int>(rng.below(shape->dim_size())))->set_size(interestingInt(rng) % 9);
          else shape->add_dim()->set_size(3);
          break;
        case 1: shape->add_dim()->set_size(rng.oneIn(2) ? 1 : 2); break;
        case 2:
          if (!t->tensor_content().empty()) t->mutable_tensor_content()->resize(rng.below(t->tensor_content().size()));
          break;
        case 3: t->set_dtype(randomDtype(rng)); break;
        default:  // contents as values: new indices, axes and sizes for shape-taking ops
          if (t->dtype() == tensorflow::DT_INT32 && !t->tensor_content().empty()) {
            std::string& c = *t->mutable_tensor_content();
            const std::size_t at = rng.below(c.size() / 4) * 4;
            const std::int32_t v = static_cast<std::int32_t>(interestingInt(rng) % 11 - (rng.oneIn(3) ? 5 : 0));
            std::memcpy(&c[at], &v, 4);
          } else if (t->int_val_size() > 0) {
            t->set_int_val(static_cast<int>(rng.below(t->int_val_size())), static_cast<std::int32_t>(interestingInt(rng) % 11 - 5));
          } else if (t->float_val_size() > 0) {
            t->set_float_val(static_cast<int>(rng.below(t->float_val_size())), rng.oneIn(2) ? 0.0f : -3.5f);
          }
          break;
      }
      break;
    }
    default: break;
  }
}

tensorflow::GraphDef mutateGraph(const tensorflow::GraphDef& seed, const std::vector<std::string>& ops, Rng& rng) {
  tensorflow::GraphDef g = seed;
  const int edits = 1 + static_cast<int>(rng.below(3));
  for (int k = 0; k < edits && g.node_size() > 0; ++k) {
    tensorflow::NodeDef* node = g.mutable_node(static_cast<int>(rng.below(g.node_size())));
    switch (rng.below(8)) {
      case 0:
      case 1:
      case 2: mutateAttr(node, rng); break;
      case 3: node->set_op(ops[rng.below(ops.size())]); break;
      case 4: {  // rewire an input to another node's output (data or control)
        const std::string& other = g.node(static_cast<int>(rng.below(g.node_size()))).name();
        std::string input = rng.oneIn(5) ? "^" + other : (rng.oneIn(3) ? other + ":" + std::to_string(rng.below(3)) : other);
        if (node->input_size() > 0 && !rng.oneIn(4)) node->set_input(static_cast<int>(rng.below(node->input_size())), input);
        else node->add_input(input);
        break;
      }
      case 5:
        if (node->input_size() > 0) node->mutable_input()->RemoveLast();
        break;
      case 6: {  // drop a node (its consumers now name a missing node)
        const int at = static_cast<int>(rng.below(g.node_size()));
        g.mutable_node()->SwapElements(at, g.node_size() - 1);
        g.mutable_node()->RemoveLast();
        break;
      }
      default: {  // bytes: whatever still parses
        const std::string bytes = mutateBytes({model::serialize(g)}, rng);
        auto parsed = model::parseGraphDef(bytes, "fuzz.pb");
        if (parsed.ok()) g = std::move(*parsed);
        break;
      }
    }
  }
  return g;
}

// Every Placeholder fed a fixed tensor of its declared dtype and shape
// (unknown dimensions 2, unknown rank [2, 3]); the sinks (at most four) fetched.
void feedsAndFetches(const tensorflow::GraphDef& g, std::vector<std::string>* feed_names,
                     std::vector<engine::Tensor>* feeds, std::vector<std::string>* fetches) {
  std::set<std::string> consumed;  // node names of "node", "node:1", "^node"
  for (const auto& n : g.node())
    for (const auto& in : n.input()) {
      const std::string name = in.empty() || in[0] != '^' ? in : in.substr(1);
      consumed.insert(name.substr(0, name.find(':')));
    }
  for (const auto& n : g.node()) {
    if (n.op() == "Placeholder") {
      auto dt = n.attr().find("dtype");
      const engine::DataType dtype = dt != n.attr().end() ? dt->second.type() : tensorflow::DT_FLOAT;
      model::Shape shape = {2, 3};
      auto sh = n.attr().find("shape");
      if (sh != n.attr().end() && !sh->second.shape().unknown_rank()) {
        shape.clear();
        for (const auto& d : sh->second.shape().dim()) shape.push_back(d.size() < 0 ? 2 : d.size());
      }
      if (model::numElements(shape) >= 0 && model::numElements(shape) <= (1 << 16)) {
        auto t = engine::randomTensor(dtype, shape, 7, n.name());
        if (t.ok()) {
          feed_names->push_back(n.name());
          feeds->push_back(std::move(*t));
        }
      }
    }
    if (!consumed.count(n.name()) && fetches->size() < 4) fetches->push_back(n.name());
  }
}

TEST(RunFuzz, MutatedSmallGraphs) {
  // Half of the sanitizer's largest allocation: sizes from headers and
  // tensor values are refused by the budget's checks before they reach it.
  model::setMemoryBudget(std::int64_t{256} << 20);
  const std::vector<Seed> corpus = seeds();
  std::set<std::string> op_set;
  for (const Seed& s : corpus)
    for (const auto& n : s.graph.node()) op_set.insert(n.op());
  const std::vector<std::string> ops(op_set.begin(), op_set.end());
  std::printf("run fuzz: %zu seed graphs, %zu op types\n", corpus.size(), ops.size());

  // The seeds themselves run: the fuzzer starts from working graphs.
  int seeds_run = 0;
  for (const Seed& s : corpus) {
    std::vector<std::string> names, fetches;
    std::vector<engine::Tensor> feeds;
    feedsAndFetches(s.graph, &names, &feeds, &fetches);
    auto plan = engine::Plan::compile(s.graph, names, fetches);
    if (plan.ok() && (*plan)->run(feeds).ok()) ++seeds_run;
  }
  EXPECT_GE(seeds_run, static_cast<int>(corpus.size()) / 2) << "most seed graphs must run unmutated";

  // Counted in the child process that runs the iterations, printed as it goes.
  long compiled = 0, ran = 0;
  auto outcome = forkedLoop("run", 5000, [&](long i) {
    if (i % 1000 == 999) {
      std::printf("run fuzz: %ld mutants compiled, %ld ran in this child by iteration %ld\n", compiled, ran, i);
      std::fflush(stdout);
    }
    Rng rng = iterationRng(0x7a11, i);
    const Seed& seed = corpus[rng.below(corpus.size())];
    const tensorflow::GraphDef g = mutateGraph(seed.graph, ops, rng);
    std::vector<std::string> names, fetches;
    std::vector<engine::Tensor> feeds;
    feedsAndFetches(g, &names, &feeds, &fetches);
    if (fetches.empty()) return;
    engine::PlanOptions options;
    options.num_threads = 1;  // no worker threads: the loop forks
    const bool optimize = !rng.oneIn(3);  // the inference rewrites first, as `run` does
    options.reference_kernels = rng.oneIn(4);
    auto plan = optimize ? engine::compileForInference(g, names, fetches, options)
                         : engine::Plan::compile(g, names, fetches, options);
    if (!plan.ok()) {
      if (plan.error().empty()) {
        std::fprintf(stderr, "compile failed without a message (seed %s)\n", seed.name.c_str());
        std::abort();
      }
      return;
    }
    ++compiled;
    for (int run = 0; run < 2; ++run) {
      auto out = (*plan)->run(feeds);
      if (!out.ok()) {
        if (out.error().empty()) std::abort();
        return;
      }
      if (out->size() != fetches.size()) {
        std::fprintf(stderr, "%zu outputs for %zu fetches (seed %s)\n", out->size(), fetches.size(), seed.name.c_str());
        std::abort();
      }
    }
    ++ran;
  });
  EXPECT_EQ(outcome.iterations, outcome.requested);
  EXPECT_EQ(outcome.failures(), "");
  for (const Finding& f : outcome.findings)
    if (f.kind == "unbounded allocation")
      std::printf("unbounded allocation at iteration %ld (replay: GDS_FUZZ_ONLY=%ld):\n%s\n", f.iteration, f.iteration,
                  f.report.substr(0, 1500).c_str());
}

}  // namespace
}  // namespace gds::fuzz
