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
  // Two lines at `lo` and `hi` (within [min, max]), what lies outside them
  // greyed: a quantization range over the values. Cleared by setHistogram.
  void setRangeMarks(double lo, double hi);
  QSize sizeHint() const override { return QSize(240, 90); }
  QSize minimumSizeHint() const override { return QSize(120, 60); }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<std::int64_t> bins_;
  double min_ = 0, max_ = 0;
  bool marks_ = false;
  double mark_lo_ = 0, mark_hi_ = 0;
};

}  // namespace gds::ui
