// Cross-validation of the SUNDIALS integrators (ida, ida-index3, cvode-bdf, cvode-adams) against
// exact solutions, RK45 + DSC and the published output of the SUNDIALS example idaSlCrank.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "constraints/stabilized_dynamics.hpp"
#include "integrators/integrator.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"
#include "models/pendulum_exact.hpp"
#include "support/output_trace.hpp"
#include "verification/sundials_slider_crank_model.hpp"

namespace gmbd {
namespace {

const std::vector<std::string> kSundials = {"ida", "ida-index3", "cvode-bdf", "cvode-adams"};

/// Index 3 (the Eindhoven mirror report's DASSL approach) is far less accurate per tolerance than
/// the others (measured 1e5·tol on the pendulum); its bounds are separate.
bool index3(const std::string& method) { return method == "ida-index3"; }

struct Trace {
  std::vector<double> t;
  std::vector<Vec> q, v;
  std::vector<double> residual, energy;
  RunSummary summary;
};

Trace simulate(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  Trace tr;
  tr.summary = test::run_yaml(yaml, "<test>", overrides, [&](const OutputSample& s) {
    tr.t.push_back(s.time);
    tr.q.emplace_back(s.q);
    tr.v.emplace_back(s.v);
    tr.residual.push_back(std::max(s.residual_position, s.residual_velocity));
    tr.energy.push_back(s.energy);
  });
  return tr;
}

std::vector<std::string> with_method(const std::string& method, double tol,
                                     std::vector<std::string> more = {}) {
  char buffer[64];
  more.push_back("integrator.method=" + method);
  std::snprintf(buffer, sizeof buffer, "integrator.rtol=%g", tol);
  more.emplace_back(buffer);
  std::snprintf(buffer, sizeof buffer, "integrator.atol=%g", tol);
  more.emplace_back(buffer);
  return more;
}

double max_state_difference(const Trace& a, const Trace& b) {
  double d = 0.0;
  for (size_t k = 0; k < std::min(a.t.size(), b.t.size()); ++k) {
    d = std::max(d, (a.q[k] - b.q[k]).cwiseAbs().maxCoeff());
    d = std::max(d, (a.v[k] - b.v[k]).cwiseAbs().maxCoeff());
  }
  return d;
}

double max_of(const std::vector<double>& x) {
  double m = 0.0;
  for (double e : x) m = std::max(m, e);
  return m;
}

// ---------------------------------------------------------------------------------------------
// Simple pendulum against the exact elliptic solution (docs/reference-models.md §4)

const char* kSimplePendulum = R"(
model: {type: simple_pendulum, parameters: {mass: 1, length: 1, gravity: 9.81, theta0: 1.5707963267948966}}
integrator: {method: rk45, rtol: 1.0e-11, atol: 1.0e-11}
stabilization: {method: dsc}
time: {start: 0, end: 4.75, output_interval: 0.01}
)";

double angle_of(const Vec& q) { return std::atan2(q(0), -q(1)); }

// Released horizontally, two periods (4.75 s), DSC, rtol = atol = 1e-10. Measured max angle
// error against the exact solution: ida 4.3e-8, cvode-bdf 8.4e-8, cvode-adams 4.8e-9,
// ida-index3 1.7e-5 rad; RK45 + DSC at 1e-11: 2.0e-11. Bounds: 5e-7 rad (1e-4 index 3) against
// the exact solution, 2e-6 (3e-4 index 3) in (q, v) against RK45; the outputs satisfy the rod
// constraint at round-off (DSC projects the outputs).
TEST(SundialsCrossValidation, SimplePendulumAgainstExactSolutionAndRk45) {
  const ExactPendulum exact(1.0, 9.81, std::numbers::pi / 2);
  const Trace reference = simulate(kSimplePendulum);
  ASSERT_TRUE(reference.summary.completed) << reference.summary.failure;
  double ref_error = 0.0;
  for (size_t k = 0; k < reference.t.size(); ++k) {
    ref_error = std::max(ref_error, std::abs(angle_of(reference.q[k]) - exact.angle(reference.t[k])));
  }
  std::printf("[ measured ] simple pendulum rk45+dsc 1e-11: max angle error %.2e rad\n", ref_error);
  EXPECT_LT(ref_error, 3e-9);
  for (const auto& method : kSundials) {
    const Trace tr = simulate(kSimplePendulum, with_method(method, 1e-10));
    ASSERT_TRUE(tr.summary.completed) << method << ": " << tr.summary.failure;
    double error = 0.0;
    for (size_t k = 0; k < tr.t.size(); ++k) {
      error = std::max(error, std::abs(angle_of(tr.q[k]) - exact.angle(tr.t[k])));
    }
    const double vs_rk45 = max_state_difference(tr, reference);
    std::printf(
        "[ measured ] simple pendulum %s 1e-10: max angle error %.2e rad, max |Δ(q, v)| vs "
        "rk45 %.2e, residual %.1e, %ld steps\n",
        method.c_str(), error, vs_rk45, max_of(tr.residual), tr.summary.steps);
    EXPECT_LT(error, index3(method) ? 1e-4 : 5e-7) << method;
    EXPECT_LT(vs_rk45, index3(method) ? 3e-4 : 2e-6) << method;
    EXPECT_LT(max_of(tr.residual), 1e-14) << method;
  }
}

// ---------------------------------------------------------------------------------------------
// n-link pendulum: angle (ODE) form against the Cartesian (DAE) form (docs/reference-models.md §2)

const char* kTriple = R"(
model:
  type: nlink_pendulum_angle
  parameters: {n: 3, mass: [1.0, 0.8, 0.6], length: [1.0, 0.7, 0.5], friction: [0.1, 0.05, 0.02],
               eta0: 0.03, omega: 4.0, theta0: [0.3, -0.2, 0.4], omega0: [0.1, 0.0, -0.2]}
integrator: {method: rk45, rtol: 1.0e-11, atol: 1.0e-11}
stabilization: {method: none}
time: {start: 0, end: 3, output_interval: 0.01}
)";

