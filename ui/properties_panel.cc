#include "ui/properties_panel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "model/attr.h"
#include "model/npy.h"
#include "ui/calibration_view.h"
#include "ui/document.h"
#include "ui/histogram_widget.h"

namespace gds::ui {
namespace {

constexpr int kMaxRows = 64;
constexpr int kMaxColumns = 16;
// Below a bottom dock at 768 pixels the dock has about 140 pixels: the node's
// text and its tensor view each keep a few lines there and scroll.
constexpr int kMinPartHeight = 48;

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

QString link(const NodeLink& l) {
  QUrl url;
  url.setScheme("node");
  url.setPath(QString::fromStdString(l.node));
  return QString("<a href=\"%1\">%2</a>").arg(url.toString(QUrl::FullyEncoded).toHtmlEscaped(), esc(l.text));
}

DecodedTensor decode(GraphPtr graph, std::string node_name) {
  DecodedTensor out;
  out.node = node_name;
  for (const auto& n : graph->node()) {
    if (n.name() != node_name) continue;
    const tensorflow::AttrValue* value = model::findAttr(n, "value");
    if (!value || !value->has_tensor()) break;
    auto t = model::decodeTensor(value->tensor());
    if (!t.ok()) {
      out.error = node_name + ": " + t.error();
      return out;
    }
    out.stats = computeTensorStats(*t);
    out.tensor = std::make_shared<model::HostTensor>(std::move(t).value());
    return out;
  }
  out.error = node_name + ": no tensor value";
  return out;
}

QString valueText(const model::HostTensor& t, std::int64_t i) {
  if (t.dtype == tensorflow::DT_STRING) return QString::fromStdString(t.strings[static_cast<std::size_t>(i)]);
  return QString::number(t.valueAt(i), 'g', 5);
}

}  // namespace

PropertiesPanel::PropertiesPanel(Document* document, QWidget* parent) : QWidget(parent), document_(document) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  text_ = new QTextBrowser(this);
  text_->setOpenLinks(false);
  text_->setOpenExternalLinks(false);
  text_->setMinimumHeight(kMinPartHeight);
  layout->addWidget(text_, 3);

  // The calibration and tensor views are taller than the dock gets under
  // the Benchmark and Accuracy docks: they scroll together instead of
  // setting the dock's minimum height, which would push the window past the
  // screen.
  tensor_scroll_ = new QScrollArea(this);
  tensor_scroll_->setWidgetResizable(true);
  tensor_scroll_->setFrameShape(QFrame::NoFrame);
  tensor_scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  tensor_scroll_->setMinimumHeight(kMinPartHeight);
  auto* scrolled = new QWidget(tensor_scroll_);
  auto* sl = new QVBoxLayout(scrolled);
  sl->setContentsMargins(0, 0, 0, 0);

  calibration_box_ = new QGroupBox(tr("Calibration"), scrolled);
  calibration_box_->setObjectName("CalibrationBox");
  auto* cl = new QVBoxLayout(calibration_box_);
  calibration_label_ = new QLabel(calibration_box_);
  calibration_label_->setWordWrap(true);
  calibration_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  calibration_histogram_ = new HistogramWidget(calibration_box_);
  calibration_histogram_->setToolTip(tr("The values calibration saw; the red lines are the int8 range, what lies "
                                        "outside them is clipped"));
  cl->addWidget(calibration_label_);
  cl->addWidget(calibration_histogram_);
  calibration_box_->setVisible(false);
  sl->addWidget(calibration_box_);

