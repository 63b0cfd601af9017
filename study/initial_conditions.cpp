// Seeded draws for studies: varied run-file values (scaled or ranged), drawn initial conditions
// as run-file overrides and typed settings, Latin hypercube samples — same seed, same study.
#include "study/initial_conditions.hpp"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <variant>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "core/errors.hpp"
#include "models/registry.hpp"

namespace gmbd {
namespace {

// The run file's value(s) of a key that the scaled form may vary; empty when it has none.
std::vector<double> file_value(const RunConfig& base, const std::string& key) {
  const std::string param = "model.parameters.";
  if (key.rfind(param, 0) == 0) {
    const std::string name = key.substr(param.size());
    if (auto it = base.parameters.find(name); it != base.parameters.end()) return it->second;
    if (!base.model_file.empty()) return {};  // model-file parameters: give a range
    for (const auto& spec : find_model(base.model).parameters) {
      if (spec.name == name) return spec.default_value;
    }
    return {};
  }
  for (const auto& [prefix, values] : {std::pair{std::string("initial.q."), &base.initial.q},
                                       std::pair{std::string("initial.v."), &base.initial.v}}) {
    if (key.rfind(prefix, 0) != 0) continue;
    for (const auto& [name, value] : *values) {
      if (prefix + name == key) return {value};
    }
  }
  return {};
}

// "LO:HI" → (lo, hi) when both are finite numbers with lo ≤ hi.
bool parse_range(const std::string& range, double& lo, double& hi) {
  const auto colon = range.find(':');
  if (colon == std::string::npos) return false;
  char* end = nullptr;
  lo = std::strtod(range.c_str(), &end);
  if (end != range.c_str() + colon) return false;
  hi = std::strtod(range.c_str() + colon + 1, &end);
  return *end == '\0' && std::isfinite(lo) && std::isfinite(hi) && lo <= hi;
}

/// One draw of a varied value: a number (ranged or one scaled value) or a list (scaled list).
std::variant<double, std::vector<double>, bool> draw_value(const VariedValue& vv, UniformStream& u) {
  if (vv.ranged) return vv.lo + (vv.hi - vv.lo) * u.next();
  std::vector<double> values;
  for (const double base : vv.base) values.push_back(base * (2.0 * u.next() - 1.0));
  if (!vv.list && values.size() == 1) return values.front();
  return values;
}

/// The value as the override writes it (17 significant digits, a list in brackets).
std::string value_text(const RunSetting& setting) {
  const std::string text = setting.text();
  return text.substr(setting.key.size() + 1);
}

}  // namespace

std::string full_run_key(const std::string& key) {
  if (key.find('.') != std::string::npos) return key;
  const auto& sections = run_file_sections();
  if (std::find(sections.begin(), sections.end(), key) != sections.end()) return key;
  return "model.parameters." + key;
}

std::optional<std::string> vary_syntax_error(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) return std::nullopt;
  const std::string range = text.substr(eq + 1);
  double lo = 0.0, hi = 0.0;
  if (parse_range(range, lo, hi)) return std::nullopt;
  return "--vary " + text + ": expected KEY=LO:HI with finite numbers LO ≤ HI, got '" + range + "'";
}

VariedValue parse_varied_value(const RunConfig& base, const std::string& text) {
  if (const auto error = vary_syntax_error(text)) throw InputError(*error);
  VariedValue vv;
  const auto eq = text.find('=');
  vv.key = full_run_key(text.substr(0, eq));
  if (eq != std::string::npos) {
    parse_range(text.substr(eq + 1), vv.lo, vv.hi);
    vv.ranged = true;
    return vv;
  }
  vv.base = file_value(base, vv.key);
  if (vv.base.empty()) {
    throw InputError("--vary " + text + ": " + base.source + " gives no value of '" + vv.key +
                     "' to scale (model parameters, initial.q and initial.v can be scaled); give "
                     "a range instead: --vary " + text + "=LO:HI");
  }
  vv.list = vv.base.size() > 1;
  if (std::all_of(vv.base.begin(), vv.base.end(), [](double x) { return x == 0.0; })) {
    spdlog::warn("--vary {}: its value in {} is 0, which scaling leaves at 0; give a range "
                 "(--vary {}=LO:HI) to vary it", text, base.source, text);
  }
  return vv;
}

std::vector<VariedValue> default_varied_values(const RunConfig& base) {
  std::vector<std::string> keys;
  for (const auto& [name, value] : base.initial.q) keys.push_back("initial.q." + name);
  for (const auto& [name, value] : base.initial.v) keys.push_back("initial.v." + name);
  const std::vector<ParameterSpec> no_specs;
  for (const auto& spec : base.model_file.empty() ? find_model(base.model).parameters : no_specs) {
    if (base.parameters.count(spec.name) && spec.initial_condition) {
      keys.push_back("model.parameters." + spec.name);
    }
  }
  if (keys.empty()) {
    throw InputError("--initial-conditions: " + base.source + " names no initial value to vary "
                     "(no initial.q / initial.v entries, no initial-state model parameters); "
                     "name them with --vary KEY or --vary KEY=LO:HI");
  }
  std::vector<VariedValue> out;
  for (const auto& key : keys) out.push_back(parse_varied_value(base, key));
  return out;
}

std::vector<DrawnInitialCondition> draw_initial_conditions(const std::vector<VariedValue>& varied, int n,
                                                           std::uint64_t seed) {
  UniformStream u(seed);
  std::vector<DrawnInitialCondition> ics(static_cast<size_t>(std::max(n, 0)));
  for (auto& ic : ics) {
    for (const auto& vv : varied) {
      ic.settings.push_back({vv.key, draw_value(vv, u)});
      ic.values.push_back(value_text(ic.settings.back()));
      ic.overrides.push_back(ic.settings.back().text());
    }
    // Scaled independent values rarely satisfy the constraints: project as initial.project does.
    ic.settings.push_back({"initial.project", true});
    ic.overrides.emplace_back("initial.project=true");
  }
  return ics;
}

std::vector<std::vector<double>> latin_hypercube(const std::vector<std::pair<double, double>>& ranges, int n,
                                                 std::uint64_t seed) {
  UniformStream u(seed);
  const size_t d = ranges.size();
  std::vector<std::vector<double>> points(static_cast<size_t>(std::max(n, 0)), std::vector<double>(d));
  std::vector<int> strata(static_cast<size_t>(std::max(n, 0)));
  for (size_t j = 0; j < d; ++j) {
    std::iota(strata.begin(), strata.end(), 0);
    // Fisher–Yates with the portable stream (std::shuffle's use of the engine is unspecified).
    for (size_t k = strata.size(); k > 1; --k) {
      const auto pick = static_cast<size_t>(u.next() * static_cast<double>(k));
      std::swap(strata[k - 1], strata[std::min(pick, k - 1)]);
    }
    const auto [lo, hi] = ranges[j];
    for (size_t k = 0; k < points.size(); ++k) {
      const double s = (static_cast<double>(strata[k]) + u.next()) / static_cast<double>(n);
      points[k][j] = lo + (hi - lo) * s;
    }
  }
  return points;
}

}  // namespace gmbd
