// Small mechanisms (docs/reference-models.md §4): two blocks' multiplier (λ sign convention), the
// slider-crank's explicit correction vs weighted projection, energy balance of every conservative
// model.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "models/registry.hpp"
#include "models/slider_crank.hpp"
#include "models/two_blocks.hpp"
#include "support/reference_projection.hpp"

namespace gmbd {
namespace {

const Vec kNoZ;

// ---- two blocks ---------------------------------------------------------------------------------------

TEST(TwoBlocks, MultiplierEqualMasses) {
  // Eindhoven mirror report eq. 5.42: λ = (F2 − F1)/2; with f_c = −Gᵀλ and G = [−1, 1], λ > 0 is
  // rod tension.
  for (const auto& [F1, F2] : std::vector<std::pair<double, double>>{
           {1.0, 2.0}, {3.0, -1.5}, {-0.25, 7.0}, {0.0, 0.0}, {5.0, 5.0}}) {
    TwoBlocksParameters p;
    p.force1 = F1;
    p.force2 = F2;
    const TwoBlocks model(p);
    KktSolver kkt(model);
    const Vec q = (Vec(2) << 0.3, 1.3).finished();
    const Vec v = (Vec(2) << 0.5, 0.5).finished();
    kkt.evaluate(0.0, q, v, kNoZ);
    EXPECT_NEAR(kkt.multipliers()(0), (F2 - F1) / 2.0, 1e-14) << F1 << " " << F2;
    EXPECT_NEAR(kkt.acceleration()(0), (F1 + F2) / 2.0, 1e-14);
    EXPECT_NEAR(kkt.acceleration()(1), (F1 + F2) / 2.0, 1e-14);
    // constraint force on block 1 is +λ (pulled towards block 2 when in tension)
    const Vec fc = -kkt.constraint_matrix().transpose() * kkt.multipliers();
    EXPECT_NEAR(fc(0), (F2 - F1) / 2.0, 1e-14);
    EXPECT_NEAR(fc(1), -(F2 - F1) / 2.0, 1e-14);
  }
}

TEST(TwoBlocks, MultiplierGeneralMasses) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> mass(0.1, 10.0), force(-5.0, 5.0);
  for (int trial = 0; trial < 50; ++trial) {
    TwoBlocksParameters p;
    p.mass1 = mass(rng);
    p.mass2 = mass(rng);
    p.force1 = force(rng);
    p.force2 = force(rng);
    const TwoBlocks model(p);
    KktSolver kkt(model);
    kkt.evaluate(0.0, Vec::Zero(2), Vec::Zero(2), kNoZ);
    const double lambda = (p.mass1 * p.force2 - p.mass2 * p.force1) / (p.mass1 + p.mass2);
    EXPECT_NEAR(kkt.multipliers()(0), lambda, 1e-14 * std::max(1.0, std::abs(lambda)));
    EXPECT_NEAR(model.rod_force(), lambda, 1e-15 * std::max(1.0, std::abs(lambda)));
    const double a = (p.force1 + p.force2) / (p.mass1 + p.mass2);
    EXPECT_NEAR(kkt.acceleration()(0), a, 1e-14 * std::max(1.0, std::abs(a)));
    EXPECT_NEAR(kkt.acceleration()(1), a, 1e-14 * std::max(1.0, std::abs(a)));
  }
}

TEST(TwoBlocks, CatalogueEntryAndCorrection) {
  const BuiltModel built = build_model("two_blocks", {{"x0", {0.5}}, {"v0", {2.0}}}, "test");
  EXPECT_EQ(built.model->coordinate_names(), (std::vector<std::string>{"x1", "x2"}));
  EXPECT_EQ(built.model->constraint_names(), (std::vector<std::string>{"rod"}));
  EXPECT_DOUBLE_EQ(built.q0(0), 0.5);
  EXPECT_DOUBLE_EQ(built.q0(1), 1.5);
  EXPECT_DOUBLE_EQ(built.v0(1), 2.0);
  Vec q = (Vec(2) << 0.1, 1.4).finished(), v = (Vec(2) << 0.3, -0.2).finished();
  Vec q_ref = q, v_ref = v;
  ASSERT_TRUE(built.model->explicit_correction(0.0, q, v));
  test::reference_projection(*built.model, 0.0, q_ref, v_ref);
  EXPECT_LE((q - q_ref).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LE((v - v_ref).cwiseAbs().maxCoeff(), 1e-15);
}

// ---- slider-crank -------------------------------------------------------------------------------------

TEST(SliderCrank, ConsistentStartAndNames) {
  const BuiltModel built = build_model("slider_crank", {}, "test");
  EXPECT_EQ(built.model->coordinate_names(), (std::vector<std::string>{"w", "h"}));
  EXPECT_EQ(built.model->constraint_names(), (std::vector<std::string>{"rod"}));
  // seed: w = 0, h = d − r − l = 0
  EXPECT_EQ(built.q0(0), 0.0);
  EXPECT_NEAR(built.q0(1), 0.0, 1e-15);
  EXPECT_TRUE(built.v0.isZero());
  Vec w = Vec::Zero(2);
  built.model->correction_weights(w);
  EXPECT_EQ(w(0), 0.0);
  EXPECT_EQ(w(1), 1.0);
}

TEST(SliderCrank, ExplicitCorrectionSatisfiesConstraintsAndMatchesWeightedProjection) {
  const SliderCrank model{SliderCrankParameters{}};
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> angle(-10.0, 10.0), rate(-5.0, 5.0), off(-0.05, 0.05);
  double worst_g = 0.0, worst_gdot = 0.0, worst_q = 0.0, worst_v = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    const double w = angle(rng);
    // a drifted state near the manifold (as after an integration step)
    Vec q(2), v(2);
    q << w, model.slider_position(w) + off(rng);
    v << rate(rng), model.slider_rate(w, 0.0) + rate(rng);
    Vec q_ref = q, v_ref = v;
    ASSERT_TRUE(model.explicit_correction(0.0, q, v));
    EXPECT_EQ(q(0), w);  // the independent coordinate is untouched
    Vec g = Vec::Zero(1);
    Mat G = Mat::Zero(1, 2);
    model.holonomic(0.0, q, g);
    model.holonomic_jacobian(0.0, q, G);
    worst_g = std::max(worst_g, std::abs(g(0)));
    worst_gdot = std::max(worst_gdot, std::abs((G * v)(0)));
    test::reference_projection(model, 0.0, q_ref, v_ref);
    worst_q = std::max(worst_q, (q - q_ref).cwiseAbs().maxCoeff());
    worst_v = std::max(worst_v, (v - v_ref).cwiseAbs().maxCoeff());
  }
  std::cout << "[ info ] slider-crank explicit correction: |g| ≤ " << worst_g << " m, |G v| ≤ "
            << worst_gdot << " m/s; vs weighted Newton projection: |Δq| ≤ " << worst_q
            << ", |Δv| ≤ " << worst_v << "\n";
  EXPECT_LE(worst_g, 1e-14);
  EXPECT_LE(worst_gdot, 1e-14);
  EXPECT_LE(worst_q, 1e-14);
  EXPECT_LE(worst_v, 1e-14);
}

TEST(SliderCrank, RejectsRodShorterThanCrank) {
  SliderCrankParameters p;
  p.l = 0.4;
  try {
    SliderCrank model(p);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("l: expected a rod length greater than"),
              std::string::npos)
        << e.what();
  }
}

