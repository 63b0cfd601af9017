// Google Benchmark: the rolling isolation system under a floor motion — KKT assembly and solve
// (dense vs structured), DSC, and RK4+DSC steps / simulated minutes of GPLC XYθ vs Lagrange.
// Results are recorded in docs/performance.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "constraints/dsc.hpp"
#include "constraints/stabilized_dynamics.hpp"
#include "core/kkt.hpp"
#include "core/signal.hpp"
#include "integrators/integrator.hpp"
#include "models/registry.hpp"

namespace {

constexpr double kDt = 0.005;            // the examples' RK4 step
constexpr int kStepsPerMinute = 12000;   // 60 s / kDt

/// A synthetic 60 s floor record sampled at 100 Hz: three decaying-envelope sines
/// (0.7, 1.9, 4.3 Hz) scaled to a 0.3 g peak — a stand-in for the examples' building record
/// (the cost per step does not depend on the record, only on the model).
std::shared_ptr<const gmbd::Signal> floor_record() {
  const double dt = 0.01;
  std::vector<double> u(6001);
  double peak = 0.0;
  for (size_t k = 0; k < u.size(); ++k) {
    const double t = dt * static_cast<double>(k);
    const double envelope = t * std::exp(-t / 8.0);
    u[k] = envelope * (std::sin(2 * M_PI * 0.7 * t) + 0.6 * std::sin(2 * M_PI * 1.9 * t + 1.0) +
                       0.3 * std::sin(2 * M_PI * 4.3 * t + 2.0));
    peak = std::max(peak, std::abs(u[k]));
  }
  for (double& x : u) x *= 0.3 * 9.81 / peak;
  return std::make_shared<gmbd::SampledSignal>(0.0, dt, std::move(u), "synthetic 0.3 g");
}

gmbd::BuiltModel ris(const char* type) {
  gmbd::ModelInputs inputs;
  inputs.signals.push_back({"floor_x", floor_record()});
  return gmbd::build_model(type, {{"b0", {0.08}}}, "bench", inputs);
}

/// Forwards every model function except kkt_partition(), so that the stabilised dynamics
/// (which builds its own KktSolver) uses the dense LU: the "before" of the comparison.
class WithoutPartition final : public gmbd::Model {
 public:
  explicit WithoutPartition(const gmbd::Model& inner) : inner_(inner) {
    for (const auto& c : inner.coordinates()) add_coordinate(c.name, c.unit);
    for (int i = 0; i < inner.n_constraints(); ++i) {
      if (inner.constraint_kind(i) == gmbd::ConstraintKind::kHolonomic) {
        add_holonomic(inner.constraint_name(i));
      } else {
        add_nonholonomic(inner.constraint_name(i));
      }
    }
    for (const auto& s : inner.states()) add_state(s.name, s.unit);
  }
  std::string type() const override { return inner_.type(); }
  void mass_matrix(double t, gmbd::CVec q, gmbd::MatRef M) const override {
    inner_.mass_matrix(t, q, M);
  }
  void forces(double t, gmbd::CVec q, gmbd::CVec v, gmbd::CVec z, gmbd::VecRef f) const override {
    inner_.forces(t, q, v, z, f);
  }
  void holonomic(double t, gmbd::CVec q, gmbd::VecRef g) const override {
    inner_.holonomic(t, q, g);
  }
  void holonomic_jacobian(double t, gmbd::CVec q, gmbd::MatRef G) const override {
    inner_.holonomic_jacobian(t, q, G);
  }
  void holonomic_time_rate(double t, gmbd::CVec q, gmbd::VecRef gt) const override {
    inner_.holonomic_time_rate(t, q, gt);
  }
  void holonomic_bias(double t, gmbd::CVec q, gmbd::CVec v, gmbd::VecRef b) const override {
    inner_.holonomic_bias(t, q, v, b);
  }
  void nonholonomic(double t, gmbd::CVec q, gmbd::CVec v, gmbd::VecRef h) const override {
    inner_.nonholonomic(t, q, v, h);
  }
  void nonholonomic_jacobian(double t, gmbd::CVec q, gmbd::MatRef H) const override {
    inner_.nonholonomic_jacobian(t, q, H);
  }
  void nonholonomic_bias(double t, gmbd::CVec q, gmbd::CVec v, gmbd::VecRef b) const override {
    inner_.nonholonomic_bias(t, q, v, b);
  }
  void state_rates(double t, gmbd::CVec q, gmbd::CVec v, gmbd::CVec z,
                   gmbd::VecRef zdot) const override {
    inner_.state_rates(t, q, v, z, zdot);
  }
  void correction_weights(gmbd::VecRef w) const override { inner_.correction_weights(w); }
  void velocity_correction_weights(gmbd::VecRef w) const override {
    inner_.velocity_correction_weights(w);
  }
  bool explicit_correction(double t, gmbd::VecRef q, gmbd::VecRef v) const override {
    return inner_.explicit_correction(t, q, v);
  }

