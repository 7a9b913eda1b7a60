// The Node properties dock: op, name, device, inputs and consumers as links
// that select that node, attributes by type, for constant tensors their
// statistics, a histogram, the first values and "Save as .npy", and for a
// tensor the last int8 export calibrated, its histogram with the range
// chosen and the share of values that range clips.
#pragma once

#include <QFutureWatcher>
#include <QWidget>

#include <memory>

#include "ui/node_properties.h"
#include "ui/tensor_stats.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QTextBrowser;
class QGroupBox;
class QScrollArea;

namespace gds::ui {

class Document;
class HistogramWidget;

struct DecodedTensor {
  std::shared_ptr<const model::HostTensor> tensor;
  TensorStats stats;
  std::string error;
  std::string node;
};

class PropertiesPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PropertiesPanel(Document* document, QWidget* parent = nullptr);
  ~PropertiesPanel() override;

  const NodeProperties& properties() const { return props_; }
  // The tensor being shown (null while decoding or when the node has none).
  const DecodedTensor* tensor() const { return decoded_.tensor || !decoded_.error.empty() ? &decoded_ : nullptr; }
  QString html() const;
  // The calibration shown for the selected node ("" when none).
  QString calibrationText() const;
  // Writes the shown tensor as .npy; returns an error message or "".
  QString saveTensor(const QString& path) const;

 signals:
  void tensorReady();

 private:
  void refresh();
  void showTensor(int source_index);
  void onTensorDecoded();
  void saveTensorInteractive();
  void showCalibration(const std::string& node);

  Document* document_;
  NodeProperties props_;
  QTextBrowser* text_;
  QGroupBox* calibration_box_;
  QLabel* calibration_label_;
  HistogramWidget* calibration_histogram_;
  QScrollArea* tensor_scroll_;
  QGroupBox* tensor_box_;
  QComboBox* tensor_source_;
  QLabel* stats_label_;
  HistogramWidget* histogram_;
  QTableWidget* values_;
  QPushButton* save_npy_;
  QFutureWatcher<DecodedTensor> watcher_;
  DecodedTensor decoded_;
  int decode_generation_ = 0;
};

}  // namespace gds::ui
