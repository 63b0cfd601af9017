// Whole-run verification of the RIS models (docs/reference-models.md §1.9): GPLC vs Lagrange free
// and forced responses, dish centre, RK4 + DSC energy figures, rolling-resistance dissipation, rim
// flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "constraints/stabilized_dynamics.hpp"
#include "integrators/integrator.hpp"
#include "io/motion.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"
#include "models/registry.hpp"
#include "models/ris.hpp"
#include "models/ris_gplc.hpp"
#include "models/ris_lagrange.hpp"
#include "support/ris_test_support.hpp"

namespace gmbd {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(GMBD_SANITIZED)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// ---- helpers --------------------------------------------------------------------------------------

struct Trace {
  std::vector<double> t, energy, power, max_radius;
  std::vector<Vec> q, v, a;
  IntegratorStats stats;
};

/// Independent platform/ball positions (X, Y, θ, xb_i, yb_i) of either model.
Vec independent_positions(const Model& model, CVec q) {
  Vec p(11);
  if (const auto* g = dynamic_cast<const RisGplc*>(&model)) {
    p(0) = q(0);
    p(1) = q(1);
    p(2) = q(2);
    for (int i = 0; i < 4; ++i) {
      p(3 + 2 * i) = q(g->xb_index(i));
      p(4 + 2 * i) = q(g->yb_index(i));
    }
  } else {
    p = q;
  }
  return p;
}

double resistance_power(const Model& model, CVec q, CVec v) {
  if (const auto* g = dynamic_cast<const RisGplc*>(&model)) return g->resistance_power(q, v);
  return dynamic_cast<const RisLagrange&>(model).resistance_power(q, v);
}

double max_radius(const Model& model, CVec q) {
  if (const auto* g = dynamic_cast<const RisGplc*>(&model)) return g->max_radius(q);
  return dynamic_cast<const RisLagrange&>(model).max_radius(q);
}

/// Integrates `model` from (q0, v0) and samples every `dt_out` up to t_end.
Trace simulate(const Model& model, const Vec& q0, const Vec& v0, const IntegratorOptions& io,
               bool dsc, double t_end, double dt_out) {
  StabilizationOptions stab;
  stab.dsc = dsc;
  StabilizedDynamics dynamics(model, stab);
  auto integrator = make_integrator(io);
  const int nq = model.nq();
  Vec z(2 * nq);
  z << q0, v0;
  integrator->initialize(dynamics, 0.0, z);
  if (dynamics.has_projection()) dynamics.project(0.0, z);
  Trace tr;
  const long n = std::lround(t_end / dt_out);
  for (long k = 0; k <= n; ++k) {
    const double t = static_cast<double>(k) * dt_out;
    if (k > 0) integrator->advance_to(t, z);
    dynamics.evaluate(t, z);
    const auto q = z.head(nq), v = z.segment(nq, nq);
    tr.t.push_back(t);
    tr.q.emplace_back(q);
    tr.v.emplace_back(v);
    tr.a.emplace_back(dynamics.accelerations());
    tr.energy.push_back(model.energy(t, q, v));
    tr.power.push_back(resistance_power(model, q, v));
    tr.max_radius.push_back(max_radius(model, q));
  }
  tr.stats = integrator->stats();
  return tr;
}

IntegratorOptions rk4(double dt) {
  IntegratorOptions o;
  o.method = "rk4";
  o.dt = dt;
  return o;
}

IntegratorOptions rk45(double rtol, double atol) {
  IntegratorOptions o;
  o.method = "rk45";
  o.dt = 0.0;
  o.rtol = rtol;
  o.atol = atol;
  return o;
}

/// max over samples of ‖(X, Y, θ, xb_i, yb_i)_a − (…)_b‖∞.
double max_state_difference(const Model& ma, const Trace& a, const Model& mb, const Trace& b) {
  EXPECT_EQ(a.t.size(), b.t.size());
  double d = 0.0;
  for (size_t k = 0; k < std::min(a.t.size(), b.t.size()); ++k) {
    d = std::max(d, (independent_positions(ma, a.q[k]) - independent_positions(mb, b.q[k]))
                        .cwiseAbs()
                        .maxCoeff());
  }
  return d;
}

double max_energy_error(const Trace& tr) {
  double e = 0.0;
  for (double x : tr.energy) e = std::max(e, std::abs(x - tr.energy.front()));
  return e;
}

BuiltModel build(const std::string& name, const RisInitialConditions& ic, ParameterValues params,
                 const ModelInputs& inputs = {}) {
  params["X0"] = {ic.X};
  params["Y0"] = {ic.Y};
  params["theta0"] = {ic.theta};
  params["X_dot0"] = {ic.X_dot};
  params["Y_dot0"] = {ic.Y_dot};
  params["theta_dot0"] = {ic.theta_dot};
  if (name == "ris_vertical") {
    params["Z0"] = {ic.Z};
    params["Z_dot0"] = {ic.Z_dot};
  }
  params["ball_offset_x"] = {ic.offset_x.begin(), ic.offset_x.end()};
  params["ball_offset_y"] = {ic.offset_y.begin(), ic.offset_y.end()};
  return build_model(name, params, "test", inputs);
}

/// Floor acceleration A sin(2π f t) sin²(π t/T) on [0, T], zero after (a smooth burst).
class SineBurst final : public Signal {
 public:
  SineBurst(double amplitude, double frequency, double duration, double phase = 0.0)
      : A_(amplitude), f_(frequency), T_(duration), phase_(phase) {}
  double value(double t) const override {
    if (t <= 0.0 || t >= T_) return 0.0;
    const double w = std::sin(std::numbers::pi * t / T_);
    return A_ * std::sin(2.0 * std::numbers::pi * f_ * t + phase_) * w * w;
  }
  std::string description() const override { return "sine burst"; }

