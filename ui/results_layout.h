// The frame the bottom docks (Benchmark, Accuracy) share: their settings in
// two columns, scrolled beside the results, and the results' tables.
#pragma once

#include <QString>

#include "engine/lowp/requantize.h"

class QAbstractItemModel;
class QComboBox;
class QSplitter;
class QTableView;
class QVBoxLayout;
class QWidget;

namespace gds::ui {

// The settings of a bottom dock: a wide column and a narrow one beside it, so
// that they are all in view in the short dock of a 768-pixel screen.
struct SettingsColumns {
  QWidget* widget;
  QVBoxLayout* wide;
  QVBoxLayout* narrow;
};
SettingsColumns settingsColumns(QWidget* parent);

// A bottom dock is wide and short: `settings` in a column on the left, as
// wide as it needs (a scroll area named `scroll_name` whose vertical scroll
// bar is only a fallback for a dock made shorter by hand, never a cut at the
// side), `results` taking the rest of the width.
QSplitter* settingsBesideResults(QWidget* parent, const QString& scroll_name, QWidget* settings, QWidget* results);

// A read-only results table: whole rows, one at a time, compact rows without
// numbers, alternating colours, no wrapping.
QTableView* resultsTable(QWidget* parent, QAbstractItemModel* model);

// The runtime whose int8 arithmetic an 8-bit .tflite model is run with
// (--arithmetic): its command-line names, each described in its tooltip,
// the default chosen.
QComboBox* arithmeticCombo(QWidget* parent);
engine::lowp::Arithmetic comboArithmetic(const QComboBox* combo);

}  // namespace gds::ui
