// Seeded draws of initial conditions and parameters for studies (drift, sweep): varied values
// named like run-file keys, a portable uniform stream, and Latin hypercube samples.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "simulation/run_config.hpp"

namespace gmbd {

/// Uniform numbers in [0, 1) from mt19937_64, whose sequence the C++ standard fixes (unlike
/// std::uniform_real_distribution's mapping), so one seed gives the same study everywhere.
class UniformStream {
 public:
  explicit UniformStream(std::uint64_t seed) : engine_(seed) {}
  double next() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 engine_;
};

/// One value varied over drawn initial conditions: a run-file key, and either a range
/// (U[lo, hi]) or the file's value(s) scaled by U[−1, 1].
struct VariedValue {
  std::string key;           ///< dotted run-file key, e.g. model.parameters.X0
  std::vector<double> base;  ///< the file's value(s): scaled form
  double lo = 0.0, hi = 0.0;
  bool ranged = false;
  bool list = false;         ///< written back as a YAML list
};

/// `X0` → `model.parameters.X0`, as --set does for a key that is not a run-file section.
std::string full_run_key(const std::string& key);

/// The reason "KEY=LO:HI" is malformed (a command-line error), or nothing when it is fine or
/// has no range.
std::optional<std::string> vary_syntax_error(const std::string& text);

/// "KEY" (the base file's value, scaled) or "KEY=LO:HI". Throws InputError for a malformed
/// range or a key the file gives no value of.
VariedValue parse_varied_value(const RunConfig& base, const std::string& text);

/// Every initial.q / initial.v entry of the run file and every model parameter it gives that
/// the catalogue marks as an initial condition. Throws InputError when there is none.
std::vector<VariedValue> default_varied_values(const RunConfig& base);

/// One drawn initial condition: the run-file overrides that make it (ending with
/// initial.project=true: scaled values rarely satisfy the constraints) and its values as text.
struct DrawnInitialCondition {
  std::vector<std::string> overrides;
  std::vector<std::string> values;  ///< one text per varied value, as written in the override
  std::vector<RunSetting> settings;  ///< the same changes, typed (RunTemplate::config)
};

/// n draws from one seeded stream, value after value: the same seed gives the same draws.
std::vector<DrawnInitialCondition> draw_initial_conditions(const std::vector<VariedValue>& varied, int n,
                                                           std::uint64_t seed);

/// Latin hypercube: n points in [lo_d, hi_d]^d, one in each of the n equal strata of every
/// dimension, strata permuted and positions inside them drawn from UniformStream(seed).
/// Returns n rows of d values.
std::vector<std::vector<double>> latin_hypercube(const std::vector<std::pair<double, double>>& ranges, int n,
                                                 std::uint64_t seed);

}  // namespace gmbd
