#include "ui/budget_page.h"

#include <QApplication>
#include <QCheckBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "graphview/graph_scene.h"
#include "ui/blocking_job.h"
#include "ui/document.h"
#include "ui/results_layout.h"

namespace gds::ui {

namespace tt = transforms::tflite;

// ---------------------------------------------------------------- chart

ParetoChart::ParetoChart(QWidget* parent) : QWidget(parent) {
  setObjectName("BudgetParetoChart");
  setMinimumHeight(56);
}

void ParetoChart::setPoints(std::vector<Point> points, double threshold, const QString& x_label,
                            const QString& y_label, int chosen) {
  points_ = std::move(points);
  threshold_ = threshold;
  x_label_ = x_label;
  y_label_ = y_label;
  chosen_ = chosen;
  selected_ = chosen;
  // Ranges with a margin, the budget's line inside.
  x_min_ = y_min_ = 1e300;
  x_max_ = y_max_ = -1e300;
  for (const Point& p : points_) {
    x_min_ = std::min(x_min_, p.x);
    x_max_ = std::max(x_max_, p.x);
    y_min_ = std::min(y_min_, p.y);
    y_max_ = std::max(y_max_, p.y);
  }
  if (points_.empty()) x_min_ = y_min_ = 0, x_max_ = y_max_ = 1;
  y_min_ = std::min(y_min_, threshold_);
  y_max_ = std::max(y_max_, threshold_);
  const double dx = std::max(1e-9, x_max_ - x_min_), dy = std::max(1e-9, y_max_ - y_min_);
  x_min_ -= 0.05 * dx;
  x_max_ += 0.05 * dx;
  y_min_ -= 0.08 * dy;
  y_max_ += 0.08 * dy;
  update();
}

void ParetoChart::setSelected(int index) {
  selected_ = index;
  update();
}

// Left of the plot: the rotated axis label, then the tick numbers.
QRectF ParetoChart::plotArea() const {
  const QFontMetrics fm(font());
  const double left = 1.5 * fm.height() + fm.horizontalAdvance("-100.0") + 6, bottom = 2.5 * fm.height();
  return QRectF(left, fm.height() * 0.6, std::max(10.0, width() - left - 12.0),
                std::max(10.0, height() - bottom - fm.height() * 0.6));
}

QPointF ParetoChart::position(int index) const {
  const QRectF a = plotArea();
  const Point& p = points_.at(static_cast<std::size_t>(index));
  return {a.left() + (p.x - x_min_) / (x_max_ - x_min_) * a.width(),
          a.bottom() - (p.y - y_min_) / (y_max_ - y_min_) * a.height()};
}

void ParetoChart::paintEvent(QPaintEvent*) {
  QPainter g(this);
  g.setRenderHint(QPainter::Antialiasing);
  g.fillRect(rect(), palette().base());
  const QRectF a = plotArea();
  const QFontMetrics fm(font());
  g.setPen(palette().color(QPalette::Mid));
  g.drawRect(a);
  // Axis ticks: the ends of each range.
  g.setPen(palette().color(QPalette::Text));
  auto number = [](double v) { return QString::number(v, 'f', std::fabs(v) < 10 ? 1 : 0); };
  g.drawText(QPointF(a.left(), a.bottom() + fm.height()), number(x_min_));
  const QString x_hi = number(x_max_);
  g.drawText(QPointF(a.right() - fm.horizontalAdvance(x_hi), a.bottom() + fm.height()), x_hi);
  g.drawText(QRectF(a.left(), a.bottom() + fm.height(), a.width(), fm.height() * 1.4), Qt::AlignHCenter, x_label_);
  const double ticks = 1.5 * fm.height();
  const QRectF tick_box(ticks, 0, a.left() - ticks - 4, fm.height());
  g.drawText(tick_box.translated(0, a.top()), Qt::AlignRight | Qt::AlignTop, number(y_max_));
  g.drawText(tick_box.translated(0, a.bottom() - fm.height()), Qt::AlignRight | Qt::AlignBottom, number(y_min_));
  g.save();
  g.translate(0, a.center().y());
  g.rotate(-90);
  g.drawText(QRectF(-a.height() / 2, 0, a.height(), fm.height() * 1.2), Qt::AlignHCenter,
             fm.elidedText(y_label_, Qt::ElideRight, static_cast<int>(a.height())));
  g.restore();
  if (points_.empty()) return;
  // The budget.
  const double ty = a.bottom() - (threshold_ - y_min_) / (y_max_ - y_min_) * a.height();
  g.setPen(QPen(QColor(200, 40, 40), 1, Qt::DashLine));
  g.drawLine(QPointF(a.left(), ty), QPointF(a.right(), ty));
  // The front, by size.
  std::vector<int> front;
  for (int i = 0; i < static_cast<int>(points_.size()); ++i)
    if (points_[static_cast<std::size_t>(i)].pareto) front.push_back(i);
  std::sort(front.begin(), front.end(), [&](int l, int r) { return points_[l].x < points_[r].x; });
  const QColor blue(40, 100, 200);
  g.setPen(QPen(blue, 1.5));
  for (std::size_t k = 1; k < front.size(); ++k)
    g.drawLine(position(front[k - 1]), position(front[k]));
  for (int i = 0; i < static_cast<int>(points_.size()); ++i) {
    const Point& p = points_[static_cast<std::size_t>(i)];
    g.setPen(QPen(p.pareto ? blue : palette().color(QPalette::Dark), 1.5));
    g.setBrush(p.pareto ? QBrush(blue) : Qt::NoBrush);
    g.drawEllipse(position(i), 4, 4);
  }
  g.setBrush(Qt::NoBrush);
  if (chosen_ >= 0 && chosen_ < static_cast<int>(points_.size())) {
    g.setPen(QPen(QColor(30, 150, 60), 2));
    g.drawEllipse(position(chosen_), 8, 8);
  }
  if (selected_ >= 0 && selected_ < static_cast<int>(points_.size())) {
    g.setPen(QPen(palette().color(QPalette::Text), 1.5));
    g.drawEllipse(position(selected_), 11, 11);
    // The selected model's figures beside it, inside the plot: below the
    // point when it is near the top.
    const QString text = points_[static_cast<std::size_t>(selected_)].label;
    const QPointF at = position(selected_);
    const double w = fm.horizontalAdvance(text);
    const double y = at.y() - 14 - fm.descent() < a.top() + fm.ascent() ? at.y() + 14 + fm.ascent() : at.y() - 14;
    g.drawText(QPointF(std::clamp(at.x() - w / 2, a.left() + 2, std::max(a.left() + 2, a.right() - w - 2)), y), text);
  }
}

void ParetoChart::mousePressEvent(QMouseEvent* event) {
  int best = -1;
  double best_d = 14 * 14 + 1;
  for (int i = 0; i < static_cast<int>(points_.size()); ++i) {
    const QPointF d = position(i) - event->position();
    const double dd = d.x() * d.x() + d.y() * d.y();
    if (dd < best_d) {
      best_d = dd;
      best = i;
    }
  }
  if (best < 0) return;
  setSelected(best);
  emit pointClicked(best);
}

// ---------------------------------------------------------------- page

namespace {

QString floatList(const tt::BudgetCandidate& c) {
  if (c.float_nodes.empty()) return QObject::tr("none (all int8)");
  QStringList names;
  for (const std::string& n : c.float_nodes) names << QString::fromStdString(n);
  return names.join(", ");
}

QString axisLabel(tt::AccuracyBudget::Metric m) {
  switch (m) {
    case tt::AccuracyBudget::Metric::Agreement: return QObject::tr("top-1 agreement with float (%)");
    case tt::AccuracyBudget::Metric::Sqnr: return QObject::tr("mean output SQNR (dB)");
    case tt::AccuracyBudget::Metric::Top1: return QObject::tr("top-1 accuracy change (points)");
  }
  return QString();
}

}  // namespace

BudgetPage::BudgetPage(Document* document, std::function<Result<Data>()> data, QWidget* parent)
    : QWidget(parent), document_(document), data_(std::move(data)), job_(new JobRunner(this)) {
  setObjectName("AccuracyBudgetPage");
  auto* col = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Budget"), this));
  budget_ = new QLineEdit(QStringLiteral("agreement:100%"), this);
  budget_->setMinimumWidth(QFontMetrics(budget_->font()).horizontalAdvance("sqnr:30") + 12);
  budget_->setObjectName("AccuracyBudget");
  budget_->setToolTip(tr("What the int8 model must reach on the dataset folder: agreement:98% (float's top-1 on 98% "
                         "of the inputs), sqnr:30 (mean output SQNR in dB) or top1:0.5 (at most 0.5 points of "
                         "top-1 accuracy lost; needs labels). The search keeps the fewest operators float "
                         "(tflite_convert --accuracy_budget)"));
  row->addWidget(budget_, 1);
  // Search, or Cancel while a search runs (one button: the tab must fit a
  // 1366x768 screen's dock).
  search_button_ = new QPushButton(tr("Search"), this);
  export_ = new QPushButton(tr("Export…"), this);
  export_->setToolTip(tr("The export dialog with the selected model's operators kept float"));
  row->addWidget(search_button_);
  heat_map_ = new QCheckBox(tr("On graph"), this);
  heat_map_->setObjectName("AccuracyBudgetHeatMap");
  heat_map_->setChecked(true);
  heat_map_->setToolTip(tr("Colour each operator on the graph by its sensitivity (the share of the int8 output "
                           "error gone when it alone stays float), badge the selected model's float operators, and "
                           "say why in their tooltips"));
  row->addWidget(heat_map_);
  col->addLayout(row);
  // The status on one line (the whole text in its tooltip) beside Export….
  auto* status_row = new QHBoxLayout;
  status_ = new QLabel(this);
  status_->setMinimumWidth(40);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  status_row->addWidget(status_, 1);
  status_row->addWidget(export_);
  col->addLayout(status_row);
  chart_ = new ParetoChart(this);
  col->addWidget(chart_, 2);
  model_ = new QStandardItemModel(0, 7, this);
  model_->setHorizontalHeaderLabels(
      {tr("Kept float"), tr("KB"), tr("Latency (ms)"), tr("Figure"), tr("SQNR (dB)"), tr("Meets"), tr("Pareto")});
  table_ = resultsTable(this, model_);
  table_->setObjectName("AccuracyBudgetTable");
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table_->setMinimumHeight(36);
  col->addWidget(table_, 1);
  setStatus(tr("Searches the int8 models with the fewest float operators on the dataset folder."));
  connect(search_button_, &QPushButton::clicked, this, [this] {
    if (isRunning()) cancel();
    else search();
  });
  connect(budget_, &QLineEdit::returnPressed, this, [this] { search(); });
  connect(chart_, &ParetoChart::pointClicked, this, [this](int i) { select(i); });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid() && chart_->selected() != current.row()) chart_->setSelected(current.row());
            updateButtons();
            updateHeatMap();
            // The graph shows the model's first float operator.
            const int i = selected();
            if (i >= 0 && !candidates_[static_cast<std::size_t>(i)].float_nodes.empty()) {
              const std::string& node = candidates_[static_cast<std::size_t>(i)].float_nodes.front();
              if (document_->index() && document_->index()->find(node) >= 0)
                document_->select(QString::fromStdString(node));
            }
          });
  connect(export_, &QPushButton::clicked, this, [this] {
    const int i = selected();
    if (i < 0) return;
    QStringList names;
    for (const std::string& n : candidates_[static_cast<std::size_t>(i)].float_nodes) names << QString::fromStdString(n);
    emit exportRequested(names);
  });
  connect(job_, &JobRunner::progress, this, [this](int, int, const QString& what) { setStatus(what + "…"); });
  connect(heat_map_, &QCheckBox::toggled, this, &BudgetPage::updateHeatMap);
  connect(document_, &Document::documentReset, this, [this] {
    cancel();
    search_.reset();
    candidates_.clear();
    show();
  });
  updateButtons();
}

