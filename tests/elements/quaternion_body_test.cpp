// Quaternion (Euler-parameter) bodies: R(e) and ω_b = 2 L(e) ė, the mass matrix and velocity-
// product force against Euler's equations, a torque-free body through pitch ±90°, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "elements/body.hpp"
#include "builder/model_builder.hpp"
#include "io/model_file.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"
#include "support/derivative_checks.hpp"
#include "support/output_trace.hpp"

namespace gmbd {
namespace {

using elements::Body;
using elements::BodyKind;
using elements::Mat3;
using elements::Vec3;

constexpr double kPi = std::numbers::pi;

double max_abs_diff(const Mat3<double>& a, const Mat3<double>& b) {
  double worst = 0.0;
  for (size_t i = 0; i < 9; ++i) worst = std::max(worst, std::abs(a.m[i] - b.m[i]));
  return worst;
}

/// A uniformly random unit quaternion (normalised Gaussian 4-vector).
std::array<double, 4> random_unit(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  std::array<double, 4> e{n(rng), n(rng), n(rng), n(rng)};
  const double len = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
  for (auto& x : e) x /= len;
  return e;
}

Body quaternion_body(const Mat3<double>& inertia) {
  Body b;
  b.name = "b";
  b.kind = BodyKind::kQuaternion;
  b.mass = 2.0;
  b.inertia = inertia;
  return b;
}

Mat3<double> diagonal(double a, double b, double c) {
  Mat3<double> m;
  m(0, 0) = a, m(1, 1) = b, m(2, 2) = c;
  return m;
}

/// State (q, v) of a body of `model` (first body, quaternion) with orientation e, body angular
/// velocity w, centre velocity u: ė = ½ L(e)ᵀ ω_b.
void set_state(const elements::AssembledModel& model, const std::array<double, 4>& e, const Vec3<double>& w,
               const Vec3<double>& u, Vec& q, Vec& v) {
  const Body& b = model.bodies()[0];
  q = Vec::Zero(model.nq());
  v = Vec::Zero(model.nq());
  double rate[4];
  elements::quaternion_body_rate_transpose(e.data(), w, rate);
  for (int i = 0; i < 4; ++i) {
    q(b.first + 3 + i) = e[static_cast<size_t>(i)];
    v(b.first + 3 + i) = 0.5 * rate[i];
  }
  q(b.first) = 0.1, q(b.first + 1) = -0.2, q(b.first + 2) = 0.3;
  v(b.first) = u.x, v(b.first + 1) = u.y, v(b.first + 2) = u.z;
}

// ---- (a) kinematics ------------------------------------------------------------------------------

TEST(QuaternionBody, RotationIsOrthonormalAndEqualsTheZyxRotationOfTheSameAngles) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> angle(-kPi, kPi), tilt(-kPi / 2, kPi / 2);
  double worst_zyx = 0.0, worst_orth = 0.0, worst_det = 0.0, worst_back = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    const double yaw = angle(rng), pitch = tilt(rng), roll = angle(rng);
    const auto e = elements::quaternion_from_zyx(yaw, pitch, roll);
    const Mat3<double> R = elements::quaternion_rotation(e.data());
    worst_zyx = std::max(worst_zyx, max_abs_diff(R, elements::rotation(elements::AngleSequence::kZyx, yaw, pitch, roll)));
    worst_orth = std::max(worst_orth, max_abs_diff(R * R.transpose(), Mat3<double>::identity()));
    const double det = R(0, 0) * (R(1, 1) * R(2, 2) - R(1, 2) * R(2, 1)) -
                       R(0, 1) * (R(1, 0) * R(2, 2) - R(1, 2) * R(2, 0)) +
                       R(0, 2) * (R(1, 0) * R(2, 1) - R(1, 1) * R(2, 0));
    worst_det = std::max(worst_det, std::abs(det - 1.0));
    // The angles read back (away from the pole, where they are unique).
    if (std::abs(pitch) < 1.5) {
      const Vec3<double> a = elements::zyx_angles_from_rotation(R);
      auto wrapped = [](double d) { return std::abs(std::remainder(d, 2.0 * kPi)); };
      worst_back = std::max({worst_back, wrapped(a.x - yaw), std::abs(a.y - pitch), wrapped(a.z - roll)});
    }
  }
  EXPECT_LT(worst_zyx, 1e-14);
  EXPECT_LT(worst_orth, 1e-14);
  EXPECT_LT(worst_det, 1e-14);
  EXPECT_LT(worst_back, 1e-12);  // ε / cos(pitch) ≤ 2e-15 for |pitch| < 1.5
}

