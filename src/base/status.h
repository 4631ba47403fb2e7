// Status and Result<T>: how everything that can fail at run time reports it.
//
// A Status is either OK or carries a code and a message that says where and
// what. Result<T> holds a T or a non-OK Status. Both are [[nodiscard]]: an
// ignored error is a compile error, never a silent loss.
#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sluice {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input: a row that does not fit its schema, bad config
  kNotFound,
  kCorruption,  // stored or received bytes that fail their checks
  kIOError,
  kOverflow,  // arithmetic or weight overflow
  kAborted,   // the step was abandoned because another worker failed
  kUnimplemented,
  kInternal,
  kUnavailable,  // busy for now: the same request may succeed later
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(StatusCode::kInvalidArgument, std::move(msg));
  }
  static Status NotFound(std::string msg) { return Status(StatusCode::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) {
    return Status(StatusCode::kCorruption, std::move(msg));
  }
  static Status IOError(std::string msg) { return Status(StatusCode::kIOError, std::move(msg)); }
  static Status Overflow(std::string msg) { return Status(StatusCode::kOverflow, std::move(msg)); }
  static Status Aborted(std::string msg) { return Status(StatusCode::kAborted, std::move(msg)); }
  static Status Unimplemented(std::string msg) {
    return Status(StatusCode::kUnimplemented, std::move(msg));
  }
  static Status Internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }
  static Status Unavailable(std::string msg) {
    return Status(StatusCode::kUnavailable, std::move(msg));
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;

  // "Corruption: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context: `, for adding
  // where an error happened as it travels up.
  Status WithContext(std::string_view context) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  // Null when OK, so that the common case costs one pointer.
  std::shared_ptr<const State> state_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(v_).ok() && "Result built from an OK status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::OK() : std::get<Status>(v_); }

  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace sluice

#define SLUICE_CONCAT_INNER_(a, b) a##b
#define SLUICE_CONCAT_(a, b) SLUICE_CONCAT_INNER_(a, b)

#define SLUICE_RETURN_IF_ERROR(expr) \
  do {                               \
    ::sluice::Status _st = (expr);   \
    if (!_st.ok()) return _st;       \
  } while (0)

#define SLUICE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#define SLUICE_ASSIGN_OR_RETURN(lhs, expr) \
  SLUICE_ASSIGN_OR_RETURN_IMPL_(SLUICE_CONCAT_(_res_, __LINE__), lhs, expr)
