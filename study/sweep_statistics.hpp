// Statistics of a sweep for the earthquake engineer: IDA curves (peaks against intensity with
// median and 16/84 % percentiles), lognormal fragility fits by maximum likelihood, hazard integration.
#pragma once

#include <string>
#include <vector>

#include "io/sweep_results.hpp"

namespace gmbd {

/// Empirical percentile (0 … 100) by linear interpolation between order statistics
/// (Hyndman & Fan type 7, as numpy.percentile). NaN for no values.
double percentile(std::vector<double> values, double p);

/// Standard normal CDF.
double normal_cdf(double x);

/// One IDA curve set: the peaks of one output at each intensity level, one sample per record
/// (and drawn initial condition) for one design.
struct IdaCurves {
  std::string output, unit;
  int design = 0;
  std::vector<double> intensity;  ///< per level: the level's intensity (median over its runs)
  std::vector<std::string> samples;            ///< "record label" or "record label / ic k"
  std::vector<std::vector<double>> peak;       ///< [sample][level]; NaN for failed/pending runs
  std::vector<double> median, p16, p84;        ///< per level, over the finished runs
  std::vector<int> finished, failed;           ///< per level
};

/// The IDA curves of `output` for every design. Throws InputError naming the output and the
/// outputs the table has when it is absent.
std::vector<IdaCurves> ida_curves(const SweepTable& table, const std::string& output);

/// Lognormal fragility P(peak > threshold | x) = Φ(ln(x/θ)/β), fitted by maximum likelihood to
/// the exceedance counts per intensity level (binomial likelihood; Baker 2015, "Efficient
/// analytical fragility function fitting using dynamic structural analysis").
struct FragilityCurve {
  std::string output;
  double threshold = 0.0;
  int design = 0;
  std::vector<double> intensity;
  std::vector<int> runs, exceeding;   ///< per level: finished runs, runs with peak > threshold
  bool fitted = false;
  double theta = 0.0, beta = 0.0;     ///< median capacity (intensity units), log standard deviation
  std::string note;                   ///< why there is no fit, or what was assumed
  /// Fitted probability at x when fitted, else the observed fractions interpolated in ln x
  /// (constant beyond the levels).
  double probability(double x) const;
};

/// Fits the counts (x_j, n_j, z_j). Needs at least one level with 0 < z_j or z_j < n_j on both
/// sides; otherwise fitted = false with the reason in note.
FragilityCurve fit_fragility(const std::vector<double>& intensity, const std::vector<int>& runs,
                             const std::vector<int>& exceeding);

/// Fragility curves of every design for one output and threshold.
std::vector<FragilityCurve> fragility_curves(const SweepTable& table, const std::string& output, double threshold);

/// A seismic hazard curve: annual rate of exceeding intensity x, interpolated log-log.
struct HazardCurve {
  std::vector<double> intensity, rate;  ///< increasing intensity, decreasing positive rate
  std::string source;
  double rate_at(double x) const;
};

/// Reads a hazard table: lines "intensity, annual rate" (comma, semicolon or blanks; '#'
/// comments and a non-numeric header allowed). Throws InputError naming the file and line for
/// non-numeric values, intensities not increasing, rates not positive or not decreasing,
/// fewer than two points.
HazardCurve read_hazard_curve(const std::string& path);

/// Mean annual rate of exceedance by total probability:
///   λ = ∫ P(peak > y | x) |dλ_IM(x)| ≈ Σ_k P(x̄_k) (λ(x_k) − λ(x_{k+1})) + P(x_max) λ(x_max),
/// on a fine logarithmic grid over the hazard table (the last term: intensities above the table
/// taken at the table's largest).
double annual_exceedance_rate(const FragilityCurve& fragility, const HazardCurve& hazard);

}  // namespace gmbd