bool BudgetPage::search() {
  if (isRunning()) return false;
  auto budget = tt::parseAccuracyBudget(budget_->text().trimmed().toStdString());
  auto fail = [this](const QString& message) {
    last_error_ = message;
    setStatus(message);
    return false;
  };
  if (!budget.ok()) return fail(tr("Budget: %1").arg(QString::fromStdString(budget.error())));
  if (document_->isEmpty()) return fail(tr("No model open"));
  auto data = data_();
  if (!data.ok()) return fail(QString::fromStdString(data.error()));
  last_error_.clear();
  GraphPtr graph = document_->graph();
  std::vector<IoMark> marks = document_->ioMarks();
  const int threads = std::max(1, QThread::idealThreadCount());
  job_->start(
      tr("Accuracy budget %1").arg(QString::fromStdString(budget->text())),
      [graph, marks, data = std::move(*data), budget = *budget, threads](JobControl& job) {
        TfliteExportObserver observer;
        observer.cancelled = job.cancelCheck();
        observer.stage = [&job](const std::string& text) { job.progress(0, 0, text); };
        return searchTfliteBudget(*graph, marks, data.calibration, budget, data.label_map, threads, observer);
      },
      [this](JobOutcome<tt::BudgetSearch> outcome) { onDone(std::move(outcome)); });
  setStatus(tr("Starting…"));
  updateButtons();
  return true;
}

