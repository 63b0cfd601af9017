// The integrator factory: maps IntegratorOptions::method to an implementation (the tableau-driven
// ExplicitRk, SUNDIALS IDA or CVODE) and lists the accepted names.
#include "integrators/integrator.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/errors.hpp"
#include "integrators/explicit_rk.hpp"
#include "integrators/rk_tableau.hpp"
#include "integrators/sundials_cvode.hpp"
#include "integrators/sundials_ida.hpp"

namespace gmbd {

void Integrator::advance_to_step(long /*step*/, VecRef /*z_out*/) {
  throw std::logic_error("integrator " + name() + ": advance_to_step needs a fixed-step method");
}

bool Integrator::state_at_last_step(VecRef /*z*/) { return false; }

std::vector<std::string> integrator_names() {
  std::vector<std::string> names = rk_tableau_names();
  for (const char* n : {"ida", "ida-index3", "cvode-bdf", "cvode-adams"}) names.emplace_back(n);
  return names;
}

std::unique_ptr<Integrator> make_integrator(const IntegratorOptions& options) {
  const std::vector<std::string> names = integrator_names();
  if (std::find(names.begin(), names.end(), options.method) == names.end()) {
    std::string msg = "unknown integrator method \"" + options.method + "\"; expected one of:";
    for (const auto& n : names) msg += " " + n;
    throw InputError(msg);
  }
  if (options.method == "ida" || options.method == "ida-index3") {
    return std::make_unique<SundialsIda>(options);
  }
  if (options.method == "cvode-bdf" || options.method == "cvode-adams") {
    return std::make_unique<SundialsCvode>(options);
  }
  return std::make_unique<ExplicitRk>(rk_tableau(options.method), options);
}

}  // namespace gmbd
