// The toy model of docs/linear-analysis.md §8 (mass, float junction, two springs, support):
// every matrix, the transfer functions and the float condensation against the closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "analysis/equilibrium.hpp"
#include "analysis/frequency_response.hpp"
#include "analysis/linear_model.hpp"
#include "analysis/modes.hpp"
#include "builder/model_builder.hpp"

namespace gmbd {
namespace {

using analysis::LinearOptions;

std::unique_ptr<elements::AssembledModel> load(const std::string& name,
                                               const std::vector<ParameterChange>& changes = {}) {
  const auto spec = load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/linear/" + name, changes);
  return build_assembled_model(spec, {}, true);
}

analysis::OperatingPoint equilibrium_of(const elements::AssembledModel& model, const std::string& name) {
  const auto spec = load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/linear/" + name);
  Vec q0 = Vec::Zero(model.nq()), v0 = Vec::Zero(model.nq());
  model_file_initial_state(spec, model, q0, v0);
  const auto eq = analysis::find_equilibrium(model, q0, Vec::Zero(model.nz()));
  return {0.0, eq.q, Vec::Zero(model.nq()), eq.z, eq.lambda};
}

// k1 = 100, k2 = 300, m = 2: exact rationals, so the tolerance is round-off (1e-12 relative).
constexpr double k1 = 100.0, k2 = 300.0, m = 2.0, keff = k1 * k2 / (k1 + k2);

TEST(ToyModel, EquilibriumFromAnOffsetStartIsTheUnstretchedChain) {
  const auto model = load("toy_float.yaml");
  const auto spec = load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/linear/toy_float.yaml");
  Vec q0 = Vec::Zero(model->nq()), v0 = Vec::Zero(model->nq());
  model_file_initial_state(spec, *model, q0, v0);
  const auto eq = analysis::find_equilibrium(*model, q0, Vec::Zero(0));
  EXPECT_LE(eq.iterations, 3);  // linear springs: one Newton step is exact
  EXPECT_NEAR(eq.q(model->coordinate_index("junction.x")), 0.5, 1e-14);
  EXPECT_NEAR(eq.q(model->coordinate_index("mass.x")), 1.0, 1e-14);
  EXPECT_LE(eq.force_residual, 1e-12);
}

TEST(ToyModel, StateSpaceMatricesEqualTheClosedForms) {
  const auto model = load("toy_float.yaml");
  const auto point = equilibrium_of(*model, "toy_float.yaml");
  LinearOptions options;
  options.inputs = {"support.x", "force:mass.x"};
  options.outputs = {"mass.x", "support_force.x"};
  const auto lm = analysis::linearize(*model, point, options);
  ASSERT_EQ(lm.floats.size(), 1u);
  EXPECT_EQ(lm.coordinate_names[static_cast<size_t>(lm.floats[0])], "junction.x");
  ASSERT_EQ(lm.A.rows(), 2);
  EXPECT_EQ(lm.state_names[0], "q:mass.x");
  EXPECT_EQ(lm.state_names[1], "v:mass.x");
  const double tol = 1e-12;
  // A = [[0, 1], [−K/m, 0]], B = [[0, 0], [K/m, 1/m]] (the sign corrected from Barton's notes: docs/linear-analysis.md §8), C = [[1, 0], [K, 0]],
  // D = [[0, 0], [−K, 0]] with K = k1k2/(k1+k2).
  Mat A(2, 2), B(2, 2), C(2, 2), D(2, 2);
  A << 0, 1, -keff / m, 0;
  B << 0, 0, keff / m, 1 / m;
  C << 1, 0, keff, 0;
  D << 0, 0, -keff, 0;
  EXPECT_LE((lm.A - A).cwiseAbs().maxCoeff(), tol * keff) << lm.A;
  EXPECT_LE((lm.B - B).cwiseAbs().maxCoeff(), tol * keff) << lm.B;
  EXPECT_LE((lm.C - C).cwiseAbs().maxCoeff(), tol * keff) << lm.C;
  EXPECT_LE((lm.D - D).cwiseAbs().maxCoeff(), tol * keff) << lm.D;
  // Float matrix: δq_junction = k2/(k1+k2) δx_mass (+ k1/(k1+k2) s).
  const auto kept_mass = std::find(lm.kept.begin(), lm.kept.end(), model->coordinate_index("mass.x")) - lm.kept.begin();
  EXPECT_NEAR(lm.Fq(0, kept_mass), k2 / (k1 + k2), 1e-14);
  EXPECT_NEAR(lm.Fu(0, 0), k1 / (k1 + k2), 1e-14);
}

TEST(ToyModel, TransferFunctionsAtDcAndOneHertz) {
  const auto model = load("toy_float.yaml");
  const auto point = equilibrium_of(*model, "toy_float.yaml");
  LinearOptions options;
  options.inputs = {"support.x", "force:mass.x"};
  options.outputs = {"mass.x", "support_force.x"};
  const auto lm = analysis::linearize(*model, point, options);
  const std::vector<double> f = {0.0, 1.0};
  for (const auto& r : {analysis::state_space_response(lm, f), analysis::direct_response(lm, f)}) {
    // x/s(0) = 1, x/f(0) = 1/K, f_s/s(0) = 0, f_s/f(0) = 1.
    EXPECT_NEAR(r.H[0](0, 0).real(), 1.0, 1e-12);
    EXPECT_NEAR(r.H[0](0, 1).real(), 1.0 / keff, 1e-14);
    EXPECT_NEAR(std::abs(r.H[0](1, 0)), 0.0, 1e-10);
    EXPECT_NEAR(r.H[0](1, 1).real(), 1.0, 1e-12);
    // x/s at 1 Hz = K / (K − (2π)² m) = −18.954542214650… (docs/linear-analysis.md §8).
    EXPECT_NEAR(r.H[1](0, 0).real(), -18.954542214650, 1e-10);
    EXPECT_NEAR(r.H[1](0, 0).imag(), 0.0, 1e-12);
    const double w2 = 4 * std::numbers::pi * std::numbers::pi;
    EXPECT_NEAR(r.H[1](0, 0).real(), keff / (keff - w2 * m), 1e-11);
  }
}

TEST(ToyModel, ElementAndGroundPointOutputsSeeTheDisplacedSupport) {
  const auto model = load("toy_float.yaml");
  const auto point = equilibrium_of(*model, "toy_float.yaml");
  LinearOptions options;
  options.inputs = {"support.x", "force:mass.x"};
  options.outputs = {"measure:spring1", "measure:spring2", "element_force:spring1", "point:anchor.x"};
  const auto lm = analysis::linearize(*model, point, options);
  const auto h = analysis::state_space_response(lm, {0.0, 1.0});
  // DC: a support displacement moves everything rigidly (no spring stretches); a force f on
  // the mass stretches spring2 by f/k2 and spring1 by f/k1, whose force is f.
  EXPECT_NEAR(std::abs(h.H[0](0, 0)), 0.0, 1e-12);
  EXPECT_NEAR(std::abs(h.H[0](1, 0)), 0.0, 1e-12);
  EXPECT_NEAR(h.H[0](1, 1).real(), 1.0 / k2, 1e-15);
  EXPECT_NEAR(h.H[0](0, 1).real(), 1.0 / k1, 1e-15);
  EXPECT_NEAR(h.H[0](2, 1).real(), 1.0, 1e-12);
  EXPECT_NEAR(h.H[0](3, 0).real(), 1.0, 0.0);  // the anchor moves with the support
  EXPECT_NEAR(std::abs(h.H[0](3, 1)), 0.0, 0.0);
  // 1 Hz: spring1 carries the mass's inertia force: δF₁ = −m ẍ = (2π)² m x per unit s.
  const double x = keff / (keff - 4 * std::numbers::pi * std::numbers::pi * m);
  EXPECT_NEAR(h.H[1](2, 0).real(), 4 * std::numbers::pi * std::numbers::pi * m * x, 1e-9 * std::abs(x) * keff);
}

TEST(ToyModel, ModeFrequencyAndName) {
  const auto model = load("toy_float.yaml");
  const auto point = equilibrium_of(*model, "toy_float.yaml");
  const auto lm = analysis::linearize(*model, point);
  const auto modes = analysis::modal_analysis(lm);
  ASSERT_EQ(modes.modes.size(), 1u);
  EXPECT_NEAR(modes.modes[0].frequency_hz, 0.9746210015, 1e-10);
  EXPECT_EQ(modes.modes[0].dominant, "mass.x");
  EXPECT_DOUBLE_EQ(modes.modes[0].damping_ratio, 0.0);
  // The float moves with the mass: k2/(k1+k2) of its amplitude.
  const auto& shape = modes.modes[0].shape;
  EXPECT_NEAR(std::abs(shape(model->coordinate_index("junction.x"))), k2 / (k1 + k2), 1e-12);
  const auto energy = analysis::mode_energy(*model, lm, modes.modes[0]);
  double sum = 0.0;
  for (const auto& s : energy.strain) sum += s.fraction;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  // Springs in series carry equal force: strain energies split k2 : k1 (spring1 stores 3/4).
  for (const auto& s : energy.strain)
    EXPECT_NEAR(s.fraction, s.owner == "spring1" ? k2 / (k1 + k2) : k1 / (k1 + k2), 1e-12) << s.owner;
  EXPECT_NEAR(energy.strain_total, 0.5 * keff * std::norm(shape(model->coordinate_index("mass.x"))), 1e-10);
}

}  // namespace
}  // namespace gmbd
