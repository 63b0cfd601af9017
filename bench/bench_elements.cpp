// Google Benchmark: assembled (model-file) models next to the hand-written catalogue models of
// the same systems — one RK4 + DSC step of the 20-link Cartesian chain and of the RIS XYθ, and
// one KKT evaluation. Figures are recorded in docs/performance.md.
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>

#include "constraints/stabilized_dynamics.hpp"
#include "core/kkt.hpp"
#include "integrators/integrator.hpp"
#include "io/model_builder.hpp"
#include "models/registry.hpp"

namespace {

// ---- the systems -------------------------------------------------------------------------------

/// Model-file text of an n-link planar chain of unit point masses on unit links (squared form, as
/// the catalogue's nlink_pendulum_cartesian).
std::string chain_model_file(int links) {
  std::ostringstream s;
  s << "dimension: 2\nparameters: {m: 1, L: 1, g: 9.81}\nbodies:\n";
  for (int k = 1; k <= links; ++k) s << "  m" << k << ": {type: point, mass: m}\n";
  s << "elements:\n  gravity: {type: gravity, g: [0, -g]}\n";
  for (int k = 1; k <= links; ++k)
    s << "  link" << k << ": {type: distance, a: " << (k == 1 ? std::string("ground") : "m" + std::to_string(k - 1))
      << ", b: m" << k << ", length: L, form: squared}\n";
  return s.str();
}

struct System {
  std::unique_ptr<gmbd::Model> model;
  gmbd::Vec q0, v0;
};

/// variant 0: hand-written, 1: assembled. Same initial state (coordinates in the same order).
System chain(int links, int variant) {
  gmbd::BuiltModel hand = gmbd::build_model(
      "nlink_pendulum_cartesian",
      {{"n", {static_cast<double>(links)}}, {"theta0", {0.4}}, {"omega0", {0.1}}}, "bench");
  System s;
  s.q0 = hand.q0;
  s.v0 = hand.v0;
  if (variant == 0)
    s.model = std::move(hand.model);
  else
    s.model = gmbd::build_assembled_model(gmbd::parse_model_file(chain_model_file(links), "chain.yaml"));
  return s;
}

/// RIS XYθ displaced by X0 = 0.05 m, Y0 = 0.03 m (balls follow), hand-written or assembled;
/// the assembled state is the hand state mapped by coordinate name.
System ris(int variant) {
  gmbd::BuiltModel hand = gmbd::build_model("ris_xytheta", {{"X0", {0.05}}, {"Y0", {0.03}}}, "bench");
  System s;
  if (variant == 0) {
    s.q0 = hand.q0;
    s.v0 = hand.v0;
    s.model = std::move(hand.model);
    return s;
  }
  auto model = gmbd::build_assembled_model(
      gmbd::load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/models/ris_xytheta.yaml"));
  s.q0 = gmbd::Vec::Zero(model->nq());
  s.v0 = gmbd::Vec::Zero(model->nq());
  const auto names = hand.model->coordinate_names();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    std::string mapped = n == "X" ? "platform.x" : n == "Y" ? "platform.y" : n == "theta" ? "platform.theta"
                         : "ball" + n.substr(n.size() - 1) + "." + n.substr(0, n.size() - 1);
    const int j = model->coordinate_index(mapped);
    s.q0(j) = hand.q0(static_cast<int>(i));
    s.v0(j) = hand.v0(static_cast<int>(i));
  }
  s.model = std::move(model);
  return s;
}

// ---- measurements ------------------------------------------------------------------------------

void kkt(benchmark::State& state, const System& s) {
  gmbd::KktSolver solver(*s.model);
  const gmbd::Vec z;
  for (auto _ : state) {
    solver.evaluate(0.0, s.q0, s.v0, z);
    benchmark::DoNotOptimize(solver.acceleration().data());
  }
  state.SetItemsProcessed(state.iterations());
}

void rk4_dsc_steps(benchmark::State& state, const System& s) {
  gmbd::StabilizedDynamics dynamics(*s.model, gmbd::StabilizationOptions::from_name("dsc"));
  gmbd::IntegratorOptions options;
  options.method = "rk4";
  options.dt = 1e-3;
  auto integrator = gmbd::make_integrator(options);
  gmbd::Vec z0(dynamics.dimension());
  z0 << s.q0, s.v0;
  gmbd::Vec z = z0;
  integrator->initialize(dynamics, 0.0, z0);
  long step = 0;
  for (auto _ : state) {
    integrator->advance_to(static_cast<double>(++step) * options.dt, z);
    benchmark::DoNotOptimize(z.data());
  }
  state.SetItemsProcessed(state.iterations());
}

// Arg: 0 = hand-written catalogue model, 1 = assembled from the model file.
void BM_Chain20KktSolve(benchmark::State& state) { kkt(state, chain(20, static_cast<int>(state.range(0)))); }
void BM_Chain20Rk4StepDsc(benchmark::State& state) {
  rk4_dsc_steps(state, chain(20, static_cast<int>(state.range(0))));
}
void BM_RisKktSolve(benchmark::State& state) { kkt(state, ris(static_cast<int>(state.range(0)))); }
void BM_RisRk4StepDsc(benchmark::State& state) { rk4_dsc_steps(state, ris(static_cast<int>(state.range(0)))); }

BENCHMARK(BM_Chain20KktSolve)->Arg(0)->Arg(1);
BENCHMARK(BM_Chain20Rk4StepDsc)->Arg(0)->Arg(1);
BENCHMARK(BM_RisKktSolve)->Arg(0)->Arg(1);
BENCHMARK(BM_RisRk4StepDsc)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
