// Error values used across the libraries: no exception crosses a library
// boundary (see docs/architecture.md, "Errors").
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace gds {

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) {
    Status s;
    s.ok_ = false;
    s.message_ = std::move(message);
    return s;
  }
  bool ok() const { return ok_; }
  const std::string& message() const { return message_; }
  // Prefixes the message with context, e.g. the file name: "file.pb: <message>".
  Status withContext(const std::string& context) const {
    return ok_ ? *this : Error(context + ": " + message_);
  }

 private:
  bool ok_ = true;
  std::string message_;
};

// Either a value or an error Status.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(implicit)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(implicit)
    assert(!status_.ok());
    if (status_.ok()) status_ = Status::Error("internal error: Result built from an OK status");
  }
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  const std::string& error() const { return status_.message(); }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace gds

#define GDS_RETURN_IF_ERROR(expr)            \
  do {                                       \
    ::gds::Status gds_status_ = (expr);      \
    if (!gds_status_.ok()) return gds_status_; \
  } while (0)
