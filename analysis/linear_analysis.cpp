// The linear-analysis sequence (docs/linear-analysis.md §1): equilibrium → linearisation →
// modes and energies → transfer functions, with the direct E(f) solve as a cross-check.
#include "analysis/linear_analysis.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gmbd::analysis {

namespace {

std::vector<double> automatic_grid(const ModalAnalysis& modal) {
  double lo = 0.0, hi = 0.0, top = 0.0;
  for (const auto& m : modal.modes) top = std::max(top, m.frequency_hz);
  for (const auto& m : modal.modes) {
    if (m.frequency_hz <= 1e-9 * top) continue;  // rigid or neutral modes (round-off sized)
    lo = lo == 0.0 ? m.frequency_hz : std::min(lo, m.frequency_hz);
    hi = std::max(hi, m.frequency_hz);
  }
  if (lo == 0.0) return frequency_grid(0.01, 100.0, 1000);
  // A mode above the grid's bound (a nearly massless part) does not stretch the grid past it.
  const double to = std::min(hi * 10.0, kMaxFrequencyHz);
  return frequency_grid(std::min(lo / 10.0, to), to, 1000);
}

double max_relative_difference(const FrequencyResponse& a, const FrequencyResponse& b) {
  double worst = 0.0;
  for (size_t k = 0; k < a.H.size(); ++k) {
    const double scale = std::max(1e-300, a.H[k].cwiseAbs().maxCoeff());
    worst = std::max(worst, (a.H[k] - b.H[k]).cwiseAbs().maxCoeff() / scale);
  }
  return worst;
}

/// Q per undamped mode → one entry per row of the mode table (whose rigid or neutral pairs may
/// split into two rows): each undamped mode, in ascending order, takes the unused row nearest in
/// frequency; rows left over (the second row of a split pair) get NaN.
std::vector<ModeQuality> align_to_modes(const std::vector<ModeQuality>& quality, const ModalAnalysis& modal) {
  std::vector<ModeQuality> out(modal.modes.size());
  std::vector<bool> taken(modal.modes.size(), false);
  for (const auto& q : quality) {
    size_t best = modal.modes.size();
    for (size_t row = 0; row < modal.modes.size(); ++row) {
      if (taken[row]) continue;
      if (best == modal.modes.size() || std::abs(modal.modes[row].frequency_hz - q.frequency_hz) <
                                            std::abs(modal.modes[best].frequency_hz - q.frequency_hz))
        best = row;
    }
    if (best == modal.modes.size()) break;
    taken[best] = true;
    out[best] = q;
  }
  for (size_t row = 0; row < out.size(); ++row)
    if (!taken[row]) {
      out[row].frequency_hz = modal.modes[row].frequency_hz;
      out[row].q = std::numeric_limits<double>::quiet_NaN();
    }
  return out;
}

FrequencyResponse every_tenth(const FrequencyResponse& r) {
  FrequencyResponse sample;
  for (size_t k = 0; k < r.frequencies.size(); k += 10) {
    sample.frequencies.push_back(r.frequencies[k]);
    sample.H.push_back(r.H[k]);
  }
  return sample;
}

/// Loss functions: Q per mode (with the request's dilution and naive), the transfer functions
/// by direct solves of E(f) with the losses, thermal noise. The state-space response stays the
/// cross-check when the losses are viscous (then it holds them exactly).
void add_losses(LinearAnalysis& out, const LinearAnalysisRequest& request, const std::vector<double>& grid) {
  const LinearModel& lm = out.model;
  if (lm.tag_stiffness.empty())
    throw InputError("loss functions are given but no element carries a damping tag");
  const DampedSystem system(lm, request.losses, request.dilution);
  const DampedSystem naive(lm, request.losses, false);
  out.quality = align_to_modes(mode_quality(system), out.modal);
  out.quality_naive = align_to_modes(mode_quality(naive), out.modal);
  const FrequencyResponse state_space = std::move(out.response);
  out.response = system.response(grid);
  out.response_method = "direct E(f) with loss functions";
  if (lm.state_space_losses == "viscous (exact)" && request.dilution)
    out.direct_difference = max_relative_difference(every_tenth(state_space), every_tenth(out.response));
  if (request.noise_outputs.empty()) return;
  std::vector<int> rows;
  for (const auto& name : request.noise_outputs) {
    const auto it = std::find(lm.output_names.begin(), lm.output_names.end(), name);
    if (it == lm.output_names.end())
      throw InputError("thermal noise: '" + name + "' is not an output of the linear model (outputs: the "
                       "defaults are the coordinates; add point: or measure: outputs with --outputs)");
    rows.push_back(static_cast<int>(it - lm.output_names.begin()));
  }
  out.noise_outputs = request.noise_outputs;
  out.temperature = request.temperature;
  out.noise_psd = system.thermal_noise(grid, rows, request.temperature);
}

}  // namespace

