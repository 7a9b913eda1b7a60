// Bounded, deterministic mutation fuzzing of the loader and everything that
// reads an untrusted graph (index, shape inference, summary, structure,
// diff). Built with AddressSanitizer + UBSan (see tests/CMakeLists.txt): the
// test passes when no input crashes, leaks or hits undefined behaviour.
// Each loop runs a fixed number of inputs, whatever the machine's speed;
// GDS_FUZZ_ITERATIONS=N runs N (a longer run finds more).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "model/freeze.h"
#include "model/functions.h"
#include "model/graph_builder.h"
#include "model/io.h"
#include "model/shape_inference.h"
#include "model/summary.h"
#include "model/summary_diff.h"
#include "model/tflite/reader.h"
#include "model/tflite/writer.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

class Rng {
 public:
  explicit Rng(std::uint64_t s) : s_(s) {}
  std::uint64_t next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  size_t below(size_t n) { return n ? static_cast<size_t>(next() % n) : 0; }

 private:
  std::uint64_t s_;
};

std::vector<std::string> seeds() {
  std::vector<std::string> out;
  tensorflow::GraphDef sample = makeSampleModel();
  out.push_back(serialize(sample));
  out.push_back(toText(sample).substr(0, 20000));
  if (test::sharedAvailable()) {
    for (const char* f : {"mnist_softmax_android.pb", "kws_ds_cnn_s.pb", "kws_lstm_s.pb", "tfnet_cond_test.meta",
                          "tfserving_half_plus_two_savedmodel/saved_model.pb", "stylize_quantized.pb",
                          "op_tests_migraphx/assert_less_equal_test.pb", "op_tests_nnfusion/frozen_split_add_graph.pb",
                          "op_tests_migraphx/batchnorm_test.pb", "tfrust_regression_train.pb"}) {
      auto b = readFile(test::modelPath(f));
      if (b.ok()) out.push_back(*b);
    }
  }
  return out;
}

