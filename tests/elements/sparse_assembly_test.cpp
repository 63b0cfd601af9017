// Assembled models on the sparse (range-space) KKT path: every example model file agrees with
// the dense LU, and an assembled 50-link chain agrees with the hand-written one.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "builder/model_builder.hpp"
#include "io/model_file.hpp"
#include "models/registry.hpp"

namespace gmbd {
namespace {

// Relative agreement, measured against the larger of the two norms (and 1, for tiny vectors).
double relative_gap(const Vec& x, const Vec& y) {
  return (x - y).norm() / std::max({1.0, x.norm(), y.norm()});
}

TEST(SparseAssembly, EveryExampleModelFileAgreesWithTheDenseSolve) {
  int sparse_models = 0, compared = 0;
  const std::string folder = std::string(GMBD_SOURCE_DIR) + "/examples/models";
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().filename().string();
    const ModelFileSpec spec = load_model_file(entry.path().string());
    std::unique_ptr<elements::AssembledModel> model;
    try {
      model = build_assembled_model(spec);
    } catch (const InputError&) {
      continue;  // needs floats condensed (a run does that): not a plain KKT model
    }
    Vec q0 = Vec::Zero(model->nq()), v0 = Vec::Zero(model->nq());
    model_file_initial_state(spec, *model, q0, v0);
    // A generic velocity, so that the biases are exercised.
    for (int j = 0; j < model->nq(); ++j) v0(j) += 0.1 * std::sin(1.0 + j);
    const Vec z = Vec::Zero(model->nz());
    KktSolver sparse(*model);
    KktSolver dense(*model, KktOptions{.structured = false, .sparse = false});
    for (int rep = 0; rep < 2; ++rep) {  // the second evaluation zeroes only the pattern
      bool sparse_threw = false, dense_threw = false;
      try { sparse.evaluate(0.01 * rep, q0, v0, z); } catch (const SingularKktError&) { sparse_threw = true; }
      try { dense.evaluate(0.01 * rep, q0, v0, z); } catch (const SingularKktError&) { dense_threw = true; }
      ASSERT_EQ(sparse_threw, dense_threw) << name;
      if (dense_threw) break;
      ++compared;
      // Both solve the same well-posed system; the range-space route squares the conditioning
      // of the scaled constraint rows (κ ≤ 1e3 here), hence 1e-9 rather than round-off.
      EXPECT_LE(relative_gap(sparse.acceleration(), dense.acceleration()), 1e-9) << name;
      EXPECT_LE(relative_gap(sparse.multipliers(), dense.multipliers()), 1e-9) << name;
      EXPECT_TRUE(sparse.constraint_matrix() == dense.constraint_matrix())
          << name << ": stale entries outside the declared pattern";
      EXPECT_TRUE(sparse.mass_matrix() == dense.mass_matrix()) << name;
    }
    if (sparse.sparse() && sparse.last_solve_sparse()) ++sparse_models;
  }
  EXPECT_GE(compared, 8);
  EXPECT_GE(sparse_models, 3) << "chains of bodies (triple pendulum, four-bar, …) should go sparse";
}

std::string chain_model_file(int links) {
  std::ostringstream s;
  s << "dimension: 2\nparameters: {m: 1, L: 1, g: 9.81}\nbodies:\n";
  for (int k = 1; k <= links; ++k) s << "  m" << k << ": {type: point, mass: m}\n";
  s << "elements:\n  gravity: {type: gravity, g: [0, -g]}\n";
  for (int k = 1; k <= links; ++k)
    s << "  link" << k << ": {type: distance, a: "
      << (k == 1 ? std::string("ground") : "m" + std::to_string(k - 1)) << ", b: m" << k
      << ", length: L, form: squared}\n";
  return s.str();
}

TEST(SparseAssembly, AssembledChainMatchesTheHandWrittenChainOnTheSparsePath) {
  const int links = 50;
  BuiltModel hand = build_model("nlink_pendulum_cartesian",
                                {{"n", {static_cast<double>(links)}}, {"theta0", {0.4}},
                                 {"omega0", {0.1}}},
                                "test");
  auto assembled = build_assembled_model(parse_model_file(chain_model_file(links), "chain.yaml"));
  ASSERT_EQ(assembled->nq(), hand.model->nq());
  KktSolver a(*assembled), h(*hand.model);
  const Vec z = Vec::Zero(0);
  a.evaluate(0.0, hand.q0, hand.v0, z);
  h.evaluate(0.0, hand.q0, hand.v0, z);
  EXPECT_TRUE(a.last_solve_sparse());
  EXPECT_TRUE(h.last_solve_sparse());
  EXPECT_LE(relative_gap(a.acceleration(), h.acceleration()), 1e-11);
}

// A binary tree of point masses (node k hangs from node k / 2): the derived partition would put
// every inner body on the border; the range-space path must be taken instead, and agree.
TEST(SparseAssembly, BinaryTreeTakesTheSparsePathAndMatchesDense) {
  const int nodes = 31;
  std::ostringstream file;
  file << "dimension: 2\nbodies:\n";
  for (int k = 1; k <= nodes; ++k) file << "  n" << k << ": {type: point, mass: 1}\n";
  file << "elements:\n  gravity: {type: gravity, g: [0, -9.81]}\n";
  for (int k = 1; k <= nodes; ++k)
    file << "  link" << k << ": {type: distance, a: " << (k == 1 ? std::string("ground") : "n" + std::to_string(k / 2))
         << ", b: n" << k << ", length: 1, form: squared}\n";
  auto model = build_assembled_model(parse_model_file(file.str(), "tree.yaml"));
  Vec q = Vec::Zero(model->nq()), v = Vec::Zero(model->nq());
  for (int k = 1; k <= nodes; ++k) {
    q(model->coordinate_index("n" + std::to_string(k) + ".x")) = 0.3 * std::sin(1.7 * k);
    q(model->coordinate_index("n" + std::to_string(k) + ".y")) = -1.0 - std::floor(std::log2(k));
    v(model->coordinate_index("n" + std::to_string(k) + ".x")) = 0.2 * std::cos(k);
  }
  KktSolver sparse(*model), dense(*model, KktOptions{.structured = false, .sparse = false});
  const Vec z = Vec::Zero(0);
  sparse.evaluate(0.0, q, v, z);
  dense.evaluate(0.0, q, v, z);
  EXPECT_TRUE(sparse.sparse());
  EXPECT_TRUE(sparse.last_solve_sparse());
  EXPECT_LE(relative_gap(sparse.acceleration(), dense.acceleration()), 1e-10);
  EXPECT_LE(relative_gap(sparse.multipliers(), dense.multipliers()), 1e-10);
}

}  // namespace
}  // namespace gmbd
