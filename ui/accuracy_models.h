// Table models of the Accuracy panel. Each reads one shared, immutable
// AccuracyResult (no copies of its rows); Qt::DisplayRole is the formatted
// text and kSortRole the number a QSortFilterProxyModel sorts by.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <memory>
#include <vector>

#include "ui/accuracy_run.h"

namespace gds::ui {

using AccuracyResultPtr = std::shared_ptr<const AccuracyResult>;

constexpr int kSortRole = Qt::UserRole + 1;
// The node name a row stands for (layers and outputs), for selecting it.
constexpr int kNodeNameRole = Qt::UserRole + 2;

// Numbers as the panel shows them: 4 significant digits, "inf" for an exact
// match (SQNR), "" for NaN.
QString formatMetric(double value);
// "6/7"
QString formatCount(std::int64_t part, std::int64_t whole);

class AccuracyTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setResult(AccuracyResultPtr result);
  const AccuracyResult* result() const { return result_.get(); }
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 protected:
  virtual QStringList headers() const = 0;
  AccuracyResultPtr result_;
};

// Per output: Output, Max abs, Mean abs, RMSE, SQNR (dB), Cosine, Top-1
// agreement, Top-5 overlap, Accuracy <reference>, Accuracy <other>.
class AccuracyOutputsModel : public AccuracyTableModel {
  Q_OBJECT
 public:
  using AccuracyTableModel::AccuracyTableModel;
  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  QStringList headers() const override;
};

// Per layer: Layer, Op, SQNR (dB), RMSE, Step, RMSE / step, Max abs, in the
// result's order (worst first).
class AccuracyLayersModel : public AccuracyTableModel {
  Q_OBJECT
 public:
  enum Column { Name, Op, Sqnr, Rmse, Step, RmseOverStep, MaxAbs, ColumnCount };
  using AccuracyTableModel::AccuracyTableModel;
  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  QStringList headers() const override;
};

// Dataset mode, per sample: File, Top-1 <reference>, Top-1 <other>, SQNR
// (dB), Label (the accepted labels), and whether each top-1 is accepted.
class AccuracySamplesModel : public AccuracyTableModel {
  Q_OBJECT
 public:
  using AccuracyTableModel::AccuracyTableModel;
  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  QStringList headers() const override;
};

// The runs of this session, oldest first, so excluding op types step by
// step shows what each step bought: Run, Compared, Inputs, Excluded ops,
// Top-1 agreement, Accuracy (both variants), Worst SQNR (dB),
// Worst layer, Seconds.
class AccuracyHistoryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void append(AccuracyResultPtr result);
  void clear();
  const std::vector<AccuracyResultPtr>& runs() const { return runs_; }
  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<AccuracyResultPtr> runs_;
};

// Top-1 agreement of a result: dataset samples, else the first classifier
// output's rows; {0, 0} when there is no classifier output.
std::pair<std::int64_t, std::int64_t> topOneAgreement(const AccuracyResult& result);

// The median over the dataset's samples of the first output's SQNR (dB;
// +inf for an identical output): the headline figure, which one near-exact
// sample (188 dB) cannot pull up as it does a mean in dB. NaN when not a
// dataset run or no sample.
double medianSampleSqnrDb(const AccuracyResult& result);

// The output SQNR a result is summed up by: the median over the dataset's
// samples, else the first output's.
double outputSqnrDb(const AccuracyResult& result);

// When TensorFlow's 8-bit recipe is much worse than the TFLite int8 export
// on the same inputs (the latest run of each against the same reference
// graph: top-1 agreement at least a quarter of the inputs apart, or output
// SQNR at least 10 dB apart), the advice to ship the TFLite model (rich
// text, File ▸ Export ▸ TensorFlow Lite… as a link to "#export-tflite");
// empty otherwise.
QString exportAdvice(const std::vector<AccuracyResultPtr>& runs);

// Top-5 overlap means something only with more than five classes (with
// five or fewer it is always 100%).
bool showsTopFive(const engine::OutputAggregate& output);

}  // namespace gds::ui
