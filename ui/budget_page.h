// The Accuracy dock's Budget tab: tflite_convert --accuracy_budget in the
// window. It searches the int8 models that keep the fewest operators float
// for a budget ("agreement:98%", "sqnr:30", "top1:0.5") on the dock's
// dataset folder, draws every model measured as size against the budget's
// figure with the Pareto front and the budget's line (ParetoChart), lists
// them, and exports the model the user clicks (the export dialog with those
// operators kept float: the file the command line writes). On the graph,
// each operator ranked is coloured by its sensitivity (the share of the
// int8 output error gone when it alone stays float), the selected model's
// float operators are badged "float", and each tooltip says why.
#pragma once

#include <QStringList>
#include <QWidget>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graphview/job_runner.h"
#include "transforms/tflite/accuracy_budget.h"
#include "ui/tflite_export.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace gds::graphview {
class GraphScene;
}

namespace gds::ui {

class Document;

// Size (x, KB) against a figure (y) for each candidate: the Pareto front
// joined and filled, the others hollow, the chosen model ringed in green,
// the selected one in black, the budget a dashed line. A click selects the
// nearest point.
class ParetoChart : public QWidget {
  Q_OBJECT
 public:
  struct Point {
    double x = 0, y = 0;
    bool pareto = false, meets = false;
    QString label;
  };
  explicit ParetoChart(QWidget* parent = nullptr);
  void setPoints(std::vector<Point> points, double threshold, const QString& x_label, const QString& y_label,
                 int chosen);
  void setSelected(int index);
  int selected() const { return selected_; }
  const std::vector<Point>& points() const { return points_; }
  // Where point i is drawn, in widget coordinates (for tests and clicks).
  QPointF position(int index) const;
  QSize sizeHint() const override { return {360, 90}; }
  QSize minimumSizeHint() const override { return {200, 56}; }

 signals:
  void pointClicked(int index);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  QRectF plotArea() const;
  std::vector<Point> points_;
  double threshold_ = 0;
  QString x_label_, y_label_;
  int chosen_ = -1, selected_ = -1;
  double x_min_ = 0, x_max_ = 1, y_min_ = 0, y_max_ = 1;
};

class BudgetPage : public QWidget {
  Q_OBJECT
 public:
  // What the search runs on: the dock's dataset folder (with its image
  // settings) and class names; an error says what to choose.
  struct Data {
    TfliteCalibration calibration;
    std::vector<std::string> label_map;
  };
  BudgetPage(Document* document, std::function<Result<Data>()> data, QWidget* parent = nullptr);

  bool search();
  void cancel();
  bool isRunning() const { return job_->isRunning(); }
  bool waitUntilIdle(int timeout_ms = 600000);

  // Where the sensitivity heat map is drawn (the main graph view's scene).
  void setGraphScene(graphview::GraphScene* scene) { scene_ = scene; }
  QCheckBox* heatMapCheck() const { return heat_map_; }

  const std::optional<transforms::tflite::BudgetSearch>& lastSearch() const { return search_; }
  // The candidates drawn and listed: the search's path, then the operators
  // kept float alone that are not on it.
  const std::vector<transforms::tflite::BudgetCandidate>& candidates() const { return candidates_; }
  void select(int index);
  int selected() const;
  QString statusText() const;
  QString lastError() const { return last_error_; }

  QLineEdit* budgetEdit() const { return budget_; }
  QPushButton* searchButton() const { return search_button_; }
  QPushButton* exportButton() const { return export_; }
  ParetoChart* chart() const { return chart_; }
  QTableView* table() const { return table_; }

 signals:
  // Export…: the selected model, its operators kept float.
  void exportRequested(const QStringList& float_nodes);

 private:
  void resizeEvent(QResizeEvent* event) override;
  void setStatus(const QString& text);
  void onDone(JobOutcome<transforms::tflite::BudgetSearch> outcome);
  void show();
  void updateButtons();
  void updateHeatMap();

  Document* document_;
  std::function<Result<Data>()> data_;
  JobRunner* job_;
  QLineEdit* budget_;
  QPushButton *search_button_, *export_;
  QLabel* status_;
  QCheckBox* heat_map_;
  graphview::GraphScene* scene_ = nullptr;
  ParetoChart* chart_;
  QStandardItemModel* model_;
  QTableView* table_;
  std::optional<transforms::tflite::BudgetSearch> search_;
  std::vector<transforms::tflite::BudgetCandidate> candidates_;
  QString last_error_;
};

}  // namespace gds::ui