 private:
  double A_, f_, T_, phase_;
};

/// Gaussian white noise through 1/(τ s + 1), exactly discretised on a grid Δ (the library's
/// synthetic_filtered_noise, y_0 = 0, samples up to t_end + Δ) and scaled from its stationary
/// standard deviation 1/√(2τ) to σ (unit-intensity noise would give σ = 2.24 m/s² at
/// τ = 0.1 s: drifts of ~1 m).
std::shared_ptr<const Signal> filtered_noise(unsigned seed, double tau, double dt, double t_end,
                                             double stationary_std) {
  return to_signal(synthetic_filtered_noise(seed, t_end + dt, dt, tau),
                   stationary_std * std::sqrt(2.0 * tau));
}

struct Peaks {
  double drift = 0.0, acceleration = 0.0, radius = 0.0;
};

/// Peak platform drift √(X² + Y²), peak total horizontal acceleration |(Ẍ + ẅx, Ÿ + ẅy)|
/// and peak ball radius max_i max(r_i, q_i) (docs/reference-models.md §1.6).
Peaks peaks(const Trace& tr, const Signal* fx, const Signal* fy) {
  Peaks p;
  for (size_t k = 0; k < tr.t.size(); ++k) {
    const double ax = tr.a[k](0) + (fx ? fx->value(tr.t[k]) : 0.0);
    const double ay = tr.a[k](1) + (fy ? fy->value(tr.t[k]) : 0.0);
    p.drift = std::max(p.drift, std::hypot(tr.q[k](0), tr.q[k](1)));
    p.acceleration = std::max(p.acceleration, std::hypot(ax, ay));
    p.radius = std::max(p.radius, tr.max_radius[k]);
  }
  return p;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- GPLC vs LE: published free responses (through the run driver) ----------------------------------

struct DriverTrace {
  std::vector<Vec> q;
  std::vector<double> energy;
};

RunSummary drive(const std::string& yaml, DriverTrace* tr, const std::vector<std::string>& overrides) {
  const RunConfig config = parse_run_config(yaml, "<test>", overrides);
  const PreparedRun run = prepare_run(config);
  return integrate(run, [&](const OutputSample& s) {
    tr->q.emplace_back(s.q);
    tr->energy.push_back(s.energy);
  });
}

const char* kFreeResponse = R"(
model:
  type: ris_xytheta
  parameters: {b0: 0, X0: 0.01, Y0: 0.01, theta0: 0.001, X_dot0: 0.45, Y_dot0: 0.45, theta_dot0: 0.5}
integrator: {method: rk45, rtol: 1.0e-12, atol: 1.0e-14}
stabilization: {method: dsc}
time: {start: 0, end: 8, output_interval: 0.02}
)";

TEST(RisVerification, GplcMatchesLagrangeOnThePublishedFreeResponses) {
  const auto t0 = std::chrono::steady_clock::now();
  const double end = kSanitized ? 2.0 : 8.0;
  const std::string end_override = "time.end=" + std::to_string(end);
  const std::vector<std::vector<std::string>> cases = {
      {"X_dot0=0.025", "Y_dot0=0.045", "theta_dot0=0.05"},  // small
      {}};                                                   // large
  for (size_t c = 0; c < cases.size(); ++c) {
    std::vector<std::string> ov = cases[c];
    ov.push_back(end_override);
    DriverTrace gplc, le;
    auto s = drive(kFreeResponse, &gplc, ov);
    ASSERT_TRUE(s.completed) << s.failure;
    EXPECT_LT(s.max_position_residual, 1e-15);
    EXPECT_LT(s.max_velocity_residual, 1e-15);
    // the run summary's peaks of the derived outputs: rim flag (docs/reference-models.md §1.9)
    for (const auto& peak : s.output_peaks) {
      if (peak.name == "max_radius") {
        std::cout << "[ info ] RIS " << (c == 0 ? "small" : "large") << " case: peak max_radius "
                  << peak.peak << " m at t = " << peak.time << " s\n";
        if (c == 0) {
          EXPECT_LT(peak.peak, 0.15);
        } else if (!kSanitized) {  // the peak is at t = 3.42 s
          EXPECT_NEAR(peak.peak, 0.184, 0.001);
        }
      }
      if (peak.name == "rim_exceeded") {
        std::cout << "[ info ]   rim_exceeded peak " << peak.peak << " first at t = " << peak.time
                  << " s\n";
        EXPECT_EQ(peak.peak, c == 0 ? 0.0 : 1.0);  // large case: first past the rim at 0.54 s
      }
    }
    EXPECT_EQ(s.output_peaks.size(), 11u);  // XYθ: no floor_accel_z
    ov.push_back("model.type=ris_lagrange");
    ov.push_back("stabilization.method=none");  // LE as the plain ODE
    s = drive(kFreeResponse, &le, ov);
    ASSERT_TRUE(s.completed) << s.failure;
    const RisGplc shape(RisParameters{}, RisGplc::Variant::kXYTheta);
    double diff = 0.0;
    ASSERT_EQ(gplc.q.size(), le.q.size());
    for (size_t k = 0; k < gplc.q.size(); ++k) {
      diff = std::max(diff,
                      (independent_positions(shape, gplc.q[k]) - le.q[k]).cwiseAbs().maxCoeff());
    }
    double e_gplc = 0.0, e_le = 0.0;
    for (size_t k = 0; k < gplc.q.size(); ++k) {
      e_gplc = std::max(e_gplc, std::abs(gplc.energy[k] - gplc.energy[0]));
      e_le = std::max(e_le, std::abs(le.energy[k] - le.energy[0]));
    }
    std::cout << "[ info ] RIS " << (c == 0 ? "small" : "large") << " free response, " << end
              << " s, rk45 rtol 1e-12: max |GPLC − LE| (X, Y, θ, xb, yb) = " << diff
              << "; energy drift GPLC " << e_gplc << " J, LE " << e_le << " J (E0 = "
              << gplc.energy[0] << " J)\n";
    EXPECT_LT(diff, 1e-8);
    EXPECT_GT(diff, 0.0);  // two genuinely different computations
    EXPECT_LT(e_gplc, 1e-8 * gplc.energy[0]);
    if (c == 1) {
      EXPECT_NEAR(gplc.energy[0], 111.96, 0.01);  // docs/reference-models.md §1.1
    }
  }
  std::cout << "[ info ] (" << seconds_since(t0) << " s)\n";
}

// ---- RK4 + DSC: energy and accuracy figures, rim flag ---------------------------------------------------

TEST(RisVerification, Rk4WithDscConservesEnergyOnTheLargeCase) {
  const auto t0 = std::chrono::steady_clock::now();
  const double end = 8.0;
  const RisInitialConditions ic = RisInitialConditions::large_free_response();
  const BuiltModel gplc = build("ris_xytheta", ic, {{"b0", {0.0}}});
  const BuiltModel le = build("ris_lagrange", ic, {{"b0", {0.0}}});
  // reference: LE (plain ODE) at rk45 rtol 1e-13
  const Trace ref = simulate(*le.model, le.q0, le.v0, rk45(1e-13, 1e-15), false, end, 0.01);
  // docs/reference-models.md §1.9 reference figures, given to two digits: max |E − E0| (J) on the
  // 10 ms output grid and max platform position error |X|, |Y| (m) vs LE. "Meet or beat" = not
  // above the reference's rounding interval.
  // θ (no published figure): our measured values 1.44e-7, 6.44e-9, 1.36e-10 rad plus 5 %.
  // At dt = 0.002 (published 1.3e-7 J, 3.1e-11 m) the LE reference itself is only good to
  // ≈2e-12 m, so the position bound there carries that allowance.
  const struct {
    double dt, energy, position, theta;
  } cases[] = {{0.01, 7.95e-5, 4.85e-8, 1.5e-7},
               {0.005, 4.85e-6, 8.15e-10, 6.8e-9},
               {0.002, 1.35e-7, 3.4e-11, 1.45e-10}};
  for (const auto& c : cases) {
    const Trace tr = simulate(*gplc.model, gplc.q0, gplc.v0, rk4(c.dt), true, end, 0.01);
    const double de = max_energy_error(tr);
    double dxy = 0.0, dth = 0.0, dball = 0.0;
    for (size_t k = 0; k < tr.t.size(); ++k) {
      const Vec d = (independent_positions(*gplc.model, tr.q[k]) - ref.q[k]).cwiseAbs();
      dxy = std::max({dxy, d(0), d(1)});
      dth = std::max(dth, d(2));
      dball = std::max(dball, d.tail(8).maxCoeff());
    }
    std::cout << "[ info ] RIS large case, RK4 + DSC, dt = " << c.dt << " s, 8 s: max |E − E0| = "
              << de << " J (reference < " << c.energy << "); error vs LE: X, Y " << dxy
              << " m (reference < " << c.position << "), θ " << dth << " rad, balls " << dball
              << " m\n";
    EXPECT_LE(de, c.energy);
    EXPECT_LE(dxy, c.position);
    EXPECT_LE(dth, c.theta);
    if (c.dt == 0.005) {
      // rim flag (docs/reference-models.md §1.9): the balls go past the rim on this case,
      // max r ≈ 0.184 m
      const auto it = std::max_element(tr.max_radius.begin(), tr.max_radius.end());
      std::cout << "[ info ] RIS large case: max_i max(r_i, q_i) = " << *it << " m (R = 0.15)\n";
      EXPECT_NEAR(*it, 0.184, 0.001);
      const auto& model = dynamic_cast<const RisGplc&>(*gplc.model);
      EXPECT_TRUE(model.rim_exceeded(tr.q[static_cast<size_t>(it - tr.max_radius.begin())]));
      EXPECT_FALSE(model.rim_exceeded(tr.q.front()));
    }
  }
  // the small case stays inside the dish
  const BuiltModel small =
      build("ris_xytheta", RisInitialConditions::small_free_response(), {{"b0", {0.0}}});
  const Trace ts = simulate(*small.model, small.q0, small.v0, rk4(0.01), true, end, 0.05);
  const double rsmall = *std::max_element(ts.max_radius.begin(), ts.max_radius.end());
  EXPECT_LT(rsmall, 0.15);
  std::cout << "[ info ] RIS small case: max radius " << rsmall << " m; (" << seconds_since(t0)
            << " s)\n";
}

// ---- rolling resistance dissipation ---------------------------------------------------------------------

TEST(RisVerification, RollingResistanceDissipatesWhatItsPowerSays) {
  // E(t) − E(0) = ∫ Σ F·u dt (trapezoid on a 1 ms grid), default b0 = 0.08, large case.
  const auto t0 = std::chrono::steady_clock::now();
  const double end = kSanitized ? 1.0 : 3.0;
  const RisInitialConditions ic = RisInitialConditions::large_free_response();
  for (const char* name : {"ris_xytheta", "ris_lagrange"}) {
    const BuiltModel m = build(name, ic, {});
    const Trace tr = simulate(*m.model, m.q0, m.v0, rk45(1e-11, 1e-13), true, end, 1e-3);
    double work = 0.0, worst = 0.0;
    for (size_t k = 1; k < tr.t.size(); ++k) {
      work += 0.5 * (tr.power[k] + tr.power[k - 1]) * (tr.t[k] - tr.t[k - 1]);
      worst = std::max(worst, std::abs((tr.energy[k] - tr.energy[0]) - work));
    }
    const double lost = tr.energy.front() - tr.energy.back();
    std::cout << "[ info ] RIS " << name << " rolling resistance over " << end
              << " s: energy lost " << lost << " J, ∫ΣF·u dt = " << work
              << " J, max |ΔE − ∫P| = " << worst << " J (relative " << worst / lost << ")\n";
    EXPECT_GT(lost, 10.0);
    EXPECT_LT(worst, 1e-4 * lost) << name;
  }
  std::cout << "[ info ] (" << seconds_since(t0) << " s)\n";
}

// ---- dish centre: from rest at the centres under floor motion, and balls through the centre ----------

TEST(RisVerification, FromRestAtTheDishCentresUnderFloorMotion) {
  const auto t0 = std::chrono::steady_clock::now();
  const double end = kSanitized ? 1.0 : 4.0;
  ModelInputs inputs;
  inputs.signals.push_back({"floor_x", std::make_shared<SineBurst>(3.0, 1.2, 2.5)});
  inputs.signals.push_back({"floor_y", std::make_shared<SineBurst>(2.0, 0.9, 2.5, 0.7)});
  const RisInitialConditions rest;
  for (double b0 : {0.0, 0.08}) {
    const BuiltModel gplc = build("ris_xytheta", rest, {{"b0", {b0}}}, inputs);
    const BuiltModel le = build("ris_lagrange", rest, {{"b0", {b0}}}, inputs);
    // the start is the singular configuration: every r_i, q_i is an exactly decoupled pair
    KktSolver kkt(*gplc.model);
    kkt.evaluate(0.0, gplc.q0, gplc.v0, Vec());
    EXPECT_EQ(kkt.decoupled_count(), 8);
    const Trace tg = simulate(*gplc.model, gplc.q0, gplc.v0, rk45(1e-12, 1e-14), true, end, 0.01);
    const Trace tl = simulate(*le.model, le.q0, le.v0, rk45(1e-12, 1e-14), false, end, 0.01);
    const double diff = max_state_difference(*gplc.model, tg, *le.model, tl);
    const double rmax = *std::max_element(tg.max_radius.begin(), tg.max_radius.end());
    std::cout << "[ info ] RIS from rest at the dish centres, sine-burst floor motion, b0 = " << b0
              << ": max |GPLC − LE| = " << diff << " m (max radius " << rmax << " m)\n";
    EXPECT_LT(diff, 1e-8);
    EXPECT_GT(rmax, 0.01);  // the run really moved
  }
  std::cout << "[ info ] (" << seconds_since(t0) << " s)\n";
}

TEST(RisVerification, BallsMovingThroughTheDishCentres) {
  // Start with every ball exactly at its centre and moving (ṙ = speed): the φr rows are
  // decoupled at t = 0 and the balls later pass near the centres again.
  const auto t0 = std::chrono::steady_clock::now();
  const double end = kSanitized ? 1.5 : 4.0;
  RisInitialConditions ic;
  ic.X_dot = 0.2;
  ic.Y_dot = -0.1;
  const BuiltModel gplc = build("ris_xytheta", ic, {{"b0", {0.0}}});
  const BuiltModel le = build("ris_lagrange", ic, {{"b0", {0.0}}});
  // Pure translation: every ball moves on a straight line through its centre, so r_i = |ρ_i|
  // has a kink and ṙ_i jumps from −speed to +speed at each pass. The dependent r, ṙ are
  // rebuilt by DSC, but rk45's error estimate includes them: it rejects many steps at each
  // pass and at rtol 1e-12 the step size underflows (t ≈ 1.79 s) — see docs/ris.md.
  // rtol 1e-10 completes.
  const Trace tg = simulate(*gplc.model, gplc.q0, gplc.v0, rk45(1e-10, 1e-12), true, end, 0.01);
  const Trace tl = simulate(*le.model, le.q0, le.v0, rk45(1e-12, 1e-14), false, end, 0.01);
  const double diff = max_state_difference(*gplc.model, tg, *le.model, tl);
  std::cout << "[ info ] RIS balls starting at the centres with Ẋ = 0.2, Ẏ = −0.1 m/s: max |GPLC − "
               "LE| = "
            << diff << " m\n";
  EXPECT_LT(diff, 1e-8);
  // XYZθ through the centre: energy conserved, which needs ṙ = speed in h''(r) ṙ² at r = 0
  const BuiltModel xyz = build("ris_xyztheta", ic, {{"b0", {0.0}}});
  const Trace tz = simulate(*xyz.model, xyz.q0, xyz.v0, rk4(0.002), true, end, 0.01);
  const double de = max_energy_error(tz);
  std::cout << "[ info ] RIS XYZθ through the centres, RK4 dt 0.002: max |E − E0| = " << de
            << " J of " << tz.energy[0] << " J; (" << seconds_since(t0) << " s)\n";
  EXPECT_LT(de, 1e-8 * tz.energy[0]);
}

TEST(RisVerification, Rk45ErrorTestLeavesOutTheComponentsDscRecomputes) {
  // The BallsMovingThroughTheDishCentres run at rtol 1e-12. With every component in the error
  // norm (error_test_dependent = true, the behaviour before the mask) the kinks of r_i and
  // ṙ_i at each pass through a centre make rk45 reject step after step and the step size
  // underflows (at t ≈ 1.2–1.8 s: where exactly depends on the round-off of the KKT solve at
  // the kinks); with the DSC-dependent components left out (default) the run completes, agrees
  // with the Lagrange model as closely as at rtol 1e-10 and rejects far fewer steps. Accuracy
  // is that of the independent components, which stay in the test.
  const auto t0 = std::chrono::steady_clock::now();
  const double end = 1.0;  // before the unmasked run fails
  RisInitialConditions ic;
  ic.X_dot = 0.2;
  ic.Y_dot = -0.1;
  const BuiltModel gplc = build("ris_xytheta", ic, {{"b0", {0.0}}});
  const BuiltModel le = build("ris_lagrange", ic, {{"b0", {0.0}}});
  const Trace tl = simulate(*le.model, le.q0, le.v0, rk45(1e-13, 1e-15), false, end, 0.01);
  IntegratorOptions all = rk45(1e-12, 1e-14);
  all.error_test_dependent = true;
  const Trace t_all = simulate(*gplc.model, gplc.q0, gplc.v0, all, true, end, 0.01);
  const Trace t_mask = simulate(*gplc.model, gplc.q0, gplc.v0, rk45(1e-12, 1e-14), true, end, 0.01);
  const double d_all = max_state_difference(*gplc.model, t_all, *le.model, tl);
  const double d_mask = max_state_difference(*gplc.model, t_mask, *le.model, tl);
  std::cout << "[ info ] rk45 rtol 1e-12 through the centres, " << end
            << " s: all components tested: " << t_all.stats.steps << " steps ("
            << t_all.stats.rejected_steps << " rejected), max |GPLC − LE| = " << d_all
            << " m; DSC-dependent left out: " << t_mask.stats.steps << " steps ("
            << t_mask.stats.rejected_steps << " rejected), max |GPLC − LE| = " << d_mask
            << " m (" << seconds_since(t0) << " s)\n";
  EXPECT_LT(d_mask, 1e-9);
  EXPECT_LT(t_mask.stats.rejected_steps * 4, t_all.stats.rejected_steps);
  // And past the point where the unmasked run fails.
  if (!kSanitized) {
    const Trace longer =
        simulate(*gplc.model, gplc.q0, gplc.v0, rk45(1e-12, 1e-14), true, 4.0, 0.01);
    const Trace tl4 = simulate(*le.model, le.q0, le.v0, rk45(1e-13, 1e-15), false, 4.0, 0.01);
    const double d4 = max_state_difference(*gplc.model, longer, *le.model, tl4);
    std::cout << "[ info ] … to 4 s: " << longer.stats.steps << " steps ("
              << longer.stats.rejected_steps << " rejected), max |GPLC − LE| = " << d4 << " m\n";
    EXPECT_LT(d4, 1e-9);
  }
}

// ---- peak-response distributions -----------------------------------------------------------------------

void compare_peak_distributions(const std::vector<Peaks>& a, const std::vector<Peaks>& b,
                                const std::string& what, double tolerance) {
  ASSERT_EQ(a.size(), b.size());
  double dd = 0.0, da = 0.0, dr = 0.0;
  std::vector<double> sa, sb;
  for (size_t k = 0; k < a.size(); ++k) {
    dd = std::max(dd, std::abs(a[k].drift - b[k].drift));
    da = std::max(da, std::abs(a[k].acceleration - b[k].acceleration));
    dr = std::max(dr, std::abs(a[k].radius - b[k].radius));
    sa.push_back(a[k].drift);
    sb.push_back(b[k].drift);
  }
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  double quantile = 0.0;  // largest difference between the two empirical distributions
  for (size_t k = 0; k < sa.size(); ++k) quantile = std::max(quantile, std::abs(sa[k] - sb[k]));
  std::cout << "[ info ] RIS peak responses, " << what << " (" << a.size()
            << " runs): median peak drift " << sa[sa.size() / 2]
            << " m; max per-run |GPLC − LE|: drift " << dd << " m, acceleration " << da
            << " m/s², radius " << dr << " m; max quantile difference " << quantile << " m\n";
  EXPECT_LT(dd, tolerance);
  EXPECT_LT(dr, tolerance);
  EXPECT_LT(da, 1e3 * tolerance);  // m/s² (accelerations are ~10³ × displacements / s²)
  EXPECT_LE(quantile, dd);
}

TEST(RisVerification, PeakResponsesOverRandomInitialConditionsAgree) {
  const auto t0 = std::chrono::steady_clock::now();
  const int runs = kSanitized ? 5 : 50;
  const double end = kSanitized ? 3.0 : 5.0;
  std::mt19937 rng(2024);
  std::vector<Peaks> pg, pl;
  for (int run = 0; run < runs; ++run) {
    const RisInitialConditions ic = test::random_ic(rng, {.position = 0.05,
                                                          .angle = 0.05,
                                                          .velocity = 0.4,
                                                          .angular_velocity = 0.4,
                                                          .vertical = false,
                                                          .offsets = false});
    const BuiltModel gplc = build("ris_xytheta", ic, {});
    const BuiltModel le = build("ris_lagrange", ic, {});
    const Trace tg = simulate(*gplc.model, gplc.q0, gplc.v0, rk4(0.005), true, end, 0.005);
    const Trace tl = simulate(*le.model, le.q0, le.v0, rk4(0.005), false, end, 0.005);
    pg.push_back(peaks(tg, nullptr, nullptr));
    pl.push_back(peaks(tl, nullptr, nullptr));
  }
  // LE as the plain ODE (no projection of its ball rates): the two differ by RK4's error only
  compare_peak_distributions(pg, pl,
                             "random initial conditions, b0 = 0.08, RK4 dt 5 ms, " +
                                 std::to_string(end) + " s",
                             1e-9);
  std::cout << "[ info ] (" << seconds_since(t0) << " s)\n";
}

TEST(RisVerification, PeakResponsesUnderFilteredNoiseAgree) {
  const auto t0 = std::chrono::steady_clock::now();
  const int runs = kSanitized ? 3 : 20;
  const double end = kSanitized ? 4.0 : 8.0, dt = 0.005;
  std::vector<Peaks> pg, pl, pz;
  for (int run = 0; run < runs; ++run) {
    ModelInputs inputs;
    // σ = 1 m/s² (0.1 g): peak drifts 8–20 cm, balls inside the dish
    const auto fx = filtered_noise(1000u + 2u * static_cast<unsigned>(run), 0.1, dt, end, 1.0);
    const auto fy = filtered_noise(1001u + 2u * static_cast<unsigned>(run), 0.1, dt, end, 1.0);
    inputs.signals = {{"floor_x", fx}, {"floor_y", fy}};
    const RisInitialConditions rest;
    const BuiltModel gplc = build("ris_xytheta", rest, {}, inputs);
    const BuiltModel le = build("ris_lagrange", rest, {}, inputs);
    const BuiltModel xyz = build("ris_xyztheta", rest, {}, inputs);
    const Trace tg = simulate(*gplc.model, gplc.q0, gplc.v0, rk4(dt), true, end, dt);
    const Trace tl = simulate(*le.model, le.q0, le.v0, rk4(dt), false, end, dt);
    const Trace tz = simulate(*xyz.model, xyz.q0, xyz.v0, rk4(dt), true, end, dt);
    pg.push_back(peaks(tg, fx.get(), fy.get()));
    pl.push_back(peaks(tl, fx.get(), fy.get()));
    pz.push_back(peaks(tz, fx.get(), fy.get()));
  }
  compare_peak_distributions(pg, pl,
                             "filtered noise τ = 0.1 s σ = 1 m/s², b0 = 0.08, RK4 dt 5 ms, " +
                                 std::to_string(end) + " s",
                             1e-9);
  // XYZθ under horizontal motion only: essentially the LE response (RIS thesis Fig. 5.15)
  double rel = 0.0;
  for (size_t k = 0; k < pz.size(); ++k) {
    rel = std::max({rel, std::abs(pz[k].drift - pl[k].drift) / pl[k].drift,
                    std::abs(pz[k].acceleration - pl[k].acceleration) / pl[k].acceleration});
  }
  std::cout << "[ info ] RIS XYZθ vs LE under horizontal noise: max relative peak difference "
            << rel << "; (" << seconds_since(t0) << " s)\n";
  EXPECT_LT(rel, 0.03);
}

// ---- XYZθ and vertical isolation --------------------------------------------------------------------------

/// Order of convergence log2(e(dt)/e(dt/2)) of the max energy error of RK4 + DSC.
double energy_error_order(const BuiltModel& m, double dt, double end, double* coarse, double* fine) {
  *coarse = max_energy_error(simulate(*m.model, m.q0, m.v0, rk4(dt), true, end, 2 * dt));
  *fine = max_energy_error(simulate(*m.model, m.q0, m.v0, rk4(dt / 2), true, end, 2 * dt));
  return std::log2(*coarse / *fine);
}

TEST(RisVerification, XyzThetaAndVerticalIsolationConserveEnergyUndamped) {
  const auto t0 = std::chrono::steady_clock::now();
  const double end = kSanitized ? 2.0 : 8.0;
  double coarse = 0.0, fine = 0.0;
  // XYZθ, large case: RK4 + DSC energy error converges at fourth order
  const BuiltModel xyz =
      build("ris_xyztheta", RisInitialConditions::large_free_response(), {{"b0", {0.0}}});
  const double oz = energy_error_order(xyz, 0.01, end, &coarse, &fine);
  std::cout << "[ info ] RIS XYZθ large case (E0 = " << xyz.model->energy(0, xyz.q0, xyz.v0)
            << " J), RK4 + DSC over " << end << " s: max |E − E0| = " << coarse
            << " J at dt 0.01, " << fine << " J at dt 0.005 (order " << oz << ")\n";
  EXPECT_GT(oz, 3.5);
  EXPECT_LT(fine, 2e-5);
  // vertical isolation, impulse case (docs/reference-models.md §1.9), undamped
  const RisInitialConditions imp = RisInitialConditions::vertical_impulse();
  const BuiltModel vert = build("ris_vertical", imp, {{"b0", {0.0}}, {"isolator_damping", {0.0}}});
  const double ov = energy_error_order(vert, 0.01, end, &coarse, &fine);
  std::cout << "[ info ] RIS vertical impulse (E0 = " << vert.model->energy(0, vert.q0, vert.v0)
            << " J), undamped, RK4 + DSC: max |E − E0| = " << coarse << " J at dt 0.01, " << fine
            << " J at dt 0.005 (order " << ov << "); (" << seconds_since(t0) << " s)\n";
  EXPECT_GT(ov, 3.5);
  EXPECT_LT(fine, 1e-5);
}

TEST(RisVerification, VerticalIsolatorWithBallsAtTheCentresIsADampedOscillator) {
  // Ż(0) = 0.1 m/s with the balls at rest at their centres: nothing moves horizontally, every
  // (r_i, phi_r<i>) and (q_i, phi_q<i>) pair stays decoupled, H ≡ 0, and Z is the isolator's
  // damped oscillator Z = Ż0/ω_d e^(−ζω t) sin(ω_d t), ω = 2π·2 Hz, ω_d = ω √(1 − ζ²).
  RisInitialConditions ic;
  ic.Z_dot = 0.1;
  const BuiltModel m = build("ris_vertical", ic, {});
  const Trace tr = simulate(*m.model, m.q0, m.v0, rk4(0.001), true, kSanitized ? 1.0 : 3.0, 0.01);
  const double w = 2.0 * std::numbers::pi * 2.0, zeta = 0.1, wd = w * std::sqrt(1.0 - zeta * zeta);
  double err = 0.0, horizontal = 0.0;
  for (size_t k = 0; k < tr.t.size(); ++k) {
    const double exact = 0.1 / wd * std::exp(-zeta * w * tr.t[k]) * std::sin(wd * tr.t[k]);
    err = std::max(err, std::abs(tr.q[k](3) - exact));
    horizontal = std::max({horizontal, tr.q[k].head(3).cwiseAbs().maxCoeff(), tr.max_radius[k]});
  }
  std::cout << "[ info ] RIS vertical isolator, balls at the centres: max |Z − exact| = " << err
            << " m (amplitude " << 0.1 / wd << " m), RK4 dt 1 ms\n";
  EXPECT_LT(err, 1e-9);
  EXPECT_EQ(horizontal, 0.0);
}

TEST(RisVerification, VerticalImpulseDissipatesWhatDampingAndRollingResistanceSay) {
  // Default ζ = 0.1 and b0 = 0.08: E(t) − E(0) = ∫ (Σ F·u − c Ż²) dt (trapezoid, 1 ms grid).
  const double end = kSanitized ? 1.0 : 3.0;
  const BuiltModel m = build("ris_vertical", RisInitialConditions::vertical_impulse(), {});
  const auto& model = dynamic_cast<const RisGplc&>(*m.model);
  const double c = model.parameters().isolator_damping_coefficient();
  const Trace tr = simulate(model, m.q0, m.v0, rk45(1e-11, 1e-13), true, end, 1e-3);
  double work = 0.0, worst = 0.0;
  const auto power = [&](size_t k) { return tr.power[k] - c * tr.v[k](3) * tr.v[k](3); };
  for (size_t k = 1; k < tr.t.size(); ++k) {
    work += 0.5 * (power(k) + power(k - 1)) * (tr.t[k] - tr.t[k - 1]);
    worst = std::max(worst, std::abs((tr.energy[k] - tr.energy[0]) - work));
  }
  const double lost = tr.energy.front() - tr.energy.back();
  std::cout << "[ info ] RIS vertical impulse, ζ = 0.1, b0 = 0.08, " << end << " s: energy lost "
            << lost << " J of " << tr.energy.front() << " J, max |ΔE − ∫P| = " << worst
            << " J\n";
  EXPECT_GT(lost, 0.5 * tr.energy.front());
  EXPECT_LT(worst, 1e-4 * lost);
}

TEST(RisVerification, XyzThetaIsCloseToXyThetaForSmallMotion) {
  // Beyond r ≈ a0 the dish is nearly conical (h' ≈ a1 = 0.1), so Ḣ ≈ a1 ṙ and the vertical
  // kinetic energy is ≈ a1² = 1 % of the horizontal one: the XYZθ response stays within a few
  // per cent of the XYθ response (a slower oscillation), and differs from it.
  const RisInitialConditions ic = RisInitialConditions::small_free_response();
  const BuiltModel xy = build("ris_xytheta", ic, {{"b0", {0.0}}});
  const BuiltModel xyz = build("ris_xyztheta", ic, {{"b0", {0.0}}});
  const double end = kSanitized ? 2.0 : 4.0;
  const Trace a = simulate(*xy.model, xy.q0, xy.v0, rk4(0.005), true, end, 0.01);
  const Trace b = simulate(*xyz.model, xyz.q0, xyz.v0, rk4(0.005), true, end, 0.01);
  double amplitude = 0.0;
  for (const auto& q : a.q) amplitude = std::max(amplitude, std::hypot(q(0), q(1)));
  const double diff = max_state_difference(*xy.model, a, *xyz.model, b);
  std::cout << "[ info ] RIS small free response over " << end << " s: max |XYZθ − XYθ| = " << diff
            << " m for an amplitude of " << amplitude << " m\n";
  EXPECT_LT(diff, 0.05 * amplitude);
  EXPECT_GT(diff, 1e-3 * amplitude);
}

}  // namespace
}  // namespace gmbd