void BudgetPage::cancel() {
  if (isRunning()) job_->cancel();
}

bool BudgetPage::waitUntilIdle(int timeout_ms) { return waitForJob(job_, timeout_ms); }

void BudgetPage::onDone(JobOutcome<tt::BudgetSearch> outcome) {
  if (!outcome.ok()) {
    last_error_ = outcome.cancelled ? tr("cancelled") : outcome.error;
    setStatus(outcome.cancelled ? tr("Cancelled") : outcome.error);
    updateButtons();
    return;
  }
  search_ = std::move(outcome.value);
  candidates_ = search_->path;
  for (const tt::BudgetCandidate& c : search_->ranking) {
    const bool on_path = std::any_of(candidates_.begin(), candidates_.end(),
                                     [&](const tt::BudgetCandidate& p) { return p.float_nodes == c.float_nodes; });
    if (!on_path) candidates_.push_back(c);
  }
  show();
}

namespace {

// A row's tooltip: each operator it keeps float, with why.
QString whyTip(const tt::BudgetSearch& s, const tt::BudgetCandidate& c) {
  if (c.float_nodes.empty()) return QObject::tr("Every operator int8");
  QStringList lines;
  for (const std::string& n : c.float_nodes) {
    const tt::OperatorSensitivity* o = s.sensitivityOf(n);
    lines << (o ? QString::fromStdString(n + " (" + o->op + "): " + o->why) : QString::fromStdString(n));
  }
  return lines.join("\n");
}

}  // namespace

