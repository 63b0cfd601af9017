// Declared outputs (model-file and run-file `outputs:`): values against closed forms, exact
// tangents against central differences, linearisation rows against the built-in outputs, the
// result-file columns, and the bad-input messages.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <string>

#include "analysis/linear_model.hpp"
#include "core/errors.hpp"
#include "builder/model_builder.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

// A planar rod (length 2, pivot at its end a) with a second rod pinned to its tip, a spring
// from the tip of rod 2 to the ground, and outputs of every kind.
const char* kPlanar = R"(
name: outputs_planar
dimension: 2
parameters: {L: 2.0, m: 1.5, k: 30.0}
bodies:
  rod1: {type: planar, mass: m, inertia: m*L^2/12}
  rod2: {type: planar, mass: m, inertia: m*L^2/12}
points:
  base1: {body: rod1, at: [-L/2, 0]}
  tip1: {body: rod1, at: [L/2, 0]}
  base2: {body: rod2, at: [-L/2, 0]}
  tip2: {body: rod2, at: [L/2, 0]}
  anchor: {body: ground, at: [3, 1]}
elements:
  gravity: {type: gravity}
  pivot: {type: coincident, a: ground, b: base1}
  elbow: {type: coincident, a: tip1, b: base2}
  spring: {type: spring_damper, a: tip2, b: anchor, stiffness: k, rest_length: 0.5}
outputs:
  P: {type: position, point: tip2}
  P_in_1: {type: position, point: tip2, frame: rod1}
  V: {type: velocity, point: tip2}
  A: {type: acceleration, point: tip2}
  bend: {type: angle, a: rod1, b: rod2}
  reach: {type: distance, a: ground, b: tip2}
  heading: {type: orientation, body: rod2}
  F: {type: element_force, element: spring}
  pin: {type: multiplier, constraint: elbow}
  pin_x: {type: multiplier, constraint: elbow.x}
  r2: {type: expression, value: "P_x^2 + P_y^2 - reach^2 + L", unit: m2}
)";

struct PlanarState {
  double th1 = 0.7, th2 = -0.4, w1 = 1.3, w2 = -0.6, al1 = 0.25, al2 = 2.0;
  Vec q, v, a;
};

// Consistent state of the two rods (pivot at the origin) and the closed-form tip-2 kinematics.
PlanarState planar_state(const elements::AssembledModel& m) {
  PlanarState s;
  s.q = Vec::Zero(m.nq());
  s.v = Vec::Zero(m.nq());
  s.a = Vec::Zero(m.nq());
  const double L = 2.0;
  const auto set = [&](const std::string& body, double x, double y, double th, double vx, double vy, double w,
                       double ax, double ay, double al) {
    const int i = m.coordinate_index(body + ".x");
    s.q.segment(i, 3) << x, y, th;
    s.v.segment(i, 3) << vx, vy, w;
    s.a.segment(i, 3) << ax, ay, al;
  };
  const double c1 = std::cos(s.th1), s1 = std::sin(s.th1), c2 = std::cos(s.th2), s2 = std::sin(s.th2);
  // centre of rod 1 at (L/2)(c1, s1); tip 1 at L(c1, s1); centre of rod 2 at tip1 + (L/2)(c2, s2)
  set("rod1", L / 2 * c1, L / 2 * s1, s.th1, -L / 2 * s1 * s.w1, L / 2 * c1 * s.w1, s.w1,
      L / 2 * (-s1 * s.al1 - c1 * s.w1 * s.w1), L / 2 * (c1 * s.al1 - s1 * s.w1 * s.w1), s.al1);
  set("rod2", L * c1 + L / 2 * c2, L * s1 + L / 2 * s2, s.th2,
      -L * s1 * s.w1 - L / 2 * s2 * s.w2, L * c1 * s.w1 + L / 2 * c2 * s.w2, s.w2,
      L * (-s1 * s.al1 - c1 * s.w1 * s.w1) + L / 2 * (-s2 * s.al2 - c2 * s.w2 * s.w2),
      L * (c1 * s.al1 - s1 * s.w1 * s.w1) + L / 2 * (c2 * s.al2 - s2 * s.w2 * s.w2), s.al2);
  return s;
}

Vec outputs_at(const elements::AssembledModel& m, const Vec& q, const Vec& v, const Vec& a, const Vec& lambda) {
  Vec out = Vec::Zero(static_cast<Eigen::Index>(m.output_quantities().size()));
  m.derived_outputs(0.0, q, v, a, lambda, Vec::Zero(0), out);
  return out;
}

