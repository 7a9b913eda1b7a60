// A Keras file opened in the window: File > Open reads the .keras archive
// like any model, and the graph view shows each layer as a name scope that
// collapses to one box (the layers of the Functional model below are the
// top-level groups), with the model's input and output nodes named after
// the Keras layers.
#include <gtest/gtest.h>

#include <string>

#include "graphview/graph_scene.h"
#include "graphview/hierarchy.h"
#include "model/io.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "ui/document.h"
#include "ui/main_window.h"

namespace gds::ui {
namespace {

TEST(KerasWindow, OpensAKerasFileWithItsLayersAsScopes) {
  GDS_REQUIRE_SHARED();
  uitest::ensureApp();
  MainWindow w;
  w.setInteractive(false);
  w.arrangeForScreen(QRect(0, 0, 1366, 768));
  w.show();
  bool ok = false;
  QString message;
  auto c = QObject::connect(&w, &MainWindow::loadFinished, [&](bool success, const QString& m) {
    ok = success;
    message = m;
  });
  w.openFile(QString::fromStdString(test::modelPath("keras/cifar_resnet8_k2.4.h5")));
  ASSERT_TRUE(w.waitUntilIdle(120000));
  QObject::disconnect(c);
  ASSERT_TRUE(ok) << message.toStdString();
  EXPECT_EQ(w.document()->info().kind, model::ModelKind::Keras);
  EXPECT_EQ(w.document()->info().producer, "Keras 2.4.0, HDF5 (.h5)");
  const graphview::Hierarchy* h = w.graphScene()->hierarchy();
  ASSERT_NE(h, nullptr);
  // Each layer with more than one op is a group of its own, its ops inside.
  for (const char* layer : {"conv2d", "conv2d_4", "conv2d_8", "dense"}) {
    const int g = h->findGroup(layer);
    ASSERT_GE(g, 0) << layer;
    EXPECT_EQ(h->group(g).parent, 0) << layer;
    EXPECT_GE(h->group(g).node_count, 2) << layer;
  }
  const int conv = h->findGroup("conv2d");
  bool has_conv2d = false;
  for (int n : h->group(conv).nodes) has_conv2d = has_conv2d || h->graph().op(n) == "Conv2D";
  EXPECT_TRUE(has_conv2d) << "conv2d's group holds its Conv2D";
  // The input Placeholder and the output Identity carry the layers' names.
  EXPECT_GE(h->graph().find("input_1"), 0);
  EXPECT_GE(h->graph().find("dense"), 0);
  EXPECT_EQ(h->graph().op(h->graph().find("dense")), "Identity");
}

}  // namespace
}  // namespace gds::ui