void BudgetPage::show() {
  model_->removeRows(0, model_->rowCount());
  std::vector<ParetoChart::Point> points;
  if (!search_) {
    chart_->setPoints({}, 0, QString(), QString(), -1);
    updateButtons();
    updateHeatMap();
    return;
  }
  const tt::BudgetSearch& s = *search_;
  for (const tt::BudgetCandidate& c : candidates_) {
    const double kb = static_cast<double>(c.bytes) / 1024.0;
    QList<QStandardItem*> items = {new QStandardItem(floatList(c)),
                                   new QStandardItem(QString::number(kb, 'f', 1)),
                                   new QStandardItem(QString::number(c.latency_ms, 'f', 2)),
                                   new QStandardItem(QString::fromStdString(s.figure(c))),
                                   new QStandardItem(QString::number(c.mean_sqnr_db, 'f', 1)),
                                   new QStandardItem(c.meets ? tr("yes") : tr("no")),
                                   new QStandardItem(c.pareto ? tr("yes") : QString())};
    for (QStandardItem* item : items) item->setEditable(false);
    items[0]->setToolTip(whyTip(s, c));
    model_->appendRow(items);
    points.push_back({kb, s.score(c), c.pareto, c.meets,
                      QString("%1 float, %2 KB, %3")
                          .arg(c.float_nodes.size())
                          .arg(kb, 0, 'f', 1)
                          .arg(QString::fromStdString(s.figure(c)))});
  }
  double threshold = s.budget.value;
  if (s.budget.metric == tt::AccuracyBudget::Metric::Top1) threshold = -s.budget.value;
  chart_->setPoints(std::move(points), threshold, tr("size (KB)"), axisLabel(s.budget.metric), s.chosen);
  const QString outcome =
      s.chosen >= 0
          ? tr("Meets %1 with %2 operator(s) float: %3 KB, %4. Click a point or a row, then Export….")
                .arg(QString::fromStdString(s.budget.text()))
                .arg(candidates_[static_cast<std::size_t>(s.chosen)].float_nodes.size())
                .arg(static_cast<double>(candidates_[static_cast<std::size_t>(s.chosen)].bytes) / 1024.0, 0, 'f', 1)
                .arg(QString::fromStdString(s.figure(candidates_[static_cast<std::size_t>(s.chosen)])))
          : tr("No model meets %1 (the table has the best reached); each point can still be exported.")
                .arg(QString::fromStdString(s.budget.text()));
  setStatus(outcome);
  if (s.chosen >= 0) select(s.chosen);
  updateButtons();
  updateHeatMap();
}