TEST(QuaternionBody, AnglesAtThePoleUseTheDocumentedBranch) {
  // At pitch = ±90° only roll ∓ yaw is defined: the function returns yaw = 0 and the rotation of
  // the returned angles is the given rotation.
  for (double pitch : {kPi / 2, -kPi / 2}) {
    const Mat3<double> R = elements::rotation(elements::AngleSequence::kZyx, 0.7, pitch, -0.4);
    const Vec3<double> a = elements::zyx_angles_from_rotation(R);
    EXPECT_EQ(a.x, 0.0);
    EXPECT_NEAR(a.y, pitch, 1e-8);  // √(R00² + R10²) ≈ 6e-17 there: pitch exact to ~1e-16 rad
    EXPECT_LT(max_abs_diff(elements::rotation(elements::AngleSequence::kZyx, a.x, a.y, a.z), R), 1e-14);
  }
}

TEST(QuaternionBody, BodyAngularVelocityIsTwiceLTimesTheRates) {
  // ω_b is the axial vector of Rᵀ Ṙ; Ṙ by central differences along ė with h = 1e-5: truncation
  // h² |d³R/ds³| ≈ 1e-10 (|ė| ≈ 1, R quadratic in e: its third derivative along a line is 0, so
  // in fact only round-off ε |R| / h ≈ 1e-11 remains). 1e-7 leaves four orders of margin while
  // any sign or index error in L shows as an O(1) difference.
  std::mt19937 rng(11);
  std::normal_distribution<double> n(0.0, 1.0);
  const Body b = quaternion_body(diagonal(0.3, 0.4, 0.5));
  double worst = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    const auto e = random_unit(rng);
    double c[7] = {0, 0, 0, e[0], e[1], e[2], e[3]}, cd[7] = {0, 0, 0, n(rng), n(rng), n(rng), n(rng)};
    double radial = 0.0;  // keep ė tangent (eᵀė = 0), as the unit row does
    for (int i = 3; i < 7; ++i) radial += c[i] * cd[i];
    for (int i = 3; i < 7; ++i) cd[i] -= radial * c[i];
    const double h = 1e-5;
    double cp[7], cm[7];
    for (int i = 0; i < 7; ++i) cp[i] = c[i] + h * cd[i], cm[i] = c[i] - h * cd[i];
    const Mat3<double> Rp = b.orientation(cp), Rm = b.orientation(cm), R = b.orientation(c);
    Mat3<double> Rdot;
    for (size_t i = 0; i < 9; ++i) Rdot.m[i] = (Rp.m[i] - Rm.m[i]) / (2.0 * h);
    const Mat3<double> W = R.transpose() * Rdot;  // [ω_b]×
    const Vec3<double> fd{0.5 * (W(2, 1) - W(1, 2)), 0.5 * (W(0, 2) - W(2, 0)), 0.5 * (W(1, 0) - W(0, 1))};
    const Vec3<double> w = b.body_angular_velocity(c, cd);
    worst = std::max({worst, std::abs(w.x - fd.x), std::abs(w.y - fd.y), std::abs(w.z - fd.z)});
  }
  EXPECT_LT(worst, 1e-7);
}