 private:
  const gmbd::Model& inner_;
};

// Arguments: 0 ris_xytheta dense, 1 ris_xytheta structured, 2 ris_lagrange;
// 3/4 ris_xyztheta dense/structured, 5/6 ris_vertical dense/structured.
struct Case {
  const char* type;
  bool structured;
};
Case case_of(int64_t arg) {
  static constexpr Case kCases[] = {{"ris_xytheta", false},  {"ris_xytheta", true},
                                    {"ris_lagrange", false}, {"ris_xyztheta", false},
                                    {"ris_xyztheta", true},  {"ris_vertical", false},
                                    {"ris_vertical", true}};
  return kCases[arg];
}
std::string label_of(const Case& c) {
  if (c.type == std::string("ris_lagrange")) return c.type;
  return std::string(c.type) + (c.structured ? " structured" : " dense");
}

// ---- components of one right-hand side -----------------------------------------------------

constexpr double kProbeTime = 8.4;  // near the record's peak

/// A representative state: the default initial state (every ball at its dish centres, a
/// special case) integrated with RK4 + DSC to kProbeTime.
void probe_state(const gmbd::BuiltModel& b, gmbd::Vec& q, gmbd::Vec& v) {
  gmbd::StabilizedDynamics dynamics(*b.model, gmbd::StabilizationOptions::from_name("dsc"));
  gmbd::IntegratorOptions options;
  options.method = "rk4";
  options.dt = kDt;
  auto integrator = gmbd::make_integrator(options);
  gmbd::Vec z(dynamics.dimension());
  z << b.q0, b.v0;
  integrator->initialize(dynamics, 0.0, z);
  integrator->advance_to(kProbeTime, z);
  q = z.head(b.model->nq());
  v = z.segment(b.model->nq(), b.model->nq());
}

void BM_RisKktAssemble(benchmark::State& state) {
  const Case c = case_of(state.range(0));
  gmbd::BuiltModel b = ris(c.type);
  gmbd::KktSolver kkt(*b.model, gmbd::KktOptions{c.structured});
  const gmbd::Vec z = gmbd::Vec::Zero(0);
  gmbd::Vec q, v;
  probe_state(b, q, v);
  for (auto _ : state) {
    kkt.assemble(kProbeTime, q, v, z);
    benchmark::DoNotOptimize(kkt.bias().data());
  }
  state.SetLabel(label_of(c));
}

void BM_RisKktSolve(benchmark::State& state) {
  const Case c = case_of(state.range(0));
  gmbd::BuiltModel b = ris(c.type);
  gmbd::KktSolver kkt(*b.model, gmbd::KktOptions{c.structured});
  const gmbd::Vec z = gmbd::Vec::Zero(0);
  gmbd::Vec q, v;
  probe_state(b, q, v);
  kkt.assemble(kProbeTime, q, v, z);
  for (auto _ : state) {
    kkt.solve(kProbeTime, q);
    benchmark::DoNotOptimize(kkt.acceleration().data());
  }
  if (c.structured && !kkt.last_solve_structured()) state.SkipWithError("fell back to dense");
  state.SetLabel(label_of(c));
  state.counters["nq"] = b.model->nq();
  state.counters["m"] = b.model->n_constraints();
}

void BM_RisDsc(benchmark::State& state) {
  const Case c = case_of(state.range(0));
  gmbd::BuiltModel b = ris(c.type);
  gmbd::DscProjector dsc(*b.model, gmbd::DscOptions{});
  gmbd::Vec q, v;
  probe_state(b, q, v);
  for (auto _ : state) {
    q(0) += 1e-9;  // something to correct
    dsc.correct(kProbeTime, q, v);
    benchmark::DoNotOptimize(q.data());
  }
  state.SetLabel(label_of(c));
}

// ---- RK4 steps and simulated minutes --------------------------------------------------------

struct Run {
  gmbd::BuiltModel built;
  std::unique_ptr<WithoutPartition> dense_view;
  std::unique_ptr<gmbd::StabilizedDynamics> dynamics;
  std::unique_ptr<gmbd::Integrator> integrator;
  gmbd::Vec z0;