int column(const elements::AssembledModel& m, const std::string& name) {
  const int c = m.declared_outputs().column_index(name);
  EXPECT_GE(c, 0) << name;
  return c;
}

TEST(DeclaredOutputs, ValuesMatchTheClosedForms) {
  const auto m = build_assembled_model(parse_model_file(kPlanar, "<planar>"));
  const PlanarState s = planar_state(*m);
  Vec lambda = Vec::Zero(m->n_constraints());
  for (int i = 0; i < m->n_constraints(); ++i) lambda(i) = 0.5 + i;
  const Vec out = outputs_at(*m, s.q, s.v, s.a, lambda);
  const double L = 2.0, c1 = std::cos(s.th1), s1 = std::sin(s.th1), c2 = std::cos(s.th2), s2 = std::sin(s.th2);
  const double px = L * (c1 + c2), py = L * (s1 + s2);
  const double vx = -L * (s1 * s.w1 + s2 * s.w2), vy = L * (c1 * s.w1 + c2 * s.w2);
  const double ax = -L * (s1 * s.al1 + c1 * s.w1 * s.w1 + s2 * s.al2 + c2 * s.w2 * s.w2);
  const double ay = L * (c1 * s.al1 - s1 * s.w1 * s.w1 + c2 * s.al2 - s2 * s.w2 * s.w2);
  constexpr double kTol = 1e-13;  // a few operations on O(1) numbers
  EXPECT_NEAR(out(column(*m, "P.x")), px, kTol);
  EXPECT_NEAR(out(column(*m, "P.y")), py, kTol);
  // in rod 1's frame (origin at its centre): R1ᵀ (P − r1)
  const double dx = px - L / 2 * c1, dy = py - L / 2 * s1;
  EXPECT_NEAR(out(column(*m, "P_in_1.x")), c1 * dx + s1 * dy, kTol);
  EXPECT_NEAR(out(column(*m, "P_in_1.y")), -s1 * dx + c1 * dy, kTol);
  EXPECT_NEAR(out(column(*m, "V.x")), vx, kTol);
  EXPECT_NEAR(out(column(*m, "V.y")), vy, kTol);
  EXPECT_NEAR(out(column(*m, "A.x")), ax, 1e-12);
  EXPECT_NEAR(out(column(*m, "A.y")), ay, 1e-12);
  EXPECT_NEAR(out(column(*m, "bend")), s.th2 - s.th1, kTol);
  EXPECT_NEAR(out(column(*m, "reach")), std::hypot(px, py), kTol);
  EXPECT_NEAR(out(column(*m, "heading")), s.th2, kTol);
  const double stretch = std::hypot(px - 3.0, py - 1.0) - 0.5;
  EXPECT_NEAR(out(column(*m, "F")), 30.0 * stretch, 1e-12);
  const int elbow_x = m->coordinate_index("rod1.x") >= 0 ? 2 : -1;  // rows: pivot.x, pivot.y, elbow.x, elbow.y
  EXPECT_EQ(out(column(*m, "pin.x")), lambda(elbow_x));
  EXPECT_EQ(out(column(*m, "pin.y")), lambda(elbow_x + 1));
  EXPECT_EQ(out(column(*m, "pin_x")), lambda(elbow_x));
  EXPECT_NEAR(out(column(*m, "r2")), L, 1e-12);
  EXPECT_EQ(m->output_quantities()[static_cast<size_t>(column(*m, "r2"))].unit, "m2");
  EXPECT_EQ(m->output_quantities()[static_cast<size_t>(column(*m, "A.x"))].unit, "m/s²");
}