// Joint friction and harmonic base excitation, 3 s. Reference: the angle form with RK45 at
// 1e-11. Each SUNDIALS method at rtol = atol = 1e-10 integrates the Cartesian form (DSC on, 6
// coordinates, 3 rod constraints) — measured link-angle differences 8e-9 (ida, cvode-bdf),
// 1.8e-8 (adams), 2.6e-6 (index 3) rad; bound 1e-7 (2e-5 index 3) — and the angle form itself
// (an ODE; for IDA a DAE view without constraints), bound 1e-7 rad.
TEST(SundialsCrossValidation, NLinkPendulumAngleFormAgainstCartesianForm) {
  const Trace reference = simulate(kTriple);
  ASSERT_TRUE(reference.summary.completed) << reference.summary.failure;
  for (const auto& method : kSundials) {
    const Trace cart = simulate(
        kTriple, with_method(method, 1e-10,
                             {"model.type=nlink_pendulum_cartesian", "stabilization.method=dsc"}));
    ASSERT_TRUE(cart.summary.completed) << method << ": " << cart.summary.failure;
    const Trace angle = simulate(kTriple, with_method(method, 1e-10));
    ASSERT_TRUE(angle.summary.completed) << method << ": " << angle.summary.failure;
    ASSERT_EQ(cart.t.size(), reference.t.size());
    double cart_diff = 0.0, angle_diff = 0.0;
    for (size_t k = 0; k < reference.t.size(); ++k) {
      double px = 0.0, py = 0.0;
      for (int j = 0; j < 3; ++j) {
        const double dx = cart.q[k](2 * j) - px, dy = cart.q[k](2 * j + 1) - py;
        cart_diff = std::max(cart_diff, std::abs(std::atan2(dx, -dy) - reference.q[k](j)));
        px = cart.q[k](2 * j);
        py = cart.q[k](2 * j + 1);
      }
      angle_diff = std::max(angle_diff, (angle.q[k] - reference.q[k]).cwiseAbs().maxCoeff());
    }
    std::printf(
        "[ measured ] 3-link pendulum %s 1e-10: Cartesian vs angle reference %.2e rad (%ld "
        "steps), angle form %.2e rad (%ld steps), residual %.1e\n",
        method.c_str(), cart_diff, cart.summary.steps, angle_diff, angle.summary.steps,
        max_of(cart.residual));
    EXPECT_LT(cart_diff, index3(method) ? 2e-5 : 1e-7) << method;
    EXPECT_LT(angle_diff, 1e-7) << method;
    EXPECT_LT(max_of(cart.residual), 1e-13) << method;
  }
}