// ---- (c) mass matrix and velocity-product force: Euler's equations ----------------------------------

const char* kFreeBody =
    "dimension: 3\n"
    "bodies:\n"
    "  b: {type: spatial, mass: 2, inertia: [0.3, 0.4, 0.5], rotation: quaternion}\n";

TEST(QuaternionBody, CoordinatesUnitsAndTheUnitRow) {
  const auto model = build_assembled_model(parse_model_file(kFreeBody, "free.yaml"));
  EXPECT_EQ(model->coordinate_names(),
            (std::vector<std::string>{"b.x", "b.y", "b.z", "b.e0", "b.e1", "b.e2", "b.e3"}));
  EXPECT_EQ(model->coordinates()[3].unit, "1");
  EXPECT_EQ(model->coordinates()[0].unit, "m");
  ASSERT_EQ(model->n_holonomic(), 1);
  EXPECT_EQ(model->constraint_name(0), "b.unit");
  // Mass pattern: three translations and the dense 4 × 4 block (10 entries of its triangle).
  EXPECT_EQ(model->kkt_sparsity().mass.size(), 13u);
  // The unit row's explicit correction is the model's: e ← e/|e|, ė ← ė − e (eᵀė).
  Vec q = Vec::Zero(7), v = Vec::Zero(7);
  q << 0, 0, 0, 1.1, 0.2, -0.3, 0.1;
  v << 0, 0, 0, 0.5, -0.2, 0.3, 0.4;
  ASSERT_TRUE(model->explicit_correction(0.0, q, v));
  EXPECT_NEAR(q.tail(4).norm(), 1.0, 1e-15);
  EXPECT_NEAR(q.tail(4).dot(v.tail(4)), 0.0, 1e-15);
}

TEST(QuaternionBody, KktAccelerationsOfAFreeBodyFollowEulersEquations) {
  const auto model = build_assembled_model(parse_model_file(kFreeBody, "free.yaml"));
  const Body& b = model->bodies()[0];
  const Mat3<double> I = b.inertia;
  KktSolver kkt(*model);
  EXPECT_TRUE(kkt.sparse());  // M's blocks are positive definite: the range-space path applies
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> rate(-5.0, 5.0);
  const Vec z = Vec::Zero(model->nz());
  double worst = 0.0, worst_row = 0.0, worst_lambda = 0.0, worst_translation = 0.0, worst_energy = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    const auto e = random_unit(rng);
    const Vec3<double> w{rate(rng), rate(rng), rate(rng)}, u{rate(rng), rate(rng), rate(rng)};
    Vec q, v;
    set_state(*model, e, w, u, q, v);
    kkt.evaluate(0.0, q, v, z);
    const Vec& a = kkt.acceleration();
    // ω̇_b = d/dt (2 L(e) ė) = 2 L(e) ë + 2 L(ė) ė
    const double* c = q.data() + b.first;
    const double* cd = v.data() + b.first;
    const double* cdd = a.data() + b.first;
    const Vec3<double> wdot = b.body_angular_velocity(c, cdd) + b.body_angular_velocity(cd, cd);
    // Euler: I ω̇ = −ω × I ω (I diagonal here)
    const Vec3<double> gyro = w.cross(I * w);
    const Vec3<double> euler{-gyro.x / I(0, 0), -gyro.y / I(1, 1), -gyro.z / I(2, 2)};
    const double scale = std::max({1.0, std::abs(euler.x), std::abs(euler.y), std::abs(euler.z)});
    worst = std::max({worst, std::abs(wdot.x - euler.x) / scale, std::abs(wdot.y - euler.y) / scale,
                      std::abs(wdot.z - euler.z) / scale});
    // The unit row at acceleration level (eᵀë = −ėᵀė) and its multiplier λ = 2 ω_bᵀ I_b ω_b.
    const Vec ee = q.segment(3, 4), ed = v.segment(3, 4), edd = a.segment(3, 4);
    worst_row = std::max(worst_row, std::abs(ee.dot(edd) + ed.squaredNorm()) / std::max(1.0, ed.squaredNorm()));
    const double twice_t = w.dot(I * w);
    worst_lambda = std::max(worst_lambda, std::abs(kkt.multipliers()(0) - 2.0 * twice_t) / std::max(1.0, twice_t));
    worst_translation = std::max(worst_translation, a.head(3).cwiseAbs().maxCoeff());
    // Energy ½ m |ṙ|² + ½ ω_bᵀ I_b ω_b (not ½ vᵀ M v).
    const double expected_energy = 0.5 * b.mass * u.dot(u) + 0.5 * twice_t;
    worst_energy = std::max(worst_energy, std::abs(model->energy(0.0, q, v) - expected_energy) /
                                              std::max(1.0, expected_energy));
  }
  EXPECT_LT(worst, 1e-12);
  EXPECT_LT(worst_row, 1e-12);
  EXPECT_LT(worst_lambda, 1e-12);
  EXPECT_LT(worst_translation, 1e-14);  // no force on the centre: exactly 0 on the sparse path
  EXPECT_LT(worst_energy, 1e-13);
}

