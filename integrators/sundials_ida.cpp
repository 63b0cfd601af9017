// SundialsIda: IDA memory set-up from IntegratorOptions, the residual / Jacobian callbacks with
// 1/h row scaling and exception capture, the implicit-ODE view, output and failure translation.
#include "integrators/sundials_ida.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <ida/ida.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "core/errors.hpp"
#include "core/memory_budget.hpp"
#include "integrators/sundials_common.hpp"
#include "integrators/sundials_rank_revealing.hpp"

namespace gmbd {

namespace ss = sundials_support;

namespace {

const double kSqrtEps = std::sqrt(std::numeric_limits<double>::epsilon());

/// Absolute tolerance given to algebraic unknowns (multipliers). Together with
/// IDASetSuppressAlg (no error test) it removes them from IDA's Newton convergence test too:
/// their round-off noise grows like cj = O(1/h) (GGL) or cj² (index 3) and would otherwise make
/// the corrector "fail to converge" at small h (measured: IDA with scalar tolerances cannot
/// take the first step of the idaSlCrank problem for rtol = atol ≤ 1e-9).
constexpr double kAlgebraicAtol = 1e12;

/// The implicit-ODE view ż − F(t, z) = 0 of a system without a DAE view. Iteration matrix
/// cj·I − ∂F/∂z: cj·I exact, ∂F/∂z by forward differences column by column (increment as in
/// DaeFormulation).
class ImplicitOde final : public DaeSystem {
 public:
  explicit ImplicitOde(OdeSystem& system)
      : system_(system),
        n_(system.dimension()),
        f0_(Vec::Zero(n_)),
        f1_(Vec::Zero(n_)),
        z_pert_(Vec::Zero(n_)) {}

  int dimension() const override { return n_; }
  int state_dimension() const override { return n_; }
  void differential_components(VecRef id) const override { id.setOnes(); }
  void residual(double t, CVec y, CVec yp, VecRef r) override {
    system_.rhs(t, y, f0_);
    r = yp - f0_;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double t, double cj, CVec y, CVec /*yp*/, CVec perturbation_scale,
               MatRef J) override {
    system_.rhs(t, y, f0_);
    z_pert_ = y;
    for (int j = 0; j < n_; ++j) {
      double delta = kSqrtEps * std::max(std::abs(y(j)), perturbation_scale(j));
      if (!(delta > 0.0) || !std::isfinite(delta)) delta = kSqrtEps;
      const double zj = y(j) + delta;
      delta = zj - y(j);
      z_pert_(j) = zj;
      system_.rhs(t, z_pert_, f1_);
      J.col(j) = (f0_ - f1_) / delta;
      z_pert_(j) = y(j);
    }
    J.diagonal().array() += cj;
    return 1 + n_;
  }
  double consistent_initial_values(double t0, CVec z0, VecRef y0, VecRef yp0) override {
    y0 = z0;
    double correction = 0.0;
    if (system_.has_projection()) correction = system_.project(t0, y0);
    system_.rhs(t0, y0, yp0);
    return correction;
  }

