// The explicit Runge–Kutta step, DSC on stages and results, PI step-size control, Hairer's
// starting step and dense output (HNW I, §II.4–II.6; HNW II, §IV.2).
#include "integrators/explicit_rk.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/errors.hpp"

namespace gmbd {

namespace {

constexpr double kSafety = 0.9;  // step-size safety factor
constexpr double kFacMin = 0.2;  // smallest step-size ratio
constexpr double kFacMax = 5.0;  // largest step-size ratio
constexpr double kBeta1 = 0.7;   // PI gains, divided by k = p̂ + 1 (HNW II, eq. IV.2.43c)
constexpr double kBeta2 = 0.4;
constexpr double kErrFloor = 1e-4;  // lower bound of the remembered error (as in DOPRI5)
constexpr double kStretch = 1.01;   // a step may grow by 1 % to reach a breakpoint
constexpr double kGridTol = 1e-9;   // fixed-step output times: |tout − grid| ≤ 1e-9·dt

std::string fmt(double x) {
  std::ostringstream s;
  s << std::setprecision(12) << x;
  return s.str();
}

}  // namespace

ExplicitRk::ExplicitRk(RkTableau tableau, const IntegratorOptions& options)
    : tableau_(std::move(tableau)), options_(options) {
  const std::string who = "integrator " + tableau_.name + ": ";
  auto bad = [&](const std::string& what) { throw InputError(who + what); };
  if (options_.max_steps <= 0)
    bad("max_steps = " + std::to_string(options_.max_steps) + " must be > 0");
  if (!tableau_.adaptive()) {
    if (!(std::isfinite(options_.dt) && options_.dt > 0.0)) {
      bad("dt = " + fmt(options_.dt) + " must be finite and > 0 for a fixed-step method");
    }
    h_ = options_.dt;
    return;
  }
  // Dense output interpolates with the FSAL stage F(t + h, z⁺).
  if (!tableau_.fsal || tableau_.dense == DenseOutputKind::kNone) {
    throw std::logic_error(who + "adaptive tableaux must be FSAL with dense output");
  }
  if (!(std::isfinite(options_.rtol) && options_.rtol >= 0.0)) {
    bad("rtol = " + fmt(options_.rtol) + " must be finite and >= 0");
  }
  if (!(std::isfinite(options_.atol) && options_.atol >= 0.0)) {
    bad("atol = " + fmt(options_.atol) + " must be finite and >= 0");
  }
  if (options_.rtol + options_.atol <= 0.0) bad("rtol and atol are both 0; one must be > 0");
  if (std::isnan(options_.dt) || std::isinf(options_.dt)) {
    bad("dt = " + fmt(options_.dt) +
        " must be finite (<= 0 selects the initial step automatically)");
  }
  if (!(options_.max_step > 0.0)) bad("max_step = " + fmt(options_.max_step) + " must be > 0");
  if (!(std::isfinite(options_.min_step) && options_.min_step >= 0.0)) {
    bad("min_step = " + fmt(options_.min_step) + " must be finite and >= 0");
  }
  if (options_.dt > 0.0 && options_.dt < options_.min_step) {
    bad("dt = " + fmt(options_.dt) + " is below min_step = " + fmt(options_.min_step));
  }
  if (options_.min_step > options_.max_step) {
    bad("min_step = " + fmt(options_.min_step) + " exceeds max_step = " + fmt(options_.max_step));
  }
}

void ExplicitRk::initialize(OdeSystem& system, double t0, CVec z0) {
  const int n = system.dimension();
  if (z0.size() != n) {
    throw InputError("integrator " + tableau_.name + ": initialize: wrong state size: expected " +
                     std::to_string(n) + " (system dimension), got " + std::to_string(z0.size()));
  }
  if (!std::isfinite(t0))
    throw InputError("integrator " + tableau_.name + ": t0 = " + fmt(t0) + " must be finite");
  system_ = &system;
  project_ = system.has_projection();
  n_ = n;
  const int s = tableau_.stages();

  // Storage for the whole run.
  z_ = z0;
  z_prev_ = z0;
  f_.setZero(n);
  y_stage_.setZero(n);
  y_new_.setZero(n);
  err_.setZero(n);
  k_.setZero(n, s);
  dense_.setZero(n, 5);
  // Components the projection recomputes (DSC's dependent coordinates and rates) are left out
  // of the error norm: their uncorrected error estimate says nothing about the projected
  // result, and where they have a kink (an RIS ball radius at its dish centre) it is O(1) and
  // would reject step after step.
  error_mask_.setOnes(n);
  // error_test_mask writes exactly 0 or 1 (OdeSystem's contract), so the mask multiplies.
  if (project_ && !options_.error_test_dependent) system.error_test_mask(error_mask_);
  error_count_ = static_cast<int>(error_mask_.sum());
  if (error_count_ == 0) {  // nothing left to test: test everything
    error_mask_.setOnes();
    error_count_ = n;
  }

  t0_ = t_ = t_prev_ = t0;
  h_prev_ = 0.0;
  grid_index_ = 0;
  h_ = tableau_.adaptive() ? std::min(std::max(options_.dt, 0.0), options_.max_step) : options_.dt;
  err_prev_ = kErrFloor;
  last_rejected_ = false;
  f_valid_ = false;
  dense_valid_ = false;
  stats_ = IntegratorStats{};
  correction_since_output_ = 0.0;

  // Start on the manifold (a correction of the input, not drift: not recorded).
  if (project_) {
    system_->project(t0, z_);
    z_prev_ = z_;
  }
}

void ExplicitRk::check_initialized(const char* where) const {
  if (system_ == nullptr) {
    throw std::logic_error("integrator " + tableau_.name + ": " + where +
                           " called before initialize()");
  }
}

void ExplicitRk::evaluate(double t, CVec z, VecRef zdot) {
  system_->rhs(t, z, zdot);
  ++stats_.rhs_evaluations;
}

void ExplicitRk::fail(const std::string& reason, double h) const {
  throw IntegrationError(t_, "integrator " + tableau_.name + " failed at t = " + fmt(t_) +
                                 " s (step size h = " + fmt(h) + " s): " + reason);
}

double ExplicitRk::attempt_step(double h, double t_end) {
  const int s = tableau_.stages();
  const Mat& a = tableau_.a;
  attempt_stage_correction_ = 0.0;
  attempt_step_correction_ = 0.0;

  // k₁ = F(t, z): z is the projected step start.
  k_.col(0) = f_;
  for (int i = 1; i < s; ++i) {
    // FSAL: the last stage is the result z⁺ (row s of a equals b).
    const bool is_result = tableau_.fsal && i == s - 1;
    Vec& y = is_result ? y_new_ : y_stage_;
    // Y_i ← z + h Σ_{j<i} a_ij k_j
    y = z_;
    for (int j = 0; j < i; ++j) {
      if (a(i, j) != 0.0) y.noalias() += (h * a(i, j)) * k_.col(j);
    }
    const double ti = is_result ? t_end : t_ + tableau_.c(i) * h;
    // DSC: Y_i ← P(Y_i) before evaluating k_i.
    if (project_) {
      const double corr = system_->project(ti, y);
      if (is_result) {
        attempt_step_correction_ = corr;
      } else {
        attempt_stage_correction_ = std::max(attempt_stage_correction_, corr);
      }
    }
    evaluate(ti, y, k_.col(i));
  }
  if (!tableau_.fsal) {
    // z⁺ ← z + h Σ b_i k_i, then z⁺ ← P(z⁺)
    y_new_ = z_;
    for (int j = 0; j < s; ++j) {
      if (tableau_.b(j) != 0.0) y_new_.noalias() += (h * tableau_.b(j)) * k_.col(j);
    }
    if (project_) attempt_step_correction_ = system_->project(t_end, y_new_);
  }
  if (!tableau_.adaptive())
    return y_new_.allFinite() ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  return error_norm(h);
}

double ExplicitRk::error_norm(double h) {
  // err ← h Σ e_i k_i (= uncorrected z⁺ − ẑ⁺)
  err_.setZero();
  for (int j = 0; j < tableau_.stages(); ++j) {
    if (tableau_.e(j) != 0.0) err_.noalias() += (h * tableau_.e(j)) * k_.col(j);
  }
  if (n_ == 0) return 0.0;
  double sum = 0.0;
  for (int i = 0; i < n_; ++i) {
    if (error_mask_(i) == 0.0) continue;
    const double scale =
        options_.atol + options_.rtol * std::max(std::abs(z_(i)), std::abs(y_new_(i)));
    const double r = err_(i) / scale;
    sum += r * r;
  }
  const double norm = std::sqrt(sum / error_count_);
  // A non-finite result or FSAL derivative makes the step unusable.
  if (!std::isfinite(norm) || !y_new_.allFinite()) return std::numeric_limits<double>::quiet_NaN();
  return norm;
}

void ExplicitRk::accept_step(double h, double t_new) {
  ++stats_.steps;
  stats_.last_step = h;
  stats_.max_stage_correction = std::max(stats_.max_stage_correction, attempt_stage_correction_);
  stats_.max_step_correction = std::max(stats_.max_step_correction, attempt_step_correction_);
  correction_since_output_ = std::max(correction_since_output_, attempt_step_correction_);

  // (z_prev, z) ← (z, z⁺) by swapping buffers (no allocation).
  z_prev_.swap(z_);
  z_.swap(y_new_);
  t_prev_ = t_;
  h_prev_ = h;
  t_ = t_new;
  if (tableau_.fsal) {
    f_ = k_.col(tableau_.stages() - 1);
    f_valid_ = true;
  } else {
    f_valid_ = false;
  }
  dense_valid_ = false;
}

bool ExplicitRk::state_at_last_step(VecRef z) {
  if (system_ == nullptr || z.size() != z_.size()) return false;
  z = z_;
  return true;
}

double ExplicitRk::initial_step() {
  // Hairer's algorithm (HNW I, §II.4, p. 169) with sc_i = atol + rtol·|z_i|:
  //   d0 = ‖z‖, d1 = ‖f0‖, h0 = 0.01·d0/d1 (1e-6 if either is tiny)
  //   d2 = ‖F(t + h0, z + h0 f0) − f0‖ / h0
  //   h1 = (0.01 / max(d1, d2))^(1/(p+1)),  h = min(100 h0, h1, max_step)
  // Over the components of the error test only (error_mask_).
  double d0 = 0.0, d1 = 0.0;
  for (int i = 0; i < n_; ++i) {
    const double sc = options_.atol + options_.rtol * std::abs(z_(i));
    d0 += error_mask_(i) * (z_(i) / sc) * (z_(i) / sc);
    d1 += error_mask_(i) * (f_(i) / sc) * (f_(i) / sc);
  }
  const double nn = std::max(error_count_, 1);
  d0 = std::sqrt(d0 / nn);
  d1 = std::sqrt(d1 / nn);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, options_.max_step);