const char* kTorquedBody =
    "dimension: 3\n"
    "bodies:\n"
    "  b: {type: spatial, mass: 2, inertia: [0.3, 0.4, 0.5, 0.02, -0.01, 0.03], rotation: quaternion}\n"
    "elements:\n"
    "  tq: {type: body_torque, body: b, torque: [0.2, -0.1, 0.3]}\n";

TEST(QuaternionBody, AWorldTorqueActsThroughTwoLTransposedRTransposed) {
  // I ω̇ = Rᵀ τ − ω × I ω with a full (non-diagonal) inertia tensor.
  const auto model = build_assembled_model(parse_model_file(kTorquedBody, "torqued.yaml"));
  const Body& b = model->bodies()[0];
  Eigen::Matrix3d I;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) I(i, j) = b.inertia(i, j);
  KktSolver kkt(*model);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> rate(-3.0, 3.0);
  const Vec z = Vec::Zero(model->nz());
  double worst = 0.0;
  for (int trial = 0; trial < 30; ++trial) {
    const auto e = random_unit(rng);
    const Vec3<double> w{rate(rng), rate(rng), rate(rng)};
    Vec q, v;
    set_state(*model, e, w, {0, 0, 0}, q, v);
    kkt.evaluate(0.0, q, v, z);
    const Vec& a = kkt.acceleration();
    const Vec3<double> wdot = b.body_angular_velocity(q.data(), a.data()) + b.body_angular_velocity(v.data(), v.data());
    const Vec3<double> tau_b = b.orientation(q.data()).transpose_times(Vec3<double>{0.2, -0.1, 0.3});
    const Vec3<double> rhs = tau_b - w.cross(b.inertia * w);
    const Eigen::Vector3d expected = I.ldlt().solve(Eigen::Vector3d(rhs.x, rhs.y, rhs.z));
    const double scale = std::max(1.0, expected.cwiseAbs().maxCoeff());
    worst = std::max({worst, std::abs(wdot.x - expected(0)) / scale, std::abs(wdot.y - expected(1)) / scale,
                      std::abs(wdot.z - expected(2)) / scale});
  }
  EXPECT_LT(worst, 1e-12);
}

// ---- exact derivatives ---------------------------------------------------------------------------------

