// One linear analysis as users run it: equilibrium from a start position, linearisation with
// named inputs and outputs, modes, modal energies and transfer functions on a frequency grid.
#pragma once

#include <string>
#include <vector>

#include "analysis/damping.hpp"
#include "analysis/equilibrium.hpp"
#include "analysis/frequency_response.hpp"
#include "analysis/linear_model.hpp"
#include "analysis/modes.hpp"
#include "analysis/symmetry.hpp"

namespace gmbd::analysis {

struct LinearAnalysisRequest {
  EquilibriumOptions equilibrium;
  /// Solve for the equilibrium (true) or linearise at the start position as given, which must
  /// then already be one (the force residual is checked).
  bool solve_equilibrium = true;
  LinearOptions linear;
  ModeOptions modes;
  /// Frequency grid (Hz); count 0 = automatic: a decade below the lowest to a decade above the
  /// highest mode, 1000 logarithmic points.
  double f_from = 0.0, f_to = 0.0;
  int f_count = 0;
  /// Modes (1-based, ascending order) that get energy tables: all when `energy_include` is
  /// empty, minus `energy_exclude` (MotionSolve's ke/se/de_modes_include/exclude).
  std::vector<int> energy_include, energy_exclude;
  /// Loss functions per damping tag (none: lossless) and dissipation dilution (Stage 0A: off).
  LossModel losses;
  bool dilution = true;
  /// Equivalent viscous losses in the state space at this frequency (Hz; 0 = only exact ones).
  double viscous_at_hz = 0.0;
  /// Thermal-noise spectra of these position outputs (names from `linear.outputs` or any
  /// position output), at `temperature` K, on the transfer-function grid.
  std::vector<std::string> noise_outputs;
  double temperature = 293.15;
};

struct LinearAnalysis {
  Equilibrium equilibrium;
  LinearModel model;
  ModalAnalysis modal;
  std::vector<ModeEnergy> energies;  ///< one per mode (empty tables where not requested)
  std::vector<bool> energy_computed; ///< which modes have tables
  FrequencyResponse response;        ///< state-space transfer functions
  /// "state space" always; the direct E(f) solve is computed too (every 10th frequency) for
  /// second-order models and
  /// its largest relative difference reported (a built-in cross-check).
  double direct_difference = -1.0;
  std::string operating_point;  ///< "static equilibrium" or "state of a transient at t = …"
  /// With loss functions: the transfer functions above come from direct solves of E(f) with
  /// the losses ("direct E(f) with loss functions"), else "state space".
  std::string response_method = "state space";
  /// Q by the complex eigen-iteration, one entry per row of modal.modes (the undamped mode
  /// nearest in frequency; NaN for the second row of a split rigid pair), with the request's
  /// dilution switch and naive (Stage 0A: every tagged stiffness lossy); empty without losses.
  std::vector<ModeQuality> quality, quality_naive;
  /// Thermal noise: one-sided displacement PSD (rows: response.frequencies; columns: outputs).
  std::vector<std::string> noise_outputs;
  Mat noise_psd;
  double temperature = 0.0;
  /// Symmetry blocks of the modes (mirror-symmetric suspensions).
  SymmetryReport symmetry;
};

LinearAnalysis run_linear_analysis(const elements::AssembledModel& model, CVec q_start,
                                   CVec z_start, const LinearAnalysisRequest& request);

/// The same about a given operating point (a state of a transient: v ≠ 0 allowed for models
/// with holonomic rows only; `equilibrium` of the result then holds that state, 0 iterations).
LinearAnalysis linear_analysis_at(const elements::AssembledModel& model, const OperatingPoint& point,
                                  const LinearAnalysisRequest& request);

}  // namespace gmbd::analysis
