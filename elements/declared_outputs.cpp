// Declared outputs: kinematic measures written once as templates (values by doubles, rates and
// tangents by dual numbers), element forces, multipliers and expressions of other outputs.
#include "elements/declared_outputs.hpp"

#include <algorithm>
#include <cmath>

#include "core/dual.hpp"
#include "elements/assembly.hpp"

namespace gmbd::elements {
namespace {

constexpr int kMaxLocal = kMaxLocalCoordinates;

// yaw, pitch, roll (zyx) of a rotation matrix: the templated twin of zyx_angles_from_rotation
// (spatial_math.hpp) away from the pitch = ±90° pole, where the three angles are not defined.
template <class T>
Vec3<T> zyx_angles(const Mat3<T>& R) {
  using std::atan2, std::sqrt;
  const T c = sqrt(R(0, 0) * R(0, 0) + R(1, 0) * R(1, 0));
  return {atan2(R(1, 0), R(0, 0)), atan2(-R(2, 0), c), atan2(R(2, 1), R(2, 2))};
}

template <class T>
Mat3<T> body_rotation(const Body* body, const T* c) {
  return body != nullptr ? body->orientation(c) : Mat3<T>::identity();
}

// The measure s(q) of a kinematic output (components 0 .. columns−1), from local coordinates.
template <class T>
void measure(const DeclaredOutput& o, const T* ql, T* s) {
  using std::atan2, std::sqrt;
  switch (o.kind) {
    case OutputKind::kPosition:
    case OutputKind::kVelocity:
    case OutputKind::kAcceleration: {
      Vec3<T> p = o.a.position(ql);
      if (o.frame != nullptr) {
        const T* c = ql + o.frame_offset;
        p = o.frame->orientation(c).transpose_times(p - o.frame->position(c));
      }
      for (int k = 0; k < o.dimension; ++k) s[k] = p[k];
      return;
    }
    case OutputKind::kDistance: {
      const Vec3<T> d = o.b.position(ql) - o.a.position(ql);
      s[0] = sqrt(d.squared_norm());
      return;
    }
    case OutputKind::kAngle: {
      if (o.dimension == 2) {
        const T ta = o.body_a != nullptr ? ql[o.offset_a + 2] : T(0.0);
        s[0] = ql[o.offset_b + 2] - ta;
        return;
      }
      // Twist of R_rel = R_aᵀ R_b about n: φ = 2 atan2(n · vex(R_rel − R_relᵀ), 1 + tr R_rel),
      // exact for a rotation about n and continuous for |φ| < π (docs/model-files.md, outputs).
      const Mat3<T> Ra = body_rotation(o.body_a, o.body_a != nullptr ? ql + o.offset_a : ql);
      const Mat3<T> Rb = o.body_b->orientation(ql + o.offset_b);
      const Mat3<T> R = Ra.transpose() * Rb;
      const Vec3<T> vex{R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1)};
      const T along = vex.x * o.axis.x + vex.y * o.axis.y + vex.z * o.axis.z;
      s[0] = T(2.0) * atan2(along, T(1.0) + R(0, 0) + R(1, 1) + R(2, 2));
      return;
    }
    case OutputKind::kOrientation: {
      const T* c = ql + o.offset_a;
      if (o.dimension == 2) {
        s[0] = c[2];
        return;
      }
      const Vec3<T> angles = zyx_angles(o.body_a->orientation(c));
      s[0] = angles.x;
      s[1] = angles.y;
      s[2] = angles.z;
      return;
    }
    default: return;
  }
}

// x + s ẋ + s² ẍ/2 in a hyper-dual: the mixed part carries d²/ds², the first parts d/ds.
Dual<Dual<double, 1>, 1> seed_path(double x, double xdot, double xddot) {
  Dual<Dual<double, 1>, 1> r;
  r.v.v = x;
  r.v.d[0] = xdot;
  r.d[0].v = xdot;
  r.d[0].d[0] = xddot;
  return r;
}

// An element's measure s, its Jacobian J_s and the law F with ∂F/∂s, ∂F/∂ṡ at (t, q, v).
struct Measure {
  double s[6], J[6 * kMaxLocal], F[6], Fs[36], Fsd[36];
};

void measure_at(const Element& e, double t, CVec q, CVec v, Measure& m) {
  double lq[kMaxLocal], lv[kMaxLocal];
  for (int i = 0; i < e.local_size(); ++i) {
    lq[i] = q(e.coordinates()[static_cast<size_t>(i)]);
    lv[i] = v(e.coordinates()[static_cast<size_t>(i)]);
  }
  e.measure_tangents(t, lq, lv, m.s, m.J, m.F, m.Fs, m.Fsd);
}

}  // namespace

