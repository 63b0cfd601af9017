// The potential Hessian of assembled models (the stiffness linear analysis needs) against
// central second differences of the energy, and against −∂f/∂q at rest for conservative models.
#include <gtest/gtest.h>

#include "builder/model_builder.hpp"

namespace gmbd {
namespace {

std::unique_ptr<elements::AssembledModel> load(const std::string& name) {
  return build_assembled_model(load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/models/" + name));
}

/// A state near the model's start: the initial positions plus a small deterministic offset.
Vec near_start(const elements::AssembledModel& m, const std::string& name, double size) {
  const ModelFileSpec spec = load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/models/" + name);
  Vec q(m.nq()), v(m.nq());
  model_file_initial_state(spec, m, q, v);
  for (int i = 0; i < m.nq(); ++i) q(i) += size * (0.3 + 0.2 * ((i * 7) % 5) - 0.5);
  return q;
}

TEST(PotentialHessian, MatchesSecondDifferencesOfTheEnergyAndTheConservativeStiffness) {
  for (const char* file : {"elastic_mount.yaml", "blade_wire.yaml", "ris_xytheta.yaml", "ida_slider_crank.yaml"}) {
    SCOPED_TRACE(file);
    const auto model = load(file);
    const int n = model->nq();
    const Vec q = near_start(*model, file, 1e-3);
    const Vec v = Vec::Zero(n), z;
    Mat H = Mat::Zero(n, n);
    model->potential_hessian(0.0, q, H);
    EXPECT_LT((H - H.transpose()).cwiseAbs().maxCoeff(), 1e-9 * std::max(1.0, H.cwiseAbs().maxCoeff()));
    // Energy at v = 0 is the potential; gravity is linear, so it adds nothing to the Hessian.
    const double h = 1e-5;
    double worst = 0.0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        Vec pp = q, pm = q, mp = q, mm = q;
        pp(i) += h, pp(j) += h;
        pm(i) += h, pm(j) -= h;
        mp(i) -= h, mp(j) += h;
        mm(i) -= h, mm(j) -= h;
        const double fd = (model->energy(0.0, pp, v) - model->energy(0.0, pm, v) - model->energy(0.0, mp, v) +
                           model->energy(0.0, mm, v)) / (4 * h * h);
        worst = std::max(worst, std::abs(fd - H(i, j)));
      }
    // Second differences with h = 1e-5 carry ≈ ε·V/h² ≈ 1e-6·|V| of round-off.
    EXPECT_LT(worst, 1e-4 * std::max(1.0, H.cwiseAbs().maxCoeff())) << file;
    // At rest the applied forces are conservative (damping and resistance vanish with v):
    // −∂f/∂q equals the potential Hessian.
    Mat dfdq = Mat::Zero(n, n), dfdv = Mat::Zero(n, n);
    model->force_tangents(0.0, q, v, dfdq, dfdv);
    EXPECT_LT((-dfdq - H).cwiseAbs().maxCoeff(), 1e-9 * std::max(1.0, H.cwiseAbs().maxCoeff())) << file;
  }
}

}  // namespace
}  // namespace gmbd