  tensor_box_ = new QGroupBox(tr("Tensor"), scrolled);
  auto* tl = new QVBoxLayout(tensor_box_);
  tensor_source_ = new QComboBox(tensor_box_);
  tensor_source_->setToolTip(tr("The node's own value or one of its constant inputs (weights)"));
  stats_label_ = new QLabel(tensor_box_);
  stats_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  stats_label_->setWordWrap(true);
  histogram_ = new HistogramWidget(tensor_box_);
  values_ = new QTableWidget(tensor_box_);
  values_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  values_->horizontalHeader()->setDefaultSectionSize(86);
  values_->verticalHeader()->setDefaultSectionSize(values_->fontMetrics().height() + 4);
  save_npy_ = new QPushButton(tr("Save as .npy…"), tensor_box_);
  save_npy_->setToolTip(tr("Write the whole tensor as a NumPy .npy file"));
  tl->addWidget(tensor_source_);
  tl->addWidget(stats_label_);
  tl->addWidget(histogram_);
  tl->addWidget(values_, 1);
  tl->addWidget(save_npy_, 0, Qt::AlignRight);
  sl->addWidget(tensor_box_, 1);
  tensor_scroll_->setWidget(scrolled);
  layout->addWidget(tensor_scroll_, 4);

  connect(text_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    if (url.scheme() == "node") document_->select(url.path());
  });
  connect(tensor_source_, &QComboBox::currentIndexChanged, this, &PropertiesPanel::showTensor);
  connect(&watcher_, &QFutureWatcher<DecodedTensor>::finished, this, &PropertiesPanel::onTensorDecoded);
  connect(save_npy_, &QPushButton::clicked, this, &PropertiesPanel::saveTensorInteractive);
  connect(document_, &Document::selectionChanged, this, &PropertiesPanel::refresh);
  connect(document_, &Document::graphChanged, this, &PropertiesPanel::refresh);
  connect(document_, &Document::calibrationChanged, this, &PropertiesPanel::refresh);
  refresh();
}

PropertiesPanel::~PropertiesPanel() { watcher_.waitForFinished(); }

QString PropertiesPanel::html() const { return text_->toHtml(); }

void PropertiesPanel::refresh() {
  props_ = NodeProperties();
  const model::Graph* g = document_->index();
  const std::string name = document_->selection().toStdString();
  int index = g && !name.empty() ? g->find(name) : -1;
  if (index < 0) {
    QString msg;
    if (document_->isEmpty())
      msg = tr("No model open.");
    else if (!g)
      msg = tr("The graph cannot be indexed: %1").arg(esc(document_->indexError()));
    else
      msg = tr("Select a node in the graph to see its properties.");
    text_->setHtml("<p style='color:gray'>" + msg + "</p>");
    showCalibration("");
    tensor_scroll_->setVisible(false);
    tensor_source_->clear();
    return;
  }
  props_ = describeNode(*g, index);
  QString h;
  h += "<table cellspacing='2'>";
  auto row = [&h](const QString& k, const QString& v) {
    h += "<tr><td valign='top'><b>" + k + "</b></td><td>" + v + "</td></tr>";
  };
  row(tr("Op"), esc(props_.op) + " <span style='color:gray'>(" + esc(props_.category) + ")</span>");
  row(tr("Name"), esc(props_.name));
  row(tr("Device"), props_.device.empty() ? tr("<i>unassigned</i>") : esc(props_.device));
  h += "</table>";
  auto links = [&h](const QString& title, const std::vector<NodeLink>& list) {
    h += "<p><b>" + title + QString(" (%1)</b><br>").arg(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      h += QString("%1. ").arg(i) + link(list[i]);
      if (list[i].control) h += " <span style='color:gray'>control</span>";
      h += "<br>";
    }
    if (list.empty()) h += "<span style='color:gray'>none</span>";
    h += "</p>";
  };
  links(tr("Inputs"), props_.inputs);
  links(tr("Consumers"), props_.consumers);
  h += "<p><b>" + tr("Attributes") + "</b></p><table cellspacing='2'>";
  for (const auto& [k, v] : props_.attrs) {
    QString value = esc(v);
    if (value.size() > 400) value = value.left(400) + "…";
    h += "<tr><td valign='top'><tt>" + esc(k) + "</tt></td><td>" + value + "</td></tr>";
  }
  if (props_.attrs.empty()) h += "<tr><td style='color:gray'>none</td></tr>";
  h += "</table>";
  text_->setHtml(h);
  showCalibration(name);

  tensor_box_->setVisible(!props_.tensors.empty());
  tensor_scroll_->setVisible(!props_.tensors.empty() || !calibration_box_->isHidden());
  {
    QSignalBlocker block(tensor_source_);
    tensor_source_->clear();
    for (const auto& t : props_.tensors) tensor_source_->addItem(QString::fromStdString(t.label));
  }
  if (!props_.tensors.empty()) showTensor(0);
}

