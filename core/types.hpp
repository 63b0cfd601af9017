// Linear-algebra aliases used across GaussMBD: dynamic Eigen vectors/matrices and the
// Ref types through which models read state and write into preallocated workspace storage.
#pragma once

#include <Eigen/Core>

namespace gmbd {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;
/// Read-only view of a contiguous vector (no copy when passed a Vec or a segment of one).
using CVec = Eigen::Ref<const Eigen::VectorXd>;
/// Writable view of a contiguous vector.
using VecRef = Eigen::Ref<Eigen::VectorXd>;
/// Writable view of a column-major matrix block.
using MatRef = Eigen::Ref<Eigen::MatrixXd>;
using CMat = Eigen::Ref<const Eigen::MatrixXd>;

}  // namespace gmbd