TEST(QuaternionBody, DerivativesOfTheUnitRowForcesAndMassAreExact) {
  const auto model = build_assembled_model(parse_model_file(kTorquedBody, "torqued.yaml"));
  const int n = model->nq();
  std::mt19937 rng(9);
  const auto e = random_unit(rng);
  Vec q, v;
  set_state(*model, e, {0.7, -1.3, 2.1}, {0.1, 0.2, -0.3}, q, v);
  v(4) += 0.05;  // a radial rate component too: the tangents hold off the velocity manifold
  EXPECT_TRUE(test::derivatives_consistent(*model, 0.0, q, v));
  // ∂f/∂q, ∂f/∂v (velocity products, body torque) and ∂(M a)/∂q against central differences:
  // h = 1e-6 on unit-size quantities leaves truncation ≈ 1e-12 and round-off ≈ 1e-10.
  const Vec z = Vec::Zero(model->nz());
  auto forces = [&](const Vec& qq, const Vec& vv) {
    Vec f = Vec::Zero(n);
    model->forces(0.0, qq, vv, z, f);
    return f;
  };
  Vec acc(n);
  for (int i = 0; i < n; ++i) acc(i) = std::cos(1.0 + i);
  auto mass_times = [&](const Vec& qq) {
    Mat M = Mat::Zero(n, n);
    model->mass_matrix(0.0, qq, M);
    return Vec(M * acc);
  };
  Mat dfdq = Mat::Zero(n, n), dfdv = Mat::Zero(n, n), dMa = Mat::Zero(n, n);
  model->force_tangents(0.0, q, v, dfdq, dfdv);
  model->mass_product_tangent(q, acc, dMa);
  Mat fd_q(n, n), fd_v(n, n), fd_m(n, n);
  const double h = 1e-6;
  for (int j = 0; j < n; ++j) {
    Vec qp = q, qm = q, vp = v, vm = v;
    qp(j) += h, qm(j) -= h, vp(j) += h, vm(j) -= h;
    fd_q.col(j) = (forces(qp, v) - forces(qm, v)) / (2 * h);
    fd_v.col(j) = (forces(q, vp) - forces(q, vm)) / (2 * h);
    fd_m.col(j) = (mass_times(qp) - mass_times(qm)) / (2 * h);
  }
  auto rel = [](const Mat& a, const Mat& b) {
    return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
  };
  EXPECT_LT(rel(dfdq, fd_q), 1e-7);
  EXPECT_LT(rel(dfdv, fd_v), 1e-7);
  EXPECT_LT(rel(dMa, fd_m), 1e-7);
  // The rigid-yaw map: e + s Y(e) is Rz(s) R(e) to first order.
  const Vec Y = model->yaw_map(q);
  Vec qs = q + h * Y;
  const Body& b = model->bodies()[0];
  const Mat3<double> turned = elements::rotation_z(h) * b.orientation(q.data());
  EXPECT_LT(max_abs_diff(b.orientation(qs.data()), turned), 1e-10);  // O(h²)
}

// ---- (d) the torque-free body through pitch −90° against the reference --------------------------

struct ReferenceRow {
  double t;
  Mat3<double> R;
  double energy;
  Vec3<double> L;
};

/// examples/benchmarks/reference/torque_free_body.csv: `#` comments, a header, then rows
/// t, qw, qx, qy, qz, R00 … R22, wx, wy, wz, energy, Lx, Ly, Lz, pitch_zyx.
std::vector<ReferenceRow> read_reference() {
  std::ifstream in(std::string(GMBD_SOURCE_DIR) + "/examples/benchmarks/reference/torque_free_body.csv");
  std::vector<ReferenceRow> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<double> x;
    std::stringstream s(line);
    std::string item;
    while (std::getline(s, item, ',')) x.push_back(std::stod(item));
    if (x.size() < 22) continue;
    ReferenceRow r;
    r.t = x[0];
    for (size_t k = 0; k < 9; ++k) r.R.m[k] = x[5 + k];
    r.energy = x[17];
    r.L = {x[18], x[19], x[20]};
    rows.push_back(r);
  }
  return rows;
}

