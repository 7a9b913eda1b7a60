// View > Check Ops for Runtime: colours every node by whether a target
// runtime (TensorFlow Mobile, TensorFlow Lite builtins, gdstudio's
// interpreter) runs it, does not need it, or lacks its op, through the graph
// view's categorical overlay; the same verdicts as `gdstudio check_ops`
// (model::checkGraph).
#pragma once

#include <QObject>
#include <QString>

#include <optional>

#include "model/runtime_ops.h"

class QMenu;
class QWidget;

namespace gds::graphview {
class GraphScene;
}

namespace gds::ui {

class Document;

class RuntimeCheckOverlay : public QObject {
  Q_OBJECT
 public:
  enum class Runtime { TensorFlowMobile, TfLiteBuiltins, Interpreter };

  RuntimeCheckOverlay(Document* document, graphview::GraphScene* scene, QObject* parent = nullptr);

  // A menu with one checkable action per runtime and "Clear".
  QMenu* createMenu(QWidget* parent);

  // Checks the current graph and shows the verdicts; returns the message
  // line (also emitted), e.g. "3 of 33 nodes need ops TensorFlow Lite
  // builtins lack: AudioSpectrogram, DecodeWav, Mfcc".
  QString check(Runtime runtime);
  void clear();

  // The runtime shown, if the overlay is still this one's.
  std::optional<Runtime> shown() const { return shown_; }
  const model::RuntimeCheck& lastCheck() const { return last_; }
  static QString runtimeTitle(Runtime runtime);

 signals:
  void message(const QString& text);

 private:
  void onOverlayChanged();

  Document* document_;
  graphview::GraphScene* scene_;
  std::optional<Runtime> shown_;
  model::RuntimeCheck last_;
  bool applying_ = false;
  QMenu* menu_ = nullptr;
};

}  // namespace gds::ui
