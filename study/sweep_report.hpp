// The sweep report: IDA, fragility and hazard tables (CSV) written from a results table, the
// statistics a user asked for in the sweep file (or on the command line), and a text summary.
#pragma once

#include <string>
#include <vector>

#include "study/sweep_file.hpp"
#include "io/sweep_results.hpp"

namespace gmbd {

struct SweepReportOptions {
  std::string directory;             ///< where the CSV files go (created)
  SweepStatisticsSpec statistics;    ///< thresholds, hazard file, IDA outputs
};

struct SweepReport {
  std::vector<std::string> files;    ///< CSV files written
  std::vector<std::string> lines;    ///< the summary, one line each (medians, fits, rates)
};

/// Checks, before any run, what the report will need: every threshold and IDA output is one
/// of `outputs`, every threshold finite, the hazard curve readable. Throws InputError naming
/// `source`, the field and the outputs there are.
void check_sweep_statistics(const SweepStatisticsSpec& statistics, const std::vector<std::string>& outputs,
                            const std::string& source);

/// Writes ida_<output>.csv (one row per run: design, sample, level, intensity, peak),
/// ida_summary.csv (median, 16/84 % per output, design and level), fragility.csv (counts,
/// observed fraction, fitted probability, θ, β per output, threshold, design, level) and,
/// with a hazard curve, hazard.csv (mean annual rate of exceedance and return period per
/// output, threshold and design). Without records (no intensity axis) only the per-run peaks
/// are summarised. Throws InputError for an output the table does not have, std::runtime_error
/// when a file cannot be written.
SweepReport write_sweep_report(const SweepTable& table, const SweepReportOptions& options);

}  // namespace gmbd