 private:
  OdeSystem& system_;
  int n_;
  Vec f0_, f1_, z_pert_;
};

/// Starting step for IDA's first (order-1) step when options.dt ≤ 0: Hairer's algorithm
/// (HNW I, §II.4, p. 169) with p = 1 on the ODE ż = F(t, z) of the same system, z = the
/// consistent initial state and f0 = F(t0, z) = ẏ0.head(n):
///   d0 = ‖z‖, d1 = ‖f0‖, h0 = 0.01·d0/d1 (1e-6 if either is tiny),
///   d2 = ‖F(t0 + h0, P(z + h0 f0)) − f0‖ / h0,  h = min(100 h0, (0.01 / max(d1, d2))^(1/2))
/// (weighted RMS norms, sc_i = atol + rtol·|z_i|). IDA's own choice, ‖h ẏ0‖ ≤ 1/2, is tiny at
/// tight tolerances, and a DAE's first step with a tiny h (cj = O(1/h)) meets the round-off
/// of the ill-conditioned iteration matrix (measured: idaSlCrank, index 3 at rtol = 1e-10
/// fails at t = 0 with IDA's choice and runs with this one). Returns 0 when the probe fails
/// (IDA then chooses).
double starting_step(OdeSystem& system, double t0, CVec z, CVec f0, const IntegratorOptions& o) {
  const int n = static_cast<int>(z.size());
  if (n == 0) return 0.0;
  double d0 = 0.0, d1 = 0.0;
  for (int i = 0; i < n; ++i) {
    const double sc = o.atol + o.rtol * std::abs(z(i));
    d0 += (z(i) / sc) * (z(i) / sc);
    d1 += (f0(i) / sc) * (f0(i) / sc);
  }
  d0 = std::sqrt(d0 / n);
  d1 = std::sqrt(d1 / n);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, o.max_step);
  Vec z1 = z + h0 * f0;
  Vec f1(n);
  try {
    if (system.has_projection()) system.project(t0 + h0, z1);
    system.rhs(t0 + h0, z1, f1);
  } catch (const NumericalError&) {
    return 0.0;
  }
  double d2 = 0.0;
  for (int i = 0; i < n; ++i) {
    const double sc = o.atol + o.rtol * std::abs(z(i));
    d2 += ((f1(i) - f0(i)) / sc) * ((f1(i) - f0(i)) / sc);
  }
  d2 = std::sqrt(d2 / n) / h0;
  if (!std::isfinite(d2) || !std::isfinite(d1)) return 0.0;
  const double dmax = std::max(d1, d2);
  const double h1 = dmax <= 1e-15 ? std::max(1e-6, h0 * 1e-3) : std::sqrt(0.01 / dmax);
  const double h = std::min({100.0 * h0, h1, o.max_step});
  return std::isfinite(h) && h > o.min_step ? h : 0.0;
}

const char* flag_name(int flag) {
  switch (flag) {
    case IDA_TOO_MUCH_WORK: return "IDA_TOO_MUCH_WORK";
    case IDA_TOO_MUCH_ACC: return "IDA_TOO_MUCH_ACC";
    case IDA_ERR_FAIL: return "IDA_ERR_FAIL";
    case IDA_CONV_FAIL: return "IDA_CONV_FAIL";
    case IDA_LINIT_FAIL: return "IDA_LINIT_FAIL";
    case IDA_LSETUP_FAIL: return "IDA_LSETUP_FAIL";
    case IDA_LSOLVE_FAIL: return "IDA_LSOLVE_FAIL";
    case IDA_RES_FAIL: return "IDA_RES_FAIL";
    case IDA_REP_RES_ERR: return "IDA_REP_RES_ERR";
    case IDA_CONSTR_FAIL: return "IDA_CONSTR_FAIL";
    case IDA_FIRST_RES_FAIL: return "IDA_FIRST_RES_FAIL";
    case IDA_LINESEARCH_FAIL: return "IDA_LINESEARCH_FAIL";
    case IDA_NO_RECOVERY: return "IDA_NO_RECOVERY";
    case IDA_NLS_INIT_FAIL: return "IDA_NLS_INIT_FAIL";
    case IDA_NLS_SETUP_FAIL: return "IDA_NLS_SETUP_FAIL";
    case IDA_NLS_FAIL: return "IDA_NLS_FAIL";
    case IDA_MEM_FAIL: return "IDA_MEM_FAIL";
    case IDA_ILL_INPUT: return "IDA_ILL_INPUT";
    case IDA_BAD_EWT: return "IDA_BAD_EWT";
    case IDA_BAD_T: return "IDA_BAD_T";
    case IDA_VECTOROP_ERR: return "IDA_VECTOROP_ERR";
    default: return "IDA_UNRECOGNIZED_ERROR";
  }
}

std::string flag_meaning(int flag, const IntegratorOptions& o) {
  switch (flag) {
    case IDA_TOO_MUCH_WORK:
      return "number of steps exceeds max_steps = " + std::to_string(o.max_steps) +
             " (accepted steps in this run)";
    case IDA_TOO_MUCH_ACC:
      return "the tolerances rtol = " + ss::format_number(o.rtol) +
             ", atol = " + ss::format_number(o.atol) +
             " cannot be met in double precision at this state";
    case IDA_ERR_FAIL:
      return "the local error test failed repeatedly (10 times in one step) or with |h| at "
             "min_step = " + ss::format_number(o.min_step) +
             " (a singularity, a discontinuity or an inconsistent constraint?)";
    case IDA_CONV_FAIL:
      return "the corrector (Newton) did not converge repeatedly (10 times in one step) or "
             "with |h| at min_step = " + ss::format_number(o.min_step) +
             " (singular iteration matrix, bad Jacobian, or the residual keeps failing?)";
    case IDA_LINIT_FAIL: return "the dense linear solver could not be initialised";
    case IDA_LSETUP_FAIL:
      return "the linear solver setup (iteration matrix ∂F/∂y + cj·∂F/∂ẏ and its LU) failed "
             "unrecoverably";
    case IDA_LSOLVE_FAIL: return "the linear solve with the iteration matrix failed";
    case IDA_RES_FAIL: return "the residual function failed unrecoverably";
    case IDA_REP_RES_ERR:
      return "the residual function failed (recoverably) again and again; reducing the step "
             "did not help";
    case IDA_CONSTR_FAIL: return "inequality constraints on y could not be met";
    case IDA_FIRST_RES_FAIL: return "the residual function failed at its first call";
    case IDA_NLS_INIT_FAIL: return "the nonlinear solver could not be initialised";
    case IDA_NLS_SETUP_FAIL:
      return "the nonlinear solver setup failed (iteration matrix or its LU, e.g. singular)";
    case IDA_NLS_FAIL: return "the nonlinear (Newton) solver failed unrecoverably";
    case IDA_ILL_INPUT: return "IDA reports an illegal input";
    case IDA_BAD_EWT: return "an error weight became <= 0 (atol = 0 and a zero component?)";
    default: return "IDA failed with return code " + std::to_string(flag);
  }
}

}  // namespace

struct SundialsIda::Impl {
  explicit Impl(const IntegratorOptions& o) : options(o) {}
  ~Impl() { free_memory(); }

