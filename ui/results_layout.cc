#include "ui/results_layout.h"

#include <QComboBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace gds::ui {

QComboBox* arithmeticCombo(QWidget* parent) {
  auto* combo = new QComboBox(parent);
  for (engine::lowp::Arithmetic a : engine::lowp::allArithmetics()) {
    combo->addItem(QString::fromUtf8(engine::lowp::arithmeticName(a)), static_cast<int>(a));
    combo->setItemData(combo->count() - 1, QString::fromUtf8(engine::lowp::arithmeticDescription(a)), Qt::ToolTipRole);
  }
  combo->setCurrentIndex(combo->findData(static_cast<int>(engine::lowp::kDefaultArithmetic)));
  combo->setToolTip(QObject::tr("Whose int8 arithmetic an 8-bit TensorFlow Lite model runs with, as --arithmetic: "
                                "tflite-xnnpack is what a phone or an Arm Linux board runs by default"));
  return combo;
}

engine::lowp::Arithmetic comboArithmetic(const QComboBox* combo) {
  return static_cast<engine::lowp::Arithmetic>(combo->currentData().toInt());
}

SettingsColumns settingsColumns(QWidget* parent) {
  SettingsColumns out{new QWidget(parent), new QVBoxLayout, new QVBoxLayout};
  auto* columns = new QHBoxLayout(out.widget);
  columns->setContentsMargins(0, 0, 4, 0);
  columns->addLayout(out.wide, 1);
  columns->addLayout(out.narrow, 0);
  return out;
}

QSplitter* settingsBesideResults(QWidget* parent, const QString& scroll_name, QWidget* settings, QWidget* results) {
  auto* splitter = new QSplitter(Qt::Horizontal, parent);
  auto* scroll = new QScrollArea(splitter);
  scroll->setObjectName(scroll_name);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(settings);
  const int settings_width = settings->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width();
  scroll->setMinimumWidth(settings_width);
  splitter->addWidget(scroll);
  splitter->addWidget(results);
  splitter->setChildrenCollapsible(false);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({settings_width, 1000});
  return splitter;
}

QTableView* resultsTable(QWidget* parent, QAbstractItemModel* model) {
  auto* view = new QTableView(parent);
  view->setModel(model);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  view->verticalHeader()->hide();
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
  return view;
}

}  // namespace gds::ui
