#include "ui/device_results.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace gds::ui {
namespace {

QStandardItem* number(double v, int decimals) {
  auto* item = new QStandardItem(QString::number(v, 'f', decimals));
  item->setData(v, Qt::UserRole + 2);  // sorts by value
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QTableView* table(QWidget* parent, QStandardItemModel* model, const char* name) {
  auto* proxy = new QSortFilterProxyModel(parent);
  proxy->setSourceModel(model);
  proxy->setSortRole(Qt::UserRole + 2);
  auto* view = new QTableView(parent);
  view->setObjectName(name);
  view->setModel(proxy);
  view->setSortingEnabled(true);
  view->verticalHeader()->hide();
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setAlternatingRowColors(true);
  view->horizontalHeader()->setStretchLastSection(true);
  view->setMinimumHeight(view->horizontalHeader()->sizeHint().height() + 2 * view->verticalHeader()->defaultSectionSize());
  return view;
}

}  // namespace

std::unordered_map<std::string, double> deviceTimeShare(const device::DeviceProfile& profile) {
  std::unordered_map<std::string, double> share;
  double total = 0;
  for (const auto& r : profile.ops) total += r.avg_ms;
  if (total <= 0) return share;
  for (const auto& r : profile.ops)
    if (!r.node.empty()) share[r.node] += r.avg_ms * 100.0 / total;
  return share;
}

DeviceResults::DeviceResults(QWidget* parent) : QWidget(parent) {
  setObjectName("BenchmarkDeviceResults");
  auto* col = new QVBoxLayout(this);
  col->setContentsMargins(0, 0, 0, 0);
  summary_ = new QStandardItemModel(0, 5, this);
  summary_->setHorizontalHeaderLabels({tr("Variant"), tr("Desktop ms"), tr("Device ms"), tr("Device/desktop"), tr("Note")});
  ops_ = new QStandardItemModel(0, 6, this);
  ops_->setHorizontalHeaderLabels({tr("Op type"), tr("Device's name"), tr("Graph node"), tr("Avg ms"), tr("%"), tr("First ms")});
  // The headline over the summary, the variant choice over the operators:
  // side by side, the page is no taller than the desktop's tables, so the
  // bottom dock still fits a 1366x768 screen.
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(split);
  auto* lcol = new QVBoxLayout(left);
  lcol->setContentsMargins(0, 0, 0, 0);
  headline_ = new QLabel(left);
  headline_->setObjectName("BenchmarkDeviceHeadline");
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  headline_->setMinimumWidth(1);  // long device errors elide into the tooltip rather than widen the dock
  lcol->addWidget(headline_);
  summary_view_ = table(left, summary_, "BenchmarkDeviceSummary");
  lcol->addWidget(summary_view_);
  auto* right = new QWidget(split);
  auto* rcol = new QVBoxLayout(right);
  rcol->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  variant_ = new QComboBox(right);
  variant_->setObjectName("BenchmarkDeviceVariant");
  variant_->setToolTip(tr("Whose per-operator times on the device the table shows"));
  bar->addWidget(new QLabel(tr("Operators on the device:"), right));
  bar->addWidget(variant_, 1);
  rcol->addLayout(bar);
  ops_view_ = table(right, ops_, "BenchmarkDeviceOps");
  rcol->addWidget(ops_view_);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  col->addWidget(split, 1);
  connect(variant_, &QComboBox::currentIndexChanged, this, &DeviceResults::showOps);
  connect(ops_view_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const QString node = index.sibling(index.row(), 2).data().toString();
    if (!node.isEmpty() && node != "-") emit nodeActivated(node);
  });
  setComparison(nullptr, {});
}

void DeviceResults::setComparison(ComparisonPtr comparison, const QString& device_error) {
  comparison_ = std::move(comparison);
  summary_->removeRows(0, summary_->rowCount());
  variant_->blockSignals(true);
  variant_->clear();
  QString fastest;
  double fastest_ms = -1;
  QString device;
  if (comparison_)
    for (int v = 0; v < comparison_->variantCount(); ++v) {
      const auto& vb = comparison_->variant(v);
      const double desktop = vb.result.no_stats_us.avg() / 1000.0;
      QList<QStandardItem*> row = {new QStandardItem(comparison_->label(v)), number(desktop, 3)};
      if (vb.device) {
        const double ms = vb.device->profile.latency.avg_us / 1000.0;
        device = QString::fromStdString(vb.device->device);
        row << number(ms, 3) << number(desktop > 0 ? ms / desktop : 0, 2)
            << new QStandardItem(QString::fromStdString(vb.device->runtime));
        variant_->addItem(comparison_->label(v), v);
        if (fastest_ms < 0 || ms < fastest_ms) {
          fastest_ms = ms;
          fastest = comparison_->label(v);
        }
      } else {
        row << new QStandardItem("-") << new QStandardItem("-") << new QStandardItem(QString::fromStdString(vb.device_error));
      }
      summary_->appendRow(row);
    }
  variant_->blockSignals(false);
  if (!device_error.isEmpty()) headline_->setText(tr("Not run on the device: %1").arg(device_error));
  else if (fastest_ms >= 0)
    headline_->setText(tr("Mean latency, desktop and %1. Fastest on the device: %2 (%3 ms)")
                           .arg(device, fastest)
                           .arg(fastest_ms, 0, 'f', 3));
  else headline_->setText(tr("Enter a device in the settings (Device:) to run the variants there too."));
  headline_->setToolTip(headline_->text());
  summary_view_->resizeColumnsToContents();
  showOps();
}

void DeviceResults::showOps() {
  ops_->removeRows(0, ops_->rowCount());
  if (!comparison_ || variant_->currentIndex() < 0) return;
  const auto& vb = comparison_->variant(variant_->currentData().toInt());
  if (!vb.device) return;
  double total = 0;
  for (const auto& r : vb.device->profile.ops) total += r.avg_ms;
  for (const auto& r : vb.device->profile.ops)
    ops_->appendRow({new QStandardItem(QString::fromStdString(r.type)), new QStandardItem(QString::fromStdString(r.name)),
                     new QStandardItem(r.node.empty() ? QString("-") : QString::fromStdString(r.node)),
                     number(r.avg_ms, 3), number(total > 0 ? r.avg_ms * 100.0 / total : 0, 2), number(r.first_ms, 3)});
  ops_view_->resizeColumnsToContents();
}

}  // namespace gds::ui
