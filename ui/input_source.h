// What the Benchmark and Accuracy panels feed to a graph: zeros, seeded
// random values, a list of values, one .npy file per input, or one sample
// of a dataset folder (an image resized and normalized as `gdstudio compare`
// does, a WAV clip for a string input, or a .npy file). InputSource is the
// value (copied to workers); InputSourceWidget edits it; makeFeeds turns it
// into one tensor per marked input with engine/eval/feeds.h.
//
//   InputSource src = widget->value();                         // GUI thread
//   auto marks = document->ioMarks();
//   auto feeds = makeFeeds(src, marks);   // any thread; errors name the input and file
#pragma once

#include <QWidget>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "model/status.h"
#include "ui/document.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QHBoxLayout;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace gds::ui {

// Image preprocessing for dataset samples: decode (PNG/JPEG) to RGB, resize
// bilinearly to height x width (0: the input's own shape), then
// (pixel - mean) / std, as gdstudio compare's --input_size/--input_mean/--input_std.
struct ImagePreprocess {
  int height = 0, width = 0;
  double mean = 127.5;
  double std = 127.5;
};

struct InputSource {
  enum class Kind { Zeros, Random, Values, NpyFiles, DatasetSample };
  Kind kind = Kind::Zeros;
  std::uint64_t seed = 1;            // Random
  // Values: "1,2,3" for every input, or one list per input separated by ':'
  // (benchmark_model's --input_layer_values); fewer values repeat cyclically.
  std::string values;
  std::vector<std::string> files;    // NpyFiles: one per marked input, in order
  std::string dataset_dir;           // DatasetSample: the folder
  std::string sample;                // DatasetSample: a file in the folder (empty: the first)
  ImagePreprocess image;             // DatasetSample images

  // One line for headlines and reports, e.g. "random (seed 1)", "sample cat.jpg".
  std::string describe() const;
};

// The sample files of a dataset folder (full paths), as engine::openDataset
// lists them: every file but .csv/.txt/.md, sorted by name; errors name the folder.
Result<std::vector<std::string>> listDatasetSamples(const std::string& folder);

// A fully known shape for generated values: an unknown leading (batch)
// dimension becomes 1; any other unknown dimension or an unknown rank is an
// error naming the input.
Result<model::Shape> concreteShape(const IoMark& input);

// One tensor per marked input (marks of kind Output are skipped), in the
// order of the marks. Errors name the input and, for files, the file
// ("input 'input': x.npy has shape [2,3] but the input takes [1,128,128,3]").
Result<std::vector<engine::Tensor>> makeFeeds(const InputSource& source, const std::vector<IoMark>& marks);
// The feed for one input from one file, read by engine::loadSample (the
// loader of gdstudio compare --dataset): .npy, PNG/JPEG images (float inputs
// normalized with `image`, uint8 inputs get the resized pixels), any file for
// a string input. .npy shapes are checked against the input's known dims.
Result<engine::Tensor> feedFromFile(const std::string& path, const IoMark& input, const ImagePreprocess& image);

// Edits an InputSource: a kind selector and the fields of that kind.
class InputSourceWidget : public QWidget {
  Q_OBJECT
 public:
  explicit InputSourceWidget(QWidget* parent = nullptr);
  // A label beside the source choice, for short settings columns.
  void setLabel(const QString& text);

  InputSource value() const;
  void setValue(const InputSource& source);
  // The number of marked inputs, to say how many files/values are expected.
  void setInputNames(const std::vector<std::string>& names);

  QComboBox* kindCombo() const { return kind_; }
  QLineEdit* filesEdit() const { return files_; }
  QLineEdit* valuesEdit() const { return values_; }
  QLineEdit* datasetEdit() const { return dataset_; }
  QComboBox* sampleCombo() const { return sample_; }

 signals:
  void changed();

 private:
  void browseFiles();
  void browseDataset();
  void refreshSamples();

  QComboBox* kind_;
  QHBoxLayout* head_;
  QStackedWidget* pages_;
  QSpinBox* seed_;
  QLineEdit* values_;
  QLineEdit* files_;
  QLineEdit* dataset_;
  QComboBox* sample_;
  QSpinBox *height_, *width_;
  QDoubleSpinBox *mean_, *std_;
  QLabel* hint_;
  std::vector<std::string> input_names_;
};

}  // namespace gds::ui