  // Explicit Euler probe (projected, as every state F sees).
  y_stage_ = z_;
  y_stage_.noalias() += h0 * f_;
  if (project_) system_->project(t_ + h0, y_stage_);
  auto f1 = k_.col(1 % tableau_.stages());
  evaluate(t_ + h0, y_stage_, f1);
  double d2 = 0.0;
  for (int i = 0; i < n_; ++i) {
    const double sc = options_.atol + options_.rtol * std::abs(z_(i));
    const double r = (f1(i) - f_(i)) / sc;
    d2 += error_mask_(i) * r * r;
  }
  d2 = std::sqrt(d2 / nn) / h0;
  if (!std::isfinite(d2)) return h0;  // let the error test sort it out
  const double dmax = std::max(d1, d2);
  const double h1 =
      dmax <= 1e-15 ? std::max(1e-6, h0 * 1e-3) : std::pow(0.01 / dmax, 1.0 / (tableau_.order + 1));
  return std::min({100.0 * h0, h1, options_.max_step});
}

void ExplicitRk::advance_to(double tout, VecRef z_out) {
  check_initialized("advance_to");
  if (z_out.size() != n_) {
    throw InputError("integrator " + tableau_.name + ": advance_to: wrong output size: expected " +
                     std::to_string(n_) + ", got " + std::to_string(z_out.size()));
  }
  if (!std::isfinite(tout)) {
    throw InputError("integrator " + tableau_.name + ": advance_to: tout = " + fmt(tout) +
                     " must be finite");
  }
  if (tableau_.adaptive()) {
    advance_adaptive(tout, z_out);
  } else {
    advance_fixed(tout, z_out);
  }
}

