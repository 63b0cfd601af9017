// Google Benchmark: cost of one right-hand side of the angle-form n-link pendulum (model
// evaluation + SPD solve of M θ̈ = f), 3 to 200 links, and of its parts; docs/performance.md.
#include <benchmark/benchmark.h>

#include "constraints/stabilized_dynamics.hpp"
#include "core/model.hpp"
#include "models/registry.hpp"

namespace {

// Distinct angles per link, so that no angle difference is zero and the trigonometric work is
// the general case (the catalogue default sets every link to the same angle).
gmbd::BuiltModel angle_pendulum(int links) {
  gmbd::BuiltModel b = gmbd::build_model(
      "nlink_pendulum_angle",
      {{"n", {static_cast<double>(links)}}, {"friction", {0.05}}, {"eta0", {0.01}}, {"omega", {3.0}}},
      "bench");
  for (int k = 0; k < links; ++k) {
    b.q0(k) = 0.4 - 0.3 * static_cast<double>(k) / links;
    b.v0(k) = 0.1 + 0.05 * static_cast<double>(k) / links;
  }
  return b;
}

// The link counts of the scaling study (fit of cost ∝ N^p).
void chain_sizes(benchmark::internal::Benchmark* b) {
  for (int links : {3, 10, 20, 50, 100, 200}) b->Arg(links);
}

// ż = F(t, z) as an integrator sees it: assemble M and f, solve for θ̈.
void BM_AngleRhs(benchmark::State& state) {
  const gmbd::BuiltModel b = angle_pendulum(static_cast<int>(state.range(0)));
  gmbd::StabilizedDynamics dynamics(*b.model, gmbd::StabilizationOptions::from_name("none"));
  gmbd::Vec z(dynamics.dimension());
  z << b.q0, b.v0;
  gmbd::Vec zdot = gmbd::Vec::Zero(dynamics.dimension());
  for (auto _ : state) {
    dynamics.rhs(0.1, z, zdot);
    benchmark::DoNotOptimize(zdot.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AngleRhs)->Apply(chain_sizes);

// The model alone: M(θ) and f(t, θ, θ̇) into zeroed storage (the caller's convention).
void BM_AngleModelEvaluation(benchmark::State& state) {
  const gmbd::BuiltModel b = angle_pendulum(static_cast<int>(state.range(0)));
  const int n = b.model->nq();
  gmbd::Mat M = gmbd::Mat::Zero(n, n);
  gmbd::Vec f = gmbd::Vec::Zero(n);
  const gmbd::Vec z = gmbd::Vec::Zero(0);
  for (auto _ : state) {
    M.setZero();
    f.setZero();
    b.model->mass_matrix(0.1, b.q0, M);
    b.model->forces(0.1, b.q0, b.v0, z, f);
    benchmark::DoNotOptimize(M.data());
    benchmark::DoNotOptimize(f.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AngleModelEvaluation)->Apply(chain_sizes);

}  // namespace

BENCHMARK_MAIN();
