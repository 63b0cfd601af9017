// SundialsCvode: CVODE memory set-up (BDF + Newton + dense, or Adams + fixed point), the
// right-hand side, Jacobian and DSC projection callbacks, output and failure translation.
#include "integrators/sundials_cvode.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "core/errors.hpp"
#include "core/memory_budget.hpp"
#include "integrators/sundials_common.hpp"

namespace gmbd {

namespace ss = sundials_support;

namespace {

const double kSqrtEps = std::sqrt(std::numeric_limits<double>::epsilon());

/// An Adams run with DSC restarts from the projected state once the projection's correction
/// exceeds this error-weighted RMS (1 = the tolerance) and at least kAdamsStepsBetweenRestarts
/// steps were taken since the last (re)start, or 100 times this at once. Measured on A02
/// (docs/benchmarks.md#a02): 1 restarts every 3 steps at rtol 1e-10 (order 1 for ever, 7e5
/// steps); 10 with 30 steps passes every singular position at 1e-6 … 1e-10 and costs A03
/// (regular, 0.05 s) 1.7× the evaluations of no restart, with the same error.
constexpr double kAdamsRestartCorrection = 10.0;
constexpr long kAdamsStepsBetweenRestarts = 30;

const char* flag_name(int flag) {
  switch (flag) {
    case CV_TOO_MUCH_WORK: return "CV_TOO_MUCH_WORK";
    case CV_TOO_MUCH_ACC: return "CV_TOO_MUCH_ACC";
    case CV_ERR_FAILURE: return "CV_ERR_FAILURE";
    case CV_CONV_FAILURE: return "CV_CONV_FAILURE";
    case CV_LINIT_FAIL: return "CV_LINIT_FAIL";
    case CV_LSETUP_FAIL: return "CV_LSETUP_FAIL";
    case CV_LSOLVE_FAIL: return "CV_LSOLVE_FAIL";
    case CV_RHSFUNC_FAIL: return "CV_RHSFUNC_FAIL";
    case CV_FIRST_RHSFUNC_ERR: return "CV_FIRST_RHSFUNC_ERR";
    case CV_REPTD_RHSFUNC_ERR: return "CV_REPTD_RHSFUNC_ERR";
    case CV_UNREC_RHSFUNC_ERR: return "CV_UNREC_RHSFUNC_ERR";
    case CV_NLS_INIT_FAIL: return "CV_NLS_INIT_FAIL";
    case CV_NLS_SETUP_FAIL: return "CV_NLS_SETUP_FAIL";
    case CV_NLS_FAIL: return "CV_NLS_FAIL";
    case CV_MEM_FAIL: return "CV_MEM_FAIL";
    case CV_ILL_INPUT: return "CV_ILL_INPUT";
    case CV_BAD_T: return "CV_BAD_T";
    case CV_TOO_CLOSE: return "CV_TOO_CLOSE";
    case CV_VECTOROP_ERR: return "CV_VECTOROP_ERR";
    case CV_PROJFUNC_FAIL: return "CV_PROJFUNC_FAIL";
    case CV_REPTD_PROJFUNC_ERR: return "CV_REPTD_PROJFUNC_ERR";
    default: return "CV_UNRECOGNIZED_ERR";
  }
}

std::string flag_meaning(int flag, const IntegratorOptions& o, bool bdf) {
  const char* corrector = bdf ? "the corrector (Newton)" : "the corrector (fixed-point iteration)";
  switch (flag) {
    case CV_TOO_MUCH_WORK:
      return "number of steps exceeds max_steps = " + std::to_string(o.max_steps) +
             " (accepted steps in this run)";
    case CV_TOO_MUCH_ACC:
      return "the tolerances rtol = " + ss::format_number(o.rtol) +
             ", atol = " + ss::format_number(o.atol) +
             " cannot be met in double precision at this state";
    case CV_ERR_FAILURE:
      return "the local error test failed repeatedly (7 times in one step) or with |h| at "
             "min_step = " + ss::format_number(o.min_step) +
             " (a singularity, a discontinuity or stiffness with Adams?)";
    case CV_CONV_FAILURE:
      return std::string(corrector) +
             " did not converge repeatedly (10 times in one step) or with |h| at min_step = " +
             ss::format_number(o.min_step) +
             (bdf ? " (bad Jacobian or singular iteration matrix?)"
                  : " (a stiff system? use cvode-bdf)");
    case CV_LINIT_FAIL: return "the dense linear solver could not be initialised";
    case CV_LSETUP_FAIL:
      return "the linear solver setup (iteration matrix I − γJ and its LU) failed "
             "unrecoverably";
    case CV_LSOLVE_FAIL: return "the linear solve with the iteration matrix failed";
    case CV_RHSFUNC_FAIL: return "the right-hand side failed unrecoverably";
    case CV_FIRST_RHSFUNC_ERR: return "the right-hand side failed at its first call (t0)";
    case CV_REPTD_RHSFUNC_ERR:
      return "the right-hand side failed (recoverably) again and again; reducing the step did "
             "not help";
    case CV_UNREC_RHSFUNC_ERR:
      return "the right-hand side failed recoverably where no recovery is possible";
    case CV_NLS_INIT_FAIL: return "the nonlinear solver could not be initialised";
    case CV_NLS_SETUP_FAIL: return "the nonlinear solver setup failed";
    case CV_NLS_FAIL: return "the nonlinear solver failed unrecoverably";
    case CV_PROJFUNC_FAIL: return "the projection (DSC) failed unrecoverably";
    case CV_REPTD_PROJFUNC_ERR:
      return "the projection (DSC) failed (recoverably) again and again; reducing the step "
             "did not help";
    case CV_TOO_CLOSE: return "tout is too close to t0 to start the integration";
    case CV_ILL_INPUT: return "CVODE reports an illegal input";
    default: return "CVODE failed with return code " + std::to_string(flag);
  }
}

}  // namespace

struct SundialsCvode::Impl {
  explicit Impl(const IntegratorOptions& o) : options(o) {}
  ~Impl() { free_memory(); }

