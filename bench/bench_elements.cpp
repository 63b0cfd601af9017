// Google Benchmark: assembled (model-file) models next to the hand-written catalogue models of
// the same systems — one RK4 + DSC step of the 20-link Cartesian chain and of the RIS XYθ, and
// one KKT evaluation. Figures are recorded in docs/performance.md.
#include <benchmark/benchmark.h>

#include <cmath>

#include <sstream>
#include <string>

#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>

#include "constraints/stabilized_dynamics.hpp"
#include "elements/revolute.hpp"
#include "core/kkt.hpp"
#include "integrators/integrator.hpp"
#include "builder/model_builder.hpp"
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

// ---- trees: a binary tree of point masses on distance links (model file), N = 15 … 1023 --------
// Node k hangs from node k / 2 (node 1 from the ground): the KKT matrix of a tree, whose normal
// matrix S couples each link with its parent's and siblings' links. Cost per KKT solve should
// grow linearly with N (the AMD ordering keeps the fill of a tree's S small).

std::string tree_model_file(int nodes) {
  std::ostringstream s;
  s << "dimension: 2\nparameters: {m: 1, L: 1, g: 9.81}\nbodies:\n";
  for (int k = 1; k <= nodes; ++k) s << "  n" << k << ": {type: point, mass: m}\n";
  s << "elements:\n  gravity: {type: gravity, g: [0, -g]}\n";
  for (int k = 1; k <= nodes; ++k)
    s << "  link" << k << ": {type: distance, a: " << (k == 1 ? std::string("ground") : "n" + std::to_string(k / 2))
      << ", b: n" << k << ", length: L, form: squared}\n";
  return s.str();
}

void BM_TreeKktSolve(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  System s;
  s.model = gmbd::build_assembled_model(gmbd::parse_model_file(tree_model_file(nodes), "tree.yaml"));
  s.q0 = gmbd::Vec::Zero(s.model->nq());
  s.v0 = gmbd::Vec::Zero(s.model->nq());
  for (int k = 1; k <= nodes; ++k) {  // a non-degenerate fan: node k below-left/right of its parent
    const int depth = static_cast<int>(std::log2(k));
    const double x = (k - (1 << depth) + 0.5) / (1 << depth) - 0.5;
    s.q0(s.model->coordinate_index("n" + std::to_string(k) + ".x")) = x + 0.01 * k;
    s.q0(s.model->coordinate_index("n" + std::to_string(k) + ".y")) = -depth - 1.0;
    s.v0(s.model->coordinate_index("n" + std::to_string(k) + ".x")) = 0.1 * std::sin(k);
  }
  kkt(state, s);
  gmbd::KktSolver solver(*s.model);
  solver.evaluate(0.0, s.q0, s.v0, gmbd::Vec());
  if (!solver.last_solve_sparse()) state.SkipWithError("sparse path not taken");
  state.counters["nq"] = s.model->nq();
}
BENCHMARK(BM_TreeKktSolve)->Arg(15)->Arg(63)->Arg(255)->Arg(1023);

// ---- the AD choice: own fixed-size duals vs Eigen's AutoDiffScalar ------------------------------
// The same templated constraint (a revolute joint between two spatial bodies: 5 rows, 12
// coordinates) differentiated with gmbd::Dual<double, 13> (what the assembly uses) and with
// Eigen::AutoDiffScalar over a fixed-size 12-vector (no allocation either).

struct RevolutePair {
  std::vector<gmbd::elements::Body> bodies;
  gmbd::elements::Ground ground;
  std::unique_ptr<gmbd::elements::RevoluteJoint> joint;
  RevolutePair() {
    using namespace gmbd::elements;
    for (int k = 0; k < 2; ++k) {
      Body b;
      b.name = k ? "b" : "a";
      b.kind = BodyKind::kSpatial;
      b.mass = 1.0;
      b.inertia = Mat3<double>::identity();
      b.first = 6 * k;
      bodies.push_back(b);
    }
    LocalCoordinates local;
    const PointBinding pa = local.bind(PointDef{"pa", 0, {0.1, 0.2, 0.3}, -1, {}}, bodies, ground);
    const PointBinding pb = local.bind(PointDef{"pb", 1, {-0.2, 0.1, 0.0}, -1, {}}, bodies, ground);
    joint = std::make_unique<RevoluteJoint>("hinge", local, pa, pb, Vec3<double>{0, 0, 1}, Vec3<double>{0, 0, 1});
  }
};

void BM_RevoluteJacobianOwnDual(benchmark::State& state) {
  RevolutePair pair;
  double q[12], G[5 * 12];
  for (int i = 0; i < 12; ++i) q[i] = 0.1 * i - 0.3;
  for (auto _ : state) {
    pair.joint->holonomic_jacobian(0.0, q, G, nullptr);
    benchmark::DoNotOptimize(G);
  }
}

void BM_RevoluteJacobianEigenAutoDiff(benchmark::State& state) {
  using AD = Eigen::AutoDiffScalar<Eigen::Matrix<double, 12, 1>>;
  RevolutePair pair;
  double q[12], G[5 * 12];
  for (int i = 0; i < 12; ++i) q[i] = 0.1 * i - 0.3;
  for (auto _ : state) {
    AD qa[12], g[5];
    for (int i = 0; i < 12; ++i) qa[i] = AD(q[i], 12, i);
    pair.joint->constraint(AD(0.0), qa, g);
    for (int r = 0; r < 5; ++r)
      for (int i = 0; i < 12; ++i) G[r * 12 + i] = g[r].derivatives()(i);
    benchmark::DoNotOptimize(G);
  }
}
BENCHMARK(BM_RevoluteJacobianOwnDual);
BENCHMARK(BM_RevoluteJacobianEigenAutoDiff);

BENCHMARK(BM_Chain20KktSolve)->Arg(0)->Arg(1);
BENCHMARK(BM_Chain20Rk4StepDsc)->Arg(0)->Arg(1);
BENCHMARK(BM_RisKktSolve)->Arg(0)->Arg(1);
BENCHMARK(BM_RisRk4StepDsc)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
