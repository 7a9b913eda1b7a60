#include "ui/accuracy_models.h"

#include "ui/variants.h"

#include <QColor>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gds::ui {
namespace {

// Sort key of a metric: +inf (exact) sorts after every finite value.
QVariant sortKey(double v) {
  if (std::isnan(v)) return QVariant(-std::numeric_limits<double>::max());
  if (std::isinf(v)) return QVariant(v > 0 ? std::numeric_limits<double>::max() : -std::numeric_limits<double>::max());
  return QVariant(v);
}

QVariant metricCell(double v, int role) {
  if (role == Qt::DisplayRole) return formatMetric(v);
  if (role == kSortRole) return sortKey(v);
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  return QVariant();
}

QString accuracyText(int correct, int labelled) {
  if (labelled == 0) return QString();
  return QStringLiteral("%1 (%2%)").arg(formatCount(correct, labelled)).arg(100.0 * correct / labelled, 0, 'f', 0);
}

QString mark(bool labelled, bool correct) {
  if (!labelled) return QString();
  return correct ? QObject::tr("yes") : QObject::tr("no");
}

}  // namespace

QString formatMetric(double value) {
  if (std::isnan(value)) return QString();
  if (std::isinf(value)) return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return QString::number(value, 'g', 4);
}

QString formatCount(std::int64_t part, std::int64_t whole) { return QStringLiteral("%1/%2").arg(part).arg(whole); }

double medianSampleSqnrDb(const AccuracyResult& result) {
  std::vector<double> v;
  if (result.dataset)
    for (const auto& item : result.samples.items) v.push_back(item.sqnr_db);
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  if (n % 2 == 1) return v[n / 2];
  const double lo = v[n / 2 - 1], hi = v[n / 2];
  return std::isinf(lo) || std::isinf(hi) ? (std::isinf(lo) ? lo : hi) : (lo + hi) / 2;
}

double outputSqnrDb(const AccuracyResult& result) {
  const double median = medianSampleSqnrDb(result);
  if (!std::isnan(median)) return median;
  return result.outputs.empty() ? std::numeric_limits<double>::quiet_NaN() : result.outputs.front().error.stats.sqnr_db;
}

QString exportAdvice(const std::vector<AccuracyResultPtr>& runs) {
  // The latest run with each kind as the compared variant.
  const AccuracyResult *recipe = nullptr, *tflite = nullptr;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    const AccuracyResult& r = **it;
    if (!r.built_other || !r.built_reference) continue;
    const VariantKind kind = r.other_snapshot.kind;
    if (kind == VariantKind::EightBit && !recipe) recipe = &r;
    if (kind == VariantKind::TfliteInt8 && !tflite) tflite = &r;
  }
  if (!recipe || !tflite) return QString();
  // The same reference graph on the same inputs, or the figures say nothing about each other.
  if (recipe->reference_snapshot.kind != tflite->reference_snapshot.kind ||
      recipe->reference_snapshot.source != tflite->reference_snapshot.source ||
      recipe->input_description != tflite->input_description)
    return QString();
  const auto [agree_recipe, total_recipe] = topOneAgreement(*recipe);
  const auto [agree_tflite, total_tflite] = topOneAgreement(*tflite);
  const double sqnr_recipe = outputSqnrDb(*recipe), sqnr_tflite = outputSqnrDb(*tflite);
  const bool top1_apart = total_recipe > 0 && total_recipe == total_tflite &&
                          4 * (agree_tflite - agree_recipe) >= total_tflite;
  const bool sqnr_apart = !std::isnan(sqnr_recipe) && !std::isnan(sqnr_tflite) && sqnr_tflite - sqnr_recipe >= 10.0;
  if (!top1_apart && !sqnr_apart) return QString();
  auto figures = [](std::int64_t agree, std::int64_t total, double sqnr) {
    QStringList parts;
    if (total > 0) parts << QObject::tr("top-1 agreement %1").arg(formatCount(agree, total));
    if (!std::isnan(sqnr)) parts << QObject::tr("output SQNR %1 dB").arg(formatMetric(sqnr));
    return parts.join(", ");
  };
  const std::string scheme = weightsScheme(recipe->pipeline);
  const QString recipe_name = scheme == "per tensor" ? QObject::tr("TensorFlow's 8-bit recipe (per-tensor weights)")
                                                     : QObject::tr("The 8-bit variant (%1 weights)").arg(
                                                           QString::fromStdString(scheme.empty() ? "custom" : scheme));
  return QObject::tr("<b>%1 is much worse than the TFLite int8 export on these inputs</b>: %2 for the recipe, %3 for "
                     "TFLite int8 (both against %4). The TFLite int8 model is what the device computes; ship it with "
                     "<a href=\"#export-tflite\">File ▸ Export ▸ TensorFlow Lite…</a>")
      .arg(recipe_name, figures(agree_recipe, total_recipe, sqnr_recipe),
           figures(agree_tflite, total_tflite, sqnr_tflite), recipe->reference_name);
}