QString PropertiesPanel::calibrationText() const {
  return calibration_box_->isVisibleTo(this) ? calibration_label_->text() : QString();
}

// The histogram calibration collected, in 64 bars over its span (and the
// range's, which holds zero), with the int8 range marked.
void PropertiesPanel::showCalibration(const std::string& node) {
  const auto view = document_->calibration();
  const transforms::tflite::TensorStatistics* stats = view && !node.empty() ? view->find(node) : nullptr;
  calibration_box_->setVisible(stats != nullptr);
  if (!stats) return;
  const transforms::tflite::TensorRange seen = stats->observed(), chosen = stats->range(view->method);
  const double lo = std::min(chosen.min, 0.f), hi = std::max(chosen.max, 0.f);
  const double clipped = stats->clippedShare({static_cast<float>(lo), static_cast<float>(hi)});
  calibration_label_->setText(
      tr("%1, %2, %3 inputs<br>observed [%4, %5]; int8 range [%6, %7]; %8% of the values clipped")
          .arg(esc(std::filesystem::path(view->file).filename().string()),
               esc(transforms::tflite::calibrationMethodName(view->method.method)))
          .arg(stats->samples())
          .arg(seen.min, 0, 'g', 5)
          .arg(seen.max, 0, 'g', 5)
          .arg(lo, 0, 'g', 5)
          .arg(hi, 0, 'g', 5)
          .arg(100 * clipped, 0, 'g', 3));
  const std::vector<float> hist = stats->histogram();
  if (hist.empty()) {
    calibration_histogram_->setHistogram({}, 0, 0);
    return;
  }
  const double width = stats->binWidth(), first = stats->lowerBound();
  const double span_lo = std::min(first, lo), span_hi = std::max(first + width * static_cast<double>(hist.size()), hi);
  constexpr int kBars = 64;
  std::vector<std::int64_t> bars(kBars, 0);
  for (std::size_t i = 0; i < hist.size(); ++i) {
    if (hist[i] <= 0) continue;
    const double mid = first + (static_cast<double>(i) + 0.5) * width;
    const int bar = std::clamp(static_cast<int>((mid - span_lo) / (span_hi - span_lo) * kBars), 0, kBars - 1);
    bars[static_cast<std::size_t>(bar)] += static_cast<std::int64_t>(std::ceil(hist[i]));
  }
  calibration_histogram_->setHistogram(std::move(bars), span_lo, span_hi);
  calibration_histogram_->setRangeMarks(lo, hi);
}

void PropertiesPanel::showTensor(int source_index) {
  decoded_ = DecodedTensor();
  values_->clear();
  values_->setRowCount(0);
  values_->setColumnCount(0);
  histogram_->setHistogram({}, 0, 0);
  save_npy_->setEnabled(false);
  if (source_index < 0 || source_index >= static_cast<int>(props_.tensors.size())) return;
  stats_label_->setText(tr("Decoding…"));
  // Large weights take a while to decode and scan: do it off the UI thread.
  watcher_.setFuture(QtConcurrent::run(decode, document_->graph(), props_.tensors[source_index].node));
}