// The graph's overlay: every ranked operator's sensitivity, the selected
// model's float operators badged, why in the tooltips. Only this page's
// overlay is cleared (another dock's stays).
void BudgetPage::updateHeatMap() {
  if (!scene_ || !scene_->hasGraph()) return;
  const QString title = tr("Float sensitivity");
  if (!heat_map_->isChecked() || !search_ || search_->sensitivity.empty()) {
    if (scene_->hasOverlay() && scene_->legend().title == title) scene_->clearOverlay();
    return;
  }
  graphview::Overlay overlay;
  overlay.title = title;
  overlay.unit = QStringLiteral("%");
  overlay.sum_for_groups = false;  // a collapsed scope shows its most sensitive operator
  overlay.min = 0;                 // an operator that helps nothing alone is drawn cold
  for (const tt::OperatorSensitivity& o : search_->sensitivity) {
    overlay.values[o.node] = std::round(1000 * o.error_share) / 10;
    overlay.notes[o.node] = QString::fromStdString(o.op + ": " + o.why);
  }
  const int i = selected();
  if (i >= 0)
    for (const std::string& n : candidates_[static_cast<std::size_t>(i)].float_nodes) overlay.labels[n] = tr("float");
  scene_->setOverlay(overlay);
}

void BudgetPage::select(int index) {
  if (index < 0 || index >= model_->rowCount()) return;
  chart_->setSelected(index);
  table_->selectRow(index);
  updateButtons();
}

int BudgetPage::selected() const {
  const QModelIndex i = table_->currentIndex();
  return i.isValid() && i.row() < static_cast<int>(candidates_.size()) ? i.row() : -1;
}

QString BudgetPage::statusText() const { return status_->toolTip(); }

void BudgetPage::setStatus(const QString& text) {
  status_->setToolTip(text);
  status_->setText(status_->fontMetrics().elidedText(text, Qt::ElideRight, std::max(40, status_->width())));
}

void BudgetPage::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  setStatus(status_->toolTip());
}

void BudgetPage::updateButtons() {
  const bool running = isRunning();
  search_button_->setText(running ? tr("Cancel") : tr("Search"));
  budget_->setEnabled(!running);
  export_->setEnabled(!running && selected() >= 0);
}

}  // namespace gds::ui
