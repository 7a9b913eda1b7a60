// BenchmarkPanel: the exports of its last result, in `gdstudio benchmark`'s
// formats (CSV, JSON) and as TensorFlow's tab-separated text.
#include "ui/benchmark_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>

#include <nlohmann/json.hpp>

#include "engine/eval/benchmark_report.h"
#include "model/io.h"

namespace gds::ui {
namespace {

std::string sectionLine(const QString& title) {
  return "============================== " + title.toStdString() + " ==============================\n";
}

}  // namespace

engine::StatsOptions BenchmarkPanel::exportTableOptions(bool csv) {
  engine::StatsOptions o;  // benchmark_model's defaults
  o.csv = csv;
  return o;
}

QString BenchmarkPanel::csvText() const {
  if (!comparison_) return QString();
  std::string out;
  for (int v = 0; v < comparison_->variantCount(); ++v)
    out += sectionLine(variantName(comparison_->variant(v).kind)) +
           engine::formatTables(comparison_->variant(v).result, exportTableOptions(true), true);
  return QString::fromStdString(out);
}

QString BenchmarkPanel::tensorflowText() const {
  if (!comparison_) return QString();
  std::string out;
  for (int v = 0; v < comparison_->variantCount(); ++v) {
    const engine::BenchmarkResult& r = comparison_->variant(v).result;
    out += sectionLine(variantName(comparison_->variant(v).kind)) + engine::formatTables(r, exportTableOptions(false), true) +
           engine::formatLatencyLine(r) + "\n";
  }
  return QString::fromStdString(out);
}

QString BenchmarkPanel::jsonText() const {
  if (!comparison_) return QString();
  nlohmann::json j;
  j["inputs"] = comparison_->inputs();
  nlohmann::json list = nlohmann::json::array();
  for (int v = 0; v < comparison_->variantCount(); ++v) {
    const VariantBenchmark& vb = comparison_->variant(v);
    engine::ReportContext context;
    context.graph = document_->filePath().isEmpty() ? document_->displayName().toStdString()
                                                    : document_->filePath().toStdString();
    context.benchmark_name = variantName(vb.kind).toStdString();
    context.num_threads = vb.num_threads;
    context.init_seconds = vb.init_seconds;
    nlohmann::json one = engine::benchmarkJson(vb.result, context);
    one["variant"] = variantName(vb.kind).toStdString();
    one["model_bytes"] = vb.built.serialized_bytes;
    one["compressed_bytes"] = vb.built.compressed_bytes;
    if (!vb.built.pipeline.empty()) one["pipeline"] = vb.built.pipeline;
    list.push_back(std::move(one));
  }
  j["variants"] = list;
  return QString::fromStdString(j.dump(2) + "\n");
}

bool BenchmarkPanel::writeExport(const QString& path, const QString& text, QString* error) const {
  if (!comparison_) {
    if (error) *error = tr("No benchmark result to export");
    return false;
  }
  Status s = model::writeFileAtomic(path.toStdString(), text.toStdString());
  if (!s.ok() && error) *error = QString::fromStdString(s.message());
  return s.ok();
}

bool BenchmarkPanel::exportCsv(const QString& path, QString* error) const { return writeExport(path, csvText(), error); }

bool BenchmarkPanel::exportJson(const QString& path, QString* error) const { return writeExport(path, jsonText(), error); }

void BenchmarkPanel::copyAsTensorFlowText() const {
  if (comparison_) QApplication::clipboard()->setText(tensorflowText());
}

void BenchmarkPanel::exportDialog(bool json) {
  const QString path = QFileDialog::getSaveFileName(this, json ? tr("Export benchmark JSON") : tr("Export benchmark CSV"),
                                                    json ? "benchmark.json" : "benchmark.csv",
                                                    json ? tr("JSON (*.json)") : tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  if (!(json ? exportJson(path, &error) : exportCsv(path, &error))) {
    last_error_ = error;
    run_->setError(error);
  } else {
    run_->setStatus(tr("Wrote %1").arg(path));
  }
}

}  // namespace gds::ui
