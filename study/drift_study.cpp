// The drift study: configurations per drawn initial condition, each (integrator, stabilisation,
// dt) cell run over them, cells reported as they finish; interruptible between runs.
#include "study/drift_study.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "integrators/integrator.hpp"

namespace gmbd {
namespace {

// Rounds the output interval to a whole number of steps (at least one) and the end time down
// to the step grid, so that every output time is reached by whole fixed steps.
void align_output_grid(TimeConfig& time, double dt) {
  const double per_output = std::max(1.0, std::round(time.output_interval / dt));
  time.output_interval = per_output * dt;
  const double steps = std::floor((time.end - time.start) / dt + 1e-9);
  time.end = time.start + steps * dt;
}

}  // namespace

void DriftMaxima::add(const RunSummary& s) {
  g = std::max(g, s.max_position_residual);
  gv = std::max(gv, s.max_velocity_residual);
  energy = std::fmax(energy, s.max_energy_error);  // fmax ignores NaN (energy not conserved)
  correction = std::max(correction, s.max_correction);
}

DriftStudy::DriftStudy(DriftStudySpec spec) : spec_(std::move(spec)) {
  base_ = load_run_config(spec_.run_file, spec_.overrides);
  if (spec_.initial_conditions == 1 && spec_.vary.empty()) {
    configs_.push_back(base_);
    return;
  }
  if (spec_.vary.empty()) {
    varied_ = default_varied_values(base_);
  } else {
    for (const auto& text : spec_.vary) varied_.push_back(parse_varied_value(base_, text));
  }
  drawn_ = draw_initial_conditions(varied_, spec_.initial_conditions, spec_.seed);
  for (const auto& ic : drawn_) {
    std::vector<std::string> overrides = spec_.overrides;
    overrides.insert(overrides.end(), ic.overrides.begin(), ic.overrides.end());
    configs_.push_back(load_run_config(spec_.run_file, overrides));
  }
}

RunSummary DriftStudy::run_case(const RunConfig& config, const std::string& method, const std::string& stabilization,
                                double dt, bool adaptive) {
  RunConfig cfg = config;
  cfg.integrator.method = method;
  cfg.integrator.dt = dt;
  cfg.stabilization.method = stabilization;
  // For adaptive methods the study's dt is the largest step they may take; fixed-step
  // methods need the output grid on their step grid.
  if (adaptive) {
    cfg.integrator.max_step = dt;
  } else {
    align_output_grid(cfg.time, dt);
  }
  RunSummary s;
  try {
    const PreparedRun run = prepare_run(cfg);
    s = integrate(run, [](const OutputSample&) {});
    if (!run.built.model->conserves_energy()) s.max_energy_error = NAN;
  } catch (const NumericalError& e) {  // e.g. the projection of a drawn initial state
    s.failure = fmt::format("preparing the run: {}", e.what());
    s.max_energy_error = NAN;
  }
  return s;
}

bool DriftStudy::run(const std::function<void(const DriftRun&)>& on_run,
                     const std::function<void(const DriftCell&)>& on_cell) const {
  for (const auto& method : spec_.integrators) {
    IntegratorOptions probe = base_.integrator;
    probe.method = method;
    probe.dt = spec_.dts.front();  // the run file's dt (maybe 'auto') is replaced by the study's
    const bool adaptive = make_integrator(probe)->adaptive();
    for (const auto& stabilization : spec_.stabilizations) {
      for (double dt : spec_.dts) {
        DriftCell cell;
        cell.method = method;
        cell.stabilization = stabilization;
        cell.dt = dt;
        for (size_t k = 0; k < configs_.size(); ++k) {
          DriftRun r;
          r.cell = &cell;
          r.initial_condition = k;
          r.drawn = drawn_.empty() ? nullptr : &drawn_[k];
          r.summary = run_case(configs_[k], method, stabilization, dt, adaptive);
          const RunSummary& s = r.summary;
          ++cell.runs;
          if (s.completed) {
            cell.ok.add(s);
          } else if (cell.failed++ == 0) {
            cell.first_failure = fmt::format("initial condition {}: {}", k, s.failure);
          }
          cell.all.add(s);
          cell.steps += static_cast<double>(s.steps);
          cell.rhs += static_cast<double>(s.rhs_evaluations);
          cell.wall += s.wall_seconds;
          if (on_run) on_run(r);
          if (stop_requested()) return false;  // an unfinished cell is not reported
        }
        if (on_cell) on_cell(cell);
      }
    }
  }
  return true;
}

}  // namespace gmbd
