// The Inputs & outputs dock: the candidates summarize suggests, ranked (the
// likely ones first, in bold; Mark suggested marks them when none is
// selected), the nodes marked as model inputs and outputs with dtype and
// shape (an input's shape is editable: it is what strip_unused_nodes and the
// benchmark use), and "Copy as gdstudio transform command".
#pragma once

#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace gds::ui {

class Document;
class LiveSummary;

class IoPanel : public QWidget {
  Q_OBJECT
 public:
  IoPanel(Document* document, LiveSummary* summary, QWidget* parent = nullptr);
  // The command "Copy as gdstudio transform command" puts on the clipboard.
  QString transformCommandText() const;
  QTableWidget* table() const { return table_; }
  QListWidget* candidates() const { return candidates_; }
  QPushButton* markSuggestedButton() const { return use_candidate_; }
  // Suggestions in bold: the ones Mark suggested marks when none is selected.
  int likelyCount() const;
  // Marks the table shows at once (it scrolls a row at a time beyond):
  // three keep Node properties its useful height under a bottom dock at 768 pixels.
  static constexpr int kShownMarks = 3;

 signals:
  void message(const QString& text);

 private:
  void refreshMarks();
  // The marks table as tall as its rows, kShownMarks at most.
  void fitMarksHeight();
  void refreshCandidates();
  void onCellChanged(int row, int column);
  void removeSelected();
  void useCandidate();

  Document* document_;
  LiveSummary* summary_;
  QTableWidget* table_;
  QListWidget* candidates_;
  QPushButton *mark_input_, *mark_output_, *remove_, *copy_command_, *use_candidate_;
  bool updating_ = false;
};

}  // namespace gds::ui
