// Closed-form constraint Jacobians and biases (distance, coincident, rolling ball) against the
// forward-mode AD of the same elements' constraint functions, and declared row patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "builder/model_builder.hpp"
#include "elements/coincident.hpp"
#include "elements/distance.hpp"
#include "elements/rolling_ball.hpp"
#include "io/model_file.hpp"

namespace gmbd {
namespace {

using elements::AssembledModel;
using elements::Element;

/// Every carrier with a closed form (ground, 2-D point, planar body with an offset point) on both
/// ends of distances of both forms and of pins, plus a 3-D model of point bodies.
const char* kPlanarCarriers = R"(
dimension: 2
bodies:
  p: {type: point, mass: 1}
  a: {type: planar, mass: 2, inertia: 0.3}
  b: {type: planar, mass: 1, inertia: 0.1}
points:
  a_tip: {body: a, at: [0.4, -0.2]}
  b_end: {body: b, at: [-0.3, 0.5]}
  anchor: {body: ground, at: [1.0, 2.0]}
elements:
  rod_ground_point: {type: distance, a: anchor, b: p, length: 1}
  rod_point_planar: {type: distance, a: p, b: a_tip, length: 1}
  rod_planar_planar: {type: distance, a: a_tip, b: b_end, length: 1, form: squared}
  pin_planar_planar: {type: coincident, a: a_tip, b: b_end}
  pin_ground_planar: {type: coincident, a: anchor, b: a}
  pin_point_planar: {type: coincident, a: p, b: b_end}
)";

/// Two points of one planar body in one pin: the angle column appears in both points' lists
/// (a degenerate joint, but its rows must still be assembled once per entry).
const char* kSameCarrier = R"(
dimension: 2
bodies:
  a: {type: planar, mass: 2, inertia: 0.3}
points:
  a_tip: {body: a, at: [0.4, -0.2]}
  a_end: {body: a, at: [-0.3, 0.5]}
elements:
  pin_on_one_body: {type: coincident, a: a_tip, b: a_end}
  rod_on_one_body: {type: distance, a: a_tip, b: a_end, length: 1}
)";

const char* kSpatialPoints = R"(
dimension: 3
bodies:
  p: {type: point, mass: 1}
  r: {type: point, mass: 2}
points:
  anchor: {body: ground, at: [0.5, -1.0, 2.0]}
elements:
  rod: {type: distance, a: anchor, b: p, length: 1}
  string: {type: distance, a: p, b: r, length: 2, form: squared}
  ball_joint: {type: coincident, a: p, b: r}
  ground_joint: {type: coincident, a: anchor, b: r}
)";

/// Scales the error by the size of the reference (and 1).
double gap(const std::vector<double>& x, const std::vector<double>& y) {
  double err = 0.0, size = 1.0;
  for (size_t i = 0; i < x.size(); ++i) {
    err = std::max(err, std::abs(x[i] - y[i]));
    size = std::max(size, std::abs(y[i]));
  }
  return err / size;
}

struct Local {
  std::vector<double> q, v;
};

Local random_local_state(const Element& e, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  Local s;
  for (int i = 0; i < e.local_size(); ++i) {
    s.q.push_back(u(rng));
    s.v.push_back(u(rng));
  }
  return s;
}

/// The AD reference of an element's G and b (HolonomicElement's adapter for its constraint()).
template <class E>
void reference_holonomic(const Element& e, const Local& s, std::vector<double>& G,
                         std::vector<double>& b) {
  const auto& typed = dynamic_cast<const E&>(e);
  G.assign(static_cast<size_t>(e.n_holonomic() * e.local_size()), 0.0);
  b.assign(static_cast<size_t>(e.n_holonomic()), 0.0);
  typed.elements::template HolonomicElement<E>::holonomic_jacobian(0.0, s.q.data(), G.data(), nullptr);
  typed.elements::template HolonomicElement<E>::holonomic_bias(0.0, s.q.data(), s.v.data(), b.data());
}

