// Revolute joint set-up: the two normals that complete body b's axis to an orthonormal basis.
#include "elements/revolute.hpp"

namespace gmbd::elements {

RevoluteJoint::RevoluteJoint(std::string name, LocalCoordinates local, PointBinding a,
                             PointBinding b, Vec3<double> axis_a, Vec3<double> axis_b)
    : HolonomicElement(std::move(name)), a_(a), b_(b) {
  set_coordinates(local.global());
  Vec3<double> unused1, unused2, unit_b;
  orthonormal_complement(axis_a, axis_a_, unused1, unused2);
  orthonormal_complement(axis_b, unit_b, normal1_, normal2_);
}

}  // namespace gmbd::elements
