// The Benchmark dock's Device tab: each variant's mean latency on the
// desktop and on the device side by side (and why a variant did not run
// there), which is fastest on the device, and the device's per-operator
// rows of one variant with the graph node each is credited to. Clicking a
// row selects its node. deviceTimeShare() feeds the heat map.
#pragma once

#include <QWidget>

#include <memory>
#include <string>
#include <unordered_map>

#include "device/device_profile.h"
#include "ui/benchmark_tables.h"

class QComboBox;
class QLabel;
class QStandardItemModel;
class QTableView;

namespace gds::ui {

// Per credited node, its share of the device's per-op time in percent.
std::unordered_map<std::string, double> deviceTimeShare(const device::DeviceProfile& profile);

class DeviceResults : public QWidget {
  Q_OBJECT
 public:
  explicit DeviceResults(QWidget* parent = nullptr);
  void setComparison(ComparisonPtr comparison, const QString& device_error);

  QTableView* summaryTable() const { return summary_view_; }  // variant, desktop ms, device ms, ratio
  QTableView* opsTable() const { return ops_view_; }
  QComboBox* variantCombo() const { return variant_; }
  QLabel* headline() const { return headline_; }
  QStandardItemModel* summaryModel() const { return summary_; }
  QStandardItemModel* opsModel() const { return ops_; }

 signals:
  void nodeActivated(const QString& name);

 private:
  void showOps();

  ComparisonPtr comparison_;
  QLabel* headline_;
  QStandardItemModel *summary_, *ops_;
  QTableView *summary_view_, *ops_view_;
  QComboBox* variant_;
};

}  // namespace gds::ui
