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
  std::string description;  ///< one line: model file, operating point
};

/// Writes a .m script that defines A, B, C, D, E (full precision, %.17g), state_names,
/// input_names, output_names (cell arrays of char), eigenvalues (complex column), modes (struct
/// with frequency_hz, damping_ratio, name) — runnable in GNU Octave and MATLAB. Throws
/// InputError naming the path when it cannot be written.
void write_matlab_script(const std::string& path, const MatlabLinearExport& data);

/// Writes the same variables to a MATLAB level-5 .mat file (matio), readable by MATLAB,
/// Octave's load and scipy.io.loadmat. Throws InputError naming the path on failure.
void write_matlab_mat(const std::string& path, const MatlabLinearExport& data);

}  // namespace gmbd
