// Model parameters: declared specifications (name, unit, default, admissible range) and the
// resolution of user-supplied values against them, with errors naming the offending field.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gmbd {

/// Parameter values by name. Every parameter is a list of numbers; a scalar is a list of one.
using ParameterValues = std::map<std::string, std::vector<double>>;

struct ParameterSpec {
  enum class Range { kAny, kPositive, kNonNegative, kPositiveInteger, kNonNegativeInteger };
  std::string name;
  std::vector<double> default_value;  ///< one entry for a scalar
  std::string unit;
  std::string description;
  Range range = Range::kAny;
  /// True when the value is a list (e.g. one mass per link); a scalar given for a list
  /// parameter is broadcast by the model.
  bool is_list = false;
  /// True for parameters that set the initial state (X0, theta0, …): `gmbd drift
  /// --initial-conditions` varies these by default.
  bool initial_condition = false;
};

/// Merges `given` over the specs' defaults. Throws InputError for an unknown name (listing the
/// valid ones), a non-finite value, a value outside its range, or a list given for a scalar;
/// `context` (e.g. "run.yaml: model.parameters") prefixes every message.
ParameterValues resolve_parameters(const std::vector<ParameterSpec>& specs,
                                   const ParameterValues& given, const std::string& context);

/// Scalar value of a resolved parameter (throws InputError if it is missing or a list).
double scalar_parameter(const ParameterValues& values, const std::string& name);
/// List value of a resolved parameter broadcast to `length` entries: a single value is
/// repeated; any other length than 1 or `length` throws InputError naming both lengths.
std::vector<double> list_parameter(const ParameterValues& values, const std::string& name,
                                   size_t length);

}  // namespace gmbd