void ExplicitRk::advance_fixed(double tout, VecRef z_out) {
  const double dt = options_.dt;
  // Snap tout to the grid t0 + k·dt.
  const double kreal = (tout - t0_) / dt;
  const double kround = std::round(kreal);
  if (!(std::abs(kround) < 1e15)) {
    throw InputError("integrator " + tableau_.name + ": tout = " + fmt(tout) + " s is " +
                     fmt(kreal) + " steps of dt = " + fmt(dt) + " s from t0 = " + fmt(t0_) +
                     " s; too far");
  }
  if (std::abs(tout - (t0_ + kround * dt)) > kGridTol * dt) {
    throw InputError("integrator " + tableau_.name + ": tout = " + fmt(tout) +
                     " s is not on the fixed step grid t0 + k*dt (t0 = " + fmt(t0_) +
                     " s, dt = " + fmt(dt) + " s, k = " + fmt(kreal) +
                     "); choose output times that are multiples of dt");
  }
  const long target = static_cast<long>(kround);
  if (target < grid_index_) {
    throw InputError("integrator " + tableau_.name + ": tout = " + fmt(tout) +
                     " s lies before the current time " + fmt(t_) + " s (t0 = " + fmt(t0_) +
                     " s, dt = " + fmt(dt) + " s)");
  }
  step_fixed_to(target, z_out);
}