LinearAnalysis run_linear_analysis(const elements::AssembledModel& model, CVec q_start,
                                   CVec z_start, const LinearAnalysisRequest& request) {
  LinearAnalysis out;
  EquilibriumOptions options = request.equilibrium;
  if (!request.solve_equilibrium) options.max_iterations = 0;
  const double t = request.equilibrium.time;
  // Wire flexure terms hold the tension of the equilibrium fixed and relax their tangents
  // there (docs/suspensions.md §5): the terms with given tangents act in the equilibrium, so
  // tension and equilibrium are iterated to a fixed point (relaxed terms: one pass).
  if (model.has_flexure_terms()) model.prepare_flexure_terms(t, q_start, false);
  out.equilibrium = find_equilibrium(model, q_start, z_start, options);
  if (model.has_flexure_terms()) {
    int passes = 0;
    for (double change = 1.0; change > 1e-13; ++passes) {
      if (passes == 20)
        throw NumericalError(t, "equilibrium: the wire tensions of the flexure terms did not settle in 20 passes "
                                "(last relative change " + std::to_string(change) + ")");
      change = model.prepare_flexure_terms(t, out.equilibrium.q, true);
      const int before = out.equilibrium.iterations;
      out.equilibrium = find_equilibrium(model, out.equilibrium.q, out.equilibrium.z, options);
      out.equilibrium.iterations += before;
    }
  }
  OperatingPoint point;
  point.t = request.equilibrium.time;
  point.q = out.equilibrium.q;
  point.v = Vec::Zero(model.nq());
  point.z = out.equilibrium.z;
  point.lambda = out.equilibrium.lambda;
  Equilibrium eq = std::move(out.equilibrium);
  out = linear_analysis_at(model, point, request);
  out.equilibrium = std::move(eq);
  out.operating_point = "static equilibrium";
  return out;
}

LinearAnalysis linear_analysis_at(const elements::AssembledModel& model, const OperatingPoint& point,
                                  const LinearAnalysisRequest& request) {
  LinearAnalysis out;
  out.equilibrium.q = point.q;
  out.equilibrium.z = point.z;
  out.equilibrium.lambda = point.lambda;
  out.operating_point = "state of a transient at t = " + std::to_string(point.t) + " s";
  LinearOptions options = request.linear;
  const bool lossy = !request.losses.empty();
  if (!request.noise_outputs.empty() && !lossy)
    throw InputError("thermal noise needs loss functions: give the elements damping tags and the model a "
                     "`losses:` section (docs/suspensions.md)");
  if (lossy) {
    options.losses = &request.losses;
    options.dilution = request.dilution;
    options.viscous_at_hz = request.viscous_at_hz;
  }
  if (!options.outputs.empty())  // noise outputs join explicit outputs
    for (const auto& name : request.noise_outputs)
      if (std::find(options.outputs.begin(), options.outputs.end(), name) == options.outputs.end())
        options.outputs.push_back(name);
  out.model = linearize(model, point, options);
  out.modal = modal_analysis(out.model, request.modes);
  out.symmetry = symmetry_blocks(out.model, out.modal);
  const ModalEnergyCalculator energies(model, out.model);
  for (size_t k = 0; k < out.modal.modes.size(); ++k) {
    const int number = static_cast<int>(k) + 1;
    auto listed = [&](const std::vector<int>& list) {
      return std::find(list.begin(), list.end(), number) != list.end();
    };
    const bool wanted = (request.energy_include.empty() || listed(request.energy_include)) &&
                        !listed(request.energy_exclude);
    out.energy_computed.push_back(wanted);
    out.energies.push_back(wanted ? energies.energy(out.modal.modes[k]) : ModeEnergy{});
  }
  const int count = static_cast<int>(out.modal.modes.size());
  for (const auto* list : {&request.energy_include, &request.energy_exclude})
    for (int m : *list)
      if (m < 1 || m > count)
        throw InputError("energy modes: mode " + std::to_string(m) + " does not exist (the model has " +
                         std::to_string(count) + " modes, numbered from 1)");
  const auto grid = request.f_count > 0 ? frequency_grid(request.f_from, request.f_to, request.f_count)
                                        : automatic_grid(out.modal);
  out.response = state_space_response(out.model, grid);
  if (lossy) {
    add_losses(out, request, grid);
    return out;
  }
  if (out.model.second_order) {
    // The independent direct E(f) solve on every 10th frequency (a cross-check, not a result).
    FrequencyResponse sample;
    std::vector<double> sub;
    for (size_t k = 0; k < grid.size(); k += 10) {
      sub.push_back(grid[k]);
      sample.frequencies.push_back(grid[k]);
      sample.H.push_back(out.response.H[k]);
    }
    out.direct_difference = max_relative_difference(sample, direct_response(out.model, sub));
  }
  return out;
}

}  // namespace gmbd::analysis