void DeclaredOutputs::add(DeclaredOutput output) {
  output.first_column = columns_;
  columns_ += static_cast<int>(output.columns.size());
  for (size_t k = 0; k < output.columns.size(); ++k) owner_.push_back(static_cast<int>(outputs_.size()));
  outputs_.push_back(std::move(output));
}

std::vector<NamedQuantity> DeclaredOutputs::columns() const {
  std::vector<NamedQuantity> out;
  for (const auto& o : outputs_) out.insert(out.end(), o.columns.begin(), o.columns.end());
  return out;
}

int DeclaredOutputs::column_index(const std::string& name) const {
  int k = 0;
  for (const auto& o : outputs_)
    for (const auto& c : o.columns) {
      if (c.name == name) return k;
      ++k;
    }
  return -1;
}

void DeclaredOutputs::evaluate_kinematic(const DeclaredOutput& o, double /*t*/, CVec q, CVec v,
                                         CVec a, double* out) const {
  const int n = static_cast<int>(o.coordinates.size());
  const int k = static_cast<int>(o.columns.size());
  if (o.kind == OutputKind::kPosition || o.kind == OutputKind::kDistance ||
      o.kind == OutputKind::kAngle || o.kind == OutputKind::kOrientation) {
    double ql[kMaxLocal];
    for (int i = 0; i < n; ++i) ql[i] = q(o.coordinates[static_cast<size_t>(i)]);
    measure(o, ql, out);
    return;
  }
  // Rates along the path q + s v + s² a / 2: ṡ (velocity) and s̈ = J a + vᵀ∇²s v (acceleration).
  using D2 = Dual<Dual<double, 1>, 1>;
  D2 ql[kMaxLocal];
  for (int i = 0; i < n; ++i) {
    const int g = o.coordinates[static_cast<size_t>(i)];
    ql[i] = seed_path(q(g), v(g), o.kind == OutputKind::kAcceleration ? a(g) : 0.0);
  }
  D2 s[3];
  measure(o, ql, s);
  for (int c = 0; c < k; ++c) out[c] = o.kind == OutputKind::kVelocity ? s[c].v.d[0] : s[c].d[0].d[0];
}

void DeclaredOutputs::evaluate(const AssembledModel& model, double t, CVec q, CVec v, CVec a,
                               CVec lambda, VecRef out) const {
  for (const auto& o : outputs_) {
    double* col = out.data() + o.first_column;
    switch (o.kind) {
      case OutputKind::kElementForce: {
        const Element& e = *model.elements()[static_cast<size_t>(o.element)];
        Measure m;
        measure_at(e, t, q, v, m);
        for (int c = 0; c < e.measure_size(); ++c) col[c] = m.F[c];
        break;
      }
      case OutputKind::kMultiplier:
        for (size_t c = 0; c < o.rows.size(); ++c) col[c] = lambda(o.rows[c]);
        break;
      case OutputKind::kExpression: {
        double x[kMaxExpressionInputs];
        for (size_t i = 0; i < o.inputs.size(); ++i) x[i] = out(o.inputs[i]);
        col[0] = o.value(x);
        break;
      }
      default: evaluate_kinematic(o, t, q, v, a, col);
    }
  }
}