// ---------------------------------------------------------------------------------------------
// Slider-crank of the Eindhoven mirror report §5 (docs/reference-models.md §4)

const char* kSliderCrank = R"(
model: {type: slider_crank}
integrator: {method: rk45, rtol: 1.0e-11, atol: 1.0e-11}
stabilization: {method: dsc}
time: {start: 0, end: 10, output_interval: 0.05}
)";

// Constant torque, 10 s (the crank spins up: w(10) = 32.3 rad, ẇ(10) = 4.8 rad/s). Against
// RK45 + DSC at 1e-11, each SUNDIALS method at 1e-10: measured max |Δ(w, h, ẇ, ḣ)| 4e-6 (ida),
// 1.5e-5 (cvode-bdf), 1e-6 (adams), 2.7e-4 (index 3); bound 5e-5 (1e-3 index 3). The energy
// E = ½ j ẇ² + ½ m ḣ² − T w (a constant of motion) stays within 1e-6 J (1e-4 J index 3); with
// DSC the rod constraint holds at round-off.
TEST(SundialsCrossValidation, SliderCrankAgainstRk45WithDsc) {
  const Trace reference = simulate(kSliderCrank);
  ASSERT_TRUE(reference.summary.completed) << reference.summary.failure;
  for (const auto& method : kSundials) {
    const Trace tr = simulate(kSliderCrank, with_method(method, 1e-10));
    ASSERT_TRUE(tr.summary.completed) << method << ": " << tr.summary.failure;
    double energy_error = 0.0;
    for (double e : tr.energy) energy_error = std::max(energy_error, std::abs(e - tr.energy[0]));
    const double diff = max_state_difference(tr, reference);
    std::printf(
        "[ measured ] slider-crank %s 1e-10: max |Δ(q, v)| vs rk45 %.2e, energy error %.2e J, "
        "residual %.1e, %ld steps; w(10) = %.2f rad, ẇ(10) = %.2f rad/s\n",
        method.c_str(), diff, energy_error, max_of(tr.residual), tr.summary.steps,
        tr.q.back()(0), tr.v.back()(0));
    EXPECT_LT(diff, index3(method) ? 1e-3 : 5e-5) << method;
    EXPECT_LT(energy_error, index3(method) ? 1e-4 : 1e-6) << method;
    EXPECT_LT(max_of(tr.residual), 1e-14) << method;
  }
}

// ---------------------------------------------------------------------------------------------
// The SUNDIALS example idaSlCrank (Haug, ex. 6.1.8)

struct CrankRun {
  std::vector<Vec> z;  ///< state at the 41 printed times
  long steps = 0;
};

CrankRun run_ida_slider_crank(const std::string& method, double tol, const std::string& jacobian,
                              const std::string& stabilization = "none") {
  test::IdaSliderCrank model;
  StabilizedDynamics dynamics(model, StabilizationOptions::from_name(stabilization));
  IntegratorOptions options;
  options.method = method;
  options.rtol = tol;
  options.atol = tol;
  options.dt = 0.0;
  options.jacobian = jacobian;
  options.stop_time = 10.0;
  auto integrator = make_integrator(options);
  Vec z = model.initial_state();
  integrator->initialize(dynamics, 0.0, z);
  CrankRun run;
  for (const auto& row : test::kIdaSlCrankTable) {
    integrator->advance_to(row.t, z);
    run.z.push_back(z);
  }
  run.steps = integrator->stats().steps;
  return run;
}

/// Largest |ours − printed| over the table in units of half the last printed digit, and the
/// same in absolute terms.
std::pair<double, double> table_deviation(const CrankRun& run) {
  double worst_ulps = 0.0, worst_abs = 0.0;
  for (size_t k = 0; k < std::size(test::kIdaSlCrankTable); ++k) {
    const auto& row = test::kIdaSlCrankTable[k];
    const double printed[3] = {row.q, row.x, row.p};
    for (int i = 0; i < 3; ++i) {
      const double d = std::abs(run.z[k](i) - printed[i]);
      worst_abs = std::max(worst_abs, d);
      worst_ulps = std::max(worst_ulps, d / test::half_ulp_printed(printed[i]));
    }
  }
  return {worst_ulps, worst_abs};
}

