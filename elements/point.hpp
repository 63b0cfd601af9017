// Named points on bodies or on the ground (optionally sliding along a body-fixed direction by a
// float coordinate), and their binding into an element's local coordinate array.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "elements/body.hpp"

namespace gmbd::elements {

/// The ground (structure) frame: fixed pose r₀, R₀ (the support displacement parameters
/// x0, y0, z0 and yaw0, pitch0, roll0 of the model file). A ground that accelerates is handled
/// by writing every coordinate relative to it (uniform inertial field, see assembly.hpp).
struct Ground {
  Vec3<double> origin;
  Mat3<double> rotation = Mat3<double>::identity();
};

/// A point of a body or of the ground, in the carrier's frame:
///   ordinary  P = r + R p
///   sliding   P = r + R (p + s n)   (s a massless "float" coordinate, n a unit vector in the
///                                    body frame: blade tips; docs/model-files.md, points)
struct PointDef {
  std::string name;
  int body = -1;          ///< index into the model's bodies; −1 = ground
  Vec3<double> local;     ///< p
  int slide = -1;         ///< global index of the sliding coordinate; −1 = none
  Vec3<double> direction; ///< n (unit), for sliding points
};

/// A point as one element sees it: the carrier's coordinates sit at `offset` in the element's
/// local coordinate array (and the sliding coordinate at `slide_offset`).
struct PointBinding {
  const Body* body = nullptr;  ///< nullptr: ground
  const Ground* ground = nullptr;
  int offset = 0;
  Vec3<double> local;
  int slide_offset = -1;
  Vec3<double> direction;
  /// World position of a fixed ground point (body == nullptr, no sliding coordinate), computed
  /// once when it is bound: the ground pose is fixed before elements are added.
  Vec3<double> ground_position;

  /// Carrier → world rotation.
  template <class T>
  Mat3<T> rotation(const T* q) const {
    if (!body) {
      Mat3<T> r;
      for (int i = 0; i < 9; ++i) r.m[static_cast<size_t>(i)] = T(ground->rotation.m[static_cast<size_t>(i)]);
      return r;
    }
    return body->orientation(q + offset);
  }

  /// True when closed_form() applies: a ground point or a fixed point of a point or planar
  /// body (no sliding coordinate). Spatial carriers go through the AD path.
  bool has_closed_form() const {
    if (slide_offset >= 0) return false;
    return !body || body->kind == BodyKind::kPoint2 || body->kind == BodyKind::kPoint3 ||
           body->kind == BodyKind::kPlanar;
  }

  /// Position, Jacobian and velocity-product acceleration of the point in closed form
  /// (has_closed_form() carriers only): P, the columns ∂P/∂q_c of the (at most three) local
  /// coordinates c it depends on, and Ṗ = J v and J̇ v (so that P̈ = J a + J̇ v; both zero when v is
  /// nullptr). For a planar
  /// body with p' = R(θ) p: ∂P/∂θ = (−p'_y, p'_x, 0) and J̇ v = −θ̇² p'.
  /// Plain arrays, deliberately without initialisers: closed_form() writes every entry it
  /// reports, and zero-filling two of these per element evaluation was measurable.
  struct Kinematics {
    double position[3], velocity[3], accel_bias[3];
    int columns;
    int column[3];
    double jacobian[3][3];  // jacobian[c] = ∂P/∂q_column[c]
  };
  void closed_form(const double* q, const double* v, Kinematics& k) const {
    if (!body) {
      set3(k.position, ground_position.x, ground_position.y, ground_position.z);
      set3(k.velocity, 0.0, 0.0, 0.0);
      set3(k.accel_bias, 0.0, 0.0, 0.0);
      k.columns = 0;
      return;
    }
    const double* c = q + offset;
    static constexpr double kAtRest[3] = {0.0, 0.0, 0.0};
    const double* w = v ? v + offset : kAtRest;
    const bool three = body->kind == BodyKind::kPoint3;
    k.columns = three ? 3 : 2;
    for (int i = 0; i < k.columns; ++i) {
      k.column[i] = offset + i;
      set3(k.jacobian[i], i == 0 ? 1.0 : 0.0, i == 1 ? 1.0 : 0.0, i == 2 ? 1.0 : 0.0);
    }
    if (body->kind != BodyKind::kPlanar) {
      set3(k.position, c[0] + local.x, c[1] + local.y, (three ? c[2] : 0.0) + local.z);
      set3(k.velocity, w[0], w[1], three ? w[2] : 0.0);
      set3(k.accel_bias, 0.0, 0.0, 0.0);
      return;
    }
    const double sn = std::sin(c[2]), cs = std::cos(c[2]);
    const double tx = cs * local.x - sn * local.y, ty = sn * local.x + cs * local.y;
    k.columns = 3;
    k.column[2] = offset + 2;
    set3(k.jacobian[2], -ty, tx, 0.0);
    // Same association as position(), so both give the same bits.
    set3(k.position, c[0] + cs * local.x - sn * local.y, c[1] + sn * local.x + cs * local.y, local.z);
    set3(k.velocity, w[0] - w[2] * ty, w[1] + w[2] * tx, 0.0);
    const double w2 = w[2] * w[2];
    set3(k.accel_bias, -w2 * tx, -w2 * ty, 0.0);
  }

  /// World position P(q). Special-cased by carrier: these few lines are the inner loop of
  /// every element evaluation (bench/bench_elements.cpp), and a dual-number 3×3 product for a
  /// ground point or a planar rotation costs several times the direct formula.
  template <class T>
  Vec3<T> position(const T* q) const {
    if (slide_offset >= 0) return general_position(q);
    if (!body) return lift<T>(ground_position);
    const T* c = q + offset;
    switch (body->kind) {
      case BodyKind::kPoint2:
        return {c[0] + local.x, c[1] + local.y, T(local.z)};
      case BodyKind::kPoint3:
        return {c[0] + local.x, c[1] + local.y, c[2] + local.z};
      case BodyKind::kPlanar: {
        T sn, cs;
        sincos(c[2], sn, cs);
        return {c[0] + cs * local.x - sn * local.y, c[1] + sn * local.x + cs * local.y, T(local.z)};
      }
      case BodyKind::kSpatial:
      case BodyKind::kQuaternion:
        break;
    }
    return body->position(c) + rotation(q) * lift<T>(local);
  }

 private:
  static void set3(double* out, double x, double y, double z) {
    out[0] = x;
    out[1] = y;
    out[2] = z;
  }
  template <class T>
  Vec3<T> general_position(const T* q) const {
    Vec3<T> p = lift<T>(local);
    if (slide_offset >= 0) p = p + lift<T>(direction) * q[slide_offset];
    if (!body) return lift<T>(ground->origin) + rotation(q) * p;
    if (!body->rotates()) return body->position(q + offset) + p;
    return body->position(q + offset) + rotation(q) * p;
  }
};

/// Collects the global coordinates an element touches (carrier bodies, then sliding
/// coordinates, each once) and binds points to offsets in that local array.
class LocalCoordinates {
 public:
  /// Adds the point's carrier (and sliding coordinate) if new; returns its binding.
  PointBinding bind(const PointDef& point, const std::vector<Body>& bodies, const Ground& ground);
  /// Adds a single global coordinate (e.g. for a force on a coordinate); returns its offset.
  int add_coordinate(int global);
  /// Adds all coordinates of a body; returns the offset of its first one.
  int add_body(const Body& body);
  const std::vector<int>& global() const { return global_; }

 private:
  int offset_of(int global) const;
  std::vector<int> global_;
};

}  // namespace gmbd::elements