void DeclaredOutputs::tangent_kinematic(const DeclaredOutput& o, int component, CVec q, CVec v,
                                        CVec a, Tangent& out) const {
  const int n = static_cast<int>(o.coordinates.size());
  if (o.kind == OutputKind::kVelocity || o.kind == OutputKind::kAcceleration) {
    // ṡ = J v: ∂/∂q = (∇²s) v, ∂/∂v = J.  s̈ = J a + vᵀ∇²s v: ∂/∂q = ∇(J a + vᵀ∇²s v),
    // ∂/∂v = 2 (∇²s) v, ∂/∂a = J. An outer dual over q (or v) around the path hyper-dual.
    using D2 = Dual<Dual<double, 1>, 1>;
    using D3 = Dual<D2, kMaxLocal>;
    const bool acc = o.kind == OutputKind::kAcceleration;
    for (int pass = 0; pass < 2; ++pass) {  // 0: ∂/∂q, 1: ∂/∂v
      D3 ql[kMaxLocal];
      for (int i = 0; i < n; ++i) {
        const int g = o.coordinates[static_cast<size_t>(i)];
        ql[i] = D3(seed_path(q(g), v(g), acc ? a(g) : 0.0));
        D2 unit;  // ∂(q + s v + s² a/2)/∂q_i = 1; ∂/∂v_i = s
        if (pass == 0) {
          unit.v.v = 1.0;
        } else {
          unit.v.d[0] = 1.0;
          unit.d[0].v = 1.0;
        }
        ql[i].d[static_cast<size_t>(i)] = unit;
      }
      D3 s[3];
      measure(o, ql, s);
      for (int i = 0; i < n; ++i) {
        const D2& d = s[component].d[static_cast<size_t>(i)];
        const double value = acc ? d.d[0].d[0] : d.v.d[0];
        const int g = o.coordinates[static_cast<size_t>(i)];
        (pass == 0 ? out.dq : out.dv)(g) += value;
      }
    }
    if (acc) {  // ∂s̈/∂a = J
      using D = Dual<double, kMaxLocal>;
      D ql[kMaxLocal];
      for (int i = 0; i < n; ++i) ql[i] = D::variable(q(o.coordinates[static_cast<size_t>(i)]), i);
      D s[3];
      measure(o, ql, s);
      for (int i = 0; i < n; ++i) out.da(o.coordinates[static_cast<size_t>(i)]) += s[component].d[static_cast<size_t>(i)];
    }
    return;
  }
  using D = Dual<double, kMaxLocal>;
  D ql[kMaxLocal];
  for (int i = 0; i < n; ++i) ql[i] = D::variable(q(o.coordinates[static_cast<size_t>(i)]), i);
  D s[3];
  measure(o, ql, s);
  for (int i = 0; i < n; ++i) out.dq(o.coordinates[static_cast<size_t>(i)]) += s[component].d[static_cast<size_t>(i)];
}

void DeclaredOutputs::tangent_recursive(const AssembledModel& model, int column, double t, CVec q,
                                        CVec v, CVec a, CVec lambda, double weight, Tangent& out,
                                        const Vec& values) const {
  const DeclaredOutput& o = outputs_[static_cast<size_t>(owner_[static_cast<size_t>(column)])];
  const int component = column - o.first_column;
  switch (o.kind) {
    case OutputKind::kMultiplier:
      out.lambda.emplace_back(o.rows[static_cast<size_t>(component)], weight);
      return;
    case OutputKind::kElementForce: {
      // δF = F_s J_s δq + F_ṡ J_s δv (as the linear output element_force:).
      const Element& e = *model.elements()[static_cast<size_t>(o.element)];
      const int n = e.local_size(), k = e.measure_size();
      Measure m;
      measure_at(e, t, q, v, m);
      for (int i = 0; i < n; ++i) {
        const int g = e.coordinates()[static_cast<size_t>(i)];
        for (int b = 0; b < k; ++b) {
          out.dq(g) += weight * m.Fs[component * k + b] * m.J[b * n + i];
          out.dv(g) += weight * m.Fsd[component * k + b] * m.J[b * n + i];
        }
      }
      return;
    }
    case OutputKind::kExpression: {
      double x[kMaxExpressionInputs];
      for (size_t i = 0; i < o.inputs.size(); ++i) x[i] = values(o.inputs[i]);
      for (size_t i = 0; i < o.inputs.size(); ++i) {
        const double d = o.derivative(x, static_cast<int>(i));
        if (d != 0.0) tangent_recursive(model, o.inputs[i], t, q, v, a, lambda, weight * d, out, values);
      }
      return;
    }
    default: {
      Tangent part;
      part.dq = Eigen::RowVectorXd::Zero(model.nq());
      part.dv = Eigen::RowVectorXd::Zero(model.nq());
      part.da = Eigen::RowVectorXd::Zero(model.nq());
      tangent_kinematic(o, component, q, v, a, part);
      out.dq += weight * part.dq;
      out.dv += weight * part.dv;
      out.da += weight * part.da;
    }
  }
}

DeclaredOutputs::Tangent DeclaredOutputs::tangent(const AssembledModel& model, int column, double t,
                                                  CVec q, CVec v, CVec a, CVec lambda) const {
  Tangent out;
  out.dq = Eigen::RowVectorXd::Zero(model.nq());
  out.dv = Eigen::RowVectorXd::Zero(model.nq());
  out.da = Eigen::RowVectorXd::Zero(model.nq());
  Vec values = Vec::Zero(columns_);
  evaluate(model, t, q, v, a, lambda, values);
  tangent_recursive(model, column, t, q, v, a, lambda, 1.0, out, values);
  return out;
}

}  // namespace gmbd::elements