  void free_memory() {
    if (memory != nullptr) IDAFree(&memory);
    if (solver != nullptr) SUNLinSolFree(solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    memory = nullptr;
    solver = nullptr;
    matrix = nullptr;
  }

  /// r_i ← r_i / h for the step-scaled rows (h = IDAGetCurrentStep).
  template <class Derived>
  void scale_rows(Eigen::MatrixBase<Derived>& rows) {
    if (scaled_rows.empty()) return;
    double h = 0.0;
    IDAGetCurrentStep(memory, &h);
    if (!(h > 0.0) || !std::isfinite(h)) return;
    const double s = 1.0 / h;
    for (int i : scaled_rows) rows.row(i) *= s;
  }

  IntegratorOptions options;
  DaeIndex index = DaeIndex::kStabilizedIndex2;
  OdeSystem* system = nullptr;
  DaeSystem* dae = nullptr;
  std::unique_ptr<ImplicitOde> implicit_ode;
  bool dae_view = false;
  bool project = false;
  int n = 0, nd = 0;
  double t0 = 0.0;
  std::string pending_failure;  ///< set by initialize() when ẏ0 is non-finite

  std::unique_ptr<ss::Context> context;
  void* memory = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver solver = nullptr;
  ss::CallbackStatus status;
  ss::MessageBuffer message;

  std::vector<int> scaled_rows;
  Vec y, yp, id, y_out, yp_out, weights, scale, atol, error_class;
  ss::VectorView y_view, yp_view, id_view, y_out_view, yp_out_view, weights_view, atol_view;
  long model_evaluations = 0;  ///< residual callbacks + evaluations inside jacobian()
  double initial_step = 0.0;   ///< IDASetInitStep value (0: IDA's choice)

  // Restarts from decoupled initial states (DaeSystem::singular_initial_values).
  bool restart_pending = false;
  int restarts_left = 0;
  int failure_restarts_left = 0;
  long restart_count = 0;  ///< IDAReInit calls in this run
  long windows_opened = 0;  ///< singular windows opened (after accepted steps or failures)
  /// Components the DAE view marks 3 (determined by the constraint rows) leave the norms only
  /// once this is set: after a failure IDA could not pass even from a fresh restart, for the
  /// rest of the run (restart_after_failure). Unset again after 100 steps, a slowly creeping
  /// RIS platform met the next failure at once and crawled on at 1e-12-s steps.
  bool dependent_masked = false;
  long steps_before = 0, rejected_before = 0;  ///< IDA counters of the memory before IDAReInit
  bool stopped_at_breakpoints = false;  ///< a breakpoint was ever the stop time

  /// Modified Newton across steps, as CVODE's linear solver interface does it: IDA asks for a
  /// new iteration matrix whenever cj = α/h leaves [0.6, 1.667] times the cj of the last one
  /// (at every stop on an input breakpoint, for one) or Newton failed. The matrix is rebuilt
  /// from the kept tangents with the new cj and the current M, G, H (DaeSystem::rescale_jacobian:
  /// one model evaluation, no tangents) unless the kept tangents are kMaxStepsBetweenTangents steps old, Newton has
  /// failed since the last request, or this is a second request within one step — IDA's own
  /// retry after a failed Newton iteration, which its failure counter shows only once the
  /// step returns.
  static constexpr long kMaxStepsBetweenTangents = 50;
  long tangents_taken_at_step = -1;  ///< step count at the last jacobian(); −1: none since (re)init
  long rescaled_at_step = -1;        ///< step count at the last rescaled matrix
  long newton_failures_seen = 0;
  long current_steps() const {
    long nst = 0;
    IDAGetNumSteps(memory, &nst);
    return nst;
  }
  bool reuse_tangents(double t, CVec y_now, double cj, MatRef J) {
    long ncfn = 0;
    IDAGetNumNonlinSolvConvFails(memory, &ncfn);
    const bool newton_failed = ncfn != newton_failures_seen;
    newton_failures_seen = ncfn;
    const long nst = current_steps();
    const bool retry = rescaled_at_step == nst;
    rescaled_at_step = -1;
    if (newton_failed || retry || tangents_taken_at_step < 0 ||
        nst - tangents_taken_at_step >= kMaxStepsBetweenTangents)
      return false;
    if (!dae->rescale_jacobian(t, y_now, cj, J)) return false;
    ++model_evaluations;
    scale_rows(J);
    rescaled_at_step = nst;
    return true;
  }
  /// Forgets the kept tangents' history (IDAInit / IDAReInit zero IDA's counters).
  void reset_tangent_reuse() {
    tangents_taken_at_step = -1;
    rescaled_at_step = -1;
    newton_failures_seen = 0;
  }

  /// IDASetStopTime before an IDASolve call from tn: the earliest of the next input
  /// breakpoint, stop_time and `limit`.
  void set_stop_time(double tn, double limit) {
    bool breakpoint = false;
    const double stop = std::min(ss::next_stop_time(*system, tn, options.stop_time, breakpoint), limit);
    stopped_at_breakpoints = stopped_at_breakpoints || breakpoint;
    if (!stopped_at_breakpoints && !std::isfinite(limit)) return;  // stop_time as initialised
    // Past the last breakpoint with no stop_time: a stop time that is never reached replaces
    // the last breakpoint's (SUNDIALS 6.4 has no IDAClearStopTime).
    const double value = std::isfinite(stop) ? stop : std::numeric_limits<double>::max();
    ss::check_setup(IDASetStopTime(memory, value), "IDASetStopTime");
  }
};

namespace {
/// Largest number of one-step restarts of a run (a model resting at a decoupled point with no
/// input stays there; after this many restarts IDA integrates on without them).
constexpr int kMaxRestarts = 50;
/// Largest number of restarts after a convergence / error-test failure per run (each needs at
/// least one accepted step since the previous one).
constexpr int kMaxFailureRestarts = 10000;
}  // namespace

namespace {

int ida_residual(double t, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto& s = *static_cast<SundialsIda::Impl*>(user);
  return s.status.run([&] {
    ss::check_stop(s.options, t);
    auto rr = ss::map(r);
    s.dae->residual(t, ss::cmap(y), ss::cmap(yp), rr);
    ++s.model_evaluations;
    s.scale_rows(rr);
    return rr.allFinite();
  });
}

/// IDAEwtFn: w_i = 1/(rtol·|y_i| + atol_i), multiplied by min(1, h) for the components the DAE
/// view marks 2 in error_test_components() (index-2 unknowns of an index-3 system, the
/// velocities: their local error estimate carries the Newton error of the positions divided by
/// h — the RADAU5 scaling of Hairer & Wanner, Solving ODEs II, §VII.8), and 0 for those it
/// marks 3 (determined by the constraint rows: out of the error test and Newton's norm).
int ida_weights(N_Vector y, N_Vector ewt, void* user) {
  auto& s = *static_cast<SundialsIda::Impl*>(user);
  const auto yv = ss::cmap(y);
  auto w = ss::map(ewt);
  // Before the first step IDA's current step is 0: use the initial step we gave it.
  double h = 0.0;
  IDAGetCurrentStep(s.memory, &h);
  if (!(h > 0.0)) h = s.initial_step;
  const double factor = h > 0.0 && h < 1.0 ? h : 1.0;
  for (int i = 0; i < s.n; ++i) {
    const double tol = s.options.rtol * std::abs(yv(i)) + s.atol(i);
    if (!(tol > 0.0) || !std::isfinite(tol)) return -1;
    const double c = s.error_class(i);
    w(i) = c == 3.0 && s.dependent_masked ? 0.0 : (c == 2.0 ? factor : 1.0) / tol;
  }
  return 0;
}

int ida_jacobian(double t, double cj, N_Vector y, N_Vector yp, N_Vector /*r*/, SUNMatrix J,
                 void* user, N_Vector /*tmp1*/, N_Vector /*tmp2*/, N_Vector /*tmp3*/) {
  auto& s = *static_cast<SundialsIda::Impl*>(user);
  return s.status.run([&] {
    Eigen::Map<Mat> Jm(SUNDenseMatrix_Data(J), s.n, s.n);
    const auto yv = ss::cmap(y);
    if (s.reuse_tangents(t, yv, cj, Jm)) return Jm.allFinite();
    const auto ypv = ss::cmap(yp);
    // Increment floor: max(1/w_i, |h ẏ_i|) (w = error weights), as IDA's own DQ Jacobian.
    double h = 0.0;
    IDAGetCurrentStep(s.memory, &h);
    IDAGetErrWeights(s.memory, s.weights_view.get());
    for (int i = 0; i < s.n; ++i) {
      const double w = s.weights(i);
      s.scale(i) = std::max(w > 0.0 ? 1.0 / w : s.atol(i) + s.options.rtol * std::abs(yv(i)), std::abs(h * ypv(i)));
    }
    s.model_evaluations += s.dae->jacobian(t, cj, yv, ypv, s.scale, Jm);
    s.tangents_taken_at_step = s.current_steps();
    s.scale_rows(Jm);
    return Jm.allFinite();
  });
}

void ida_error_handler(int code, const char* /*module*/, const char* /*function*/, char* msg,
                       void* user) {
  auto& buffer = *static_cast<ss::MessageBuffer*>(user);
  if (code == IDA_WARNING && buffer.code < 0) return;  // keep the error, not a later warning
  buffer.store(code, msg);
}

}  // namespace

SundialsIda::SundialsIda(const IntegratorOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
  const std::string& m = options.method;
  if (m != "ida" && m != "ida-index3") {
    throw InputError("SundialsIda: method \"" + m + "\" is not an IDA method; expected one of: "
                     "ida ida-index3");
  }
  impl_->index = m == "ida-index3" ? DaeIndex::kIndex3 : DaeIndex::kStabilizedIndex2;
  ss::validate_options(options, "integrator " + m + ": ", 5);
}

SundialsIda::~SundialsIda() = default;

std::string SundialsIda::name() const { return impl_->options.method; }
int SundialsIda::order() const {
  return impl_->options.max_order > 0 ? impl_->options.max_order : 5;
}
DaeIndex SundialsIda::formulation() const { return impl_->index; }
bool SundialsIda::uses_dae_view() const { return impl_->dae_view; }
const Vec& SundialsIda::last_output() const { return impl_->y_out; }

double SundialsIda::time() const {
  if (impl_->memory == nullptr) return impl_->t0;
  double t = impl_->t0;
  IDAGetCurrentTime(impl_->memory, &t);
  return t;
}

bool SundialsIda::state_at_last_step(VecRef z) {
  Impl& s = *impl_;
  if (s.memory == nullptr || !s.context || z.size() != s.nd) return false;
  // The solution at tn (IDA's φ₀); a failure path: the workspace is allocated here.
  Vec y = Vec::Zero(s.n);
  ss::VectorView view(y, s.context->get());
  double tn = s.t0;
  IDAGetCurrentTime(s.memory, &tn);
  if (IDAGetDky(s.memory, tn, 0, view.get()) < 0) return false;
  z = y.head(s.nd);
  return true;
}

int SundialsIda::last_order() const {
  int k = 0;
  if (impl_->memory != nullptr) IDAGetLastOrder(impl_->memory, &k);
  return k;
}

long SundialsIda::restarts() const { return impl_->restart_count; }
long SundialsIda::singular_windows() const { return impl_->windows_opened; }
bool SundialsIda::dependent_components_masked() const { return impl_->dependent_masked; }

long SundialsIda::jacobian_evaluations() const {
  long nje = 0;
  if (impl_->memory != nullptr) IDAGetNumJacEvals(impl_->memory, &nje);
  return nje;
}

void SundialsIda::initialize(OdeSystem& system, double t0, CVec z0) {
  Impl& s = *impl_;
  ss::check_initial_request(s.options.method, t0, static_cast<long>(z0.size()),
                            static_cast<long>(system.dimension()), s.options.stop_time);
  s.free_memory();
  s.implicit_ode.reset();
  s.system = &system;
  s.project = system.has_projection();
  s.dae = system.dae(s.index);
  s.dae_view = s.dae != nullptr;
  if (!s.dae_view) {
    s.implicit_ode = std::make_unique<ImplicitOde>(system);
    s.dae = s.implicit_ode.get();
  }
  if (s.dae->state_dimension() != system.dimension()) {
    throw std::logic_error("integrator " + s.options.method + ": the DAE view's state dimension " +
                           std::to_string(s.dae->state_dimension()) +
                           " differs from the system dimension " +
                           std::to_string(system.dimension()));
  }
  s.n = s.dae->dimension();
  s.nd = s.dae->state_dimension();
  s.t0 = t0;
  if (!s.context) s.context = std::make_unique<ss::Context>();
  SUNContext ctx = s.context->get();

  // Storage for the whole run, and N_Vector views of it.
  s.y.setZero(s.n);
  s.yp.setZero(s.n);
  s.id.setZero(s.n);
  s.y_out.setZero(s.n);
  s.yp_out.setZero(s.n);
  s.weights.setZero(s.n);
  s.scale.setZero(s.n);
  s.y_view = ss::VectorView(s.y, ctx);
  s.yp_view = ss::VectorView(s.yp, ctx);
  s.id_view = ss::VectorView(s.id, ctx);
  s.y_out_view = ss::VectorView(s.y_out, ctx);
  s.yp_out_view = ss::VectorView(s.yp_out, ctx);
  s.weights_view = ss::VectorView(s.weights, ctx);
  s.atol.setZero(s.n);
  s.atol_view = ss::VectorView(s.atol, ctx);
  Vec rows(s.n);
  s.dae->step_scaled_rows(rows);
  s.scaled_rows.clear();
  for (int i = 0; i < s.n; ++i) {
    if (rows(i) != 0.0) s.scaled_rows.push_back(i);
  }
  // IDA's id vector is used only for the error test (IDASetSuppressAlg; no IDACalcIC here).
  s.error_class.setZero(s.n);
  s.dae->error_test_components(s.error_class);
  for (int i = 0; i < s.n; ++i) s.id(i) = s.error_class(i) != 0.0 ? 1.0 : 0.0;
  const bool has_algebraic = (s.id.array() == 0.0).any();
  // Our weight function for classes 2 and 3 (the latter's mask is off until a failure needs it).
  const bool own_weights = (s.error_class.array() >= 2.0).any();
  Vec differential(s.n);
  s.dae->differential_components(differential);

  // Consistent initial values (the initial correction is the input's, not drift).
  s.pending_failure.clear();
  s.dae->reset_singular_window();
  s.dae->consistent_initial_values(t0, z0, s.y, s.yp);
  if (!s.y.allFinite() || !s.yp.allFinite()) {
    s.pending_failure = "integrator " + s.options.method + " failed at t = " +
                        ss::format_number(t0) +
                        " s (step size h = 0 s): non-finite initial values (the right-hand "
                        "side / residual returned NaN/Inf at the initial state)";
    s.yp = s.yp.unaryExpr([](double x) { return std::isfinite(x) ? x : 0.0; });
    s.y = s.y.unaryExpr([](double x) { return std::isfinite(x) ? x : 0.0; });
  }
  s.y_out = s.y;
  s.yp_out = s.yp;

  // IDA memory and options.
  const IntegratorOptions& o = s.options;
  s.memory = IDACreate(ctx);
  if (s.memory == nullptr) throw std::runtime_error("IDACreate failed");
  ss::check_setup(IDASetErrHandlerFn(s.memory, ida_error_handler, &s.message), "IDASetErrHandlerFn");
  ss::check_setup(IDAInit(s.memory, ida_residual, t0, s.y_view.get(), s.yp_view.get()), "IDAInit");
  s.reset_tangent_reuse();
  // atol for differential unknowns, kAlgebraicAtol for multipliers.
  for (int i = 0; i < s.n; ++i) s.atol(i) = differential(i) != 0.0 ? o.atol : kAlgebraicAtol;
  if (own_weights) {
    ss::check_setup(IDAWFtolerances(s.memory, ida_weights), "IDAWFtolerances");
  } else {
    ss::check_setup(IDASVtolerances(s.memory, o.rtol, s.atol_view.get()), "IDASVtolerances");
  }
  ss::check_setup(IDASetUserData(s.memory, &s), "IDASetUserData");
  if (has_algebraic) {
    ss::check_setup(IDASetId(s.memory, s.id_view.get()), "IDASetId");
    ss::check_setup(IDASetSuppressAlg(s.memory, SUNTRUE), "IDASetSuppressAlg");
  }
  ss::check_setup(IDASetMaxOrd(s.memory, order()), "IDASetMaxOrd");
  if (std::isfinite(o.max_step)) ss::check_setup(IDASetMaxStep(s.memory, o.max_step), "IDASetMaxStep");
  if (o.min_step > 0.0) ss::check_setup(IDASetMinStep(s.memory, o.min_step), "IDASetMinStep");
  const double h0 = o.dt > 0.0 ? std::min(o.dt, o.max_step)
                   : s.pending_failure.empty()
                       ? starting_step(system, t0, s.y.head(s.nd), s.yp.head(s.nd), o)
                       : 0.0;
  s.initial_step = h0;
  if (h0 > 0.0) ss::check_setup(IDASetInitStep(s.memory, h0), "IDASetInitStep");
  if (std::isfinite(o.stop_time)) ss::check_setup(IDASetStopTime(s.memory, o.stop_time), "IDASetStopTime");
  // The dense iteration matrix, the rank-revealing solver's copy, LU and QR workspace (about
  // 6 N², sundials_rank_revealing.cpp) and IDA's 15-odd work vectors.
  const auto unknowns = static_cast<std::uint64_t>(s.n);
  check_dense_memory("integrator " + s.options.method + " (the DAE has " + std::to_string(s.n) + " unknowns)",
                     unknowns * (6 * unknowns + 16) * sizeof(double),
                     "its dense iteration matrix, the LU and QR of the rank-revealing solve: 6 N² doubles");
  s.matrix = SUNDenseMatrix(s.n, s.n, ctx);
  if (s.matrix == nullptr) throw std::runtime_error("SUNDenseMatrix failed");
  // Redundant constraint rows make the multiplier columns dependent and a singular position
  // makes the matrix lose rank for an instant: the dense LU falls back to a rank-revealing QR.
  s.solver = sundials_support::make_rank_revealing_dense_solver(ctx, s.y_view.get(), s.matrix);
  if (s.solver == nullptr) throw std::runtime_error("creating the rank-revealing linear solver failed");
  ss::check_setup(IDASetLinearSolver(s.memory, s.solver, s.matrix), "IDASetLinearSolver");
  if (o.jacobian == "exact" && s.dae->has_jacobian()) {
    ss::check_setup(IDASetJacFn(s.memory, ida_jacobian), "IDASetJacFn");
  }

  stats_ = IntegratorStats{};
  correction_since_output_ = 0.0;
  s.model_evaluations = 0;
  s.steps_before = 0;
  s.rejected_before = 0;
  s.restarts_left = kMaxRestarts;
  s.failure_restarts_left = kMaxFailureRestarts;
  s.restart_count = 0;
  s.windows_opened = 0;
  s.dependent_masked = false;
  s.restart_pending = s.dae->singular_initial_values();
}

void SundialsIda::restart_after_one_step(double tout) {
  Impl& s = *impl_;
  const std::string& name = s.options.method;
  // One step that may not pass tout (so no output time is skipped by the restart) nor an
  // input breakpoint.
  double tn = s.t0;
  IDAGetCurrentTime(s.memory, &tn);
  s.set_stop_time(tn, tout);
  double tret = s.t0;
  const long steps_before_call = stats_.steps;
  const int flag =
      IDASolve(s.memory, tout, &tret, s.y_out_view.get(), s.yp_out_view.get(), IDA_ONE_STEP);
  update_stats();
  s.status.rethrow_fatal();
  if (flag < 0) {
    double t_fail = s.t0, h_fail = 0.0;
    IDAGetCurrentTime(s.memory, &t_fail);
    IDAGetCurrentStep(s.memory, &h_fail);
    throw IntegrationError(t_fail, ss::failure_message(name, t_fail, h_fail, flag_name(flag),
                                                       flag_meaning(flag, s.options), s.status,
                                                       s.message));
  }
  if (s.options.on_step && stats_.steps > steps_before_call) {
    s.options.on_step(tret, stats_.last_step, stats_.steps);
  }
  // Restart from consistent values at tret (DSC projection + KKT: e.g. the RIS radii become
  // √(xb² + yb²) > 0, which IDA's Newton could not reach from r = 0).
  reinit_from(tret);
  --s.restarts_left;
  s.restart_pending = s.restarts_left > 0 && s.dae->singular_initial_values();
}

void SundialsIda::reinit_from(double t) {
  Impl& s = *impl_;
  double hlast = 0.0;
  IDAGetLastStep(s.memory, &hlast);
  update_stats();
  s.steps_before = stats_.steps;
  s.rejected_before = stats_.rejected_steps;
  const double correction = s.dae->consistent_initial_values(t, s.y_out.head(s.nd), s.y, s.yp);
  stats_.max_step_correction = std::max(stats_.max_step_correction, correction);
  correction_since_output_ = std::max(correction_since_output_, correction);
  s.y_out = s.y;
  s.yp_out = s.yp;
  s.t0 = t;
  ss::check_setup(IDAReInit(s.memory, t, s.y_view.get(), s.yp_view.get()), "IDAReInit");
  s.reset_tangent_reuse();
  if (hlast > 0.0) ss::check_setup(IDASetInitStep(s.memory, hlast), "IDASetInitStep");
  if (std::isfinite(s.options.stop_time)) {
    ss::check_setup(IDASetStopTime(s.memory, s.options.stop_time), "IDASetStopTime");
  }
  ++s.restart_count;
}

bool SundialsIda::restart_after_failure(int flag) {
  Impl& s = *impl_;
  // Only convergence / error-test failures, only with progress since the last restart (at
  // least one accepted step) or a singular window just opened, and at most
  // kMaxFailureRestarts per run.
  if (flag != IDA_CONV_FAIL && flag != IDA_ERR_FAIL) return false;
  if (s.failure_restarts_left <= 0) return false;
  double tn = s.t0;
  IDAGetCurrentTime(s.memory, &tn);
  // The last accepted solution (IDA's tn after a failed step).
  if (IDAGetDky(s.memory, tn, 0, s.y_out_view.get()) < 0) return false;
  // Near a singular position the view switches to its singular-window residual for a while
  // (a new DAE: restart even without progress since the last restart).
  bool window = false;
  try {
    window = s.dae->open_singular_window(tn, s.y_out);
  } catch (const NumericalError&) {
    window = false;
  }
  long nst = 0;
  IDAGetNumSteps(s.memory, &nst);
  // No step since the last restart and no window: the last resort is to take the components
  // the constraint rows determine out of the norms for a while (a rolling ball passing within
  // round-off of its dish centre: r = |ρ| turns on a time scale far below any useful step).
  bool mask = false;
  if (nst == 0 && !window) {
    // Only with a projection: it rebuilds the masked components at every output and restart.
    if (s.dependent_masked || !s.project || !(s.error_class.array() == 3.0).any()) return false;
    mask = true;
  }
  if (window) ++s.windows_opened;
  try {
    reinit_from(tn);
  } catch (const NumericalError&) {
    return false;  // report the original failure
  }
  --s.failure_restarts_left;
  if (mask) {
    s.dependent_masked = true;
    stats_.dependent_untested_from = tn;
  }
  s.status.clear();
  s.message.clear();
  return true;
}

void SundialsIda::update_stats() {
  Impl& s = *impl_;
  long nst = 0, netf = 0, ncfn = 0;
  double hlast = 0.0;
  IDAGetNumSteps(s.memory, &nst);
  IDAGetNumErrTestFails(s.memory, &netf);
  IDAGetNumStepSolveFails(s.memory, &ncfn);
  IDAGetLastStep(s.memory, &hlast);
  stats_.steps = s.steps_before + nst;
  stats_.rejected_steps = s.rejected_before + netf + ncfn;
  // Every residual evaluation (IDA's DQ Jacobian included) passes through ida_residual.
  stats_.rhs_evaluations = s.model_evaluations;
  stats_.last_step = hlast;
}

void SundialsIda::advance_to(double tout, VecRef z_out) {
  Impl& s = *impl_;
  if (s.memory == nullptr) {
    throw std::logic_error("integrator " + s.options.method + ": advance_to called before initialize()");
  }
  const std::string& name = s.options.method;
  double tn = s.t0, hlast = 0.0;
  long nst = 0;
  IDAGetCurrentTime(s.memory, &tn);
  IDAGetLastStep(s.memory, &hlast);
  IDAGetNumSteps(s.memory, &nst);
  const double t_start = nst > 0 ? tn - hlast : s.t0;
  ss::check_output_request(name, tout, static_cast<long>(z_out.size()), static_cast<long>(s.nd),
                           s.options.stop_time, t_start, tn);

  s.status.clear();
  s.message.clear();
  if (tout <= tn) {
    // Inside the last step (or at t0 before any step): interpolate.
    if (nst == 0) {
      s.y_out = s.y;
    } else {
      const int flag = IDAGetDky(s.memory, tout, 0, s.y_out_view.get());
      if (flag < 0) {
        throw IntegrationError(tn, ss::failure_message(name, tn, hlast, flag_name(flag),
                                                       "IDAGetDky could not interpolate at tout = " +
                                                           ss::format_number(tout),
                                                       s.status, s.message));
      }
    }
  } else {
    if (!s.pending_failure.empty()) throw IntegrationError(s.t0, s.pending_failure);
    while (s.restart_pending && s.t0 < tout) restart_after_one_step(tout);
  }
  IDAGetCurrentTime(s.memory, &tn);
  IDAGetNumSteps(s.memory, &nst);
  if (tout <= tn) {
    // Reached by the restart steps above: y_out already holds y(tout).
  } else {
    // One step per IDASolve call (IDA_ONE_STEP), so that options.on_step sees every accepted
    // step, outside SUNDIALS. The steps are those IDA_NORMAL would take (IDA chooses them
    // without regard to tout, and the stop-time tests are the same), and y(tout) comes from
    // the same interpolation IDA_NORMAL ends with (see below).
    bool set_stop = true;
    double tret = tn;
    int flag = 0;
    for (;;) {
      IDAGetNumSteps(s.memory, &nst);
      const long remaining = s.options.max_steps - (s.steps_before + nst);
      if (remaining <= 0) {
        throw IntegrationError(tn, ss::failure_message(name, tn, hlast, "IDA_TOO_MUCH_WORK",
                                                       flag_meaning(IDA_TOO_MUCH_WORK, s.options),
                                                       s.status, s.message));
      }
      // Up to tout, stopping at every input breakpoint on the way (IDA_TSTOP_RETURN).
      if (set_stop) s.set_stop_time(tn, std::numeric_limits<double>::infinity());
      set_stop = false;
      const long steps_before_call = stats_.steps;
      tret = tn;
      flag = IDASolve(s.memory, tout, &tret, s.y_out_view.get(), s.yp_out_view.get(), IDA_ONE_STEP);
      update_stats();
      s.status.rethrow_fatal();
      if (flag < 0) {
        if (restart_after_failure(flag)) {
          IDAGetCurrentTime(s.memory, &tn);
          set_stop = true;
          continue;
        }
        double t_fail = s.t0, h_fail = 0.0;
        IDAGetCurrentTime(s.memory, &t_fail);
        IDAGetCurrentStep(s.memory, &h_fail);
        throw IntegrationError(t_fail, ss::failure_message(name, t_fail, h_fail, flag_name(flag),
                                                           flag_meaning(flag, s.options),
                                                           s.status, s.message));
      }
      IDAGetCurrentTime(s.memory, &tn);
      IDAGetLastStep(s.memory, &hlast);
      if (s.options.on_step && stats_.steps > steps_before_call) {
        s.options.on_step(tn, stats_.last_step, stats_.steps);
      }
      // A singular window opens near a singular position and closes once the Jacobian is
      // regular again (not on a step past tout: the restart forgets the history y(tout) is
      // interpolated from).
      if (tn <= tout && s.dae->update_singular_window(tn, s.y_out)) {
        if (s.dae->in_singular_window()) ++s.windows_opened;
        reinit_from(tn);
        set_stop = true;
      }
      if (tn >= tout) break;
      if (flag == IDA_TSTOP_RETURN) set_stop = true;
    }
    if (tret != tout) {
      // Past tout: an IDA_NORMAL call takes no step and interpolates y(tout) (IDAGetSolution),
      // exactly as IDA_NORMAL ends its own step loop.
      flag = IDASolve(s.memory, tout, &tret, s.y_out_view.get(), s.yp_out_view.get(), IDA_NORMAL);
      s.status.rethrow_fatal();
      if (flag < 0) {
        throw IntegrationError(tn, ss::failure_message(name, tn, hlast, flag_name(flag),
                                                       "IDASolve could not interpolate at tout = " +
                                                           ss::format_number(tout),
                                                       s.status, s.message));
      }
    } else if (flag != IDA_TSTOP_RETURN) {
      // A step ending exactly on tout: IDA_NORMAL would return IDAGetSolution(tout) = φ₀, which
      // IDAGetDky(tn, 0) gives bit for bit (the one-step return is the corrector's y).
      IDAGetDky(s.memory, tout, 0, s.y_out_view.get());
    }
  }
  update_stats();
  z_out = s.y_out.head(s.nd);
  ss::check_finite_output(name, time(), stats_.last_step, tout, z_out);
  // IDA satisfies the constraints to its Newton tolerance: project the output (the initial
  // values are consistent already).
  if (s.project && stats_.steps > 0) {
    const double correction = s.system->project(tout, z_out);
    s.y_out.head(s.nd) = z_out;
    stats_.max_step_correction = std::max(stats_.max_step_correction, correction);
    correction_since_output_ = std::max(correction_since_output_, correction);
  }
}

}  // namespace gmbd
