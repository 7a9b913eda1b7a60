#include "python/calls.h"

namespace py = pybind11;

namespace gds::python {
namespace {

thread_local PythonCall* current_call = nullptr;

// How often the main thread looks for Ctrl+C while the engine runs: often
// enough to feel immediate, rarely enough that taking the GIL costs little
// even when another Python thread is busy (it hands the GIL over within its
// switch interval, 5 ms by default: at most 5% of the run).
constexpr auto kSignalCheckInterval = std::chrono::milliseconds(100);

}  // namespace

PythonCall::PythonCall(py::object progress) : callback_(std::move(progress)) {
  has_progress_ = !callback_.is_none();
  // Python runs signal handlers in the main thread only; elsewhere
  // PyErr_CheckSignals does nothing, so other threads skip it.
  py::object threading = py::module_::import("threading");
  main_thread_ = threading.attr("current_thread")().is(threading.attr("main_thread")());
  last_check_ = std::chrono::steady_clock::now();
  previous_ = current_call;
  current_call = this;
}

PythonCall::~PythonCall() { current_call = previous_; }

void PythonCall::keepPythonError() {
  if (!error_) error_.emplace();  // fetches (and clears) the Python error
  stopped_ = true;
}

bool PythonCall::cancelled() {
  if (stopped_) return true;
  if (!main_thread_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < kSignalCheckInterval) return false;
  last_check_ = now;
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) keepPythonError();
  return stopped_;
}

void PythonCall::progress(std::int64_t done, std::int64_t total, const std::string& what) {
  if (!has_progress_ || stopped_) return;
  py::gil_scoped_acquire gil;
  try {
    callback_(done, total, what);
  } catch (py::error_already_set& e) {
    keep(std::move(e));
  }
  // Ctrl+C during the callback's own Python code raised there; otherwise
  // look for it now that the GIL is held anyway.
  if (!stopped_ && main_thread_ && PyErr_CheckSignals() != 0) keepPythonError();
}

void PythonCall::keep(py::error_already_set&& error) {
  if (!error_) error_.emplace(std::move(error));
  stopped_ = true;
}

void PythonCall::raisePending() {
  if (error_) {
    py::error_already_set e = std::move(*error_);
    error_.reset();
    throw e;
  }
  // A signal that arrived after the last poll.
  if (main_thread_ && PyErr_CheckSignals() != 0) throw py::error_already_set();
}

PythonCall* currentCall() { return current_call; }

bool cancelledOnThisThread() { return current_call && current_call->cancelled(); }

}  // namespace gds::python
