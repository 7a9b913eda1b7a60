#include "ui/input_source.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "engine/eval/dataset.h"
#include "engine/eval/feeds.h"
#include "model/io.h"

namespace gds::ui {
namespace {

std::string fileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return out;
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::string what(const IoMark& input) { return "input '" + input.name + "'"; }

// Known dimensions must match; -1 in the mark accepts any size.
Status checkShape(const engine::Tensor& t, const IoMark& input, const std::string& path) {
  if (!input.shape_known || t.dtype() == tensorflow::DT_STRING) return Status::Ok();
  bool ok = t.shape().size() == input.shape.size();
  for (size_t i = 0; ok && i < input.shape.size(); ++i) ok = input.shape[i] < 0 || input.shape[i] == t.shape()[i];
  if (ok) return Status::Ok();
  return Status::Error(what(input) + ": " + path + " has shape " + model::shapeString(t.shape()) +
                       " but the input takes " + model::shapeString(input.shape));
}

engine::InputSpec specOf(const IoMark& input) {
  engine::InputSpec spec;
  spec.name = input.name;
  spec.dtype = input.dtype;
  if (input.shape_known) spec.shape = input.shape;
  return spec;
}

}  // namespace

std::string InputSource::describe() const {
  switch (kind) {
    case Kind::Zeros: return "zeros";
    case Kind::Random: return "random (seed " + std::to_string(seed) + ")";
    case Kind::Values: return "values " + values;
    case Kind::NpyFiles: {
      std::string out;
      for (const auto& f : files) out += (out.empty() ? "" : ", ") + fileName(f);
      return "files " + out;
    }
    case Kind::DatasetSample: return "sample " + (sample.empty() ? dataset_dir : fileName(sample));
  }
  return std::string();
}

Result<std::vector<std::string>> listDatasetSamples(const std::string& folder) {
  if (folder.empty()) return Status::Error("no dataset folder given");
  // The files the Accuracy panel and gdstudio compare --dataset read (engine::openDataset).
  auto dataset = engine::openDataset(folder);
  if (!dataset.ok()) return Status::Error("dataset folder " + dataset.error());
  std::vector<std::string> out;
  for (const auto& f : dataset->files) out.push_back((std::filesystem::path(folder) / f).string());
  if (out.empty()) return Status::Error("dataset folder '" + folder + "' has no input files");
  return out;
}

Result<model::Shape> concreteShape(const IoMark& input) {
  if (!input.shape_known)
    return Status::Error(what(input) + ": its shape is unknown; set it in the Inputs & outputs dock");
  model::Shape shape = input.shape;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] >= 0) continue;
    if (i == 0) {
      shape[i] = 1;  // the batch dimension
      continue;
    }
    return Status::Error(what(input) + ": dimension " + std::to_string(i) + " of " + model::shapeString(input.shape) +
                         " is unknown; set the shape in the Inputs & outputs dock");
  }
  return shape;
}

Result<engine::Tensor> feedFromFile(const std::string& path, const IoMark& input, const ImagePreprocess& image) {
  engine::ImagePreprocess pre;
  pre.height = image.height;
  pre.width = image.width;
  pre.mean = static_cast<float>(image.mean);
  pre.std_dev = static_cast<float>(image.std);
  auto t = engine::loadSample(path, specOf(input), pre);
  if (!t.ok()) return t.status().withContext(what(input));
  GDS_RETURN_IF_ERROR(checkShape(*t, input, path));
  return t;
}