void reference_holonomic_of(const Element& e, const Local& s, std::vector<double>& G,
                            std::vector<double>& b) {
  const std::string type = e.type();
  if (type == "distance") return reference_holonomic<elements::DistanceConstraint>(e, s, G, b);
  if (type == "rolling_ball") return reference_holonomic<elements::RollingBall>(e, s, G, b);
  if (e.n_holonomic() == 2) return reference_holonomic<elements::CoincidentConstraint<2>>(e, s, G, b);
  return reference_holonomic<elements::CoincidentConstraint<3>>(e, s, G, b);
}

/// Compares closed forms with AD at random local states for every distance, coincident and
/// rolling-ball element of `model`; returns how many elements were compared.
int compare_with_ad(const AssembledModel& model, const std::string& label) {
  std::mt19937 rng(7);
  int compared = 0;
  for (const auto& e : model.elements()) {
    const std::string type = e->type();
    if (type != "distance" && type != "coincident" && type != "rolling_ball") continue;
    ++compared;
    for (int trial = 0; trial < 20; ++trial) {
      const Local s = random_local_state(*e, rng);
      std::vector<double> G(static_cast<size_t>(e->n_holonomic() * e->local_size())), b(static_cast<size_t>(e->n_holonomic()));
      std::vector<double> gt(static_cast<size_t>(e->n_holonomic()), 1.0);
      e->holonomic_jacobian(0.0, s.q.data(), G.data(), gt.data());
      e->holonomic_bias(0.0, s.q.data(), s.v.data(), b.data());
      std::vector<double> G_ad, b_ad;
      reference_holonomic_of(*e, s, G_ad, b_ad);
      // Round-off of a few operations on O(1) numbers: 1e-14 relative.
      EXPECT_LE(gap(G, G_ad), 1e-14) << label << ": " << e->name() << " G";
      EXPECT_LE(gap(b, b_ad), 1e-14) << label << ": " << e->name() << " bias";
      for (double x : gt) EXPECT_EQ(x, 0.0) << label << ": " << e->name() << " g_t";
      if (type == "rolling_ball") {
        const auto& ball = dynamic_cast<const elements::RollingBall&>(*e);
        const size_t nh = static_cast<size_t>(2 * e->local_size());
        std::vector<double> H(nh), H_ad(nh), hb(2), hb_ad(2);
        ball.nonholonomic_jacobian(0.0, s.q.data(), H.data());
        ball.reference_nonholonomic_jacobian(s.q.data(), H_ad.data());
        ball.nonholonomic_bias(0.0, s.q.data(), s.v.data(), hb.data());
        ball.reference_nonholonomic_bias(s.q.data(), s.v.data(), hb_ad.data());
        EXPECT_LE(gap(H, H_ad), 1e-14) << label << ": " << e->name() << " H";
        EXPECT_LE(gap(hb, hb_ad), 1e-14) << label << ": " << e->name() << " rolling bias";
      }
    }
  }
  return compared;
}

TEST(ClosedFormConstraints, AgreeWithAutomaticDifferentiationOnEveryCarrier) {
  auto planar = build_assembled_model(parse_model_file(kPlanarCarriers, "planar.yaml"));
  EXPECT_EQ(compare_with_ad(*planar, "planar"), 6);
  auto spatial = build_assembled_model(parse_model_file(kSpatialPoints, "spatial.yaml"));
  EXPECT_EQ(compare_with_ad(*spatial, "spatial"), 4);
  auto same = build_assembled_model(parse_model_file(kSameCarrier, "same.yaml"));
  EXPECT_EQ(compare_with_ad(*same, "same carrier"), 2);
}

TEST(ClosedFormConstraints, AgreeWithAutomaticDifferentiationInTheExampleModels) {
  int compared = 0;
  const std::string folder = std::string(GMBD_SOURCE_DIR) + "/examples/models";
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".yaml") continue;
    std::unique_ptr<AssembledModel> model;
    try {
      model = build_assembled_model(load_model_file(entry.path().string()), {}, true);
    } catch (const InputError&) {
      continue;
    }
    compared += compare_with_ad(*model, entry.path().filename().string());
  }
  EXPECT_GE(compared, 12);  // four rolling balls, the four-bar's pins, the slider-cranks' rods
}

