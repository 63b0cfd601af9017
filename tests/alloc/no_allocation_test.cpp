// Proves the step path does not touch the heap: malloc & co. are wrapped at link time
// (-Wl,--wrap) and operator new is replaced, so every allocation while "armed" is counted.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "constraints/stabilized_dynamics.hpp"
#include "core/coarse_clock.hpp"
#include "core/kkt.hpp"
#include "integrators/integrator.hpp"
#include "core/signal.hpp"
#include "models/registry.hpp"
#include "constraints/dsc.hpp"
#include "constraints/dae_formulation.hpp"
#include "builder/model_builder.hpp"
#include "elements/float_condensation.hpp"

namespace {
std::atomic<bool> g_armed{false};
std::atomic<long> g_allocations{0};
void count() {
  if (g_armed.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
}
}  // namespace

extern "C" {
void* __real_malloc(size_t);
void* __real_calloc(size_t, size_t);
void* __real_realloc(void*, size_t);
void __real_free(void*);
void* __real_aligned_alloc(size_t, size_t);
int __real_posix_memalign(void**, size_t, size_t);

void* __wrap_malloc(size_t n) { count(); return __real_malloc(n); }
void* __wrap_calloc(size_t n, size_t s) { count(); return __real_calloc(n, s); }
void* __wrap_realloc(void* p, size_t n) { count(); return __real_realloc(p, n); }
void __wrap_free(void* p) { __real_free(p); }
void* __wrap_aligned_alloc(size_t a, size_t n) { count(); return __real_aligned_alloc(a, n); }
int __wrap_posix_memalign(void** p, size_t a, size_t n) { count(); return __real_posix_memalign(p, a, n); }
}

void* operator new(size_t n) {
  count();
  if (void* p = __real_malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { __real_free(p); }
void operator delete[](void* p) noexcept { __real_free(p); }
void operator delete(void* p, size_t) noexcept { __real_free(p); }
void operator delete[](void* p, size_t) noexcept { __real_free(p); }

namespace gmbd {
namespace {

class ArmedScope {
 public:
  ArmedScope() { g_allocations = 0; g_armed = true; }
  ~ArmedScope() { g_armed = false; }
  long count() const { return g_allocations.load(); }
};

TEST(NoAllocation, CounterDetectsAllocations) {
  // The instrument itself must be able to fail: an Eigen temporary and a new are counted.
  ArmedScope armed;
  Vec x = Vec::Ones(64);
  auto* p = new int(3);
  delete p;
  EXPECT_GE(armed.count(), 2);
}

BuiltModel pendulum(int links) {
  return build_model("nlink_pendulum_cartesian",
                     {{"n", {static_cast<double>(links)}}, {"friction", {0.05}}, {"eta0", {0.01}},
                      {"omega", {3.0}}, {"theta0", {0.4}}},
                     "test");
}

TEST(NoAllocation, KktSolve) {
  for (int links : {3, 20}) {
    BuiltModel b = pendulum(links);
    KktSolver kkt(*b.model);
    const Vec z = Vec::Zero(0);
    kkt.evaluate(0.1, b.q0, b.v0, z);  // warm-up outside the armed scope
    ArmedScope armed;
    for (int k = 0; k < 10; ++k) kkt.evaluate(0.1 * k, b.q0, b.v0, z);
    EXPECT_EQ(armed.count(), 0) << links << " links";
  }
  // The dense paths: the range-space solve (full rank, M positive definite) and the
  // rank-revealing null-space solve (the RIS without its structure: massless coordinates).
  for (int links : {3, 20}) {
    BuiltModel b = pendulum(links);
    KktSolver kkt(*b.model, KktOptions{.structured = false, .sparse = false});
    const Vec z = Vec::Zero(0);
    kkt.evaluate(0.1, b.q0, b.v0, z);
    ASSERT_TRUE(kkt.last_solve_dense_range_space());
    ArmedScope armed;
    for (int k = 0; k < 10; ++k) kkt.evaluate(0.1 * k, b.q0, b.v0, z);
    EXPECT_EQ(armed.count(), 0) << links << " links, dense range space";
  }
  {
    BuiltModel b = build_model("ris_xytheta", {}, "test");
    KktSolver kkt(*b.model, KktOptions{.structured = false, .sparse = false});
    const Vec z = Vec::Zero(b.model->nz());
    Vec q = b.q0, v = b.v0;
    for (int i = 0; i < q.size(); ++i) q(i) += 1e-3 * (i % 3);  // off the dish centres
    kkt.evaluate(0.1, q, v, z);
    ASSERT_TRUE(kkt.last_solve_rank_revealing());  // massless coordinates: M is singular
    ArmedScope armed;
    for (int k = 0; k < 10; ++k) kkt.evaluate(0.1 * k, q, v, z);
    EXPECT_EQ(armed.count(), 0) << "ris_xytheta, rank-revealing path";
  }
  // No constraints: M's Cholesky factorisation (preallocated), up to 200 links.
  for (int links : {3, 20, 200}) {
    BuiltModel b = build_model("nlink_pendulum_angle",
                               {{"n", {static_cast<double>(links)}}, {"friction", {0.05}}}, "test");
    KktSolver kkt(*b.model);
    const Vec z = Vec::Zero(0);
    kkt.evaluate(0.1, b.q0, b.v0, z);
    ASSERT_TRUE(kkt.last_solve_cholesky());
    ArmedScope armed;
    for (int k = 0; k < 10; ++k) kkt.evaluate(0.1 * k, b.q0, b.v0, z);
    EXPECT_EQ(armed.count(), 0) << links << " links, angle form";
  }
}

TEST(NoAllocation, IntegratorStepsWithDscAndBaumgarte) {
  for (const char* method : {"rk4", "rk45", "bs32", "heun", "euler"}) {
    for (const char* stab : {"none", "baumgarte", "dsc", "dsc+baumgarte"}) {
      BuiltModel b = pendulum(20);
      StabilizedDynamics dynamics(*b.model, StabilizationOptions::from_name(stab));
      IntegratorOptions options;
      options.method = method;
      options.dt = 1e-3;
      options.rtol = 1e-8;
      options.atol = 1e-10;
      auto integrator = make_integrator(options);
      Vec z0(dynamics.dimension());
      z0 << b.q0, b.v0;
      Vec z = z0;
      integrator->initialize(dynamics, 0.0, z0);
      integrator->advance_to(0.01, z);  // warm-up: first step may size caches
      ArmedScope armed;
      for (int k = 2; k <= 20; ++k) integrator->advance_to(0.01 * k, z);
      dynamics.evaluate(0.2, z);
      EXPECT_EQ(armed.count(), 0) << method << " + " << stab;
    }
  }
}

/// Counts the allocations of advance_to over 19 outputs after one warm-up output. With
/// `inputs`, the steps also end on their breakpoints (as in a run).
long allocations_of_steps(const Model& model, const Vec& q0, const Vec& v0,
                          const IntegratorOptions& options, const char* stabilization,
                          double dt_out, long* steps = nullptr, const ModelInputs* inputs = nullptr) {
  StabilizedDynamics dynamics(model, StabilizationOptions::from_name(stabilization));
  if (inputs != nullptr) dynamics.set_inputs(*inputs);
  auto integrator = make_integrator(options);
  Vec z0(dynamics.dimension());
  z0 << q0, v0;
  Vec z = z0;
  integrator->initialize(dynamics, 0.0, z0);
  integrator->advance_to(dt_out, z);  // warm-up: first step may size caches
  long count = 0;
  {
    ArmedScope armed;
    for (int k = 2; k <= 20; ++k) integrator->advance_to(dt_out * k, z);
    dynamics.evaluate(dt_out * 20, z);
    count = armed.count();
  }
  if (steps != nullptr) *steps = integrator->stats().steps;
  return count;
}

TEST(NoAllocation, SundialsStepsWithExactJacobian) {
  // SUNDIALS is a shared library: the link-time --wrap sees every malloc of GaussMBD's code
  // (callbacks, residual, Jacobian, projection, N_Vector views) and every operator new, but
  // not SUNDIALS' internal mallocs. docs/integrators.md records the whole-process measurement
  // (0 allocations with jacobian: exact; dq allocates an N_Vector header per Jacobian).
  BuiltModel crank = build_model("slider_crank", {}, "test");
  BuiltModel pend = pendulum(20);
  for (const char* method : {"ida", "ida-index3", "cvode-bdf", "cvode-adams"}) {
    for (const char* stab : {"none", "dsc"}) {
      IntegratorOptions options;
      options.method = method;
      options.dt = 0.0;
      options.rtol = 1e-8;
      options.atol = 1e-10;
      options.jacobian = "exact";
      long steps = 0;
      EXPECT_EQ(allocations_of_steps(*crank.model, crank.q0, crank.v0, options, stab, 0.05, &steps), 0)
          << method << " + " << stab << " on the slider-crank";
      EXPECT_GT(steps, 20) << method;
      EXPECT_EQ(allocations_of_steps(*pend.model, pend.q0, pend.v0, options, stab, 0.01), 0)
          << method << " + " << stab << " on the 20-link pendulum";
    }
  }
}

TEST(NoAllocation, RisModelsWithDscUnderFloorMotion) {
  // A 5 Hz sampled floor acceleration (peak 3 m/s²) on both horizontal axes; from rest at the
  // dish centres (decoupled coordinates at t = 0), so the balls also cross the minimum-norm
  // path of the KKT solve and of the projection.
  std::vector<double> samples;
  for (int k = 0; k < 400; ++k) samples.push_back(3.0 * std::sin(2.0 * 3.141592653589793 * 5.0 * 0.005 * k));
  auto floor = std::make_shared<SampledSignal>(0.0, 0.005, samples, "test sine");
  ModelInputs inputs;
  inputs.signals = {{"floor_x", floor}, {"floor_y", floor}};
  // The adaptive methods end their steps on the sample instants (next_breakpoint; CVODE and
  // IDA through their stop time), as in a run.
  for (const char* name : {"ris_xytheta", "ris_lagrange"}) {
    BuiltModel ris = build_model(name, {}, "test", inputs);
    for (const char* method : {"rk4", "rk45", "cvode-bdf", "ida"}) {
      IntegratorOptions options;
      options.method = method;
      options.dt = method == std::string("rk4") ? 0.001 : 0.0;
      options.rtol = 1e-8;
      options.atol = 1e-10;
      long steps = 0;
      EXPECT_EQ(allocations_of_steps(*ris.model, ris.q0, ris.v0, options, "dsc", 0.01, &steps, &inputs), 0)
          << name << " + " << method << " + dsc";
      EXPECT_GT(steps, 20) << name << " " << method;
    }
  }
}

// Assembled (model-file) models: element gathers, AD evaluations and scatters use only fixed-size
// stack storage, so RK4 + DSC and RK45 steps allocate nothing.
TEST(NoAllocation, AssembledModelsWithDsc) {
  for (const char* file : {"triple_pendulum.yaml", "heavy_top.yaml", "ida_slider_crank.yaml",
                           "four_bar.yaml"}) {
    const ModelFileSpec spec =
        load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/models/" + file);
    const auto model = build_assembled_model(spec);
    Vec q0(model->nq()), v0(model->nq());
    model_file_initial_state(spec, *model, q0, v0);
    DscProjector projector(*model, {});
    projector.correct(0.0, q0, v0);
    for (const char* method : {"rk4", "rk45"}) {
      IntegratorOptions options;
      options.method = method;
      options.dt = 1e-3;
      options.rtol = 1e-8;
      options.atol = 1e-10;
      EXPECT_EQ(allocations_of_steps(*model, q0, v0, options, "dsc", 0.01), 0) << file << " " << method;
    }
  }
}

// IDA's and CVODE's exact iteration matrices from element tangents (Model::motion_tangents)
// on assembled models, a quad with its six blade-tip floats condensed (the Schur complement)
// included.
TEST(NoAllocation, ExactTangentsOnAssembledModels) {
  for (const char* file : {"examples/models/heavy_top.yaml", "examples/models/four_bar.yaml",
                           "examples/suspensions/quad.yaml"}) {
    const ModelFileSpec spec = load_model_file(std::string(GMBD_SOURCE_DIR) + "/" + file);
    std::shared_ptr<const elements::AssembledModel> assembled = build_assembled_model(spec, ModelInputs{}, true);
    Vec q0(assembled->nq()), v0(assembled->nq());
    model_file_initial_state(spec, *assembled, q0, v0);
    std::unique_ptr<Model> condensed;
    if (!assembled->float_coordinates().empty()) {
      auto c = std::make_unique<elements::FloatCondensedModel>(assembled, q0);
      q0 = c->kept_part(q0);
      v0 = c->kept_part(v0);
      condensed = std::move(c);
    }
    const Model& model = condensed ? *condensed : static_cast<const Model&>(*assembled);
    ASSERT_TRUE(model.has_motion_tangents()) << file;
    v0.setConstant(1e-3);  // moving: every tangent block is exercised
    if (!condensed) {
      DscProjector projector(model, {});
      projector.correct(0.0, q0, v0);
    }
    for (const char* method : {"ida", "ida-index3", "cvode-bdf"}) {
      IntegratorOptions options;
      options.method = method;
      options.rtol = 1e-8;
      options.atol = 1e-10;
      options.jacobian = "exact";
      long steps = 0;
      EXPECT_EQ(allocations_of_steps(model, q0, v0, options, "none", 0.05, &steps), 0) << file << " " << method;
      EXPECT_GT(steps, 5) << file << " " << method;
    }
  }
}

// The exact iteration matrix of a model with non-holonomic rows (the RIS model file: rolling
// balls' ∂ψ/∂q and ∂(Hᵀλ)/∂q by nested duals), evaluated and rescaled, allocates nothing.
TEST(NoAllocation, ExactIterationMatrixWithNonHolonomicRows) {
  const ModelFileSpec spec = load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/models/ris_xytheta.yaml");
  const auto model = build_assembled_model(spec);
  ASSERT_TRUE(model->has_motion_tangents());
  for (DaeIndex index : {DaeIndex::kStabilizedIndex2, DaeIndex::kIndex3}) {
    DaeFormulation dae(*model, index, DscOptions{});
    const int n = dae.dimension();
    Vec q0(model->nq()), v0(model->nq());
    model_file_initial_state(spec, *model, q0, v0);
    Vec z0 = Vec::Zero(dae.state_dimension()), y(n), yp(n);
    z0.head(model->nq()) = q0;
    dae.consistent_initial_values(0.0, z0, y, yp);
    y += 1e-3 * Vec::LinSpaced(n, -1.0, 1.0);
    Mat J(n, n);
    const Vec scale = Vec::Ones(n);
    dae.jacobian(0.0, 100.0, y, yp, scale, J);  // warm-up
    long count = 0;
    {
      ArmedScope armed;
      dae.jacobian(0.01, 200.0, y, yp, scale, J);
      dae.rescale_jacobian(0.01, y, 300.0, J);
      count = armed.count();
    }
    EXPECT_EQ(count, 0);
  }
}

// The step hook (IntegratorOptions::on_step) as the run driver uses it: a coarse clock read and
// a comparison after every accepted step. Setting it costs no allocation on any integrator's
// step path (SUNDIALS ones step in one-step mode for it); the work done when a report is due
// (every output.flush_seconds: HDF5 attributes and a flush, a progress line) is outside this.
TEST(NoAllocation, StepHookWithCoarseClock) {
  BuiltModel pend = pendulum(20);
  for (const char* method : {"rk4", "rk45", "ida", "cvode-bdf", "cvode-adams"}) {
    IntegratorOptions options;
    options.method = method;
    options.dt = method == std::string("rk4") ? 1e-3 : 0.0;
    options.rtol = 1e-8;
    options.atol = 1e-10;
    long calls = 0;
    const auto due = CoarseClock::now() + std::chrono::hours(1);
    options.on_step = [&calls, due](double /*t*/, double /*h*/, long /*steps*/) {
      if (CoarseClock::now() >= due) return;
      ++calls;
    };
    long steps = 0;
    EXPECT_EQ(allocations_of_steps(*pend.model, pend.q0, pend.v0, options, "dsc", 0.01, &steps), 0)
        << method << " with an on_step hook";
    EXPECT_EQ(calls, steps) << method;
  }
}

}  // namespace
}  // namespace gmbd
