// Google Benchmark: cost of one KKT solve (sparse range-space and dense LU) and of one RK4 step
// with DSC (and variants) for the Cartesian n-link pendulum, 3 to 200 links; docs/performance.md.
#include <benchmark/benchmark.h>

#include "constraints/stabilized_dynamics.hpp"
#include "core/kkt.hpp"
#include "integrators/integrator.hpp"
#include "models/registry.hpp"

namespace {

gmbd::BuiltModel pendulum(int links) {
  return gmbd::build_model("nlink_pendulum_cartesian",
                           {{"n", {static_cast<double>(links)}}, {"friction", {0.05}},
                            {"theta0", {0.4}}, {"omega0", {0.1}}},
                           "bench");
}

void kkt_benchmark(benchmark::State& state, bool sparse) {
  gmbd::BuiltModel b = pendulum(static_cast<int>(state.range(0)));
  gmbd::KktSolver kkt(*b.model, gmbd::KktOptions{.structured = true, .sparse = sparse});
  const gmbd::Vec z = gmbd::Vec::Zero(0);
  for (auto _ : state) {
    kkt.evaluate(0.0, b.q0, b.v0, z);
    benchmark::DoNotOptimize(kkt.acceleration().data());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["nq"] = b.model->nq();
  state.counters["m"] = b.model->n_constraints();
  if (sparse && !kkt.last_solve_sparse()) state.SkipWithError("sparse path not taken");
}

// The link counts of the scaling study (fit of cost ∝ N^p in docs/performance.md).
void chain_sizes(benchmark::internal::Benchmark* b) {
  for (int links : {3, 10, 20, 50, 100, 200}) b->Arg(links);
}

void BM_KktSolve(benchmark::State& state) { kkt_benchmark(state, true); }
void BM_KktSolveDense(benchmark::State& state) { kkt_benchmark(state, false); }
BENCHMARK(BM_KktSolve)->Apply(chain_sizes);
BENCHMARK(BM_KktSolveDense)->Arg(3)->Arg(10)->Arg(20)->Arg(50)->Arg(100);

void step_benchmark(benchmark::State& state, const char* method, const char* stabilization) {
  gmbd::BuiltModel b = pendulum(static_cast<int>(state.range(0)));
  gmbd::StabilizedDynamics dynamics(*b.model, gmbd::StabilizationOptions::from_name(stabilization));
  gmbd::IntegratorOptions options;
  options.method = method;
  options.dt = 1e-3;
  auto integrator = gmbd::make_integrator(options);
  gmbd::Vec z0(dynamics.dimension());
  z0 << b.q0, b.v0;
  gmbd::Vec z = z0;
  integrator->initialize(dynamics, 0.0, z0);
  long step = 0;
  for (auto _ : state) {
    // t = k·dt exactly on the step grid (accumulating t += dt would drift off it).
    integrator->advance_to(static_cast<double>(++step) * options.dt, z);
    benchmark::DoNotOptimize(z.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Rk4StepDsc(benchmark::State& state) { step_benchmark(state, "rk4", "dsc"); }
void BM_Rk4StepNone(benchmark::State& state) { step_benchmark(state, "rk4", "none"); }
void BM_Rk4StepBaumgarte(benchmark::State& state) { step_benchmark(state, "rk4", "baumgarte"); }
BENCHMARK(BM_Rk4StepDsc)->Apply(chain_sizes);
BENCHMARK(BM_Rk4StepNone)->Apply(chain_sizes);
BENCHMARK(BM_Rk4StepBaumgarte)->Arg(3)->Arg(20);

}  // namespace

BENCHMARK_MAIN();
