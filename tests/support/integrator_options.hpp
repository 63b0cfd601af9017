// Integrator options the SUNDIALS tests share: an adaptive method at rtol = atol = tol, with
// the integrator choosing its first step.
#pragma once

#include <string>

#include "integrators/integrator.hpp"

namespace gmbd::test {

inline IntegratorOptions adaptive_options(const std::string& method, double tol) {
  IntegratorOptions o;
  o.method = method;
  o.rtol = tol;
  o.atol = tol;
  o.dt = 0.0;
  return o;
}

}  // namespace gmbd::test