  void free_memory() {
    if (memory != nullptr) CVodeFree(&memory);
    if (linear_solver != nullptr) SUNLinSolFree(linear_solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    if (nonlinear_solver != nullptr) SUNNonlinSolFree(nonlinear_solver);
    memory = nullptr;
    linear_solver = nullptr;
    matrix = nullptr;
    nonlinear_solver = nullptr;
  }

  IntegratorOptions options;
  bool bdf = true;
  OdeSystem* system = nullptr;
  bool project = false;       ///< the system has a projection
  bool in_step_projection = false;  ///< CVODE projects steps (BDF + projection)
  int n = 0;
  double t0 = 0.0;

  std::unique_ptr<ss::Context> context;
  void* memory = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;
  SUNNonlinearSolver nonlinear_solver = nullptr;
  ss::CallbackStatus status;
  ss::MessageBuffer message;
  bool stopped_at_breakpoints = false;  ///< a breakpoint was ever the stop time

  /// CVodeSetStopTime before a CVode call from tn: the next input breakpoint or stop_time.
  void set_stop_time(double tn) {
    bool breakpoint = false;
    const double stop = ss::next_stop_time(*system, tn, options.stop_time, breakpoint);
    stopped_at_breakpoints = stopped_at_breakpoints || breakpoint;
    if (!stopped_at_breakpoints) return;  // stop_time as set by initialize()
    // Past the last breakpoint with no stop_time: a stop time that is never reached replaces
    // the last breakpoint's (SUNDIALS 6.4 has no CVodeClearStopTime).
    const double value = std::isfinite(stop) ? stop : std::numeric_limits<double>::max();
    ss::check_setup(CVodeSetStopTime(memory, value), "CVodeSetStopTime");
  }

  Vec y, y_out, weights, f1, z_pert, z_proj, z_err;
  Vec error_mask;  ///< 1 = in CVODE's error and Newton norms, 0 = recomputed by the projection
  ss::VectorView y_view, y_out_view, weights_view;
  long model_evaluations = 0;   ///< rhs callbacks + evaluations inside the Jacobian
  double max_projection = 0.0;  ///< largest CVODE projection since the last take
  double max_projection_run = 0.0;

  // Adams with a projection (CVODE projects BDF steps only): between steps the solution is
  // projected, and when the correction exceeds kAdamsRestartCorrection times the tolerance
  // CVODE restarts from the projected state (CVodeReInit, which zeroes CVODE's counters: the totals before it are
  // kept here).
  bool restart_projection = false;
  long restarts = 0;
  long steps_before = 0, error_fails_before = 0, solve_fails_before = 0;

  long steps_taken() const {
    long nst = 0;
    CVodeGetNumSteps(memory, &nst);
    return steps_before + nst;
  }
};

namespace {

int cv_rhs(double t, N_Vector y, N_Vector ydot, void* user) {
  auto& s = *static_cast<SundialsCvode::Impl*>(user);
  return s.status.run([&] {
    ss::check_stop(s.options, t);
    auto f = ss::map(ydot);
    s.system->rhs(t, ss::cmap(y), f);
    ++s.model_evaluations;
    return f.allFinite();
  });
}

int cv_jacobian(double t, N_Vector y, N_Vector fy, SUNMatrix J, void* user, N_Vector /*tmp1*/,
                N_Vector /*tmp2*/, N_Vector /*tmp3*/) {
  auto& s = *static_cast<SundialsCvode::Impl*>(user);
  return s.status.run([&] {
    const auto z = ss::cmap(y);
    const auto f0 = ss::cmap(fy);
    Eigen::Map<Mat> Jm(SUNDenseMatrix_Data(J), s.n, s.n);
    // The system's closed-form Jacobian when it has one at this state (one model and one
    // tangent evaluation), otherwise forward differences:
    // J(:, j) = (F(t, z + δ_j e_j) − F(t, z)) / δ_j, δ_j = √ε max(|z_j|, 1/w_j)
    if (s.system->has_jacobian() && s.system->jacobian(t, z, Jm)) {
      s.model_evaluations += 2;
      return true;
    }
    CVodeGetErrWeights(s.memory, s.weights_view.get());
    s.z_pert = z;
    for (int j = 0; j < s.n; ++j) {
      const double w = s.weights(j);
      // Masked components (weight 0) use the tolerance they would have had as the floor.
      const double floor =
          w > 0.0 ? 1.0 / w : s.options.atol + s.options.rtol * std::abs(z(j));
      double delta = kSqrtEps * std::max(std::abs(z(j)), floor);
      if (!(delta > 0.0) || !std::isfinite(delta)) delta = kSqrtEps;
      const double zj = z(j) + delta;
      delta = zj - z(j);
      s.z_pert(j) = zj;
      s.system->rhs(t, s.z_pert, s.f1);
      ++s.model_evaluations;
      Jm.col(j) = (s.f1 - f0) / delta;
      s.z_pert(j) = z(j);
    }
    return Jm.allFinite();
  });
}

int cv_project(double t, N_Vector ycur, N_Vector corr, double /*eps_proj*/, N_Vector err,
               void* user) {
  auto& s = *static_cast<SundialsCvode::Impl*>(user);
  return s.status.run([&] {
    // corr = P(z) − z
    const auto z = ss::cmap(ycur);
    s.z_proj = z;
    const double size = s.system->project(t, s.z_proj);
    auto c = ss::map(corr);
    c = s.z_proj - z;
    s.max_projection = std::max(s.max_projection, size);
    s.max_projection_run = std::max(s.max_projection_run, size);
    if (err != nullptr) {
      // err ← P(z⁺ + err) − z⁺ (linearised projector applied to the error estimate)
      auto e = ss::map(err);
      s.z_err = s.z_proj + e;
      s.system->project(t, s.z_err);
      e = s.z_err - s.z_proj;
      return c.allFinite() && e.allFinite();
    }
    return c.allFinite();
  });
}

/// CVEwtFn with the DSC mask: w_i = mask_i / (rtol·|y_i| + atol). Components the projection
/// recomputes get weight 0: they are out of the local error test and out of the Newton
/// convergence test (their corrector value is replaced by the projection after every step).
int cv_weights(N_Vector y, N_Vector ewt, void* user) {
  auto& s = *static_cast<SundialsCvode::Impl*>(user);
  const auto yv = ss::cmap(y);
  auto w = ss::map(ewt);
  for (int i = 0; i < s.n; ++i) {
    const double tol = s.options.rtol * std::abs(yv(i)) + s.options.atol;
    if (!(tol > 0.0) || !std::isfinite(tol)) return -1;
    w(i) = s.error_mask(i) / tol;
  }
  return 0;
}

/// Adams with a projection, between steps at tn: projects CVODE's current solution and, when
/// the correction's error-weighted RMS exceeds kAdamsRestartCorrection, restarts CVODE from
/// the projected state (the multistep history is lost: order 1 again). Returns whether it
/// restarted; `size` = the 2-norm of the correction. Allocation-free (s.y and its view).
bool restart_if_drifted(SundialsCvode::Impl& s, double tn, double& size) {
  size = 0.0;
  if (CVodeGetDky(s.memory, tn, 0, s.y_view.get()) < 0) return false;
  s.z_proj = s.y;
  size = s.system->project(tn, s.y);
  CVodeGetErrWeights(s.memory, s.weights_view.get());
  const double wrms =
      std::sqrt(((s.y - s.z_proj).cwiseProduct(s.weights)).squaredNorm() / std::max(s.n, 1));
  long nst = 0, netf = 0, ncfn = 0;
  CVodeGetNumSteps(s.memory, &nst);
  // Let the multistep method climb its orders between restarts unless the drift is far
  // beyond the tolerance (a singular position's freed mode).
  const bool due = wrms > kAdamsRestartCorrection &&
                   (nst >= kAdamsStepsBetweenRestarts || wrms > 100.0 * kAdamsRestartCorrection);
  if (!due) return false;
  CVodeGetNumErrTestFails(s.memory, &netf);
  CVodeGetNumStepSolveFails(s.memory, &ncfn);
  ss::check_setup(CVodeReInit(s.memory, tn, s.y_view.get()), "CVodeReInit");
  s.steps_before += nst;
  s.error_fails_before += netf;
  s.solve_fails_before += ncfn;
  s.t0 = tn;  // CVODE's history starts here now: no interpolation before it
  ++s.restarts;
  return true;
}

void cv_error_handler(int code, const char* /*module*/, const char* /*function*/, char* msg,
                      void* user) {
  auto& buffer = *static_cast<ss::MessageBuffer*>(user);
  if (code == CV_WARNING && buffer.code < 0) return;
  buffer.store(code, msg);
}

}  // namespace

SundialsCvode::SundialsCvode(const IntegratorOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
  const std::string& m = options.method;
  if (m != "cvode-bdf" && m != "cvode-adams") {
    throw InputError("SundialsCvode: method \"" + m +
                     "\" is not a CVODE method; expected one of: cvode-bdf cvode-adams");
  }
  impl_->bdf = m == "cvode-bdf";
  ss::validate_options(options, "integrator " + m + ": ", impl_->bdf ? 5 : 12);
}

SundialsCvode::~SundialsCvode() = default;

std::string SundialsCvode::name() const { return impl_->options.method; }
int SundialsCvode::order() const {
  if (impl_->options.max_order > 0) return impl_->options.max_order;
  return impl_->bdf ? 5 : 12;
}
bool SundialsCvode::is_bdf() const { return impl_->bdf; }

double SundialsCvode::time() const {
  if (impl_->memory == nullptr) return impl_->t0;
  double t = impl_->t0;
  CVodeGetCurrentTime(impl_->memory, &t);
  return t;
}

bool SundialsCvode::state_at_last_step(VecRef z) {
  Impl& s = *impl_;
  if (s.memory == nullptr || !s.context || z.size() != s.n) return false;
  // zn[0] at tn; a failure path: the workspace is allocated here.
  Vec y = Vec::Zero(s.n);
  ss::VectorView view(y, s.context->get());
  double tn = s.t0;
  CVodeGetCurrentTime(s.memory, &tn);
  if (CVodeGetDky(s.memory, tn, 0, view.get()) < 0) return false;
  z = y;
  return true;
}

int SundialsCvode::last_order() const {
  int k = 0;
  if (impl_->memory != nullptr) CVodeGetLastOrder(impl_->memory, &k);
  return k;
}

long SundialsCvode::jacobian_evaluations() const {
  long nje = 0;
  if (impl_->memory != nullptr && impl_->bdf) CVodeGetNumJacEvals(impl_->memory, &nje);
  return nje;
}

long SundialsCvode::restarts() const { return impl_->restarts; }

long SundialsCvode::projections() const {
  long np = 0;
  if (impl_->memory != nullptr && impl_->in_step_projection) {
    CVodeGetNumProjEvals(impl_->memory, &np);
  }
  return np;
}

void SundialsCvode::initialize(OdeSystem& system, double t0, CVec z0) {
  Impl& s = *impl_;
  ss::check_initial_request(s.options.method, t0, static_cast<long>(z0.size()),
                            static_cast<long>(system.dimension()), s.options.stop_time);
  s.free_memory();
  s.system = &system;
  s.project = system.has_projection();
  s.in_step_projection = s.project && s.bdf;
  s.restart_projection = s.project && !s.bdf;
  s.restarts = 0;
  s.steps_before = s.error_fails_before = s.solve_fails_before = 0;
  s.n = system.dimension();
  s.t0 = t0;
  if (!s.context) s.context = std::make_unique<ss::Context>();
  SUNContext ctx = s.context->get();

  s.y = z0;
  s.y_out = z0;
  s.weights.setZero(s.n);
  s.f1.setZero(s.n);
  s.z_pert.setZero(s.n);
  s.z_proj.setZero(s.n);
  s.z_err.setZero(s.n);
  // Start on the manifold (a correction of the input, not drift: not recorded).
  if (s.project) system.project(t0, s.y);
  s.y_out = s.y;
  s.y_view = ss::VectorView(s.y, ctx);
  s.y_out_view = ss::VectorView(s.y_out, ctx);
  s.weights_view = ss::VectorView(s.weights, ctx);

  const IntegratorOptions& o = s.options;
  s.memory = CVodeCreate(s.bdf ? CV_BDF : CV_ADAMS, ctx);
  if (s.memory == nullptr) throw std::runtime_error("CVodeCreate failed");
  ss::check_setup(CVodeSetErrHandlerFn(s.memory, cv_error_handler, &s.message), "CVodeSetErrHandlerFn");
  ss::check_setup(CVodeInit(s.memory, cv_rhs, t0, s.y_view.get()), "CVodeInit");
  // DSC-dependent components out of the norms (OdeSystem::error_test_mask) only when CVODE
  // projects every step (BDF); Adams' outputs are projected but its steps are not.
  s.error_mask.setOnes(s.n);
  const bool masked = s.in_step_projection && !o.error_test_dependent &&
                      system.error_test_mask(s.error_mask) && (s.error_mask.array() != 0.0).any();
  if (masked) {
    ss::check_setup(CVodeWFtolerances(s.memory, cv_weights), "CVodeWFtolerances");
  } else {
    s.error_mask.setOnes();
    ss::check_setup(CVodeSStolerances(s.memory, o.rtol, o.atol), "CVodeSStolerances");
  }
  ss::check_setup(CVodeSetUserData(s.memory, &s), "CVodeSetUserData");
  ss::check_setup(CVodeSetMaxOrd(s.memory, order()), "CVodeSetMaxOrd");
  if (std::isfinite(o.max_step)) ss::check_setup(CVodeSetMaxStep(s.memory, o.max_step), "CVodeSetMaxStep");
  if (o.min_step > 0.0) ss::check_setup(CVodeSetMinStep(s.memory, o.min_step), "CVodeSetMinStep");
  if (o.dt > 0.0) ss::check_setup(CVodeSetInitStep(s.memory, std::min(o.dt, o.max_step)), "CVodeSetInitStep");
  if (std::isfinite(o.stop_time)) ss::check_setup(CVodeSetStopTime(s.memory, o.stop_time), "CVodeSetStopTime");
  if (s.bdf) {
    // The dense iteration matrix, CVODE's saved Jacobian (the same size) and its work vectors.
    const auto states = static_cast<std::uint64_t>(s.n);
    check_dense_memory("integrator " + s.options.method + " (" + std::to_string(s.n) + " states)",
                       states * (2 * states + 16) * sizeof(double),
                       "its dense iteration matrix and saved Jacobian, 2 N² doubles");
    s.matrix = SUNDenseMatrix(s.n, s.n, ctx);
    if (s.matrix == nullptr) throw std::runtime_error("SUNDenseMatrix failed");
    s.linear_solver = SUNLinSol_Dense(s.y_view.get(), s.matrix, ctx);
    if (s.linear_solver == nullptr) throw std::runtime_error("SUNLinSol_Dense failed");
    ss::check_setup(CVodeSetLinearSolver(s.memory, s.linear_solver, s.matrix), "CVodeSetLinearSolver");
    if (o.jacobian == "exact") ss::check_setup(CVodeSetJacFn(s.memory, cv_jacobian), "CVodeSetJacFn");
    if (s.in_step_projection) {
      ss::check_setup(CVodeSetProjFn(s.memory, cv_project), "CVodeSetProjFn");
      ss::check_setup(CVodeSetProjErrEst(s.memory, SUNTRUE), "CVodeSetProjErrEst");
    }
  } else {
    s.nonlinear_solver = SUNNonlinSol_FixedPoint(s.y_view.get(), 0, ctx);
    if (s.nonlinear_solver == nullptr) throw std::runtime_error("SUNNonlinSol_FixedPoint failed");
    ss::check_setup(CVodeSetNonlinearSolver(s.memory, s.nonlinear_solver), "CVodeSetNonlinearSolver");
  }

  stats_ = IntegratorStats{};
  correction_since_output_ = 0.0;
  s.model_evaluations = 0;
  s.max_projection = 0.0;
  s.max_projection_run = 0.0;
}

void SundialsCvode::update_stats() {
  Impl& s = *impl_;
  long nst = 0, netf = 0, ncfn = 0;
  double hlast = 0.0;
  CVodeGetNumSteps(s.memory, &nst);
  CVodeGetNumErrTestFails(s.memory, &netf);
  CVodeGetNumStepSolveFails(s.memory, &ncfn);
  CVodeGetLastStep(s.memory, &hlast);
  stats_.steps = s.steps_before + nst;
  stats_.rejected_steps = s.error_fails_before + s.solve_fails_before + netf + ncfn;
  // Every evaluation (CVODE's DQ Jacobian included) passes through cv_rhs or cv_jacobian.
  stats_.rhs_evaluations = s.model_evaluations;
  stats_.last_step = hlast;
  if (s.in_step_projection) {
    stats_.max_step_correction = s.max_projection_run;
    correction_since_output_ = std::max(correction_since_output_, s.max_projection);
    s.max_projection = 0.0;
  }
}

void SundialsCvode::advance_to(double tout, VecRef z_out) {
  Impl& s = *impl_;
  if (s.memory == nullptr) {
    throw std::logic_error("integrator " + s.options.method + ": advance_to called before initialize()");
  }
  const std::string& name = s.options.method;
  double tn = s.t0, hlast = 0.0;
  long nst = 0;
  CVodeGetCurrentTime(s.memory, &tn);
  CVodeGetLastStep(s.memory, &hlast);
  CVodeGetNumSteps(s.memory, &nst);
  const double t_start = nst > 0 ? tn - hlast : s.t0;
  ss::check_output_request(name, tout, static_cast<long>(z_out.size()), static_cast<long>(s.n),
                           s.options.stop_time, t_start, tn);

  s.status.clear();
  s.message.clear();
  bool at_step_end = false;
  if (tout <= tn) {
    if (nst == 0 || tout == tn) {
      // At t0 before any step, or exactly at the last step end: the stored solution.
      const int flag = nst == 0 ? 0 : CVodeGetDky(s.memory, tout, 0, s.y_out_view.get());
      if (nst == 0) s.y_out = s.y;
      at_step_end = true;
      if (flag < 0) {
        throw IntegrationError(tn, ss::failure_message(name, tn, hlast, flag_name(flag),
                                                       "CVodeGetDky failed", s.status, s.message));
      }
    } else {
      const int flag = CVodeGetDky(s.memory, tout, 0, s.y_out_view.get());
      if (flag < 0) {
        throw IntegrationError(tn, ss::failure_message(name, tn, hlast, flag_name(flag),
                                                       "CVodeGetDky could not interpolate at tout = " +
                                                           ss::format_number(tout),
                                                       s.status, s.message));
      }
    }
  } else {
    // One step per CVode call (CV_ONE_STEP), so that options.on_step sees every accepted step,
    // outside SUNDIALS. The steps are those CV_NORMAL would take (CVODE chooses them without
    // regard to tout, and the stop-time tests are the same); y(tout) is CV_NORMAL's
    // CVodeGetDky(tout) (a step ending on tout returns zn[0], which that gives bit for bit).
    double tret = tn;
    bool set_stop = true;
    for (;;) {
      // Up to tout, stopping at every input breakpoint on the way (CV_TSTOP_RETURN).
      nst = s.steps_taken();
      const long remaining = s.options.max_steps - nst;
      if (remaining <= 0) {
        throw IntegrationError(tn, ss::failure_message(name, tn, hlast, "CV_TOO_MUCH_WORK",
                                                       flag_meaning(CV_TOO_MUCH_WORK, s.options, s.bdf),
                                                       s.status, s.message));
      }
      if (s.restart_projection && stats_.steps > 0 && tn > s.t0) {
        // Every output up to tn has been taken: a restart here loses nothing.
        double correction = 0.0;
        if (restart_if_drifted(s, tn, correction)) {
          stats_.max_step_correction = std::max(stats_.max_step_correction, correction);
          correction_since_output_ = std::max(correction_since_output_, correction);
          set_stop = true;
        }
      }
      if (set_stop) s.set_stop_time(tn);
      set_stop = false;
      const int flag = CVode(s.memory, tout, s.y_out_view.get(), &tret, CV_ONE_STEP);
      update_stats();
      s.status.rethrow_fatal();
      if (flag < 0) {
        double t_fail = s.t0, h_fail = 0.0;
        CVodeGetCurrentTime(s.memory, &t_fail);
        CVodeGetCurrentStep(s.memory, &h_fail);
        throw IntegrationError(t_fail, ss::failure_message(name, t_fail, h_fail, flag_name(flag),
                                                           flag_meaning(flag, s.options, s.bdf),
                                                           s.status, s.message));
      }
      CVodeGetCurrentTime(s.memory, &tn);
      CVodeGetLastStep(s.memory, &hlast);
      if (s.options.on_step && stats_.steps > nst) s.options.on_step(tn, stats_.last_step, stats_.steps);
      if (tn >= tout) break;
      if (flag == CV_TSTOP_RETURN) set_stop = true;
    }
    if (tret != tout) {
      // Past tout: a CV_NORMAL call takes no step and interpolates (CVodeGetDky(tout)).
      const int flag = CVode(s.memory, tout, s.y_out_view.get(), &tret, CV_NORMAL);
      s.status.rethrow_fatal();
      if (flag < 0) {
        throw IntegrationError(tn, ss::failure_message(name, tn, hlast, flag_name(flag),
                                                       "CVode could not interpolate at tout = " +
                                                           ss::format_number(tout),
                                                       s.status, s.message));
      }
    }
    double t_now = tn;
    CVodeGetCurrentTime(s.memory, &t_now);
    at_step_end = tret == t_now;
  }
  update_stats();
  z_out = s.y_out;
  ss::check_finite_output(name, time(), stats_.last_step, tout, z_out);
  if (s.project && stats_.steps > 0 && !(s.in_step_projection && at_step_end)) {
    // Interpolants (and Adams solutions) leave the manifold: project the output.
    const double correction = s.system->project(tout, z_out);
    if (!s.in_step_projection) {
      stats_.max_step_correction = std::max(stats_.max_step_correction, correction);
      correction_since_output_ = std::max(correction_since_output_, correction);
    }
  }
}

}  // namespace gmbd
