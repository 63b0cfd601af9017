// Resolution and validation of model parameters against their specifications.
#include "core/parameters.hpp"

#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/name_text.hpp"

namespace gmbd {
namespace {

const char* range_text(ParameterSpec::Range range) {
  switch (range) {
    case ParameterSpec::Range::kPositive: return "a positive number";
    case ParameterSpec::Range::kNonNegative: return "a non-negative number";
    case ParameterSpec::Range::kPositiveInteger: return "a positive integer";
    case ParameterSpec::Range::kNonNegativeInteger: return "a non-negative integer";
    case ParameterSpec::Range::kAny: break;
  }
  return "a finite number";
}

bool in_range(ParameterSpec::Range range, double x) {
  const bool integer = std::floor(x) == x;
  switch (range) {
    case ParameterSpec::Range::kPositive: return x > 0.0;
    case ParameterSpec::Range::kNonNegative: return x >= 0.0;
    case ParameterSpec::Range::kPositiveInteger: return x > 0.0 && integer;
    case ParameterSpec::Range::kNonNegativeInteger: return x >= 0.0 && integer;
    case ParameterSpec::Range::kAny: break;
  }
  return true;
}

}  // namespace

ParameterValues resolve_parameters(const std::vector<ParameterSpec>& specs,
                                   const ParameterValues& given, const std::string& context) {
  ParameterValues resolved;
  for (const auto& spec : specs) resolved[spec.name] = spec.default_value;
  for (const auto& [name, values] : given) {
    const ParameterSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == name) spec = &s;
    if (spec == nullptr) {
      std::ostringstream msg;
      msg << context << ": unknown parameter '" << name << "'" << non_ascii_note(name) << "; expected one of:";
      for (const auto& s : specs) msg << ' ' << s.name;
      throw InputError(msg.str());
    }
    if (!spec->is_list && values.size() != 1) {
      std::ostringstream msg;
      msg << context << "." << name << ": expected a single number, got a list of "
          << values.size();
      throw InputError(msg.str());
    }
    if (values.empty()) {
      throw InputError(context + "." + name + ": expected at least one number, got an empty list");
    }
    for (size_t k = 0; k < values.size(); ++k) {
      const double x = values[k];
      if (!std::isfinite(x) || !in_range(spec->range, x)) {
        std::ostringstream msg;
        msg << context << "." << name;
        if (values.size() > 1) msg << "[" << k << "]";
        msg << ": expected " << range_text(spec->range);
        if (!spec->unit.empty()) msg << " (" << spec->unit << ")";
        msg << ", got " << x;
        throw InputError(msg.str());
      }
    }
    resolved[name] = values;
  }
  return resolved;
}

double scalar_parameter(const ParameterValues& values, const std::string& name) {
  const auto it = values.find(name);
  if (it == values.end() || it->second.size() != 1) {
    throw InputError("parameter '" + name + "': expected a single number");
  }
  return it->second.front();
}

std::vector<double> list_parameter(const ParameterValues& values, const std::string& name,
                                   size_t length) {
  const auto it = values.find(name);
  if (it == values.end()) throw InputError("parameter '" + name + "' is missing");
  const auto& v = it->second;
  if (v.size() == 1) return std::vector<double>(length, v.front());
  if (v.size() != length) {
    std::ostringstream msg;
    msg << "parameter '" << name << "': expected 1 or " << length << " values, got " << v.size();
    throw InputError(msg.str());
  }
  return v;
}

}  // namespace gmbd