  Run(const Case& c, const char* stabilization) : built(ris(c.type)) {
    const gmbd::Model* model = built.model.get();
    if (!c.structured) {
      dense_view = std::make_unique<WithoutPartition>(*built.model);
      model = dense_view.get();
    }
    dynamics = std::make_unique<gmbd::StabilizedDynamics>(
        *model, gmbd::StabilizationOptions::from_name(stabilization));
    gmbd::IntegratorOptions options;
    options.method = "rk4";
    options.dt = kDt;
    integrator = gmbd::make_integrator(options);
    z0.resize(dynamics->dimension());
    z0 << built.q0, built.v0;
    integrator->initialize(*dynamics, 0.0, z0);
  }
};

void step_benchmark(benchmark::State& state, const char* stabilization) {
  const Case c = case_of(state.range(0));
  Run run(c, stabilization);
  gmbd::Vec z = run.z0;
  long step = 0;
  for (auto _ : state) {
    if (step == kStepsPerMinute) {  // stay inside the record: restart (rarely, untimed)
      state.PauseTiming();
      step = 0;
      z = run.z0;
      run.integrator->initialize(*run.dynamics, 0.0, z);
      state.ResumeTiming();
    }
    run.integrator->advance_to(static_cast<double>(++step) * kDt, z);
    benchmark::DoNotOptimize(z.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(label_of(c) + ", " + stabilization);
  if (c.structured && run.dynamics->kkt().fallback_count() > 0) {
    state.counters["fallbacks"] = static_cast<double>(run.dynamics->kkt().fallback_count());
  }
}

void minute_benchmark(benchmark::State& state, const char* stabilization) {
  const Case c = case_of(state.range(0));
  Run run(c, stabilization);
  gmbd::Vec z = run.z0;
  for (auto _ : state) {
    state.PauseTiming();
    z = run.z0;
    run.integrator->initialize(*run.dynamics, 0.0, z);
    state.ResumeTiming();
    for (int step = 1; step <= kStepsPerMinute; ++step) {
      run.integrator->advance_to(static_cast<double>(step) * kDt, z);
    }
    benchmark::DoNotOptimize(z.data());
  }
  state.SetLabel(label_of(c) + ", " + stabilization);
}

void BM_RisRk4StepDsc(benchmark::State& state) { step_benchmark(state, "dsc"); }
void BM_RisRk4StepNone(benchmark::State& state) { step_benchmark(state, "none"); }
void BM_RisSimulatedMinuteDsc(benchmark::State& state) { minute_benchmark(state, "dsc"); }
void BM_RisSimulatedMinuteNone(benchmark::State& state) { minute_benchmark(state, "none"); }

BENCHMARK(BM_RisKktAssemble)->Arg(0)->Arg(2);
BENCHMARK(BM_RisKktSolve)->DenseRange(0, 6);
BENCHMARK(BM_RisDsc)->Arg(0)->Arg(2);
BENCHMARK(BM_RisRk4StepDsc)->DenseRange(0, 2);
BENCHMARK(BM_RisRk4StepNone)->Arg(2);  // the Lagrange example runs without stabilisation
BENCHMARK(BM_RisSimulatedMinuteDsc)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RisSimulatedMinuteNone)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