Result<std::vector<engine::Tensor>> makeFeeds(const InputSource& source, const std::vector<IoMark>& marks) {
  std::vector<const IoMark*> inputs;
  for (const IoMark& m : marks)
    if (m.kind == IoMark::Kind::Input) inputs.push_back(&m);
  std::vector<engine::Tensor> feeds;
  using Kind = InputSource::Kind;
  std::vector<std::string> values;
  if (source.kind == Kind::Values) {
    values = split(source.values, ':');
    if (values.size() != 1 && values.size() != inputs.size())
      return Status::Error("values give " + std::to_string(values.size()) + " lists (separated by ':') for " +
                           std::to_string(inputs.size()) + " inputs");
  }
  if (source.kind == Kind::NpyFiles && source.files.size() != inputs.size())
    return Status::Error("give one file per input: " + std::to_string(source.files.size()) + " file(s) for " +
                         std::to_string(inputs.size()) + " input(s)");
  std::string sample;
  if (source.kind == Kind::DatasetSample) {
    if (inputs.size() != 1)
      return Status::Error("a dataset sample feeds a model with one input; " + std::to_string(inputs.size()) +
                           " inputs are marked");
    sample = source.sample;
    if (sample.empty()) {
      auto files = listDatasetSamples(source.dataset_dir);
      if (!files.ok()) return files.status().withContext(what(*inputs[0]));
      sample = files->front();
    } else if (!std::filesystem::path(sample).is_absolute() && !source.dataset_dir.empty()) {
      sample = (std::filesystem::path(source.dataset_dir) / sample).string();
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const IoMark& input = *inputs[i];
    Result<engine::Tensor> t = Status::Error("no value");
    switch (source.kind) {
      case Kind::NpyFiles: t = feedFromFile(trim(source.files[i]), input, source.image); break;
      case Kind::DatasetSample: t = feedFromFile(sample, input, source.image); break;
      case Kind::Zeros:
      case Kind::Random:
      case Kind::Values: {
        auto shape = concreteShape(input);
        if (!shape.ok()) return shape.status();
        if (source.kind == Kind::Random)
          t = engine::randomTensor(input.dtype, *shape, source.seed + i, what(input));
        else
          t = engine::tensorFromValues(input.dtype, *shape,
                                       source.kind == Kind::Values ? trim(values.size() == 1 ? values[0] : values[i]) : "",
                                       what(input));
        break;
      }
    }
    if (!t.ok()) return t.status();
    feeds.push_back(std::move(*t));
  }
  return feeds;
}

// ---------------------------------------------------------------- widget

void InputSourceWidget::setLabel(const QString& text) {
  auto* label = new QLabel(text, this);
  label->setBuddy(kind_);
  label->setToolTip(kind_->toolTip());
  head_->insertWidget(0, label);
}

InputSourceWidget::InputSourceWidget(QWidget* parent) : QWidget(parent) {
  setObjectName("InputSource");
  auto* col = new QVBoxLayout(this);
  col->setContentsMargins(0, 0, 0, 0);
  kind_ = new QComboBox(this);
  kind_->addItem(tr("Zeros"));
  kind_->addItem(tr("Random (seeded)"));
  kind_->addItem(tr("Values"));
  kind_->addItem(tr(".npy file per input"));
  kind_->addItem(tr("Sample from a dataset folder"));
  kind_->setToolTip(tr("What to feed to the marked inputs"));
  pages_ = new QStackedWidget(this);

  pages_->addWidget(new QWidget(pages_));  // zeros: nothing to set

  auto* random = new QWidget(pages_);
  auto* rform = new QFormLayout(random);
  rform->setContentsMargins(0, 0, 0, 0);
  seed_ = new QSpinBox(random);
  seed_->setRange(0, 1 << 30);
  seed_->setValue(1);
  seed_->setToolTip(tr("The same seed gives the same values (floats in [0, 1), integers in [0, 256))"));
  rform->addRow(tr("Seed:"), seed_);
  pages_->addWidget(random);

  auto* vals = new QWidget(pages_);
  auto* vform = new QFormLayout(vals);
  vform->setContentsMargins(0, 0, 0, 0);
  values_ = new QLineEdit(vals);
  values_->setPlaceholderText(tr("0.5 or 1,2,3 (':' between inputs)"));
  values_->setToolTip(tr("benchmark_model's --input_layer_values: values repeat to fill the input"));
  vform->addRow(tr("Values:"), values_);
  pages_->addWidget(vals);

  auto* files = new QWidget(pages_);
  auto* frow = new QHBoxLayout(files);
  frow->setContentsMargins(0, 0, 0, 0);
  files_ = new QLineEdit(files);
  files_->setPlaceholderText(tr("input.npy (',' between inputs)"));
  auto* browse_files = new QPushButton(tr("Browse…"), files);
  frow->addWidget(files_, 1);
  frow->addWidget(browse_files);
  pages_->addWidget(files);

  auto* data = new QWidget(pages_);
  auto* dform = new QFormLayout(data);
  dform->setContentsMargins(0, 0, 0, 0);
  auto* drow = new QHBoxLayout;
  dataset_ = new QLineEdit(data);
  dataset_->setPlaceholderText(tr("folder of images, WAV clips or .npy files"));
  auto* browse_dir = new QPushButton(tr("Browse…"), data);
  drow->addWidget(dataset_, 1);
  drow->addWidget(browse_dir);
  dform->addRow(tr("Folder:"), drow);
  sample_ = new QComboBox(data);
  sample_->setToolTip(tr("The file fed to the model"));
  dform->addRow(tr("Sample:"), sample_);
  auto* size_row = new QHBoxLayout;
  height_ = new QSpinBox(data);
  width_ = new QSpinBox(data);
  for (QSpinBox* s : {height_, width_}) {
    s->setRange(0, 8192);
    s->setSpecialValueText(tr("auto"));
    s->setToolTip(tr("Image size after resizing; auto: the input's own height and width"));
    size_row->addWidget(s);
  }
  size_row->addStretch();
  dform->addRow(tr("Image H × W:"), size_row);
  auto* norm_row = new QHBoxLayout;
  mean_ = new QDoubleSpinBox(data);
  std_ = new QDoubleSpinBox(data);
  for (QDoubleSpinBox* s : {mean_, std_}) {
    s->setRange(-100000, 100000);
    s->setDecimals(3);
    s->setValue(127.5);
    norm_row->addWidget(s);
  }
  mean_->setToolTip(tr("Subtracted from each pixel"));
  std_->setToolTip(tr("Each pixel is divided by this after subtracting the mean"));
  norm_row->addStretch();
  dform->addRow(tr("Mean, std:"), norm_row);
  pages_->addWidget(data);

  hint_ = new QLabel(this);
  hint_->setWordWrap(true);
  hint_->setEnabled(false);
  head_ = new QHBoxLayout;
  head_->addWidget(kind_, 1);
  col->addLayout(head_);
  col->addWidget(pages_);
  col->addWidget(hint_);

  connect(kind_, &QComboBox::currentIndexChanged, this, [this](int i) {
    pages_->setCurrentIndex(i);
    // Only the chosen page takes space.
    for (int k = 0; k < pages_->count(); ++k)
      pages_->widget(k)->setSizePolicy(QSizePolicy::Preferred, k == i ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    pages_->adjustSize();
    emit changed();
  });
  connect(seed_, &QSpinBox::valueChanged, this, &InputSourceWidget::changed);
  connect(values_, &QLineEdit::textChanged, this, &InputSourceWidget::changed);
  connect(files_, &QLineEdit::textChanged, this, &InputSourceWidget::changed);
  connect(dataset_, &QLineEdit::editingFinished, this, &InputSourceWidget::refreshSamples);
  connect(sample_, &QComboBox::currentIndexChanged, this, &InputSourceWidget::changed);
  for (QSpinBox* s : {height_, width_}) connect(s, &QSpinBox::valueChanged, this, &InputSourceWidget::changed);
  for (QDoubleSpinBox* s : {mean_, std_}) connect(s, &QDoubleSpinBox::valueChanged, this, &InputSourceWidget::changed);
  connect(browse_files, &QPushButton::clicked, this, &InputSourceWidget::browseFiles);
  connect(browse_dir, &QPushButton::clicked, this, &InputSourceWidget::browseDataset);
  kind_->setCurrentIndex(0);
  for (int k = 1; k < pages_->count(); ++k) pages_->widget(k)->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
}

InputSource InputSourceWidget::value() const {
  InputSource s;
  s.kind = static_cast<InputSource::Kind>(kind_->currentIndex());
  s.seed = static_cast<std::uint64_t>(seed_->value());
  s.values = values_->text().trimmed().toStdString();
  for (const QString& f : files_->text().split(',', Qt::SkipEmptyParts)) s.files.push_back(f.trimmed().toStdString());
  s.dataset_dir = dataset_->text().trimmed().toStdString();
  s.sample = sample_->currentData().toString().toStdString();
  s.image.height = height_->value();
  s.image.width = width_->value();
  s.image.mean = mean_->value();
  s.image.std = std_->value();
  return s;
}

void InputSourceWidget::setValue(const InputSource& s) {
  seed_->setValue(static_cast<int>(s.seed));
  values_->setText(QString::fromStdString(s.values));
  QStringList files;
  for (const auto& f : s.files) files << QString::fromStdString(f);
  files_->setText(files.join(','));
  dataset_->setText(QString::fromStdString(s.dataset_dir));
  refreshSamples();
  if (!s.sample.empty()) {
    int i = sample_->findData(QString::fromStdString(s.sample));
    if (i < 0) i = sample_->findText(QString::fromStdString(fileName(s.sample)));
    if (i >= 0) sample_->setCurrentIndex(i);
  }
  height_->setValue(s.image.height);
  width_->setValue(s.image.width);
  mean_->setValue(s.image.mean);
  std_->setValue(s.image.std);
  kind_->setCurrentIndex(static_cast<int>(s.kind));
  emit changed();
}

void InputSourceWidget::setInputNames(const std::vector<std::string>& names) {
  input_names_ = names;
  QStringList list;
  for (const auto& n : names) list << QString::fromStdString(n);
  hint_->setText(names.empty() ? tr("No input marked: the graph runs without feeds")
                               : tr("Feeds %n input(s): %1", nullptr, static_cast<int>(names.size())).arg(list.join(", ")));
}

void InputSourceWidget::browseFiles() {
  const QStringList files =
      QFileDialog::getOpenFileNames(this, tr("Input files, in the order of the inputs"), QString(),
                                    tr("NumPy arrays (*.npy);;All files (*)"));
  if (!files.isEmpty()) files_->setText(files.join(','));
}

void InputSourceWidget::browseDataset() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Dataset folder"), dataset_->text());
  if (dir.isEmpty()) return;
  dataset_->setText(dir);
  refreshSamples();
}

void InputSourceWidget::refreshSamples() {
  const QString keep = sample_->currentData().toString();
  sample_->blockSignals(true);
  sample_->clear();
  auto files = listDatasetSamples(dataset_->text().trimmed().toStdString());
  if (files.ok())
    for (const auto& f : *files) sample_->addItem(QString::fromStdString(fileName(f)), QString::fromStdString(f));
  const int i = sample_->findData(keep);
  sample_->setCurrentIndex(i >= 0 ? i : 0);
  sample_->blockSignals(false);
  emit changed();
}

}  // namespace gds::ui
