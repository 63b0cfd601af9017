// HDF5 file of a linear analysis (layout in docs/results-format.md, "Linear analysis"): the
// operating point, bases, state-space matrices with names, modes, energies, transfer functions.
#pragma once

#include <string>
#include <vector>

#include "analysis/linear_analysis.hpp"
#include "io/matlab_writer.hpp"

namespace gmbd {

struct LinearFileMetadata {
  std::string model_file, model_file_text, command;
  std::vector<std::pair<std::string, std::string>> attributes;  ///< extra root attributes
  std::string stage;                        ///< calculation stage (docs/suspensions.md §5)
  std::vector<std::string> loss_functions;  ///< "tag: description" per loss function
};

/// Writes (replacing) the HDF5 file. Throws InputError naming the path when it cannot be
/// created or written.
void write_linear_hdf5(const std::string& path, const elements::AssembledModel& model,
                       const analysis::LinearAnalysis& result, const LinearFileMetadata& meta);

/// The MATLAB export's content of a linear analysis.
MatlabLinearExport matlab_export(const analysis::LinearAnalysis& result, const std::string& description);

}  // namespace gmbd
