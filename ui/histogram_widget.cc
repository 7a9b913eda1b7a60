#include "ui/histogram_widget.h"

#include <QPainter>

#include <algorithm>

namespace gds::ui {

HistogramWidget::HistogramWidget(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setFixedHeight(90);
}

void HistogramWidget::setHistogram(std::vector<std::int64_t> bins, double min, double max) {
  bins_ = std::move(bins);
  min_ = min;
  max_ = max;
  marks_ = false;
  setToolTip(bins_.empty() ? QString() : tr("%1 bins from %2 to %3").arg(bins_.size()).arg(min_).arg(max_));
  update();
}

void HistogramWidget::setRangeMarks(double lo, double hi) {
  marks_ = true;
  mark_lo_ = lo;
  mark_hi_ = hi;
  update();
}

void HistogramWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (bins_.empty()) return;
  const int label_h = fontMetrics().height() + 2;
  QRectF plot = QRectF(rect()).adjusted(4, 4, -4, -label_h);
  const std::int64_t peak = std::max<std::int64_t>(1, *std::max_element(bins_.begin(), bins_.end()));
  const double w = plot.width() / static_cast<double>(bins_.size());
  p.setPen(Qt::NoPen);
  p.setBrush(palette().highlight());
  for (std::size_t i = 0; i < bins_.size(); ++i) {
    if (!bins_[i]) continue;
    // At least one pixel, so rare values stay visible.
    double h = std::max(1.0, plot.height() * static_cast<double>(bins_[i]) / static_cast<double>(peak));
    p.drawRect(QRectF(plot.left() + static_cast<double>(i) * w, plot.bottom() - h, std::max(1.0, w - 1), h));
  }
  if (marks_ && max_ > min_) {
    auto xOf = [&](double v) { return plot.left() + plot.width() * std::clamp((v - min_) / (max_ - min_), 0.0, 1.0); };
    const double lo = xOf(mark_lo_), hi = xOf(mark_hi_);
    QColor shade = palette().text().color();
    shade.setAlpha(40);
    p.fillRect(QRectF(plot.left(), plot.top(), lo - plot.left(), plot.height()), shade);
    p.fillRect(QRectF(hi, plot.top(), plot.right() - hi, plot.height()), shade);
    p.setPen(QPen(QColor(200, 60, 40), 1.5));
    p.drawLine(QPointF(lo, plot.top()), QPointF(lo, plot.bottom()));
    p.drawLine(QPointF(hi, plot.top()), QPointF(hi, plot.bottom()));
  }
  p.setPen(palette().text().color());
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  QRectF labels(plot.left(), plot.bottom() + 1, plot.width(), label_h);
  p.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, QString::number(min_, 'g', 4));
  p.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, QString::number(max_, 'g', 4));
}

}  // namespace gds::ui