bool showsTopFive(const engine::OutputAggregate& output) {
  if (!output.classifier || output.rows <= 0) return false;
  return output.error.stats.count / output.rows > 5;
}

std::pair<std::int64_t, std::int64_t> topOneAgreement(const AccuracyResult& result) {
  if (result.dataset) {
    if (!result.samples.classifier) return {0, 0};
    return {result.samples.agree, result.samples.inputs};
  }
  for (const auto& o : result.outputs)
    if (o.classifier) return {o.top1_agree, o.rows};
  return {0, 0};
}

// ---------------------------------------------------------------- base

void AccuracyTableModel::setResult(AccuracyResultPtr result) {
  beginResetModel();
  result_ = std::move(result);
  endResetModel();
  emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

int AccuracyTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(headers().size());
}

QVariant AccuracyTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  const QStringList h = headers();
  return section >= 0 && section < h.size() ? QVariant(h[section]) : QVariant();
}

// ---------------------------------------------------------------- outputs

QStringList AccuracyOutputsModel::headers() const {
  const QString a = result_ ? result_->reference_name : tr("A");
  const QString b = result_ ? result_->other_name : tr("B");
  return {tr("Output"),        tr("Max abs"),       tr("Mean abs"),          tr("RMSE"),
          tr("SQNR (dB)"),     tr("Cosine"),        tr("Top-1 agreement"),   tr("Top-5 overlap"),
          tr("Accuracy %1").arg(a), tr("Accuracy %1").arg(b)};
}

int AccuracyOutputsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->outputs.size());
}

QVariant AccuracyOutputsModel::data(const QModelIndex& index, int role) const {
  if (!result_ || !index.isValid() || index.row() >= rowCount()) return QVariant();
  const auto& o = result_->outputs[static_cast<std::size_t>(index.row())];
  const auto& s = o.error.stats;
  if (role == kNodeNameRole) return QString::fromStdString(s.name);
  // Accuracy is measured on the first output (the classifier the labels refer to).
  const bool accuracy = result_->dataset && index.row() == 0 && result_->samples.labelled > 0;
  switch (index.column()) {
    case 0: return role == Qt::DisplayRole || role == kSortRole ? QVariant(QString::fromStdString(s.name)) : QVariant();
    case 1: return metricCell(s.max_abs, role);
    case 2: return metricCell(s.mean_abs, role);
    case 3: return metricCell(s.rmse, role);
    case 4: return metricCell(s.sqnr_db, role);
    case 5: return metricCell(s.cosine, role);
    case 6:
      if (!o.classifier) return QVariant();
      if (role == Qt::DisplayRole) return formatCount(o.top1_agree, o.rows);
      if (role == kSortRole) return o.rows ? double(o.top1_agree) / double(o.rows) : 0.0;
      return QVariant();
    case 7: return showsTopFive(o) ? metricCell(o.top5_overlap, role) : QVariant();
    case 8:
    case 9: {
      if (!accuracy) return QVariant();
      const int correct = index.column() == 8 ? result_->samples.correct_reference : result_->samples.correct_other;
      if (role == Qt::DisplayRole) return accuracyText(correct, result_->samples.labelled);
      if (role == kSortRole) return double(correct) / result_->samples.labelled;
      return QVariant();
    }
  }
  return QVariant();
}

// ---------------------------------------------------------------- layers

QStringList AccuracyLayersModel::headers() const {
  return {tr("Layer"), tr("Op"), tr("SQNR (dB)"), tr("RMSE"), tr("Step"), tr("RMSE / step"), tr("Max abs")};
}

int AccuracyLayersModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->layers.size());
}

QVariant AccuracyLayersModel::data(const QModelIndex& index, int role) const {
  if (!result_ || !index.isValid() || index.row() >= rowCount()) return QVariant();
  const LayerError& l = result_->layers[static_cast<std::size_t>(index.row())];
  const auto& s = l.error.stats;
  if (role == kNodeNameRole) return QString::fromStdString(s.name);
  if (role == Qt::ToolTipRole && index.column() == RmseOverStep)
    return tr("RMSE divided by the 8-bit quantization step: about 0.29 is ideal rounding, above 0.7 is suspicious "
              "(TensorFlow Lite's quantization debugger)");
  switch (index.column()) {
    case Name: return role == Qt::DisplayRole || role == kSortRole ? QVariant(QString::fromStdString(s.name)) : QVariant();
    case Op: return role == Qt::DisplayRole || role == kSortRole ? QVariant(QString::fromStdString(l.op)) : QVariant();
    case Sqnr: return metricCell(s.sqnr_db, role);
    case Rmse: return metricCell(s.rmse, role);
    case Step: return s.step > 0 ? metricCell(s.step, role) : QVariant();
    case RmseOverStep: return s.step > 0 ? metricCell(s.rmse_over_step, role) : QVariant();
    case MaxAbs: return metricCell(s.max_abs, role);
  }
  return QVariant();
}