/// |ours − printed| of coordinate i at table row k in half units of the last printed digit.
double half_units(const CrankRun& run, size_t k, int i) {
  const auto& row = test::kIdaSlCrankTable[k];
  const double printed[3] = {row.q, row.x, row.p};
  return std::abs(run.z[k](i) - printed[i]) / test::half_ulp_printed(printed[i]);
}

// The example prints (q, x, p) with 5 significant digits every 0.25 s; it ran IDA (GGL, DQ
// Jacobian) at rtol = atol = 1e-6. Converged solutions (every method at 1e-10, both IDA
// Jacobians) agree with one another within 1e-6 (1e-5 index 3) and reproduce the printed
// digits: at t = 10 s all three values round to the printed ones (≤ 1 half unit); at
// t = 5.25 s q and p do, and x = 0.9556051 lies 1e-8 above the rounding boundary 0.955605
// while the printed run (accurate to ≈1e-6) landed just below it: ≤ 1.1 half units. Over the
// whole table the converged solutions are within 15 half units (7.1e-6 at t = 7.25 s, where
// all converged solutions agree with one another and the printed run is off by that much).
// Our IDA at the example's own settings (GGL, DQ Jacobian, 1e-6) stays within 2e-4 of the
// table (measured 8.6e-5: the global error at that tolerance).
TEST(SundialsCrossValidation, IdaSlCrankReproducesThePrintedOutput) {
  const CrankRun reference = run_ida_slider_crank("ida", 1e-10, "exact");
  constexpr size_t k525 = 21, k10 = 40;  // rows t = 5.25 and t = 10
  ASSERT_EQ(test::kIdaSlCrankTable[k525].t, 5.25);
  ASSERT_EQ(test::kIdaSlCrankTable[k10].t, 10.0);
  for (const auto& [method, jacobian] : std::vector<std::pair<std::string, std::string>>{
           {"ida", "exact"}, {"ida", "dq"}, {"ida-index3", "exact"}, {"cvode-bdf", "exact"},
           {"cvode-adams", "exact"}}) {
    const CrankRun run = run_ida_slider_crank(method, 1e-10, jacobian);
    double vs_reference = 0.0;
    for (size_t k = 0; k < run.z.size(); ++k) {
      vs_reference = std::max(vs_reference, (run.z[k] - reference.z[k]).head(3).cwiseAbs().maxCoeff());
    }
    const auto [ulps, abs_dev] = table_deviation(run);
    std::printf(
        "[ measured ] idaSlCrank %s (%s) 1e-10: vs ida reference %.2e; vs printed table: max "
        "%.2e (%.1f half units); t = 5.25: %.2f %.2f %.2f, t = 10: %.2f %.2f %.2f half units; "
        "%ld steps\n",
        method.c_str(), jacobian.c_str(), vs_reference, abs_dev, ulps, half_units(run, k525, 0),
        half_units(run, k525, 1), half_units(run, k525, 2), half_units(run, k10, 0),
        half_units(run, k10, 1), half_units(run, k10, 2), run.steps);
    EXPECT_LT(vs_reference, index3(method) ? 1e-5 : 1e-6) << method;
    for (int i = 0; i < 3; ++i) EXPECT_LE(half_units(run, k10, i), 1.0) << method << " t = 10, " << i;
    EXPECT_LE(half_units(run, k525, 0), 1.0) << method;
    EXPECT_LE(half_units(run, k525, 1), 1.1) << method;
    EXPECT_LE(half_units(run, k525, 2), 1.0) << method;
    EXPECT_LE(ulps, 15.0) << method;
  }
  // t = 10: q = 1.2757, x = 1.0236, p = -0.49881 printed.
  EXPECT_NEAR(reference.z.back()(0), 1.2757, 0.5e-4);
  EXPECT_NEAR(reference.z.back()(1), 1.0236, 0.5e-4);
  EXPECT_NEAR(reference.z.back()(2), -0.49881, 0.5e-5);

  const CrankRun as_example = run_ida_slider_crank("ida", 1e-6, "dq");
  const auto [ulps, abs_dev] = table_deviation(as_example);
  std::printf(
      "[ measured ] idaSlCrank ida (dq) at the example's rtol = atol = 1e-6: max deviation from "
      "the printed table %.2e (%.1f half units), %ld steps (the example: 222)\n",
      abs_dev, ulps, as_example.steps);
  EXPECT_LT(abs_dev, 2e-4);
}

}  // namespace
}  // namespace gmbd