void ExplicitRk::advance_to_step(long step, VecRef z_out) {
  check_initialized("advance_to_step");
  if (tableau_.adaptive()) {
    throw std::logic_error("integrator " + tableau_.name + ": advance_to_step on an adaptive method");
  }
  if (z_out.size() != n_) {
    throw InputError("integrator " + tableau_.name + ": advance_to_step: wrong output size: expected " +
                     std::to_string(n_) + ", got " + std::to_string(z_out.size()));
  }
  if (step < grid_index_) {
    throw InputError("integrator " + tableau_.name + ": step " + std::to_string(step) +
                     " lies before the current step " + std::to_string(grid_index_));
  }
  step_fixed_to(step, z_out);
}

void ExplicitRk::step_fixed_to(long target, VecRef z_out) {
  const double dt = options_.dt;
  while (grid_index_ < target) {
    check_stop();
    if (stats_.steps >= options_.max_steps) {
      fail("number of steps exceeds max_steps = " + std::to_string(options_.max_steps), dt);
    }
    if (!f_valid_) {
      evaluate(t_, z_, f_);
      f_valid_ = true;
    }
    const double err = attempt_step(dt, t_ + dt);
    if (!std::isfinite(err)) {
      fail("non-finite state (the right-hand side or the projection returned NaN/Inf) in the step",
           dt);
    }
    accept_step(dt, t0_ + static_cast<double>(grid_index_ + 1) * dt);
    ++grid_index_;
    // Progress between output rows (IntegratorOptions::on_step): one null check when unset.
    if (options_.on_step) options_.on_step(t_, dt, stats_.steps);
  }
  z_out = z_;
}

void ExplicitRk::check_stop() const {
  // One relaxed load per step: free next to a right-hand side.
  if (options_.stop_flag != nullptr && options_.stop_flag->load(std::memory_order_relaxed)) {
    throw StopRequested(t_);
  }
}

void ExplicitRk::step_adaptive() {
  if (!f_valid_) {
    evaluate(t_, z_, f_);
    f_valid_ = true;
    if (!f_.allFinite()) fail("the right-hand side returned NaN/Inf at the accepted state", h_);
  }
  if (h_ <= 0.0) h_ = initial_step();
  // A kink of an input (a sample instant of a record) inside a step is an O(1) error in a
  // high derivative that the error estimate sees and rejects, step after step: steps end on
  // the breakpoints instead.
  const double breakpoint = system_->next_breakpoint(t_);
  const double k = tableau_.embedded_order + 1.0;
  const char* reason =
      "the local error estimate demands ever smaller steps (a singularity, a discontinuity or "
      "stiffness?)";
  for (;;) {
    check_stop();
    if (stats_.steps + stats_.rejected_steps >= options_.max_steps) {
      fail("number of attempted steps exceeds max_steps = " + std::to_string(options_.max_steps),
           h_);
    }
    const double h_free = std::min(h_, options_.max_step);  // the controller's step
    double h = h_free, t_new = t_ + h_free;
    const bool cut = shorten_to_breakpoint(breakpoint, h, t_new);
    if (h < options_.min_step || t_ + h == t_) {
      fail(std::string("step size fell below min_step = ") + fmt(options_.min_step) + ": " + reason +
               " (tolerances rtol = " + fmt(options_.rtol) + ", atol = " + fmt(options_.atol) + ")",
           h);
    }
    const double err = attempt_step(h, t_new);
    if (err <= 1.0) {
      accept_step(h, t_new);
      h_ = next_step_size(h, h_free, cut, err, k);
      if (options_.on_step) options_.on_step(t_, h, stats_.steps);
      return;
    }
    // Rejected (err > 1 or non-finite): shrink and retry from the same (t, z, f).
    ++stats_.rejected_steps;
    last_rejected_ = true;
    if (std::isfinite(err)) {
      h_ = h * std::max(kFacMin, kSafety * std::pow(err, -1.0 / k));
    } else {
      h_ = h * kFacMin;
      reason =
          "steps kept producing non-finite values (the right-hand side or the projection "
          "returned NaN/Inf)";
    }
  }
}