// Every column's tangent (∂/∂q, ∂/∂v, ∂/∂a, ∂/∂λ) against central differences of the values:
// step 1e-6, tolerance 1e-7 (the truncation error of central differences, h² times third
// derivatives of O(1), and round-off ε/h ≈ 1e-10).
TEST(DeclaredOutputs, TangentsMatchCentralDifferences) {
  const auto m = build_assembled_model(parse_model_file(kPlanar, "<planar>"));
  const PlanarState s = planar_state(*m);
  Vec lambda = Vec::LinSpaced(m->n_constraints(), 0.3, 1.7);
  const int ny = static_cast<int>(m->output_quantities().size());
  const double h = 1e-6;
  for (int col = 0; col < ny; ++col) {
    const auto t = m->declared_outputs().tangent(*m, col, 0.0, s.q, s.v, s.a, lambda);
    const auto check = [&](const Vec& base, int which, const Eigen::RowVectorXd& exact) {
      for (int j = 0; j < base.size(); ++j) {
        Vec plus = base, minus = base;
        plus(j) += h;
        minus(j) -= h;
        const auto eval = [&](const Vec& x) {
          return outputs_at(*m, which == 0 ? x : s.q, which == 1 ? x : s.v, which == 2 ? x : s.a, lambda)(col);
        };
        const double fd = (eval(plus) - eval(minus)) / (2 * h);
        EXPECT_NEAR(exact(j), fd, 1e-7) << m->output_quantities()[static_cast<size_t>(col)].name << " d/d"
                                        << "qva"[which] << " " << m->coordinates()[static_cast<size_t>(j)].name;
      }
    };
    check(s.q, 0, t.dq);
    check(s.v, 1, t.dv);
    check(s.a, 2, t.da);
    for (int i = 0; i < m->n_constraints(); ++i) {
      double exact = 0.0;
      for (const auto& [row, w] : t.lambda)
        if (row == i) exact += w;
      Vec plus = lambda, minus = lambda;
      plus(i) += h;
      minus(i) -= h;
      const double fd = (outputs_at(*m, s.q, s.v, s.a, plus)(col) - outputs_at(*m, s.q, s.v, s.a, minus)(col)) / (2 * h);
      EXPECT_NEAR(exact, fd, 1e-7) << m->output_quantities()[static_cast<size_t>(col)].name << " d/dλ" << i;
    }
  }
}

// A spatial body on angles: its orientation output gives back its own yaw, pitch, roll, and
// the angle output about the relative rotation's own axis gives the rotation angle.
TEST(DeclaredOutputs, SpatialOrientationAndAngle) {
  const char* text = R"(
name: spatial_outputs
bodies:
  a: {type: spatial, mass: 1, inertia: [1, 1, 1]}
  b: {type: spatial, mass: 1, inertia: [1, 1, 1]}
outputs:
  att: {type: orientation, body: b}
  twist: {type: angle, a: a, b: b, axis: [0, 0, 2]}
  tilt: {type: angle, a: a, b: b, axis: [1, 0, 0]}
)";
  const auto m = build_assembled_model(parse_model_file(text, "<spatial>"));
  Vec q = Vec::Zero(m->nq());
  q(m->coordinate_index("a.yaw")) = 0.3;
  q(m->coordinate_index("b.yaw")) = 0.3 + 0.9;  // b = a rotated by 0.9 rad about a's z axis
  Vec q_att = q;
  q_att(m->coordinate_index("b.pitch")) = 0.2;
  q_att(m->coordinate_index("b.roll")) = -0.5;
  const Vec zero = Vec::Zero(m->nq());
  const Vec out = outputs_at(*m, q, zero, zero, Vec::Zero(0));
  EXPECT_NEAR(out(column(*m, "twist")), 0.9, 1e-14);
  EXPECT_NEAR(out(column(*m, "tilt")), 0.0, 1e-14);
  const Vec out2 = outputs_at(*m, q_att, zero, zero, Vec::Zero(0));
  EXPECT_NEAR(out2(column(*m, "att.yaw")), 1.2, 1e-14);
  EXPECT_NEAR(out2(column(*m, "att.pitch")), 0.2, 1e-14);
  EXPECT_NEAR(out2(column(*m, "att.roll")), -0.5, 1e-14);
}