std::string mutate(const std::vector<std::string>& corpus, Rng& rng) {
  std::string s = corpus[rng.below(corpus.size())];
  int steps = 1 + static_cast<int>(rng.below(4));
  for (int k = 0; k < steps && !s.empty(); ++k) {
    switch (rng.below(6)) {
      case 0:  // bit flips
        for (int f = 0, n = 1 + static_cast<int>(rng.below(8)); f < n; ++f)
          s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
        break;
      case 1:  // truncation
        s.resize(rng.below(s.size() + 1));
        break;
      case 2: {  // splice with another seed
        const std::string& other = corpus[rng.below(corpus.size())];
        size_t cut = rng.below(s.size() + 1);
        size_t from = rng.below(other.size() + 1);
        s = s.substr(0, cut) + other.substr(from, rng.below(4096));
        break;
      }
      case 3:  // random bytes
        for (int f = 0, n = 1 + static_cast<int>(rng.below(16)); f < n; ++f)
          s[rng.below(s.size())] = static_cast<char>(rng.next());
        break;
      case 4: {  // duplicate a chunk (repeated fields, nested messages)
        size_t at = rng.below(s.size());
        size_t len = std::min<size_t>(rng.below(512), s.size() - at);
        s.insert(rng.below(s.size() + 1), s.substr(at, len));
        break;
      }
      default: {  // interesting varints: huge sizes, negative dims
        static const char* kBytes[] = {"\xff\xff\xff\xff\x0f", "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",
                                       "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "\x00", "\x7f"};
        const char* b = kBytes[rng.below(5)];
        size_t len = std::char_traits<char>::length(b);
        s.replace(rng.below(s.size()), std::min(len ? len : 1, s.size()), b, len ? len : 1);
        break;
      }
    }
  }
  return s;
}

void exercise(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& def) {
  auto g = Graph::build(def);
  if (!g.ok()) return;
  Summary s = summarize(*g, {"fuzz.pb", 1, {}});
  std::string text = formatSummaryText(s);
  std::string json = toJson(s).dump();
  auto structure = formatStructure(def);
  auto shapes = inferShapes(*g);
  auto ref = Graph::build(reference);
  if (ref.ok()) {
    SummaryDiff d = diffGraphs(reference, summarize(*ref), def, s);
    std::string dt = formatDiffText(d, 5) + toJson(d).dump();
  }
  EXPECT_FALSE(text.empty());
}

// Inputs per loop: about 35, 20 and 17 s on one core under the sanitizers.
constexpr long kLoaderInputs = 4000, kTf2Inputs = 48, kTfliteInputs = 3000;

// The inputs a loop runs: `n`, or GDS_FUZZ_ITERATIONS.
long fuzzInputs(long n) {
  const char* env = std::getenv("GDS_FUZZ_ITERATIONS");
  return env && std::atol(env) > 0 ? std::atol(env) : n;
}

TEST(LoaderFuzz, MutatedModelsNeverCrash) {
  auto corpus = seeds();
  const long inputs = fuzzInputs(kLoaderInputs);
  Rng rng(0x5eed5eedULL);
  std::string dir = test::tempDir();
  tensorflow::GraphDef reference = makeSampleModel();
  long iterations = 0, parsed = 0, indexed = 0;
  while (iterations < inputs) {
    std::string bytes = mutate(corpus, rng);
    ++iterations;
    auto g = parseGraphDef(bytes, "fuzz");
    if (g.ok()) {
      ++parsed;
      if (Graph::build(*g).ok()) ++indexed;
      exercise(reference, *g);
    }
    if (iterations % 16 == 0) {  // the file path: kind detection, MetaGraph and SavedModel parsing
      std::string path = dir + (iterations % 32 == 0 ? "/m.meta" : "/saved_model.pb");
      std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
      auto m = load(path);
      if (m.ok()) exercise(reference, m->graph);
      else EXPECT_EQ(m.error().rfind(path + ": ", 0), 0u) << m.error();
    }
  }
  std::printf("fuzz: %ld inputs, %ld parsed, %ld indexed\n", iterations, parsed, indexed);
  EXPECT_GT(parsed, 0);
}

// Structural mutations of a TF2 SavedModel: what a damaged or hand-edited
// file can say (references to nowhere, functions calling each other or
// themselves, wrong argument counts, object ids out of range).
void mutateSavedModel(tensorflow::SavedModel* saved, Rng& rng) {
  auto* meta = saved->mutable_meta_graphs(0);
  auto* lib = meta->mutable_graph_def()->mutable_library();
  auto* og = meta->mutable_object_graph_def();
  std::vector<std::string> names;  // strings to wire things to
  for (const auto& f : lib->function()) {
    names.push_back(f.signature().name());
    for (const auto& n : f.node_def()) {
      names.push_back(n.name());
      for (const auto& in : n.input()) names.push_back(in);
    }
    for (const auto& a : f.signature().input_arg()) names.push_back(a.name());
  }
  names.insert(names.end(), {"", "^", "x:y:z:w", "a:output:99999999999", "nope:output:0", ":::"});
  auto pick = [&]() -> const std::string& { return names[rng.below(names.size())]; };
  if (lib->function_size() == 0) return;
  auto* f = lib->mutable_function(static_cast<int>(rng.below(static_cast<size_t>(lib->function_size()))));
  switch (rng.below(9)) {
    case 0:
      if (f->node_def_size()) {
        auto* n = f->mutable_node_def(static_cast<int>(rng.below(static_cast<size_t>(f->node_def_size()))));
        if (n->input_size()) n->set_input(static_cast<int>(rng.below(static_cast<size_t>(n->input_size()))), pick());
      }
      break;
    case 1:  // an op that is a function: calls, recursion
      if (f->node_def_size())
        f->mutable_node_def(static_cast<int>(rng.below(static_cast<size_t>(f->node_def_size()))))
            ->set_op(lib->function(static_cast<int>(rng.below(static_cast<size_t>(lib->function_size())))).signature().name());
      break;
    case 2:
      for (auto& [k, v] : *f->mutable_ret()) v = pick();
      break;
    case 3:
      if (f->signature().input_arg_size()) f->mutable_signature()->mutable_input_arg()->RemoveLast();
      else f->mutable_signature()->add_input_arg()->set_name("extra");
      break;
    case 4:
      for (auto& n : *f->mutable_node_def())
        for (auto& [k, v] : *n.mutable_attr())
          if (v.value_case() == tensorflow::AttrValue::kFunc && rng.below(2)) v.mutable_func()->set_name(pick());
          else if (v.value_case() == tensorflow::AttrValue::kType && rng.below(4) == 0) v.set_type(tensorflow::DT_RESOURCE);
          else if (v.value_case() == tensorflow::AttrValue::kI && rng.below(4) == 0) v.set_i(static_cast<std::int64_t>(rng.next()));
      break;
    case 5:
      for (auto& [k, cf] : *og->mutable_concrete_functions())
        for (auto& b : *cf.mutable_bound_inputs()) b = static_cast<int>(rng.below(og->nodes_size() + 3)) - 1;
      break;
    case 6:
      for (auto& n : *og->mutable_nodes())
        for (auto& c : *n.mutable_children())
          if (rng.below(8) == 0) c.set_node_id(static_cast<int>(rng.below(og->nodes_size() + 3)) - 1);
      break;
    case 7:
      for (auto& [k, sig] : *meta->mutable_signature_def())
        for (auto& [alias, info] : *sig.mutable_outputs()) info.set_name(pick());
      break;
    default:
      if (f->node_def_size()) f->mutable_node_def()->DeleteSubrange(static_cast<int>(rng.below(static_cast<size_t>(f->node_def_size()))), 1);
      break;
  }
}

// TF2 SavedModels beside their real checkpoint, damaged as bytes or as
// messages, go through loading (object graph, signatures, Keras metadata),
// summarize, freeze (inlining, lowering, the checkpoint's object graph) and
// the inline transform's code; every failure is an error naming the file.
TEST(LoaderFuzz, MutatedTf2SavedModelsNeverCrash) {
  GDS_REQUIRE_SHARED();
  const std::string source = test::modelPath("tf2/nordpool_gru_cudnn");
  auto original = readFile(source + "/saved_model.pb");
  ASSERT_TRUE(original.ok()) << original.error();
  tensorflow::SavedModel parsed;
  ASSERT_TRUE(parsed.ParseFromString(*original));
  const long inputs = fuzzInputs(kTf2Inputs);
  Rng rng(0x7f2f2f2fULL);
  std::string dir = test::tempDir() + "/tf2";
  std::filesystem::create_directories(dir);
  std::filesystem::create_directory_symlink(source + "/variables", dir + "/variables");
  const std::string path = dir + "/saved_model.pb";
  long iterations = 0, loaded = 0, frozen = 0;
  while (iterations < inputs) {
    std::string bytes;
    if (iterations % 4 == 0) {
      bytes = mutate({*original}, rng);
    } else {
      tensorflow::SavedModel m = parsed;
      for (int k = 0, n = 1 + static_cast<int>(rng.below(3)); k < n; ++k) mutateSavedModel(&m, rng);
      bytes = m.SerializeAsString();
    }
    ++iterations;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    auto m = load(path);
    if (!m.ok()) {
      EXPECT_EQ(m.error().rfind(path + ": ", 0), 0u) << m.error();
      continue;
    }
    ++loaded;
    auto s = summarizeModel(*m);
    if (s.ok()) {
      EXPECT_FALSE(formatSummaryText(*s).empty());
    }
    auto r = freeze(*m, {});
    if (r.ok()) {
      ++frozen;
    } else {
      EXPECT_EQ(r.error().rfind(path + ": ", 0), 0u) << r.error();
    }
    InlineOptions o;
    o.max_nodes = 200000;
    auto inlined = inlineFunctions(m->graph, o);
    (void)inlined;
  }
  std::printf("tf2 fuzz: %ld inputs, %ld loaded, %ld frozen\n", iterations, loaded, frozen);
  EXPECT_GT(loaded, iterations / 2);
  EXPECT_GT(frozen, 0);
}

// The TensorFlow Lite reader on mutated corpus files (verifier, then its own
// checks), and the writer and reader again on whatever graph it accepts.
TEST(TfliteFuzz, MutatedModelsNeverCrash) {
  GDS_REQUIRE_SHARED();
  std::vector<std::string> corpus;
  for (const char* f : {"hello_world_float", "hello_world_int8", "micro_speech_int8", "occupancy_dense_float",
                        "openmv_mobilenet_int8"}) {
    auto b = readFile(test::modelPath(std::string("tflite/") + f + ".tflite"));
    ASSERT_TRUE(b.ok()) << b.error();
    corpus.push_back(*b);
  }
  const long inputs = fuzzInputs(kTfliteInputs);
  Rng rng(0x7f13f13fULL);
  tensorflow::GraphDef reference = makeSampleModel();
  long iterations = 0, read = 0, rewritten = 0;
  while (iterations < inputs) {
    std::string bytes = mutate(corpus, rng);
    if (bytes.size() >= 8 && rng.below(2)) bytes.replace(4, 4, "TFL3");  // keep most inputs on the reader's path
    ++iterations;
    auto m = tflite::readTflite(bytes, "fuzz.tflite");
    if (!m.ok()) {
      EXPECT_EQ(m.error().rfind("fuzz.tflite: ", 0), 0u) << m.error();
      continue;
    }
    ++read;
    exercise(reference, m->graph);
    auto again = tflite::writeTflite(m->graph);
    if (!again.ok()) continue;
    ++rewritten;
    auto back = tflite::readTflite(*again, "rewritten");
    EXPECT_TRUE(back.ok()) << back.error();
  }
  std::printf("tflite fuzz: %ld inputs, %ld read, %ld rewritten\n", iterations, read, rewritten);
  EXPECT_GT(read, 0);
}

}  // namespace
}  // namespace gds::model
