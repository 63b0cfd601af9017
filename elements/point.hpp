// Named points on bodies or on the ground (optionally sliding along a body-fixed direction by a
// float coordinate), and their binding into an element's local coordinate array.
#pragma once

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

  /// World position P(q). Special-cased by carrier: these few lines are the inner loop of
  /// every element evaluation (bench/bench_elements.cpp), and a dual-number 3×3 product for a
  /// ground point or a planar rotation costs several times the direct formula.
  template <class T>
  Vec3<T> position(const T* q) const {
    if (slide_offset >= 0) return general_position(q);
    if (!body) {
      const Vec3<double> w = ground->origin + ground->rotation * local;
      return lift<T>(w);
    }
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
