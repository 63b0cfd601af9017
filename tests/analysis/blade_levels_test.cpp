// Blade levels of the GEO 600-style triple (docs/suspensions.md §2.2): the "full" level of
// examples/suspensions/triple_full_blades.yaml (every blade tip a 6-DOF clamp body on a 6×6
// spring6 with preload) against the "xtra-lite" level of triple.yaml (every tip a massless
// float): the same 18 low modes up to the clamps' mass and the blades' finite stiffness in the
// five stiff directions, plus 36 tip modes far above them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "analysis/linear_analysis.hpp"
#include "builder/model_builder.hpp"

namespace gmbd {
namespace {

constexpr double kPi = std::numbers::pi;
const std::string kDir = std::string(GMBD_SOURCE_DIR) + "/examples/suspensions/";

struct Triple {
  ModelFileSpec spec;
  std::unique_ptr<elements::AssembledModel> model;
  Vec q0;
};

Triple load(const std::string& file, const std::vector<ParameterChange>& changes = {}) {
  Triple c;
  c.spec = load_model_file(kDir + file, changes);
  c.model = build_model_for_linear_analysis(c.spec);
  c.q0 = Vec::Zero(c.model->nq());
  Vec v0 = Vec::Zero(c.model->nq());
  model_file_initial_state(c.spec, *c.model, c.q0, v0);
  return c;
}

analysis::LinearAnalysis analyse(const Triple& c) {
  analysis::LinearAnalysisRequest request;  // lossless: the frequencies only
  request.f_from = 0.05;
  request.f_to = 50.0;
  request.f_count = 11;
  return analysis::run_linear_analysis(*c.model, c.q0, Vec::Zero(0), request);
}

std::vector<double> frequencies(const analysis::LinearAnalysis& a) {
  std::vector<double> f;
  for (Eigen::Index k = 0; k < a.model.undamped_omega2.size(); ++k)
    f.push_back(std::sqrt(a.model.undamped_omega2(k)) / (2.0 * kPi));
  return f;
}

// Relative differences f_full/f_xtra_lite − 1 of the 18 low modes.
std::vector<double> low_mode_differences(const std::vector<double>& full, const std::vector<double>& floats) {
  std::vector<double> d;
  for (size_t i = 0; i < 18; ++i) d.push_back(full[i] / floats[i] - 1.0);
  return d;
}

TEST(BladeLevels, FullBladesReproduceTheTripleWithFloats) {
  const auto xtra_lite = analyse(load("triple.yaml"));
  const Triple c = load("triple_full_blades.yaml");
  const auto full = analyse(c);
  EXPECT_EQ(xtra_lite.model.floats.size(), 6u);
  EXPECT_TRUE(full.model.floats.empty());
  // The preloads carry each tip's wire and clamp: the design position is the equilibrium.
  EXPECT_LE(full.equilibrium.iterations, 1);
  EXPECT_LE((full.equilibrium.q - c.q0).lpNorm<Eigen::Infinity>(), 1e-12);
  const auto f_floats = frequencies(xtra_lite);
  const auto f_full = frequencies(full);
  ASSERT_EQ(f_floats.size(), 18u);
  ASSERT_EQ(f_full.size(), 54u);  // 18 + 6 tips × 6 DOF
  // Measured: |f_full/f_floats − 1| from 6.8e-5 (mode 4, optic.yaw) to 6.81e-3 (mode 16,
  // upper.roll); 2.73e-3 for mode 1 (optic.pitch), 4.49e-3 for mode 18 (inter.roll). The
  // differences are first order in the clamp masses (23.7 and 11.4 g against 5.6 kg bodies) and
  // in the blades' horizontal compliance (kh ≈ 1e6 N/m against T/l ≈ 100–300 N/m of the wires),
  // so 1e-2 bounds them with a margin of 1.5. (A wrong preload or tip position fails the
  // equilibrium check above; k_c in a wrong direction moves the bounce modes several-fold.)
  const auto d = low_mode_differences(f_full, f_floats);
  double worst = 0.0;
  for (size_t i = 0; i < 18; ++i) {
    EXPECT_LE(std::abs(d[i]), 1e-2) << "mode " << i + 1 << ": " << f_full[i] << " Hz against " << f_floats[i];
    worst = std::max(worst, std::abs(d[i]));
  }
  EXPECT_GT(worst, 1e-3);  // the clamps are really there (measured 6.8e-3)
  // The tip modes: the lowest (the lower clamps bouncing on blade and wire,
  // √((kb2 + k2)/mt2)/2π) at 312.6 Hz, 10.23 times mode 18 (30.56 Hz).
  EXPECT_GT(f_full[18], 10.0 * f_full[17]);
  EXPECT_NEAR(f_full[18], 312.6, 0.5);
}

TEST(BladeLevels, DifferencesShrinkWithTheClampMassAndTheCompliance) {
  // Clamp mass ×0.1 (clamp_density 7900 → 790: masses and inertias) and the five stiff
  // directions ×10 (`stiff`): the full level tends to the float model, the differences by
  // ×0.1. Measured ratios 0.0987 … 0.1010 for the 12 modes with |difference| > 1e-3 (largest
  // 6.81e-3 → 6.87e-4, ratio 0.1009); the smaller ones (≥ 6.8e-5) 0.092 … 0.103, where the
  // round-off of the stiffer model (ω² up to (2π·1.3e5 Hz)², about 5e-7 in a low frequency)
  // starts to show.
  const auto f_floats = frequencies(analyse(load("triple.yaml")));
  const auto f_full = frequencies(analyse(load("triple_full_blades.yaml")));
  const std::vector<ParameterChange> stiffer = {
      {"clamp_density", ParameterChange::Kind::kValue, "790", "test"},
      {"stiff", ParameterChange::Kind::kValue, "10", "test"}};
  const auto f_stiffer = frequencies(analyse(load("triple_full_blades.yaml", stiffer)));
  ASSERT_EQ(f_floats.size(), 18u);
  ASSERT_EQ(f_full.size(), 54u);
  ASSERT_EQ(f_stiffer.size(), 54u);
  const auto d1 = low_mode_differences(f_full, f_floats);
  const auto d10 = low_mode_differences(f_stiffer, f_floats);
  for (size_t i = 0; i < 18; ++i) {
    EXPECT_LE(std::abs(d10[i]), 0.12 * std::abs(d1[i]) + 2e-6) << "mode " << i + 1;
    if (std::abs(d1[i]) > 1e-3) {
      EXPECT_NEAR(d10[i] / d1[i], 0.1, 0.01) << "mode " << i + 1;
    }
  }
  // The tip modes rise by √10 (mass ×0.1; the bounce is set by the unchanged blade and wire)
  // and more: 988.5 Hz, 32 times mode 18.
  EXPECT_GT(f_stiffer[18], 30.0 * f_stiffer[17]);
}

}  // namespace
}  // namespace gmbd
