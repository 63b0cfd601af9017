// Reading resolved model parameters inside models/: scalars, integers and broadcast lists, with
// InputError messages that start with the parameter name (build_model prefixes the context).
#pragma once

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/parameters.hpp"

namespace gmbd::model_params {

/// Convention of every model builder and constructor in models/: an InputError message starts
/// with the offending field ("mass: expected 1 or 3 values, got 2"); build_model() prefixes the
/// caller's context ("run.yaml: model.parameters" + "." + message).

inline const std::vector<double>& raw(const ParameterValues& values, const std::string& name) {
  const auto it = values.find(name);
  if (it == values.end()) throw InputError(name + ": missing (no value and no default)");
  return it->second;
}

/// A single number.
inline double scalar(const ParameterValues& values, const std::string& name) {
  const auto& v = raw(values, name);
  if (v.size() != 1) {
    std::ostringstream msg;
    msg << name << ": expected a single number, got a list of " << v.size();
    throw InputError(msg.str());
  }
  return v.front();
}

/// An integer in [lo, hi].
inline int integer(const ParameterValues& values, const std::string& name, int lo, int hi) {
  const double x = scalar(values, name);
  if (!(std::floor(x) == x && x >= lo && x <= hi)) {
    std::ostringstream msg;
    msg << name << ": expected an integer in [" << lo << ", " << hi << "], got " << x;
    throw InputError(msg.str());
  }
  return static_cast<int>(x);
}

/// A list broadcast to `length` entries (a single value is repeated).
inline std::vector<double> list(const ParameterValues& values, const std::string& name,
                                size_t length) {
  const auto& v = raw(values, name);
  if (v.size() == 1) return std::vector<double>(length, v.front());
  if (v.size() != length) {
    std::ostringstream msg;
    msg << name << ": expected 1 or " << length << " values, got " << v.size();
    throw InputError(msg.str());
  }
  return v;
}

/// Throws "<name>: expected <what> (<unit>), got <x>" unless `ok`.
inline void require(bool ok, const std::string& name, const char* what, const char* unit,
                    double x) {
  if (ok) return;
  std::ostringstream msg;
  msg << name << ": expected " << what;
  if (unit != nullptr && unit[0] != '\0') msg << " (" << unit << ")";
  msg << ", got " << x;
  throw InputError(msg.str());
}

inline void require_positive(const std::string& name, double x, const char* unit) {
  require(std::isfinite(x) && x > 0.0, name, "a positive number", unit, x);
}
inline void require_non_negative(const std::string& name, double x, const char* unit) {
  require(std::isfinite(x) && x >= 0.0, name, "a non-negative number", unit, x);
}
inline void require_finite(const std::string& name, double x, const char* unit) {
  require(std::isfinite(x), name, "a finite number", unit, x);
}

/// "mass[0]": the name of list entry k (0-based, as in the InputError messages of
/// resolve_parameters and the parameter record).
inline std::string entry_name(const std::string& name, size_t k) {
  std::string entry(name);
  entry.append("[").append(std::to_string(k)).append("]");
  return entry;
}

}  // namespace gmbd::model_params
