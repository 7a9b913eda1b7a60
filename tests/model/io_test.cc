#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "model/graph.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

TEST(Load, MobilenetFrozenBinary) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->kind, ModelKind::GraphDef);
  EXPECT_FALSE(m->text);
  EXPECT_EQ(m->graph.node_size(), 555);
  EXPECT_EQ(m->file_bytes, 1998252);
  auto g = Graph::build(m->graph);
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(g->size(), 555);
}

// loadBytes recognises the bytes as load() recognises a file: binary and
// text GraphDefs and .tflite models give the same graphs, and errors name
// the name given for the bytes.
TEST(LoadBytes, SameModelsAsLoad) {
  const std::string sample = test::sourceDir() + "/resources/sample_model.pb";
  auto bytes = readFile(sample);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  auto from_file = load(sample);
  auto from_bytes = loadBytes(*bytes, "<bytes>");
  ASSERT_TRUE(from_file.ok() && from_bytes.ok()) << from_bytes.error();
  EXPECT_EQ(from_bytes->kind, ModelKind::GraphDef);
  EXPECT_FALSE(from_bytes->text);
  EXPECT_EQ(from_bytes->path, "<bytes>");
  EXPECT_EQ(from_bytes->file_bytes, static_cast<std::int64_t>(bytes->size()));
  EXPECT_EQ(serialize(from_bytes->graph), serialize(from_file->graph));
  auto text = loadBytes(toText(from_file->graph), "graph.pbtxt");
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_TRUE(text->text);
  EXPECT_EQ(serialize(text->graph), serialize(from_file->graph));

  auto empty = loadBytes("", "blob");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error(), "blob: file is empty");
  auto junk = loadBytes(std::string("\xff\xff\xff\xff garbage", 12), "blob");
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error(), "blob: not a valid GraphDef (corrupt or truncated protobuf, 12 bytes)");
}

TEST(LoadBytes, Tflite) {
  GDS_REQUIRE_SHARED();
  const std::string path = test::modelPath("tflite/hello_world_int8.tflite");
  auto bytes = readFile(path);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  auto from_file = load(path);
  auto from_bytes = loadBytes(*bytes, "hello.tflite");
  ASSERT_TRUE(from_file.ok() && from_bytes.ok()) << from_bytes.error();
  EXPECT_EQ(from_bytes->kind, ModelKind::TFLite);
  EXPECT_EQ(from_bytes->producer, from_file->producer);
  EXPECT_EQ(serialize(from_bytes->graph), serialize(from_file->graph));
  auto truncated = loadBytes(bytes->substr(0, 64), "hello.tflite");
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().rfind("hello.tflite: ", 0), 0u) << truncated.error();
}

TEST(Load, MissingFile) {
  auto m = load("/nonexistent/model.pb");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), "/nonexistent/model.pb: no such file");
}

// findModels sees a folder as File > Open does: a SavedModel folder is one
// model; its side files and variables are not.
TEST(FindModels, SavedModelFolderIsOneModel) {
  namespace fs = std::filesystem;
  fs::path root = test::tempDir();
  fs::create_directories(root / "sm" / "variables");
  fs::create_directories(root / "deeper" / "tf1");
  auto touch = [](const fs::path& p) { std::ofstream(p) << "x"; };
  touch(root / "sm" / "saved_model.pb");
  touch(root / "sm" / "keras_metadata.pb");
  touch(root / "sm" / "fingerprint.pb");
  touch(root / "sm" / "variables" / "variables.index");
  touch(root / "deeper" / "tf1" / "saved_model.pbtxt");
  touch(root / "deeper" / "frozen.PB");
  touch(root / "deeper" / "graph.pbtxt");
  touch(root / "train.meta");
  touch(root / "labels.txt");
  std::vector<std::string> want = {(root / "deeper" / "frozen.PB").string(), (root / "deeper" / "graph.pbtxt").string(),
                                   (root / "deeper" / "tf1").string(), (root / "sm").string(),
                                   (root / "train.meta").string()};
  EXPECT_EQ(findModels(root.string()), want);
  EXPECT_EQ(findModels((root / "sm").string()), std::vector<std::string>{(root / "sm").string()});
}

TEST(Load, SavedModelSideFileNamesItsFolder) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::modelPath("tf2/tweet_sentiment_embedding_lstm");
  auto m = load(dir + "/keras_metadata.pb");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), dir + "/keras_metadata.pb: this is the Keras metadata of the SavedModel in " + dir +
                           ", not a graph; open that folder (or its saved_model.pb) instead");
  dir = test::modelPath("tf2/stock_lstm4_relu");
  m = load(dir + "/fingerprint.pb");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), dir + "/fingerprint.pb: this is the fingerprint of the SavedModel in " + dir +
                           ", not a graph; open that folder (or its saved_model.pb) instead");
}

TEST(FindModels, CorpusHoldsEveryTf2SavedModelOnce) {
  GDS_REQUIRE_SHARED();
  auto models = findModels(test::modelPath(""));
  int tf2 = 0;
  for (const auto& m : models) {
    EXPECT_EQ(m.find("keras_metadata.pb"), std::string::npos) << m;
    EXPECT_EQ(m.find("fingerprint.pb"), std::string::npos) << m;
    EXPECT_EQ(m.find("/variables/"), std::string::npos) << m;
    tf2 += m.find("/tf2/") != std::string::npos;
  }
  EXPECT_EQ(tf2, 7);
  EXPECT_TRUE(std::count(models.begin(), models.end(), test::modelPath("tfserving_half_plus_two_savedmodel")));
}

}  // namespace
}  // namespace gds::model