// ---------------------------------------------------------------- samples

QStringList AccuracySamplesModel::headers() const {
  const QString a = result_ ? result_->reference_name : tr("A");
  const QString b = result_ ? result_->other_name : tr("B");
  return {tr("File"), tr("Top-1 %1").arg(a), tr("Top-1 %1").arg(b), tr("SQNR (dB)"), tr("%1 correct").arg(a),
          tr("%1 correct").arg(b)};
}

int AccuracySamplesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->samples.items.size());
}

QVariant AccuracySamplesModel::data(const QModelIndex& index, int role) const {
  if (!result_ || !index.isValid() || index.row() >= rowCount()) return QVariant();
  const auto& item = result_->samples.items[static_cast<std::size_t>(index.row())];
  if (role == Qt::ForegroundRole && item.top1_reference != item.top1_other && (index.column() == 1 || index.column() == 2))
    return QColor(200, 40, 40);
  if (role != Qt::DisplayRole && role != kSortRole) return index.column() == 3 ? metricCell(item.sqnr_db, role) : QVariant();
  switch (index.column()) {
    case 0: return QString::fromStdString(item.file);
    case 1: return QString::fromStdString(item.top1_reference);
    case 2: return QString::fromStdString(item.top1_other);
    case 3: return metricCell(item.sqnr_db, role);
    case 4: return mark(item.labelled, item.correct_reference);
    case 5: return mark(item.labelled, item.correct_other);
  }
  return QVariant();
}

// ---------------------------------------------------------------- history

void AccuracyHistoryModel::append(AccuracyResultPtr result) {
  const int row = static_cast<int>(runs_.size());
  beginInsertRows(QModelIndex(), row, row);
  runs_.push_back(std::move(result));
  endInsertRows();
}

void AccuracyHistoryModel::clear() {
  beginResetModel();
  runs_.clear();
  endResetModel();
}

int AccuracyHistoryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int AccuracyHistoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : 10; }

QVariant AccuracyHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  const QStringList names = {tr("Run"),          tr("Compared"),        tr("Inputs"),
                             tr("8-bit weights"), tr("Excluded ops"),    tr("Top-1 agreement"),
                             tr("Accuracy"),      tr("Worst SQNR (dB)"), tr("Worst layer"),
                             tr("Seconds")};
  return section >= 0 && section < names.size() ? QVariant(names[section]) : QVariant();
}

QVariant AccuracyHistoryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return QVariant();
  const AccuracyResult& r = *runs_[static_cast<std::size_t>(index.row())];
  if (role == kNodeNameRole) return r.layers.empty() ? QVariant() : QString::fromStdString(r.layers.front().error.stats.name);
  if (role != Qt::DisplayRole && role != kSortRole) return index.column() == 7 ? metricCell(r.worstSqnrDb(), role) : QVariant();
  switch (index.column()) {
    case 0: return index.row() + 1;
    case 1: return tr("%1 vs %2").arg(r.reference_name, r.other_name);
    case 2: return QString::fromStdString(r.input_description);
    case 3: {
      // Per-channel and per-tensor runs otherwise read the same.
      if (!r.calibration.empty()) return tr("TFLite (per channel)");
      const std::string scheme = weightsScheme(r.pipeline);
      return scheme.empty() ? QVariant() : QVariant(tr(scheme.c_str()));
    }
    case 4: {
      QStringList ops;
      for (const auto& op : r.excluded) ops << QString::fromStdString(op);
      return ops.isEmpty() ? tr("none") : ops.join(", ");
    }
    case 5: {
      auto [agree, total] = topOneAgreement(r);
      if (total == 0) return QVariant();
      return role == kSortRole ? QVariant(double(agree) / double(total)) : QVariant(formatCount(agree, total));
    }
    case 6:
      if (!r.dataset || r.samples.labelled == 0) return QVariant();
      if (role == kSortRole) return double(r.samples.correct_other) / r.samples.labelled;
      return QStringLiteral("%1 %2, %3 %4")
          .arg(r.reference_name, formatCount(r.samples.correct_reference, r.samples.labelled), r.other_name,
               formatCount(r.samples.correct_other, r.samples.labelled));
    case 7: return metricCell(r.worstSqnrDb(), role);
    case 8: return r.layers.empty() ? QVariant() : QString::fromStdString(r.layers.front().error.stats.name);
    case 9: return role == kSortRole ? QVariant(r.seconds) : QVariant(QString::number(r.seconds, 'f', 2));
  }
  return QVariant();
}

}  // namespace gds::ui
