// The window's one way to run work off the GUI thread (graphview/job_runner.h):
// outcomes and progress arrive on the GUI thread, whatever a job throws
// becomes an error message naming the job, cancel reaches the job, and
// nothing is delivered to an owner that is gone.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>

#include <atomic>
#include <cerrno>
#include <new>
#include <stdexcept>
#include <system_error>

#include "tests/ui/ui_test_app.h"
#include "transforms/pipeline.h"
#include "transforms/transform.h"
#include "ui/document.h"
#include "graphview/job_runner.h"
#include "ui/transform_runner.h"

namespace gds::ui {
namespace {

using uitest::ensureApp;

// Processes events until `done()` or 10 s pass.
template <typename Pred>
bool processUntil(Pred done) {
  QDeadlineTimer deadline(10000);
  while (!done() && !deadline.hasExpired()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(1);
  }
  return done();
}

// small.pb: a float Placeholder "x" and an Identity of it per name in `identities`.
model::LoadedModel placeholderModel(const std::vector<std::string>& identities) {
  model::LoadedModel m;
  m.path = "small.pb";
  auto* x = m.graph.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  for (const std::string& name : identities) {
    auto* n = m.graph.add_node();
    n->set_name(name);
    n->set_op("Identity");
    n->add_input("x");
    (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  }
  return m;
}

TEST(JobRunner, ValueArrivesOnTheGuiThread) {
  ensureApp();
  JobRunner runner;
  QThread* worker_thread = nullptr;
  QThread* done_thread = nullptr;
  std::optional<JobOutcome<int>> got;
  runner.start(
      "Counting",
      [&worker_thread](JobControl&) -> Result<int> {
        worker_thread = QThread::currentThread();
        return 42;
      },
      [&](JobOutcome<int> out) {
        done_thread = QThread::currentThread();
        got = std::move(out);
      });
  EXPECT_TRUE(runner.isRunning());
  ASSERT_TRUE(processUntil([&] { return got.has_value(); }));
  EXPECT_FALSE(runner.isRunning());
  ASSERT_TRUE(got->ok());
  EXPECT_EQ(*got->value, 42);
  EXPECT_TRUE(got->error.isEmpty());
  EXPECT_FALSE(got->cancelled);
  EXPECT_EQ(done_thread, QCoreApplication::instance()->thread());
  EXPECT_NE(worker_thread, QCoreApplication::instance()->thread());
}

TEST(JobRunner, ErrorsOfResultsAndStatusesBecomeTheOutcomesError) {
  ensureApp();
  JobRunner runner;
  std::optional<JobOutcome<int>> a;
  std::optional<JobOutcome<std::monostate>> b;
  runner.runAndWait("unused", [](JobControl&) { return 0; });  // a plain value works too
  a = runner.runAndWait("Reading", [](JobControl&) -> Result<int> { return Status::Error("x.npy: bad header"); });
  b = runner.runAndWait("Saving", [](JobControl&) { return Status::Error("y.pb: read-only"); });
  EXPECT_FALSE(a->ok());
  EXPECT_EQ(a->error.toStdString(), "x.npy: bad header");
  EXPECT_FALSE(b->ok());
  EXPECT_EQ(b->error.toStdString(), "y.pb: read-only");
  auto c = runner.runAndWait("Saving", [](JobControl&) { return Status::Ok(); });
  EXPECT_TRUE(c.ok());
}

TEST(JobRunner, WhatAJobThrowsBecomesAnErrorNamingIt) {
  ensureApp();
  JobRunner runner;
  auto oom = runner.runAndWait("Loading big.pb", [](JobControl&) -> Result<int> { throw std::bad_alloc(); });
  EXPECT_FALSE(oom.ok());
  EXPECT_EQ(oom.error.toStdString(), "Loading big.pb: out of memory");
  auto threads = runner.runAndWait("Benchmark", [](JobControl&) -> Result<int> {
    throw std::system_error(EAGAIN, std::generic_category(), "starting 100000 threads");
  });
  EXPECT_EQ(threads.error.toStdString(),
            "Benchmark: system error: starting 100000 threads: " + std::generic_category().message(EAGAIN));
  auto range = runner.runAndWait("Reading a.npy", [](JobControl&) -> Result<int> { throw std::out_of_range("stoll"); });
  EXPECT_EQ(range.error.toStdString(), "Reading a.npy: stoll");
  auto other = runner.runAndWait("Odd", [](JobControl&) -> Result<int> { throw 7; });
  EXPECT_EQ(other.error.toStdString(), "Odd: unknown error");
  // The runner keeps working after a failure.
  auto fine = runner.runAndWait("Counting", [](JobControl&) -> Result<int> { return 1; });
  EXPECT_TRUE(fine.ok());
}

TEST(JobRunner, CancelStopsTheJobAndItsOutcomeSaysSo) {
  ensureApp();
  JobRunner runner;
  std::atomic<bool> started{false};
  std::optional<JobOutcome<int>> got;
  runner.start(
      "Waiting",
      [&started](JobControl& job) -> Result<int> {
        started = true;
        QDeadlineTimer deadline(20000);
        while (!job.cancelled() && !deadline.hasExpired()) QThread::msleep(1);
        if (job.cancelled()) return Status::Error("cancelled");
        return 1;
      },
      [&got](JobOutcome<int> out) { got = std::move(out); });
  ASSERT_TRUE(processUntil([&] { return started.load(); }));
  EXPECT_FALSE(runner.cancelRequested());
  runner.cancel();
  EXPECT_TRUE(runner.cancelRequested());
  EXPECT_TRUE(runner.isRunning());  // until the job notices
  ASSERT_TRUE(processUntil([&] { return got.has_value(); }));
  EXPECT_TRUE(got->cancelled);
  EXPECT_EQ(got->error.toStdString(), "cancelled");
}

TEST(JobRunner, CancelAndDropNeverDeliversAndANewerJobReplacesAnOlder) {
  ensureApp();
  JobRunner runner;
  int delivered_old = 0;
  std::optional<JobOutcome<int>> newer;
  runner.start(
      "Old", [](JobControl& job) -> Result<int> {
        while (!job.cancelled()) QThread::msleep(1);
        return 1;
      },
      [&delivered_old](JobOutcome<int>) { ++delivered_old; });
  runner.cancelAndDrop();
  EXPECT_FALSE(runner.isRunning());
  runner.start(
      "Old again", [](JobControl& job) -> Result<int> {
        while (!job.cancelled()) QThread::msleep(1);
        return 2;
      },
      [&delivered_old](JobOutcome<int>) { ++delivered_old; });
  runner.start("New", [](JobControl&) -> Result<int> { return 3; }, [&newer](JobOutcome<int> out) { newer = std::move(out); });
  ASSERT_TRUE(processUntil([&] { return newer.has_value(); }));
  EXPECT_EQ(*newer->value, 3);
  QThread::msleep(50);
  QCoreApplication::processEvents();
  EXPECT_EQ(delivered_old, 0);
}

TEST(JobRunner, AResultArrivingAfterItsOwnerIsDestroyedIsDropped) {
  ensureApp();
  int delivered = 0;
  std::atomic<bool> returned{false};
  // The job ends, and its outcome is queued, while the owner still exists;
  // the owner goes before the GUI thread gets to it.
  auto* owner = new QObject;
  auto* runner = new JobRunner(owner);
  runner->start(
      "Quick",
      [&returned](JobControl&) -> Result<int> {
        returned = true;
        return 5;
      },
      [&delivered](JobOutcome<int>) { ++delivered; });
  QDeadlineTimer deadline(10000);
  while (!returned && !deadline.hasExpired()) QThread::msleep(1);
  QThread::msleep(20);  // the worker has queued its outcome
  delete owner;
  QCoreApplication::processEvents();
  EXPECT_EQ(delivered, 0);

  // A job still running when its owner goes is cancelled, and waited for;
  // what it returns is dropped too.
  owner = new QObject;
  runner = new JobRunner(owner);
  std::atomic<bool> saw_cancel{false};
  runner->start(
      "Slow",
      [&saw_cancel](JobControl& job) -> Result<int> {
        while (!job.cancelled()) QThread::msleep(1);
        saw_cancel = true;
        return 6;
      },
      [&delivered](JobOutcome<int>) { ++delivered; });
  delete owner;
  EXPECT_TRUE(saw_cancel);
  QCoreApplication::processEvents();
  EXPECT_EQ(delivered, 0);
}

TEST(JobRunner, ProgressReachesTheGuiThreadLatestFirst) {
  ensureApp();
  JobRunner runner;
  int deliveries = 0;
  int last_done = -1, last_total = -1;
  QString last_text;
  bool on_gui_thread = true;
  QObject::connect(&runner, &JobRunner::progress, [&](int done, int total, const QString& text) {
    ++deliveries;
    on_gui_thread = on_gui_thread && QThread::currentThread() == QCoreApplication::instance()->thread();
    last_done = done;
    last_total = total;
    last_text = text;
  });
  std::atomic<bool> reported{false};
  bool finished = false;
  runner.start(
      "Steps",
      [&reported](JobControl& job) -> Result<int> {
        for (int i = 1; i <= 10000; ++i) job.progress(i, 10000, "step " + std::to_string(i));
        reported = true;
        // Stay running until the GUI thread saw the last report.
        while (!job.cancelled()) QThread::msleep(1);
        return 0;
      },
      [&finished](JobOutcome<int>) { finished = true; });
  ASSERT_TRUE(processUntil([&] { return reported.load() && last_done == 10000; }));
  EXPECT_TRUE(on_gui_thread);
  EXPECT_EQ(last_total, 10000);
  EXPECT_EQ(last_text.toStdString(), "step 10000");
  // Coalesced: the GUI thread is not sent one event per report.
  EXPECT_LT(deliveries, 10000);
  runner.cancel();
  ASSERT_TRUE(processUntil([&] { return finished; }));
}

// A transform that runs out of memory: the window's transform runner
// reports it as the step's error and the document keeps its graph and history.
TEST(JobRunner, TransformThatThrowsBadAllocKeepsTheDocument) {
  ensureApp();
  Document doc;
  doc.reset(placeholderModel({"y"}));
  const GraphPtr before = doc.graph();
  const int undo_count = doc.undoStack()->count();

  transforms::TransformRegistry registry;
  registry.add({"grow", "allocates more than there is", {},
                [](const transforms::GraphDef&, const transforms::TransformContext&) -> Result<transforms::GraphDef> {
                  throw std::bad_alloc();
                }});
  TransformRunner runner(&doc, nullptr);
  runner.setRegistry(&registry);
  QString failure;
  bool completed = true, finished = false;
  QObject::connect(&runner, &TransformRunner::failed, [&](const QString& message) { failure = message; });
  QObject::connect(&runner, &TransformRunner::finished, [&](bool ok) {
    completed = ok;
    finished = true;
  });
  transforms::TransformStep step;
  step.name = "grow";
  ASSERT_TRUE(runner.start(std::vector<transforms::TransformStep>{step}));
  ASSERT_TRUE(processUntil([&] { return finished; }));
  EXPECT_FALSE(completed);
  EXPECT_EQ(failure.toStdString(), "Applying grow: out of memory");
  EXPECT_EQ(doc.graph(), before);
  EXPECT_EQ(doc.undoStack()->count(), undo_count);
  EXPECT_FALSE(runner.isRunning());
}


// Cancel in the window stops a long transform in flight (it polls the
// pipeline's cancel check), not only the steps after it.
TEST(JobRunner, TransformRunnerCancelStopsTheStepInFlight) {
  ensureApp();
  Document doc;
  doc.reset(placeholderModel({}));
  const GraphPtr before = doc.graph();
  std::atomic<bool> running{false}, stopped{false};
  transforms::TransformRegistry registry;
  registry.add({"long", "runs until cancelled", {},
                [&](const transforms::GraphDef& g, const transforms::TransformContext& ctx) -> Result<transforms::GraphDef> {
                  running = true;
                  QDeadlineTimer deadline(30000);
                  while (!ctx.cancelled() && !deadline.hasExpired()) QThread::msleep(1);
                  stopped = ctx.cancelled();
                  return g;
                }});
  bool finished = false, completed = true;
  {
    TransformRunner runner(&doc, nullptr);
    runner.setRegistry(&registry);
    QObject::connect(&runner, &TransformRunner::finished, [&](bool ok) {
      finished = true;
      completed = ok;
    });
    transforms::TransformStep step;
    step.name = "long";
    ASSERT_TRUE(runner.start(std::vector<transforms::TransformStep>{step, step}));
    ASSERT_TRUE(processUntil([&] { return running.load(); }));
    runner.cancel();
    EXPECT_TRUE(finished);
    EXPECT_FALSE(completed);
    EXPECT_FALSE(runner.isRunning());
    // The job saw the cancellation (rather than running out its 30 s).
    ASSERT_TRUE(processUntil([&] { return stopped.load(); }));
  }
  EXPECT_EQ(doc.graph(), before);
  EXPECT_EQ(doc.undoStack()->count(), 0);
}

}  // namespace
}  // namespace gds::ui
