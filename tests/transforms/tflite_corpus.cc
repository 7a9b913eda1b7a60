#include "tests/transforms/tflite_corpus.h"

#include <gtest/gtest.h>

#include "engine/eval/dataset.h"
#include "tests/test_util.h"
#include "transforms/tflite/calibrate.h"

namespace gds::transforms::tflite {

const std::vector<ExportedCorpusModel>& exportedCorpus() {
  static const std::vector<ExportedCorpusModel> models = {
      {"mobilenet_v1_0.25_128_frozen.pb", {"input"}, {}, "MobilenetV1/Predictions/Reshape_1", "images",
       "MobilenetV1/Logits/SpatialSqueeze"},
      {"generated/mobilenet_v1_1.0_224_random.pb", {"input"}, {}, "MobilenetV1/Predictions/Reshape_1", "images", ""},
      {"generated/inception_mini.pb", {"input"}, {}, "softmax", "images", ""},
      {"kws_ds_cnn_s.pb", {"Mfcc"}, {{1, 49, 10}}, "labels_softmax", "speech", "MobileNet/fc1/BiasAdd"},
      {"kws_cnn_s.pb", {"Mfcc"}, {{1, 49, 10}}, "labels_softmax", "speech", "add_4"},
  };
  return models;
}

const std::vector<ExportedCorpusModel>& recurrentCorpus() {
  static const std::vector<ExportedCorpusModel> models = {
      {"kws_lstm_s.pb", {"Mfcc"}, {{1, 25, 10}}, "labels_softmax", "speech", ""},
      {"kws_crnn_s.pb", {"Mfcc"}, {{1, 49, 10}}, "labels_softmax", "speech", ""},
  };
  return models;
}

ConvertOptions corpusConvertOptions(const ExportedCorpusModel& m) {
  ConvertOptions o;
  o.inputs = m.inputs;
  o.input_shapes = m.input_shapes;
  o.outputs = {m.output};
  return o;
}

std::vector<std::vector<engine::Tensor>> corpusSamples(const ExportedCorpusModel& m, const tensorflow::GraphDef& graph,
                                                       std::size_t limit) {
  auto d = engine::openDataset(gds::test::dataPath(m.data));
  EXPECT_TRUE(d.ok()) << d.error();
  std::vector<std::string> files;
  if (d.ok())
    for (const auto& f : d->files) files.push_back(d->dir + "/" + f);
  if (files.size() > limit) files.resize(limit);
  engine::ImagePreprocess preprocess;  // mean 127.5, std 127.5
  auto samples = calibrationSamples(graph, m.inputs, files, preprocess);
  EXPECT_TRUE(samples.ok()) << samples.error();
  return samples.ok() ? std::move(*samples) : std::vector<std::vector<engine::Tensor>>{};
}

}  // namespace gds::transforms::tflite
