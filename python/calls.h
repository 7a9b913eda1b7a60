// What a call from Python into the libraries needs while the engine works
// without the GIL: Ctrl+C and the optional progress callback. Either one
// raising (KeyboardInterrupt, or the callback's own exception) stops the
// engine's work through its cancellation hooks (engine::PlanOptions::
// cancelled, BenchmarkOptions::cancelled, ...), and the Python exception is
// raised when the call returns to Python.
//
//   PythonCall call(progress);                 // GIL held
//   Result<X> r = call.withoutGil([&] { return engine_work(call.cancelHook()); });
//   call.raisePending();                       // KeyboardInterrupt, or the callback's error
//   if (!r.ok()) throw Error(ErrorKind::Run, r.error());
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace gds::python {

class PythonCall {
 public:
  // With the GIL held. `progress` is None or a callable(done, total, what).
  explicit PythonCall(pybind11::object progress = pybind11::none());
  ~PythonCall();
  PythonCall(const PythonCall&) = delete;
  PythonCall& operator=(const PythonCall&) = delete;

  // Runs `work` with the GIL released and this call as the thread's current
  // one (cancelledOnThisThread() consults it).
  template <typename F>
  auto withoutGil(F&& work) {
    pybind11::gil_scoped_release release;
    return work();
  }

  // For the engine's hooks, without the GIL: true once Ctrl+C was pressed
  // (checked in the main thread every 100 ms) or the progress
  // callback raised.
  bool cancelled();
  std::function<bool()> cancelHook() {
    return [this] { return cancelled(); };
  }
  // Calls the progress callback (acquiring the GIL); an exception it raises
  // is kept and cancels the work. Nothing happens without a callback.
  void progress(std::int64_t done, std::int64_t total, const std::string& what);
  bool hasProgress() const { return has_progress_; }

  // With the GIL held: keeps a Python exception raised while feeding the
  // engine (a generator's own error, Ctrl+C in it) and stops the work.
  void keep(pybind11::error_already_set&& error);

  // With the GIL held, after the work: raises the kept Python exception.
  void raisePending();
  bool stopped() const { return stopped_.load(); }

 private:
  void keepPythonError();  // GIL held

  pybind11::object callback_;
  bool has_progress_ = false;
  bool main_thread_ = false;
  std::atomic<bool> stopped_{false};
  std::optional<pybind11::error_already_set> error_;
  std::chrono::steady_clock::time_point last_check_;
  PythonCall* previous_ = nullptr;
};

// The PythonCall running on this thread, if any; plans compiled for Python
// get cancelledOnThisThread as their PlanOptions::cancelled, so a plan
// cached across calls always asks the call that is running it.
PythonCall* currentCall();
bool cancelledOnThisThread();

}  // namespace gds::python