TEST(QuaternionBody, TorqueFreeBodyTumblesThroughThePoleAndMatchesTheReference) {
  const std::string model_file = std::string(GMBD_SOURCE_DIR) + "/examples/benchmarks/models/torque_free_body.yaml";
  const auto reference = read_reference();
  ASSERT_EQ(reference.size(), 501u);
  std::ostringstream run;
  run << "model: {file: " << model_file << "}\n"
      << "integrator: {method: rk45, rtol: 1.0e-12, atol: 1.0e-12}\n"
      << "stabilization: {method: dsc}\n"
      << "time: {end: 5, output_interval: 0.01}\n";
  test::StateTrace trace;
  std::vector<double> energy;
  const RunSummary s = test::run_yaml(run.str(), "<torque_free>", {}, [&](const OutputSample& o) {
    trace.record(o);
    energy.push_back(o.energy);
  });
  ASSERT_TRUE(s.completed) << s.failure;
  const auto model = build_assembled_model(load_model_file(model_file));
  const Body& b = model->bodies()[0];
  ASSERT_EQ(b.kind, BodyKind::kQuaternion);
  double worst_r = 0.0, worst_energy = 0.0, worst_l = 0.0, worst_norm = 0.0, closest_pole = 1.0;
  Vec3<double> l0;
  std::vector<bool> matched(reference.size(), false);
  for (size_t k = 0; k < trace.q.size(); ++k) {
    const double* c = trace.q[k].data() + b.first;
    const double* cd = trace.v[k].data() + b.first;
    const Mat3<double> R = b.orientation(c);
    const Vec3<double> w = b.body_angular_velocity(c, cd);
    const Vec3<double> L = R * (b.inertia * w);  // world angular momentum about the centre
    if (k == 0) l0 = L;
    worst_energy = std::max(worst_energy, std::abs(energy[k] - energy[0]) / energy[0]);
    worst_l = std::max(worst_l, std::sqrt((L - l0).squared_norm() / l0.squared_norm()));
    worst_norm = std::max(worst_norm, std::abs(std::sqrt(c[3] * c[3] + c[4] * c[4] + c[5] * c[5] + c[6] * c[6]) - 1.0));
    closest_pole = std::min(closest_pole, std::abs(elements::zyx_angles_from_rotation(R).y + kPi / 2));
    const auto row = static_cast<size_t>(std::llround(trace.t[k] / 0.01));
    if (row < reference.size() && std::abs(reference[row].t - trace.t[k]) < 1e-9) {
      worst_r = std::max(worst_r, max_abs_diff(R, reference[row].R));
      matched[row] = true;
    }
  }
  EXPECT_EQ(std::count(matched.begin(), matched.end(), true), static_cast<long>(reference.size()));
  // The initial state (body.wx … from the file, converted to ė) is the reference's.
  EXPECT_NEAR(energy[0], reference[0].energy, 1e-12);
  EXPECT_LT(std::sqrt((l0 - reference[0].L).squared_norm()), 1e-12);
  // rk45 at rtol 1e-12 over 5 s: energy and momentum drift ≈ 1e-11 relative (1e-10 at rtol
  // 1e-11 in a scipy check of the same equations), R within ≈ 1e-10 of the DOP853 reference.
  EXPECT_LT(worst_energy, 1e-9);
  EXPECT_LT(worst_l, 1e-9);
  EXPECT_LT(worst_r, 1e-8);
  EXPECT_LT(worst_norm, 1e-9);
  // It did pass the pole: an output sample (every 0.01 s, at 4 rad/s) within 1e-3 rad of −90°.
  EXPECT_LT(closest_pole, 1e-3);
}

// ---- initial state ------------------------------------------------------------------------------------

