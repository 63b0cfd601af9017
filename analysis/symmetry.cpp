// Classification of modes into the symmetry blocks of a mirror-symmetric suspension
// (docs/suspensions.md §6) by kinetic-energy share, and the off-block stiffness check.
#include "analysis/symmetry.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gmbd::analysis {

std::string symmetry_block_of(const std::string& coordinate) {
  const auto dot = coordinate.rfind('.');
  const std::string tail = dot == std::string::npos ? coordinate : coordinate.substr(dot + 1);
  if (tail == "x" || tail == "pitch") return "LP";
  if (tail == "y" || tail == "roll") return "TR";
  if (tail == "yaw") return "Y";
  if (tail == "z") return "V";
  return "";
}

SymmetryReport symmetry_blocks(const LinearModel& lm, const ModalAnalysis& modal) {
  SymmetryReport r;
  std::vector<std::string> block;
  for (int i : lm.kept) {
    block.push_back(symmetry_block_of(lm.coordinate_names[static_cast<size_t>(i)]));
    if (block.back().empty()) return r;
  }
  if (block.empty() || lm.M.rows() != static_cast<Eigen::Index>(block.size())) return r;
  // Suspensions: spatial bodies (a point-mass model's x, y, z are not the blocks of a mirror).
  const bool angles = std::any_of(lm.kept.begin(), lm.kept.end(), [&](int i) {
    const std::string& name = lm.coordinate_names[static_cast<size_t>(i)];
    return name.ends_with(".yaw") || name.ends_with(".pitch") || name.ends_with(".roll");
  });
  if (!angles) return r;
  // The blocks are those of a model mirror-symmetric in x and y with every body on both mirror
  // planes (x = y = 0 at the operating point): a body off them (a blade-tip clamp at y = ±n)
  // couples its own x to its carrier's yaw, and only symmetric/antisymmetric pairs decouple.
  for (int i : lm.kept) {
    const std::string& name = lm.coordinate_names[static_cast<size_t>(i)];
    if ((name.ends_with(".x") || name.ends_with(".y")) && std::abs(lm.point.q(i)) > 1e-9) return r;
  }
  r.applicable = true;
  const double scale = std::max(1e-300, lm.K.cwiseAbs().maxCoeff());
  for (size_t i = 0; i < block.size(); ++i)
    for (size_t j = 0; j < block.size(); ++j) {
      if (block[i] == block[j]) continue;
      const double c = std::abs(lm.K(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j))) / scale;
      if (c > r.max_off_block) {
        r.max_off_block = c;
        r.worst_pair = lm.coordinate_names[static_cast<size_t>(lm.kept[i])] + " – " +
                       lm.coordinate_names[static_cast<size_t>(lm.kept[j])];
      }
    }
  for (const auto& mode : modal.modes) {
    // Kinetic-energy share per block: Re(ē_i (M e)_i) over the kept coordinates.
    Eigen::VectorXcd e(static_cast<Eigen::Index>(lm.kept.size()));
    for (size_t i = 0; i < lm.kept.size(); ++i) e(static_cast<Eigen::Index>(i)) = mode.shape(lm.kept[i]);
    const Eigen::VectorXcd Me = lm.M * e;
    std::map<std::string, double> share;
    double total = 0.0;
    for (Eigen::Index i = 0; i < e.size(); ++i) {
      const double ke = std::abs((std::conj(e(i)) * Me(i)).real());
      share[block[static_cast<size_t>(i)]] += ke;
      total += ke;
    }
    std::string name = "mixed";
    for (const auto& [b, s] : share)
      if (total > 0.0 && s >= (1.0 - 1e-6) * total) name = b;
    r.mode_block.push_back(name);
  }
  return r;
}

}  // namespace gmbd::analysis
