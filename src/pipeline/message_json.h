// JSON for messages: structs that list their fields once, in a member
//
//   template <class V> void Fields(V& v) { v("step", step); v("commit", commit); }
//
// are written to and read from JSON by that list alone, so a key is spelled
// in one place. Field types: bool, integers, std::string, std::vector,
// std::set and std::map (string keys) of them, nested messages, and
// std::optional of any of these (left out when empty, and may be missing).
// Every other field must be present; unknown keys are ignored, so that a
// newer peer may add fields.
//
// Reading names what is wrong by its path: `field "hosts[2].step": expected
// an unsigned integer, got "x"`.
//
// Only .cc files include this header (it brings nlohmann/json).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/status.h"

namespace sluice::pipeline {

namespace message_detail {

struct NameProbe {
  template <class F>
  void operator()(const char*, F&) {}
};

template <class T>
concept Message = requires(T& t, NameProbe& v) { t.Fields(v); };

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <class T>
nlohmann::json ToValue(const T& v);

class Writer {
 public:
  template <class F>
  void operator()(const char* name, const F& f) {
    if constexpr (IsOptional<F>::value) {
      if (!f.has_value()) return;
      j_[name] = ToValue(*f);
    } else {
      j_[name] = ToValue(f);
    }
  }
  nlohmann::json take() { return std::move(j_); }

 private:
  nlohmann::json j_ = nlohmann::json::object();
};

template <class T>
nlohmann::json ToValue(const T& v) {
  if constexpr (Message<T>) {
    Writer w;
    const_cast<T&>(v).Fields(w);
    return w.take();
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> ||
                       std::is_integral_v<T> || std::is_floating_point_v<T>) {
    return nlohmann::json(v);
  } else if constexpr (requires { typename T::key_type; typename T::mapped_type; }) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, e] : v) j[k] = ToValue(e);
    return j;
  } else {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& e : v) j.push_back(ToValue(e));
    return j;
  }
}

inline std::string Describe(const nlohmann::json& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

template <class T>
Status FromValue(const nlohmann::json& j, const std::string& path, T* out);

class Reader {
 public:
  Reader(const nlohmann::json& j, std::string path) : j_(j), path_(std::move(path)) {}
  template <class F>
  void operator()(const char* name, F& f) {
    if (!status_.ok()) return;
    const std::string path = path_.empty() ? name : path_ + "." + name;
    auto it = j_.find(name);
    if constexpr (IsOptional<F>::value) {
      if (it == j_.end() || it->is_null()) {
        f.reset();
        return;
      }
      typename F::value_type v{};
      status_ = FromValue(*it, path, &v);
      f = std::move(v);
    } else {
      if (it == j_.end()) {
        status_ = Status::InvalidArgument("field \"" + path + "\" is missing");
        return;
      }
      status_ = FromValue(*it, path, &f);
    }
  }
  const Status& status() const { return status_; }

 private:
  const nlohmann::json& j_;
  std::string path_;
  Status status_;
};

inline Status Expected(const std::string& path, const char* what, const nlohmann::json& j) {
  return Status::InvalidArgument("field \"" + path + "\": expected " + what + ", got " +
                                 Describe(j));
}

template <class T>
Status FromValue(const nlohmann::json& j, const std::string& path, T* out) {
  if constexpr (Message<T>) {
    if (!j.is_object()) return Expected(path.empty() ? "(the message)" : path, "an object", j);
    Reader r(j, path);
    out->Fields(r);
    return r.status();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) return Expected(path, "a string", j);
    *out = j.get<std::string>();
    return Status::OK();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) return Expected(path, "true or false", j);
    *out = j.get<bool>();
    return Status::OK();
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0)) {
      return Expected(path, "an unsigned integer", j);
    }
    const uint64_t v = j.get<uint64_t>();
    if (v > std::numeric_limits<T>::max()) return Expected(path, "a smaller integer", j);
    *out = static_cast<T>(v);
    return Status::OK();
  } else if constexpr (std::is_integral_v<T>) {
    if (!j.is_number_integer()) return Expected(path, "an integer", j);
    const int64_t v = j.get<int64_t>();
    if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
      return Expected(path, "a smaller integer", j);
    }
    *out = static_cast<T>(v);
    return Status::OK();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) return Expected(path, "a number", j);
    *out = j.get<T>();
    return Status::OK();
  } else if constexpr (requires { typename T::key_type; typename T::mapped_type; }) {
    if (!j.is_object()) return Expected(path, "an object", j);
    out->clear();
    for (auto it = j.begin(); it != j.end(); ++it) {
      typename T::mapped_type v{};
      SLUICE_RETURN_IF_ERROR(FromValue(*it, path + "." + it.key(), &v));
      out->emplace(it.key(), std::move(v));
    }
    return Status::OK();
  } else {
    if (!j.is_array()) return Expected(path, "an array", j);
    out->clear();
    size_t i = 0;
    for (const nlohmann::json& e : j) {
      typename T::value_type v{};
      SLUICE_RETURN_IF_ERROR(FromValue(e, path + "[" + std::to_string(i++) + "]", &v));
      out->insert(out->end(), std::move(v));
    }
    return Status::OK();
  }
}

}  // namespace message_detail

template <class T>
nlohmann::json MessageToJson(const T& m) {
  return message_detail::ToValue(m);
}

template <class T>
Result<T> MessageFromJson(const nlohmann::json& j) {
  T out{};
  SLUICE_RETURN_IF_ERROR(message_detail::FromValue(j, "", &out));
  return out;
}

// From JSON text: text that is not JSON says so (and where it stops).
template <class T>
Result<T> MessageFromText(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    std::string head(text.substr(0, 40));
    for (char& c : head) {
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    return Status::InvalidArgument(text.empty() ? std::string("an empty body, not JSON")
                                                : "not JSON (it starts \"" + head + "\")");
  }
  return MessageFromJson<T>(j);
}

}  // namespace sluice::pipeline