TEST(QuaternionBody, InitialAnglesAndBodyAngularVelocityAreConverted) {
  const std::string text = std::string(kFreeBody) +
                           "initial:\n  b.yaw: 0.3\n  b.pitch: -1.2\n  b.roll: 2.5\n"
                           "initial_velocity:\n  b.wx: 0.5\n  b.wy: -0.7\n  b.wz: 4\n  b.x: 1\n";
  const ModelFileSpec spec = parse_model_file(text, "angles.yaml");
  const auto model = build_assembled_model(spec);
  Vec q = Vec::Zero(model->nq()), v = Vec::Zero(model->nq());
  model_file_initial_state(spec, *model, q, v);
  const Body& b = model->bodies()[0];
  EXPECT_LT(max_abs_diff(b.orientation(q.data()), elements::rotation(elements::AngleSequence::kZyx, 0.3, -1.2, 2.5)), 1e-14);
  const Vec3<double> w = b.body_angular_velocity(q.data(), v.data());
  EXPECT_NEAR(w.x, 0.5, 1e-14);
  EXPECT_NEAR(w.y, -0.7, 1e-14);
  EXPECT_NEAR(w.z, 4.0, 1e-14);
  EXPECT_NEAR(q.segment(3, 4).dot(v.segment(3, 4)), 0.0, 1e-14);
  EXPECT_EQ(v(0), 1.0);
  // Nothing given: the identity.
  const ModelFileSpec plain = parse_model_file(kFreeBody, "plain.yaml");
  model_file_initial_state(plain, *model, q, v);
  EXPECT_EQ(q(3), 1.0);
  EXPECT_EQ(q.segment(4, 3).cwiseAbs().maxCoeff(), 0.0);
}

// Run files take the same names in initial.q / initial.v; what is not given is kept.
TEST(QuaternionBody, RunFileInitialAnglesAndRatesOverrideTheModelFile) {
  const std::string model = std::string(GMBD_SOURCE_DIR) + "/examples/benchmarks/models/torque_free_body.yaml";
  const auto prepared_with = [&](const std::string& initial) {
    const std::string text = "name: t\nmodel: {file: " + model +
                             "}\nintegrator: {method: rk4, dt: 0.01}\ntime: {end: 0.01, output_interval: 0.01}\n" +
                             initial;
    return prepare_run(parse_run_config(text, "<run>"));
  };
  const PreparedRun base = prepared_with("");
  const auto& body = dynamic_cast<const elements::AssembledModel&>(*base.built.model).bodies()[0];
  const int nq = base.built.model->nq();
  const auto rotation_of = [&](const PreparedRun& p) { return body.orientation(p.z0.data()); };
  const auto omega_of = [&](const PreparedRun& p) { return body.body_angular_velocity(p.z0.data(), p.z0.data() + nq); };

  const PreparedRun all = prepared_with("initial:\n  q: {body.yaw: 0.3, body.pitch: -1.2, body.roll: 2.5}\n"
                                        "  v: {body.wx: 0.5, body.wy: -0.7, body.wz: 4}\n");
  EXPECT_LT(max_abs_diff(rotation_of(all), elements::rotation(elements::AngleSequence::kZyx, 0.3, -1.2, 2.5)), 1e-14);
  const Vec3<double> w = omega_of(all);
  EXPECT_NEAR(w.x, 0.5, 1e-14);
  EXPECT_NEAR(w.y, -0.7, 1e-14);
  EXPECT_NEAR(w.z, 4.0, 1e-14);

  // Only yaw: pitch and roll and the body angular velocity are the model file's.
  const PreparedRun yaw = prepared_with("initial:\n  q: {body.yaw: 0.25}\n");
  const Vec3<double> a0 = elements::zyx_angles_from_rotation(rotation_of(base));
  const Vec3<double> a1 = elements::zyx_angles_from_rotation(rotation_of(yaw));
  EXPECT_NEAR(a1.x, 0.25, 1e-12);
  EXPECT_NEAR(a1.y, a0.y, 1e-12);
  EXPECT_NEAR(a1.z, a0.z, 1e-12);
  const Vec3<double> w0 = omega_of(base), w1 = omega_of(yaw);
  EXPECT_NEAR(w1.x, w0.x, 1e-12);
  EXPECT_NEAR(w1.y, w0.y, 1e-12);
  EXPECT_NEAR(w1.z, w0.z, 1e-12);

  // Bad input: angles and Euler parameters together; an unknown name lists the angle names.
  try {
    prepared_with("initial:\n  q: {body.yaw: 0.25, body.e0: 1}\n");
    ADD_FAILURE() << "no error for angles together with e0";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("either as Euler parameters"), std::string::npos) << e.what();
  }
  try {
    prepared_with("initial:\n  v: {body.yaw: 0.25}\n");
    ADD_FAILURE() << "no error for an angle among the velocities";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("initial.v.body.yaw"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("body.wx, .wy, .wz"), std::string::npos) << e.what();
  }
}