// The linear C row of a declared position equals the built-in point: output's.
TEST(DeclaredOutputs, LinearizeUsesThemAsOutputs) {
  const char* text = R"(
name: pendulum_outputs
dimension: 2
bodies:
  bob: {type: point, mass: 2}
points:
  hinge: {body: ground, at: [0, 1]}
elements:
  gravity: {type: gravity}
  rod: {type: distance, a: hinge, b: bob, length: 1}
outputs:
  bob_pos: {type: position, point: bob}
  swing: {type: expression, value: "3*bob_pos_x"}
initial: {bob.x: 0, bob.y: 0}
)";
  const auto m = build_model_for_linear_analysis(parse_model_file(text, "<pendulum>"));
  analysis::OperatingPoint op;
  op.q = Vec::Zero(m->nq());
  op.v = Vec::Zero(m->nq());
  op.z = Vec::Zero(0);
  op.lambda = Vec::Zero(m->n_constraints());
  op.lambda(0) = -2.0 * 9.81;  // tension of the length-form row (λ < 0 pulls… sign as the KKT solve)
  analysis::LinearOptions options;
  options.outputs = {"bob_pos.x", "point:bob.x", "swing"};
  options.check_stability = false;
  const auto lm = analysis::linearize(*m, op, options);
  ASSERT_EQ(lm.C.rows(), 3);
  EXPECT_LE((lm.C.row(0) - lm.C.row(1)).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LE((lm.C.row(2) - 3.0 * lm.C.row(1)).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_GT(lm.C.row(1).cwiseAbs().maxCoeff(), 0.5);
}

// Run-file outputs join the model file's; the result file has their columns.
TEST(DeclaredOutputs, RunFileOutputsAreWrittenAsColumns) {
  const test::TempDir dir("declared_outputs_run");
  std::ofstream(dir.path() / "model.yaml") << kPlanar;
  std::ofstream(dir.path() / "run.yaml") << "model: {file: model.yaml}\n"
                                            "integrator: {method: rk4, dt: 0.001}\n"
                                            "time: {end: 0.02, output_interval: 0.01}\n"
                                            "outputs:\n"
                                            "  tip_speed: {type: expression, value: \"hypot(V_x, V_y)\", unit: m/s}\n"
                                            "  elbow_angle: {type: angle, a: rod1, b: rod2}\n";
  const RunConfig cfg = load_run_config((dir.path() / "run.yaml").string());
  const PreparedRun run = prepare_run(cfg);
  const auto names = run.built.model->output_quantities();
  ASSERT_EQ(names.back().name, "elbow_angle");
  std::vector<double> speeds;
  const int speed_col = static_cast<int>(names.size()) - 2;
  const int vx = [&] {
    for (size_t k = 0; k < names.size(); ++k)
      if (names[k].name == "V.x") return static_cast<int>(k);
    return -1;
  }();
  ASSERT_GE(vx, 0);
  const RunSummary s = integrate(run, [&](const OutputSample& o) {
    EXPECT_NEAR(o.outputs(speed_col), std::hypot(o.outputs(vx), o.outputs(vx + 1)), 1e-14);
    speeds.push_back(o.outputs(speed_col));
  });
  EXPECT_TRUE(s.completed) << s.failure;
  EXPECT_EQ(speeds.size(), 3u);
  ASSERT_EQ(s.output_peaks.size(), names.size());  // every declared column has a peak
}

void expect_error(const std::string& text, const std::vector<std::string>& parts) {
  try {
    build_assembled_model(parse_model_file(text, "bad.yaml"));
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
  }
}

TEST(DeclaredOutputs, BadDeclarationsNameFileLineFieldExpectedAndActual) {
  const std::string head = "dimension: 2\nbodies:\n  b: {type: planar, mass: 1, inertia: 1}\noutputs:\n";
  expect_error(head + "  p: {type: position, point: nowhere}\n",
               {"bad.yaml:5", "outputs.p.point", "expected a point, a body or 'ground'", "got 'nowhere'"});
  expect_error(head + "  p: {type: speedometer}\n",
               {"bad.yaml:5", "outputs.p.type", "one of: position, velocity", "got 'speedometer'"});
  expect_error(head + "  e: {type: expression, value: \"later + 1\"}\n  later: {type: orientation, body: b}\n",
               {"bad.yaml:5", "outputs.e.value", "unknown symbol 'later'"});
  expect_error(head + "  f: {type: element_force, element: nothing}\n",
               {"outputs.f.element", "a force element", "got 'nothing'"});
  expect_error(head + "  m: {type: multiplier, constraint: nothing}\n",
               {"outputs.m.constraint", "got 'nothing'"});
  expect_error(head + "  a: {type: angle, b: b, axis: [0, 0, 1]}\n", {"outputs.a", "axis"});
  expect_error(head + "  p: {type: position}\n", {"outputs.p.point"});
  expect_error(head + "  p: {type: position, point: b}\n  p: {type: position, point: b}\n", {"duplicate"});
}

TEST(DeclaredOutputs, CatalogueModelsRefuseRunFileOutputs) {
  test::TempDir dir("declared_outputs_catalogue");
  std::ofstream(dir.path() / "run.yaml") << "model: two_blocks\noutputs:\n  x: {type: orientation, body: b}\n";
  const RunConfig cfg = load_run_config((dir.path() / "run.yaml").string());
  try {
    prepare_run(cfg);
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("declared outputs need a model file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gmbd