bool ExplicitRk::shorten_to_breakpoint(double breakpoint, double& h, double& t_new) const {
  // Stretch by up to 1 % (as DOPRI5 does for the last step) rather than leave a sliver of a
  // step before the breakpoint. t_new is the breakpoint itself, not t + h with round-off, so
  // the step ends exactly on the sample instant and the next query moves past it.
  if (!(t_ + kStretch * h >= breakpoint) || breakpoint - t_ > options_.max_step) return false;
  t_new = breakpoint;
  h = breakpoint - t_;
  return true;
}

double ExplicitRk::next_step_size(double h, double h_free, bool cut, double err, double k) {
  // PI controller, no growth right after a rejection.
  const double e = std::max(err, 1e-10);
  const double fac = kSafety * std::pow(e, -kBeta1 / k) * std::pow(err_prev_, kBeta2 / k);
  const double grow = last_rejected_ ? 1.0 : kFacMax;
  last_rejected_ = false;
  if (!cut) {
    err_prev_ = std::max(err, kErrFloor);
    return std::min(h * std::clamp(fac, kFacMin, grow), options_.max_step);
  }
  // A step cut short to land on a breakpoint does not steer the controller: its error (of a
  // shorter step, down to round-off for a sliver) says little about the step size the
  // controller chose. The next step is at least that choice, growth is limited relative to
  // it, and the PI memory keeps the last full step's error.
  const double proposal = std::clamp(h * fac, h * kFacMin, h_free * grow);
  return std::min(std::max(proposal, h_free), options_.max_step);
}

void ExplicitRk::advance_adaptive(double tout, VecRef z_out) {
  if (tout < t_prev_) {
    throw InputError("integrator " + tableau_.name + ": tout = " + fmt(tout) +
                     " s lies before the last accepted step [" + fmt(t_prev_) + ", " + fmt(t_) +
                     "] s; output times must not decrease");
  }
  while (t_ < tout) step_adaptive();
  interpolate(tout, z_out);
}

void ExplicitRk::interpolate(double t, VecRef out) {
  // Grid points need no interpolation.
  if (t == t_) {
    out = z_;
    return;
  }
  if (t == t_prev_ || h_prev_ <= 0.0) {
    out = z_prev_;
    return;
  }
  const double h = h_prev_;
  const int s = tableau_.stages();
  if (!dense_valid_) {
    // k_ still holds the stages of the last accepted step (k₁ = F(t_prev, z_prev),
    // k_s = F(t, z) for FSAL pairs).
    auto f0 = k_.col(0);
    auto f1 = k_.col(s - 1);
    if (tableau_.dense == DenseOutputKind::kDopri5) {
      // HNW's DOPRI5 (CONTD5): r1 = y0, r2 = y1 − y0, r3 = h f0 − r2, r4 = r2 − h f1 − r3,
      // r5 = h Σ d_i k_i.
      dense_.col(0) = z_prev_;
      dense_.col(1) = z_ - z_prev_;
      dense_.col(2) = h * f0 - dense_.col(1);
      dense_.col(3) = dense_.col(1) - h * f1 - dense_.col(2);
      dense_.col(4).setZero();
      for (int j = 0; j < s; ++j) {
        if (tableau_.d(j) != 0.0) dense_.col(4).noalias() += (h * tableau_.d(j)) * k_.col(j);
      }
    } else {
      // Cubic Hermite data (y0, y1, h f0, h f1).
      dense_.col(0) = z_prev_;
      dense_.col(1) = z_;
      dense_.col(2) = h * f0;
      dense_.col(3) = h * f1;
    }
    dense_valid_ = true;
  }
  const double th = std::clamp((t - t_prev_) / h, 0.0, 1.0);
  const double th1 = 1.0 - th;
  if (tableau_.dense == DenseOutputKind::kDopri5) {
    // u(θ) = r1 + θ(r2 + θ₁(r3 + θ(r4 + θ₁ r5))),  θ₁ = 1 − θ
    out = dense_.col(0) + th * dense_.col(1) + (th * th1) * dense_.col(2) +
          (th * th * th1) * dense_.col(3) + (th * th * th1 * th1) * dense_.col(4);
  } else {
    // u(θ) = (1+2θ)θ₁² y0 + θθ₁² h f0 + θ²(3−2θ) y1 − θ²θ₁ h f1
    out = ((1.0 + 2.0 * th) * th1 * th1) * dense_.col(0) +
          (th * th * (3.0 - 2.0 * th)) * dense_.col(1) + (th * th1 * th1) * dense_.col(2) -
          (th * th * th1) * dense_.col(3);
  }
  // The interpolant leaves the manifold by O(interpolation error): project the output.
  if (project_) system_->project(t, out);
}

}  // namespace gmbd
