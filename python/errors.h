// The errors the module raises: every gdstudio error value becomes one
// exception carrying the library's message, of a gdstudio.Error subclass
// that says which kind of call failed (python/module.cc maps the kinds to
// the Python classes).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "model/status.h"

namespace gds::python {

enum class ErrorKind { Load, Save, Transform, Freeze, Run, Convert, Render, Argument };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

[[noreturn]] inline void raise(ErrorKind kind, const std::string& message) { throw Error(kind, message); }

inline void check(const Status& status, ErrorKind kind) {
  if (!status.ok()) raise(kind, status.message());
}

template <typename T>
T take(Result<T> result, ErrorKind kind) {
  if (!result.ok()) raise(kind, result.error());
  return std::move(result).value();
}

}  // namespace gds::python
