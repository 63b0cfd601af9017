// Eigen-solution of a linear model: eigenvalues, frequencies, damping ratios, Q, mode shapes by
// coordinate name, balancing (TRUE/FALSE/AUTO) and modal kinetic / strain energy distributions.
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "analysis/linear_model.hpp"
#include "core/types.hpp"
#include "elements/assembly.hpp"

namespace gmbd::analysis {

enum class Balancing { kAuto, kOn, kOff };
Balancing parse_balancing(const std::string& text);  ///< "auto" | "true" | "false"
const char* balancing_name(Balancing b);

struct ModeOptions {
  Balancing balancing = Balancing::kAuto;
  bool disable_damping = false;  ///< drop viscous damping for the eigen-solution only
};

using CVecX = Eigen::VectorXcd;

/// One mode: an eigenvalue of A with Im λ ≥ 0 (one of each conjugate pair), or a real one.
struct Mode {
  std::complex<double> eigenvalue;
  double frequency_hz = 0.0;   ///< |λ| / 2π (undamped natural frequency)
  double damping_ratio = 0.0;  ///< −Re λ / |λ| (0 for |λ| = 0)
  double q_factor = 0.0;       ///< 1 / (2ζ), +inf when undamped
  std::string dominant;        ///< coordinate (or state) with the largest kinetic-energy share
  double dominant_share = 0.0; ///< that share, 0…1
  CVecX shape;                 ///< δq over all coordinates (floats included), largest entry 1
  CVecX state;                 ///< the eigenvector of A (same normalisation)
};

struct ModalAnalysis {
  std::vector<Mode> modes;  ///< ascending frequency
  std::string balancing_used;  ///< "none" or "diagonal (powers of 2)"
  double eigenvector_rcond = 0.0;  ///< 1/κ₁(V) of the eigenvector matrix used
};

/// Eigen-solution of A (E = I). AUTO solves unbalanced first and re-solves balanced when
/// rcond(V) < 500 ε (docs/linear-analysis.md §5).
ModalAnalysis modal_analysis(const LinearModel& lm, const ModeOptions& options = {});

/// Parlett–Reinsch diagonal balancing with powers of 2 (D⁻¹ A D); returns D's diagonal.
Vec balance(Mat& A);

/// Modal energy distribution of one mode (docs/linear-analysis.md §6): kinetic shares per body
/// and direction (X, Y, Z, RXX, RYY, RZZ, RXY, RXZ, RYZ; cross terms counted twice), strain
/// shares per element (½ p̂ᵀ K_e p̂, floats included), dissipative shares per element (energy
/// lost per cycle of harmonic motion in the shape, π ω p̂ᴴ C_e p̂ with C_e = −∂f_e/∂v).
/// Each table's fractions sum to 1.
struct EnergyShare {
  std::string owner, component;
  double fraction = 0.0;
};
struct ModeEnergy {
  std::vector<EnergyShare> kinetic, strain, dissipative;
  double peak_kinetic = 0.0;  ///< ½ ω² pᴴ M p for the shape's normalisation (J)
  double strain_total = 0.0;  ///< ½ p̂ᴴ K p̂ (J)
  double dissipated_per_cycle = 0.0;  ///< π ω p̂ᴴ C p̂ over the viscous elements (J)
};
ModeEnergy mode_energy(const elements::AssembledModel& model, const LinearModel& lm,
                       const Mode& mode);

/// The same for many modes: the mass matrix and every element's tangents are evaluated once.
class ModalEnergyCalculator {
 public:
  ModalEnergyCalculator(const elements::AssembledModel& model, const LinearModel& lm);
  ModeEnergy energy(const Mode& mode) const;

 private:
  struct ElementTangent {
    std::string name;
    std::vector<int> coordinates;
    Mat K, C;  ///< local stiffness (incl. constraint curvature) and viscous damping
  };
  const elements::AssembledModel& model_;
  Mat M_;
  Vec q_;  ///< the operating point's coordinates (quaternion bodies' rotations, δφ_b = 2 L(e) δe)
  std::vector<ElementTangent> elements_;
};

}  // namespace gmbd::analysis
