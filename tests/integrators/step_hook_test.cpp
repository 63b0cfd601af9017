// IntegratorOptions::on_step: called once after every accepted step by every integrator (the
// explicit RK family and, in one-step mode, IDA and CVODE), with the step's end time, its size
// and the step count; an exception it throws leaves advance_to(); state_at_last_step().
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ode_system.hpp"
#include "integrators/integrator.hpp"

namespace gmbd {
namespace {

/// Harmonic oscillator x'' = −x, z = (x, ẋ), exact solution (cos t, −sin t).
class Oscillator final : public OdeSystem {
 public:
  int dimension() const override { return 2; }
  void rhs(double /*t*/, CVec z, VecRef zdot) override {
    zdot(0) = z(1);
    zdot(1) = -z(0);
  }
};

struct Recorded {
  std::vector<double> t, h;
  std::vector<long> steps;
};

IntegratorOptions options_for(const std::string& method, Recorded& rec) {
  IntegratorOptions o;
  o.method = method;
  o.dt = method == "rk4" || method == "euler" || method == "heun" ? 1e-3 : 0.0;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  o.on_step = [&rec](double t, double h, long steps) {
    rec.t.push_back(t);
    rec.h.push_back(h);
    rec.steps.push_back(steps);
  };
  return o;
}

void expect_one_call_per_step(const std::string& method) {
  SCOPED_TRACE(method);
  Recorded rec;
  Oscillator system;
  auto integrator = make_integrator(options_for(method, rec));
  Vec z0(2);
  z0 << 1.0, 0.0;
  Vec z(2);
  integrator->initialize(system, 0.0, z0);
  ASSERT_TRUE(rec.t.empty()) << "initialize() is not a step";
  // Outputs far apart and close together: the hook does not depend on them.
  for (double tout : {0.0005, 0.25, 0.2501, 1.0, 3.0}) {
    if (integrator->adaptive()) {
      integrator->advance_to(tout, z);
    } else {
      const double steps = std::round(tout / 1e-3);
      if (std::abs(steps * 1e-3 - tout) > 1e-12) continue;  // off the fixed grid
      integrator->advance_to_step(static_cast<long>(steps), z);
    }
  }
  const long steps = integrator->stats().steps;
  ASSERT_GT(steps, 10);
  ASSERT_EQ(static_cast<long>(rec.t.size()), steps) << "one call per accepted step";
  for (size_t i = 0; i < rec.t.size(); ++i) {
    EXPECT_EQ(rec.steps[i], static_cast<long>(i) + 1);
    EXPECT_GT(rec.h[i], 0.0);
    if (i > 0) {
      EXPECT_GT(rec.t[i], rec.t[i - 1]);
    }
  }
  EXPECT_DOUBLE_EQ(rec.t.back(), integrator->time());
  EXPECT_DOUBLE_EQ(rec.h.back(), integrator->stats().last_step);
  if (!integrator->adaptive()) {
    for (double h : rec.h) EXPECT_DOUBLE_EQ(h, 1e-3);
    EXPECT_EQ(steps, 3000);
  }
  // The state the failure diagnostics see: the solution at time() (Euler's error over 3 s at
  // dt = 1e-3 is ≈ 2e-3).
  Vec last(2);
  ASSERT_TRUE(integrator->state_at_last_step(last));
  EXPECT_NEAR(last(0), std::cos(integrator->time()), 1e-2);
  EXPECT_NEAR(last(1), -std::sin(integrator->time()), 1e-2);
  if (!integrator->adaptive()) {
    EXPECT_EQ(last, z) << "the last output is the last step";
  }
  Vec wrong(3);
  EXPECT_FALSE(integrator->state_at_last_step(wrong));
}

TEST(StepHook, Rk4CallsOncePerStep) { expect_one_call_per_step("rk4"); }
TEST(StepHook, Rk45CallsOncePerAcceptedStep) {
  expect_one_call_per_step("rk45");
}
TEST(StepHook, EveryMethodCallsOncePerAcceptedStep) {
  for (const std::string& method : integrator_names()) expect_one_call_per_step(method);
}

TEST(StepHook, Rk45RejectedStepsAreNotReported) {
  // Tight tolerances from a bad first step: rejections happen, calls still equal accepted steps.
  Recorded rec;
  Oscillator system;
  IntegratorOptions o = options_for("rk45", rec);
  o.dt = 1.0;  // a first step far too large: rejected
  o.rtol = 1e-12;
  o.atol = 1e-14;
  auto integrator = make_integrator(o);
  Vec z0(2), z(2);
  z0 << 1.0, 0.0;
  integrator->initialize(system, 0.0, z0);
  integrator->advance_to(2.0, z);
  EXPECT_GT(integrator->stats().rejected_steps, 0);
  EXPECT_EQ(static_cast<long>(rec.t.size()), integrator->stats().steps);
}

TEST(StepHook, AnExceptionFromTheHookLeavesAdvanceTo) {
  for (const std::string method : {"rk4", "rk45", "ida", "cvode-bdf"}) {
    SCOPED_TRACE(method);
    Recorded rec;
    IntegratorOptions o = options_for(method, rec);
    long calls = 0;
    o.on_step = [&calls](double /*t*/, double /*h*/, long steps) {
      ++calls;
      if (steps == 5) throw std::runtime_error("disk full");
    };
    Oscillator system;
    auto integrator = make_integrator(o);
    Vec z0(2), z(2);
    z0 << 1.0, 0.0;
    integrator->initialize(system, 0.0, z0);
    EXPECT_THROW(integrator->advance_to(1.0, z), std::runtime_error);
    EXPECT_EQ(calls, 5);
    EXPECT_EQ(integrator->stats().steps, 5) << "the step stays accepted";
  }
}

TEST(StepHook, UnsetHookChangesNothing) {
  // The same run with and without a hook: identical outputs and statistics.
  for (const std::string method : {"rk4", "rk45", "ida", "cvode-bdf", "cvode-adams"}) {
    SCOPED_TRACE(method);
    Recorded rec;
    IntegratorOptions with = options_for(method, rec);
    IntegratorOptions without = with;
    without.on_step = nullptr;
    Oscillator s1, s2;
    auto a = make_integrator(with);
    auto b = make_integrator(without);
    Vec z0(2), za(2), zb(2);
    z0 << 1.0, 0.0;
    a->initialize(s1, 0.0, z0);
    b->initialize(s2, 0.0, z0);
    for (int k = 1; k <= 20; ++k) {
      a->advance_to(0.1 * k, za);
      b->advance_to(0.1 * k, zb);
      ASSERT_EQ(za(0), zb(0)) << "t = " << 0.1 * k;
      ASSERT_EQ(za(1), zb(1)) << "t = " << 0.1 * k;
    }
    EXPECT_EQ(a->stats().steps, b->stats().steps);
    EXPECT_EQ(a->stats().rhs_evaluations, b->stats().rhs_evaluations);
  }
}

}  // namespace
}  // namespace gmbd
