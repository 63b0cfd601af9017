// MATLAB/Octave export of a linear model: a text .m script and a binary .mat (level 5, via matio)
// holding A, B, C, D, E, the eigenvalues and the state/input/output names.
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace gmbd {

/// What the MATLAB files hold; every name list matches its matrix dimension.
struct MatlabLinearExport {
  Mat A, B, C, D, E;
  std::vector<std::string> state_names, input_names, output_names;
  std::vector<std::complex<double>> eigenvalues;  ///< of A (all of them)
  std::vector<double> frequencies_hz, damping_ratios;  ///< mode table, ascending
  std::vector<std::string> mode_names;  ///< dominant coordinate of each mode
  /// With loss functions (else empty): Q per mode with dilution and naive; symmetry blocks.
  std::vector<double> q_losses, q_naive;
  std::vector<std::string> mode_blocks;
  /// Thermal noise (empty without): PSD rows = frequencies, columns = outputs; temperature (K).
  std::vector<double> noise_frequencies_hz;
  std::vector<std::string> noise_outputs;
  Mat noise_psd;
  double temperature = 0.0;
  std::string description;  ///< one line: model file, operating point
};

/// Writes a .m script that defines A, B, C, D, E (full precision, %.17g), state_names,
/// input_names, output_names (cell arrays of char), eigenvalues (complex column), modes (struct
/// with frequency_hz, damping_ratio, name, and when present q_losses, q_naive, block) and
/// thermal_noise (frequency_hz, psd, outputs, temperature_K) — runnable in GNU Octave and MATLAB. Throws
/// InputError naming the path when it cannot be written.
void write_matlab_script(const std::string& path, const MatlabLinearExport& data);

/// Writes the same variables to a MATLAB level-5 .mat file (matio), readable by MATLAB,
/// Octave's load and scipy.io.loadmat. Throws InputError naming the path on failure.
void write_matlab_mat(const std::string& path, const MatlabLinearExport& data);

}  // namespace gmbd
