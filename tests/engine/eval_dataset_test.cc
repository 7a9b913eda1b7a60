// engine::evaluateDataset: a folder of inputs with labels through a float
// graph and its quantized version (TensorFlow's own quantize_weights
// MobileNet), the aggregated metrics, progress, cancel and the errors a user
// can cause with a bad folder, labels file or label map.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/eval/dataset.h"
#include "model/io.h"
#include "model/npy.h"
#include "tests/test_util.h"

namespace gds::engine {
namespace {

const char* kOutput = "MobilenetV1/Predictions/Reshape_1";

struct MobileNetPair {
  tensorflow::GraphDef float_graph, quant_graph;
  InputSpec input;
  std::vector<std::string> label_map;
};

MobileNetPair loadPair() {
  MobileNetPair p;
  auto f = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  auto q = model::load(test::modelPath("mobilenet_v1_0.25_128_quantized.pb"));
  EXPECT_TRUE(f.ok() && q.ok());
  if (!f.ok() || !q.ok()) return p;
  p.float_graph = std::move(f->graph);
  p.quant_graph = std::move(q->graph);
  auto in = findGraphInput(p.float_graph, "");
  EXPECT_TRUE(in.ok()) << in.error();
  if (in.ok()) p.input = *in;
  auto map = readLabelMap(test::modelPath("mobilenet_v1_0.25_128_labels.txt"));
  EXPECT_TRUE(map.ok()) << map.error();
  if (map.ok()) p.label_map = *map;
  return p;
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(Dataset, FindsTheOnlyPlaceholderWithItsShape) {
  GDS_REQUIRE_SHARED();
  auto p = loadPair();
  EXPECT_EQ("input", p.input.name);
  EXPECT_EQ(tensorflow::DT_FLOAT, p.input.dtype);
  EXPECT_EQ((Shape{1, 128, 128, 3}), p.input.shape);
  auto missing = findGraphInput(p.float_graph, "images:0");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ("no Placeholder named 'images'", missing.error());
}

TEST(Dataset, ListsImagesAndReadsAcceptedLabels) {
  GDS_REQUIRE_SHARED();
  auto d = openDataset(test::dataPath("images"));
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ((std::vector<std::string>{"astronaut.png", "chelsea.png", "china.jpg", "coffee.png", "flower.jpg",
                                      "motorcycle_left.png", "rocket.jpg"}),
            d->files);
  EXPECT_EQ(test::dataPath("images") + "/labels.csv", d->labels_path);
  EXPECT_EQ((std::vector<std::string>{"tabby", "tiger cat", "Egyptian cat", "lynx"}), d->labels.at("chelsea.png"));
  EXPECT_TRUE(d->labels.at("rocket.jpg").empty());
  EXPECT_EQ(0u, d->labels.count("file"));  // the header
  EXPECT_TRUE(labelMatches("282:tabby, tabby cat", {"tabby"}));
  EXPECT_TRUE(labelMatches("282:tabby, tabby cat", {"tabby cat"}));
  EXPECT_FALSE(labelMatches("288:lynx, catamount", {"tabby"}));
}

// Figures also printed by `gdstudio compare --dataset` for this pair.
TEST(Dataset, MobileNetFloatVsQuantizedWeights) {
  GDS_REQUIRE_SHARED();
  auto p = loadPair();
  auto d = openDataset(test::dataPath("images"));
  ASSERT_TRUE(d.ok()) << d.error();
  DatasetOptions options;
  options.compare.per_layer = false;
  options.label_map = p.label_map;
  std::vector<std::string> progress;
  options.progress = [&](int done, int total, const std::string& file) {
    progress.push_back(std::to_string(done) + "/" + std::to_string(total) + " " + file);
  };
  auto r = evaluateDataset(p.float_graph, p.quant_graph, p.input, *d, {kOutput}, options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_FALSE(r->cancelled);
  EXPECT_EQ(7, r->inputs);
  EXPECT_EQ(6, r->agree);
  EXPECT_EQ(3, r->labelled);
  EXPECT_EQ(3, r->correct_reference);
  EXPECT_EQ(3, r->correct_other);
  ASSERT_EQ(1u, r->confusion.size());
  EXPECT_EQ("282:tabby, tabby cat", r->confusion.begin()->first.first);
  EXPECT_EQ("288:lynx, catamount", r->confusion.begin()->first.second);
  // china.jpg, flower.jpg and rocket.jpg decoded with libjpeg's accurate DCT (ISLOW).
  EXPECT_NEAR(24.7116, r->mean_sqnr_db, 2e-3);
  ASSERT_EQ(7u, r->items.size());
  EXPECT_EQ("coffee.png", r->items[3].file);
  EXPECT_EQ("968:espresso", r->items[3].top1_other);
  EXPECT_TRUE(r->items[3].labelled && r->items[3].correct_reference && r->items[3].correct_other);
  EXPECT_FALSE(r->items[0].labelled);  // astronaut.png has no label
  EXPECT_EQ((std::vector<std::string>{"0/7 astronaut.png", "1/7 chelsea.png", "2/7 china.jpg", "3/7 coffee.png",
                                      "4/7 flower.jpg", "5/7 motorcycle_left.png", "6/7 rocket.jpg"}),
            progress);

  // The per-output aggregate: rows and agreement as counted above, errors
  // pooled from each sample's own comparison.
  ASSERT_EQ(1u, r->outputs.size());
  const OutputAggregate& o = r->outputs[0];
  EXPECT_EQ(kOutput, o.error.stats.name);
  EXPECT_TRUE(o.classifier);
  EXPECT_EQ(7, o.rows);
  EXPECT_EQ(6, o.top1_agree);
  EXPECT_EQ(7, o.error.samples);
  EXPECT_EQ(7 * 1001, o.error.stats.count);
  EXPECT_NEAR(r->mean_sqnr_db, o.error.stats.sqnr_db, 1e-9);
  double max_abs = 0, sum_sq = 0, cosine = 0, top5 = 0;
  for (const auto& file : d->files) {
    auto sample = loadSample(d->dir + "/" + file, p.input, {});
    ASSERT_TRUE(sample.ok()) << sample.error();
    CompareOptions single;
    single.per_layer = false;
    auto c = compare(p.float_graph, p.quant_graph, {"input"}, {*sample}, {kOutput}, single);
    ASSERT_TRUE(c.ok()) << c.error();
    const auto& s = c->outputs[0].stats;
    max_abs = std::max(max_abs, s.max_abs);
    sum_sq += s.rmse * s.rmse * 1001;
    cosine += s.cosine / 7;
    top5 += c->outputs[0].top5_overlap / 7;
  }
  EXPECT_DOUBLE_EQ(max_abs, o.error.stats.max_abs);
  EXPECT_NEAR(std::sqrt(sum_sq / (7 * 1001)), o.error.stats.rmse, 1e-12);
  EXPECT_NEAR(cosine, o.error.stats.cosine, 1e-12);
  EXPECT_NEAR(top5, o.top5_overlap, 1e-12);
  EXPECT_GT(o.top5_overlap, 0.6);
  EXPECT_TRUE(r->layers.empty());
}

TEST(Dataset, SameGraphIsExactAndLayersAggregate) {
  GDS_REQUIRE_SHARED();
  auto p = loadPair();
  auto d = openDataset(test::dataPath("images"));
  ASSERT_TRUE(d.ok()) << d.error();
  d->files.resize(2);  // astronaut.png, chelsea.png
  DatasetOptions options;
  options.compare.per_layer = true;
  options.label_map = p.label_map;
  auto r = evaluateDataset(p.float_graph, p.float_graph, p.input, *d, {kOutput}, options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(2, r->agree);
  EXPECT_DOUBLE_EQ(100.0, r->mean_sqnr_db);  // exact samples count as 100 dB
  EXPECT_TRUE(std::isinf(r->outputs[0].error.stats.sqnr_db));
  EXPECT_DOUBLE_EQ(0.0, r->outputs[0].error.stats.max_abs);
  EXPECT_DOUBLE_EQ(1.0, r->outputs[0].error.stats.cosine);
  EXPECT_DOUBLE_EQ(1.0, r->outputs[0].top5_overlap);
  ASSERT_FALSE(r->layers.empty());
  for (const auto& l : r->layers) {
    EXPECT_EQ(2, l.samples) << l.stats.name;
    EXPECT_TRUE(std::isinf(l.stats.sqnr_db)) << l.stats.name;
  }
}

TEST(Dataset, NpyFilesGiveTheSameFiguresAsTheImages) {
  GDS_REQUIRE_SHARED();
  auto p = loadPair();
  const std::string dir = test::tempDir();
  for (const char* name : {"chelsea", "coffee"}) {
    auto t = loadSample(test::dataPath(std::string("images/") + name + ".png"), p.input, {});
    ASSERT_TRUE(t.ok()) << t.error();
    ASSERT_TRUE(model::writeNpy(dir + "/" + name + ".npy", t->toHost()).ok());
  }
  writeText(dir + "/labels.csv", "chelsea.npy,tabby\ncoffee.npy,espresso|cup\n");
  auto d = openDataset(dir);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ((std::vector<std::string>{"chelsea.npy", "coffee.npy"}), d->files);
  EXPECT_EQ(1u, d->labels.count("chelsea.npy"));  // a first line naming a sample is data, not a header
  DatasetOptions options;
  options.label_map = p.label_map;
  auto r = evaluateDataset(p.float_graph, p.quant_graph, p.input, *d, {kOutput}, options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(2, r->inputs);
  EXPECT_EQ(1, r->agree);
  EXPECT_EQ(2, r->labelled);
  EXPECT_EQ(2, r->correct_reference);
  EXPECT_EQ(1, r->correct_other);  // the quantized model says lynx for chelsea
  EXPECT_EQ("288:lynx, catamount", r->items[0].top1_other);
}

TEST(Dataset, CancelStopsBetweenSamples) {
  GDS_REQUIRE_SHARED();
  auto p = loadPair();
  auto d = openDataset(test::dataPath("images"));
  ASSERT_TRUE(d.ok()) << d.error();
  DatasetOptions options;
  int polls = 0;
  options.cancelled = [&] { return ++polls > 2; };
  auto r = evaluateDataset(p.float_graph, p.quant_graph, p.input, *d, {kOutput}, options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->cancelled);
  EXPECT_EQ(2, r->inputs);
  EXPECT_EQ(2u, r->items.size());
  EXPECT_EQ(2, r->outputs[0].error.samples);
}

// WAV clips fed as raw bytes to a string input (the keyword-spotting
// models' wav_data); labels are plain class names.
TEST(Dataset, SpeechClipsWithLabels) {
  GDS_REQUIRE_SHARED();
  auto g = model::load(test::modelPath("kws_ds_cnn_s.pb"));
  ASSERT_TRUE(g.ok()) << g.error();
  auto input = findGraphInput(g->graph, "");
  ASSERT_TRUE(input.ok()) << input.error();
  EXPECT_EQ("wav_data", input->name);
  EXPECT_EQ(tensorflow::DT_STRING, input->dtype);
  auto d = openDataset(test::dataPath("speech"));
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(100u, d->files.size());
  DatasetOptions options;
  options.compare.per_layer = false;
  auto map = readLabelMap(test::modelPath("kws_labels.txt"));
  ASSERT_TRUE(map.ok()) << map.error();
  options.label_map = *map;
  auto r = evaluateDataset(g->graph, g->graph, *input, *d, {"labels_softmax"}, options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(100, r->inputs);
  EXPECT_EQ(100, r->agree);
  EXPECT_EQ(100, r->labelled);
  EXPECT_EQ(82, r->correct_reference);  // as `gdstudio compare --dataset` reports it
  EXPECT_EQ(82, r->correct_other);
  EXPECT_TRUE(r->confusion.empty());
}

TEST(Dataset, BadFolderNamesIt) {
  const std::string dir = test::tempDir();
  auto missing = openDataset(dir + "/no_such_folder");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ("'" + dir + "/no_such_folder' does not exist", missing.error());
  writeText(dir + "/notes.txt", "not an input");
  auto empty = openDataset(dir);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ("'" + dir + "' holds no input files (images, WAV clips or .npy)", empty.error());
  auto file = openDataset(dir + "/notes.txt");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ("'" + dir + "/notes.txt' is not a folder", file.error());
}

TEST(Dataset, BadLabelsNameTheFileAndLine) {
  const std::string dir = test::tempDir();
  writeText(dir + "/a.npy", "x");
  writeText(dir + "/labels.csv", "file,label\na.npy,cat\nb.npy cat\n");
  auto d = openDataset(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(dir + "/labels.csv line 3: expected 'file,label' (several accepted labels separated by '|'), got "
                  "'b.npy cat'",
            d.error());
  auto other = openDataset(dir, dir + "/other_labels.csv");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(std::string::npos, other.error().find(dir + "/other_labels.csv")) << other.error();
  auto map = readLabelMap(dir + "/missing_labels.txt");
  ASSERT_FALSE(map.ok());
  EXPECT_NE(std::string::npos, map.error().find(dir + "/missing_labels.txt")) << map.error();
}

TEST(Dataset, LabelNamingNoClassIsAnError) {
  GDS_REQUIRE_SHARED();
  auto p = loadPair();
  const std::string dir = test::tempDir();
  std::filesystem::copy_file(test::dataPath("images/chelsea.png"), dir + "/chelsea.png");
  writeText(dir + "/labels.csv", "file,label\nchelsea.png,tabby|tabbby cat\n");
  auto d = openDataset(dir);
  ASSERT_TRUE(d.ok()) << d.error();
  DatasetOptions options;
  options.label_map = p.label_map;
  auto r = evaluateDataset(p.float_graph, p.quant_graph, p.input, *d, {kOutput}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(dir + "/labels.csv: 'chelsea.png' is labelled 'tabbby cat', which names no class of the label map",
            r.error());
}

TEST(Dataset, BadSampleNamesTheFile) {
  GDS_REQUIRE_SHARED();
  auto p = loadPair();
  const std::string dir = test::tempDir();
  writeText(dir + "/broken.png", "not a png");
  auto d = openDataset(dir);
  ASSERT_TRUE(d.ok()) << d.error();
  auto r = evaluateDataset(p.float_graph, p.quant_graph, p.input, *d, {kOutput}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(0u, r.error().find(dir + "/broken.png: ")) << r.error();
  std::filesystem::remove(dir + "/broken.png");
  writeText(dir + "/clip.wav", "RIFF");
  auto d2 = openDataset(dir);
  ASSERT_TRUE(d2.ok());
  auto r2 = evaluateDataset(p.float_graph, p.quant_graph, p.input, *d2, {kOutput}, {});
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(dir + "/clip.wav: unsupported input file (expected .npy, .png, .jpg or, for string inputs, any file)",
            r2.error());
}

}  // namespace
}  // namespace gds::engine