/// One call per element (constraint_terms) and one pass per evaluation (kkt_terms) give the
/// same numbers as the separate functions, element by element and for the assembled model.
TEST(ClosedFormConstraints, FusedTermsEqualTheSeparateFunctions) {
  std::vector<std::unique_ptr<AssembledModel>> models;
  for (const char* text : {kPlanarCarriers, kSpatialPoints, kSameCarrier})
    models.push_back(build_assembled_model(parse_model_file(text, "carriers.yaml")));
  for (const char* file : {"ris_xytheta.yaml", "four_bar.yaml", "slider_crank.yaml", "heavy_top.yaml"})
    models.push_back(build_assembled_model(
        load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/models/" + file)));
  std::mt19937 rng(5);
  int elements_compared = 0;
  for (const auto& model : models) {
    for (const auto& e : model->elements()) {
      const int n = e->local_size(), nh = e->n_holonomic(), nn = e->n_nonholonomic();
      if (nh + nn == 0) continue;
      ++elements_compared;
      const Local s = random_local_state(*e, rng);
      const size_t ng = static_cast<size_t>(nh * n), nhn = static_cast<size_t>(nn * n);
      std::vector<double> G(ng), bh(static_cast<size_t>(nh)), H(nhn), bn(static_cast<size_t>(nn));
      std::vector<double> G1(ng), bh1(static_cast<size_t>(nh)), H1(nhn), bn1(static_cast<size_t>(nn));
      e->constraint_terms(0.0, s.q.data(), s.v.data(), nh ? G.data() : nullptr, bh.data(),
                          nn ? H.data() : nullptr, bn.data());
      if (nh) {
        e->holonomic_jacobian(0.0, s.q.data(), G1.data(), nullptr);
        e->holonomic_bias(0.0, s.q.data(), s.v.data(), bh1.data());
      }
      if (nn) {
        e->nonholonomic_jacobian(0.0, s.q.data(), H1.data());
        e->nonholonomic_bias(0.0, s.q.data(), s.v.data(), bn1.data());
      }
      EXPECT_LE(gap(G, G1), 1e-15) << e->name();
      EXPECT_LE(gap(bh, bh1), 1e-15) << e->name();
      EXPECT_LE(gap(H, H1), 1e-15) << e->name();
      EXPECT_LE(gap(bn, bn1), 1e-15) << e->name();
    }
    // The whole model: kkt_terms against mass_matrix, forces, G, H and the biases.
    const int nq = model->nq(), nh = model->n_holonomic(), nn = model->n_nonholonomic();
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    Vec q(nq), v(nq);
    for (int i = 0; i < nq; ++i) q(i) = u(rng), v(i) = u(rng);
    const Vec z = Vec::Zero(model->nz());
    Mat M = Mat::Zero(nq, nq), G = Mat::Zero(nh, nq), H = Mat::Zero(nn, nq);
    Vec f = Vec::Zero(nq), bh = Vec::Zero(nh), bn = Vec::Zero(nn);
    model->kkt_terms(0.0, q, v, z, M, f, G, bh, H, bn);
    Mat M1 = Mat::Zero(nq, nq), G1 = Mat::Zero(nh, nq), H1 = Mat::Zero(nn, nq);
    Vec f1 = Vec::Zero(nq), bh1 = Vec::Zero(nh), bn1 = Vec::Zero(nn);
    model->mass_matrix(0.0, q, M1);
    model->forces(0.0, q, v, z, f1);
    model->holonomic_jacobian(0.0, q, G1);
    model->holonomic_bias(0.0, q, v, bh1);
    model->nonholonomic_jacobian(0.0, q, H1);
    model->nonholonomic_bias(0.0, q, v, bn1);
    EXPECT_TRUE(M == M1 && G == G1 && H == H1) << model->type();
    EXPECT_LE((f - f1).cwiseAbs().maxCoeff(), 1e-14 * std::max(1.0, f1.cwiseAbs().maxCoeff())) << model->type();
    EXPECT_LE((bh - bh1).cwiseAbs().maxCoeff(), 1e-14 * std::max(1.0, bh1.cwiseAbs().maxCoeff())) << model->type();
    if (nn > 0) {
      EXPECT_LE((bn - bn1).cwiseAbs().maxCoeff(), 1e-14 * std::max(1.0, bn1.cwiseAbs().maxCoeff()));
    }
  }
  EXPECT_GE(elements_compared, 20);
}

/// An element whose rows leave its declared pattern is refused when the model is finalized (the
/// assembly would drop the entry silently otherwise).
class UndeclaredEntry final : public elements::HolonomicElement<UndeclaredEntry> {
 public:
  static constexpr int kRows = 1;
  explicit UndeclaredEntry(std::vector<int> coordinates) : HolonomicElement("product") {
    set_coordinates(std::move(coordinates));
  }
  const char* type() const override { return "test_product"; }
  std::vector<std::string> holonomic_rows() const override { return {""}; }
  std::vector<std::vector<int>> row_coordinates() const override { return {{0}}; }  // not 1
  template <class T>
  void constraint(const T& /*t*/, const T* q, T* g) const {
    g[0] = q[0] * q[1] - 1.0;
  }
};

TEST(ClosedFormConstraints, APatternThatLeavesOutAnEntryIsRefusedAtFinalize) {
  AssembledModel model("pattern_check", 2);
  elements::Body body;
  body.name = "p";
  body.kind = elements::BodyKind::kPoint2;
  body.mass = 1.0;
  model.add_body(body);
  model.add_element(std::make_unique<UndeclaredEntry>(std::vector<int>{0, 1}));
  try {
    model.finalize();
    FAIL() << "finalize accepted a row pattern that leaves out p.y";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("p.y"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("row_coordinates"), std::string::npos) << e.what();
  }
}

/// The dish slope in closed form equals the derivative of the height by AD (published dish and
/// one with every term, a4 included), at the centre, on both sides and far out.
TEST(ClosedFormConstraints, DishSlopeIsTheDerivativeOfTheHeight) {
  elements::DishProfile published;
  elements::DishProfile every_term;
  every_term.a2 = 0.02, every_term.a3 = 0.05, every_term.a4 = 0.001;
  for (const auto& dish : {published, every_term})
    for (double r : {0.0, 1e-9, -3e-3, 0.01, -0.05, 0.12, 0.149, -0.2}) {
      Dual<double, 1> x(r);
      x.d[0] = 1.0;
      const double ad = dish.height(x).d[0];
      EXPECT_NEAR(dish.slope(r), ad, 1e-15 * std::max(1.0, std::abs(ad))) << "r = " << r;
    }
  EXPECT_EQ(published.slope(0.0), 0.0);  // the dish-centre treatment needs h'(0) = 0 exactly
}

/// Entries of G and H outside an element's declared row pattern are exact zeros at any state.
TEST(ClosedFormConstraints, DeclaredRowPatternsHoldAtRandomStates) {
  std::mt19937 rng(11);
  int checked = 0;
  for (const char* text : {kPlanarCarriers, kSpatialPoints, kSameCarrier}) {
    auto model = build_assembled_model(parse_model_file(text, "carriers.yaml"));
    const auto ris = build_assembled_model(
        load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/models/ris_xytheta.yaml"));
    for (const AssembledModel* m : {model.get(), ris.get()}) {
      for (const auto& e : m->elements()) {
        const auto pattern = e->row_coordinates();
        if (pattern.empty()) continue;
        ++checked;
        const int n = e->local_size(), nh = e->n_holonomic();
        ASSERT_EQ(static_cast<int>(pattern.size()), nh + e->n_nonholonomic()) << e->name();
        for (int trial = 0; trial < 10; ++trial) {
          const Local s = random_local_state(*e, rng);
          std::vector<double> A(static_cast<size_t>((nh + e->n_nonholonomic()) * n));
          e->holonomic_jacobian(0.0, s.q.data(), A.data(), nullptr);
          if (e->n_nonholonomic() > 0) e->nonholonomic_jacobian(0.0, s.q.data(), A.data() + nh * n);
          for (size_t r = 0; r < pattern.size(); ++r)
            for (int c = 0; c < n; ++c) {
              const auto& row = pattern[r];
              if (std::find(row.begin(), row.end(), c) != row.end()) continue;
              EXPECT_EQ(A[r * static_cast<size_t>(n) + static_cast<size_t>(c)], 0.0)
                  << e->name() << " row " << r << " local coordinate " << c;
            }
        }
      }
    }
  }
  EXPECT_GE(checked, 8);
}

}  // namespace
}  // namespace gmbd