void PropertiesPanel::onTensorDecoded() {
  decoded_ = watcher_.result();
  if (!decoded_.error.empty() || !decoded_.tensor) {
    stats_label_->setText(esc(decoded_.error));
    emit tensorReady();
    return;
  }
  const model::HostTensor& t = *decoded_.tensor;
  const TensorStats& s = decoded_.stats;
  QString text = QString("<b>%1</b> %2 &nbsp; %3 elements")
                     .arg(esc(model::dtypeName(t.dtype)), esc(model::shapeString(t.shape)))
                     .arg(t.size());
  if (s.count > 0) {
    text += QString("<br>min %1 &nbsp; max %2 &nbsp; mean %3 &nbsp; std %4<br>sparsity %5% (%6 zeros)")
                .arg(s.min, 0, 'g', 5)
                .arg(s.max, 0, 'g', 5)
                .arg(s.mean, 0, 'g', 5)
                .arg(s.stddev, 0, 'g', 5)
                .arg(100.0 * s.sparsity(), 0, 'f', 1)
                .arg(s.zeros);
    if (s.non_finite) text += QString(" &nbsp; <span style='color:#b00'>%1 NaN/inf</span>").arg(s.non_finite);
  }
  stats_label_->setText(text);
  histogram_->setHistogram(s.histogram, s.min, s.max);
  histogram_->setVisible(s.count > 0);

  // First values: rows over the leading dimensions, columns over the last.
  const std::int64_t n = t.size();
  const std::int64_t cols = t.shape.empty() ? 1 : std::max<std::int64_t>(1, t.shape.back());
  const int shown_cols = static_cast<int>(std::min<std::int64_t>(cols, kMaxColumns));
  const std::int64_t rows = n > 0 ? (n + cols - 1) / cols : 0;
  const int shown_rows = static_cast<int>(std::min<std::int64_t>(rows, kMaxRows));
  values_->setRowCount(shown_rows);
  values_->setColumnCount(shown_cols);
  QStringList column_labels;  // indices along the last dimension, from 0
  for (int c = 0; c < shown_cols; ++c) column_labels << QString::number(c);
  values_->setHorizontalHeaderLabels(column_labels);
  for (int r = 0; r < shown_rows; ++r) {
    // Row header: the index over the leading dimensions.
    QStringList idx;
    std::int64_t rem = r;
    for (int d = static_cast<int>(t.shape.size()) - 2; d >= 0; --d) {
      std::int64_t dim = std::max<std::int64_t>(1, t.shape[static_cast<std::size_t>(d)]);
      idx.prepend(QString::number(rem % dim));
      rem /= dim;
    }
    values_->setVerticalHeaderItem(r, new QTableWidgetItem(idx.isEmpty() ? QString::number(r) : idx.join(',')));
    for (int c = 0; c < shown_cols; ++c) {
      std::int64_t i = static_cast<std::int64_t>(r) * cols + c;
      if (i < n) values_->setItem(r, c, new QTableWidgetItem(valueText(t, i)));
    }
  }
  values_->setToolTip(rows > shown_rows || cols > shown_cols
                          ? tr("Showing the first %1 × %2 of %3 × %4 values").arg(shown_rows).arg(shown_cols).arg(rows).arg(cols)
                          : QString());
  save_npy_->setEnabled(t.dtype != tensorflow::DT_STRING);
  emit tensorReady();
}

QString PropertiesPanel::saveTensor(const QString& path) const {
  if (!decoded_.tensor) return tr("No tensor to save");
  Status st = model::writeNpy(path.toStdString(), *decoded_.tensor);
  return st.ok() ? QString() : QString::fromStdString(st.message());
}

void PropertiesPanel::saveTensorInteractive() {
  if (!decoded_.tensor) return;
  QString suggested = QString::fromStdString(decoded_.node);
  suggested.replace('/', '_').replace(':', '_');
  QString path = QFileDialog::getSaveFileName(this, tr("Save tensor as .npy"), suggested + ".npy",
                                              tr("NumPy arrays (*.npy)"));
  if (path.isEmpty()) return;
  QString err = saveTensor(path);
  if (!err.isEmpty()) QMessageBox::warning(this, tr("Save as .npy"), err);
}

}  // namespace gds::ui
