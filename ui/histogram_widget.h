// A small bar chart of a tensor's value histogram (bins from TensorStats).
#pragma once

#include <QWidget>

#include <cstdint>
#include <vector>

namespace gds::ui {

class HistogramWidget : public QWidget {
  Q_OBJECT
 public:
  explicit HistogramWidget(QWidget* parent = nullptr);
  void setHistogram(std::vector<std::int64_t> bins, double min, double max);
  QSize sizeHint() const override { return QSize(240, 90); }
  QSize minimumSizeHint() const override { return QSize(120, 60); }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<std::int64_t> bins_;
  double min_ = 0, max_ = 0;
};

}  // namespace gds::ui