// ---- (e) bad input -------------------------------------------------------------------------------------

/// The InputError of building `yaml` and reading its initial state ("" when there is none).
std::string error_of(const std::string& yaml) {
  try {
    const ModelFileSpec spec = parse_model_file(yaml, "q.yaml");
    const auto model = build_assembled_model(spec);
    Vec q = Vec::Zero(model->nq()), v = Vec::Zero(model->nq());
    model_file_initial_state(spec, *model, q, v);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& yaml, const std::vector<std::string>& parts) {
  const std::string message = error_of(yaml);
  ASSERT_FALSE(message.empty()) << "no error for:\n" << yaml;
  for (const auto& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "message: " << message << "\n  lacks: " << part;
}

TEST(QuaternionBody, NonUnitInitialQuaternionIsAnInputError) {
  // line 5: b.e0 (the first Euler parameter given) — |e| = √(0.9² + 0.1²) = 0.9055…
  expect_error(std::string(kFreeBody) + "initial:\n  b.e0: 0.9\n  b.e1: 0.1\n",
               {"q.yaml:5", "initial.b.e0..e3", "unit quaternion", "body 'b'", "|e| = 1", "got |e| = 0.9055385"});
  // All zero (no direction at all).
  expect_error(std::string(kFreeBody) + "initial:\n  b.e0: 0\n", {"q.yaml:5", "|e| = 1", "got |e| = 0"});
  // Within 1e-6 is accepted (and projected at the start of a run).
  EXPECT_EQ(error_of(std::string(kFreeBody) + "initial:\n  b.e0: 0.9999995\n"), "");
}

TEST(QuaternionBody, AnglesTogetherWithQuaternionRotationIsAnInputError) {
  expect_error("dimension: 3\nbodies:\n  b: {type: spatial, mass: 1, inertia: [1, 1, 1], rotation: quaternion, angles: zyx}\n",
               {"q.yaml:3", "bodies.b.angles", "rotation: quaternion", "got 'zyx'"});
}

TEST(QuaternionBody, UnknownRotationIsAnInputError) {
  expect_error("dimension: 3\nbodies:\n  b: {type: spatial, mass: 1, inertia: [1, 1, 1], rotation: euler}\n",
               {"q.yaml:3", "bodies.b.rotation", "'angles'", "'quaternion'", "got 'euler'"});
}

TEST(QuaternionBody, OrientationGivenTwiceIsAnInputError) {
  expect_error(std::string(kFreeBody) + "initial:\n  b.e0: 1\n  b.yaw: 0.1\n",
               {"q.yaml:6", "initial.b.yaw/pitch/roll", "either as Euler parameters", "got both"});
  expect_error(std::string(kFreeBody) + "initial_velocity:\n  b.e1: 1\n  b.wz: 0.1\n",
               {"q.yaml:6", "initial_velocity.b.wx/wy/wz", "got both"});
  // Angles and angular velocity names belong to quaternion bodies only; the message lists them.
  expect_error(std::string(kFreeBody) + "initial:\n  b.theta: 1\n",
               {"q.yaml:5", "initial.b.theta", "unknown coordinate", "b.e0", "b.yaw", "b.wx"});
}

}  // namespace
}  // namespace gmbd
