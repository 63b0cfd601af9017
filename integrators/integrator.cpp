// The integrator factory: maps IntegratorOptions::method to an implementation (currently the
// tableau-driven ExplicitRk for every name) and lists the accepted names.
#include "integrators/integrator.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "integrators/explicit_rk.hpp"
#include "integrators/rk_tableau.hpp"

namespace gmbd {

std::vector<std::string> integrator_names() { return rk_tableau_names(); }

std::unique_ptr<Integrator> make_integrator(const IntegratorOptions& options) {
  const std::vector<std::string> names = integrator_names();
  if (std::find(names.begin(), names.end(), options.method) == names.end()) {
    std::string msg = "unknown integrator method \"" + options.method + "\"; expected one of:";
    for (const auto& n : names) msg += " " + n;
    throw InputError(msg);
  }
  return std::make_unique<ExplicitRk>(rk_tableau(options.method), options);
}

}  // namespace gmbd
