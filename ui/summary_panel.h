// The Summary dock: summarize_graph's report for the current graph (inputs,
// outputs, parameters, op histogram, FLOPs, size), refreshed after each step.
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace gds::ui {

class LiveSummary;

class SummaryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SummaryPanel(LiveSummary* summary, QWidget* parent = nullptr);
  QString text() const;
  QString headline() const;

 private:
  void refresh();
  LiveSummary* summary_;
  QLabel* headline_;
  QPlainTextEdit* text_;
};

}  // namespace gds::ui