// ---- energy balance of every conservative catalogued model ---------------------------------------------

TEST(Mechanisms, EnergyConservedAlongConstrainedAccelerationForConservativeModels) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const auto& info : model_catalogue()) {
    const BuiltModel built = build_model(info.name, {}, "test");
    const Model& model = *built.model;
    if (!model.has_energy() || !model.conserves_energy()) continue;
    KktSolver kkt(model);
    double worst = 0.0;
    for (int trial = 0; trial < 20; ++trial) {
      Vec q = built.q0, v = built.v0;
      for (int i = 0; i < model.nq(); ++i) {
        q(i) += 0.3 * u(rng);
        v(i) += 2.0 * u(rng);
      }
      test::reference_projection(model, 0.0, q, v, /*use_weights=*/false);
      kkt.evaluate(0.0, q, v, kNoZ);
      const Vec a = kkt.acceleration();
      const double eps = 1e-5;
      const double rate =
          (model.energy(eps, q + eps * v, v + eps * a) -
           model.energy(-eps, q - eps * v, v - eps * a)) / (2.0 * eps);
      const double power = kkt.forces().cwiseProduct(v).cwiseAbs().sum() +
                           (kkt.mass_matrix() * a).cwiseProduct(v).cwiseAbs().sum() + 1e-300;
      worst = std::max(worst, std::abs(rate) / power);
    }
    std::cout << "[ info ] " << info.name << ": |dE/dt| / gross power ≤ " << worst << "\n";
    EXPECT_LE(worst, 1e-8) << info.name;
  }
}

}  // namespace
}  // namespace gmbd
