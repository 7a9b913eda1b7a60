// The status bar's progress area for work running off the UI thread
// (loading, transforms, layout): a label, a progress bar (busy or counted)
// and a Cancel button.
#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace gds::ui {

class TaskIndicator : public QWidget {
  Q_OBJECT
 public:
  explicit TaskIndicator(QWidget* parent = nullptr);
  // total = 0: busy indicator. cancellable: shows the Cancel button.
  void start(const QString& text, int total = 0, bool cancellable = true);
  void setProgress(int done, const QString& text);
  void finish();
  bool active() const { return active_; }
  QString text() const;

 signals:
  void cancelRequested();

 private:
  QLabel* label_;
  QProgressBar* bar_;
  QToolButton* cancel_;
  bool active_ = false;
};

}  // namespace gds::ui
