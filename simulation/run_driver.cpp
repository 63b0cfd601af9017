// Run driver implementation: initial-state checks, the output loop, early-stop handling and
// streaming to HDF5/CSV with the metadata a result file must carry.
#include "simulation/run_driver.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <limits>
#include <iomanip>
#include <optional>
#include <sstream>

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "core/coarse_clock.hpp"
#include "core/constraint_rank.hpp"
#include "core/errors.hpp"
#include "integrators/sundials_ida.hpp"
#include "gmbd/version.hpp"
#include "io/csv_writer.hpp"
#include "io/hdf5_writer.hpp"
#include "io/motion_cache.hpp"
#include "builder/model_builder.hpp"
#include "io/motion.hpp"
#include "io/motion_inspect.hpp"
#include "simulation/output_grid.hpp"
#include "io/staged_file.hpp"

namespace gmbd {
namespace {

std::atomic<bool> g_stop_requested{false};

extern "C" void handle_stop_signal(int /*signal*/) { g_stop_requested.store(true); }

// Max |g| and max |[G v + g_t; h]| of a state.
std::pair<double, double> constraint_residuals(const Model& model, double t, CVec q, CVec v) {
  KktSolver kkt(model);
  const Vec z = Vec::Zero(model.nz());
  kkt.assemble(t, q, v, z);
  const auto max_abs = [](const Vec& x) { return x.size() ? x.cwiseAbs().maxCoeff() : 0.0; };
  return {max_abs(kkt.holonomic_value()),
          std::max(max_abs(kkt.holonomic_rate()), max_abs(kkt.nonholonomic_value()))};
}

// The constraint with the largest |residual| (position level only when position_only).
std::string worst_constraint(const Model& model, double t, CVec q, CVec v, double* value,
                             bool position_only = false) {
  KktSolver kkt(model);
  const Vec z = Vec::Zero(model.nz());
  kkt.assemble(t, q, v, z);
  std::string name;
  *value = 0.0;
  const auto scan = [&](const Vec& x, int offset, const char* what) {
    for (int i = 0; i < x.size(); ++i) {
      if (std::abs(x(i)) > std::abs(*value)) {
        *value = x(i);
        name = std::string(what) + " of '" + model.constraint_name(offset + i) + "'";
      }
    }
  };
  scan(kkt.holonomic_value(), 0, "position residual");
  if (position_only) return name;
  scan(kkt.holonomic_rate(), 0, "velocity residual");
  scan(kkt.nonholonomic_value(), model.n_holonomic(), "residual");
  return name;
}

// Names the first non-finite entry of z = [q; v; z_states] for the manifold-loss message.
std::string first_non_finite(const Model& model, CVec z) {
  const int nq = model.nq();
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    if (std::isfinite(z(i))) continue;
    std::ostringstream msg;
    if (i < 2 * nq) {
      msg << (i < nq ? "coordinate '" : "velocity of '")
          << model.coordinate_names()[static_cast<size_t>(i % nq)] << "'";
    } else {
      msg << "state '" << model.state_names()[static_cast<size_t>(i - 2 * nq)] << "'";
    }
    msg << " is " << z(i);
    return msg.str();
  }
  return "";
}

// Stops a run whose state has left the constraint manifold (Baumgarte alone or no
// stabilisation on a hard case): without this the integrator carries on with garbage until a
// KKT matrix happens to be singular. Called at each output row, before the row is written.
void check_on_manifold(const Model& model, const StabilizationConfig& stab, double t, CVec z,
                       double position_residual, double velocity_residual) {
  const int nq = model.nq();
  if (!z.allFinite()) {
    std::ostringstream msg;
    msg << "left the constraint manifold at t = " << t << " s: the state is not finite ("
        << first_non_finite(model, z) << ") with stabilization.method = " << stab.method;
    throw ManifoldLossError(t, msg.str());
  }
  if (!(position_residual > stab.max_residual)) return;
  double worst = 0.0;
  const std::string where = worst_constraint(model, t, z.head(nq), z.segment(nq, nq), &worst, true);
  std::ostringstream msg;
  msg << "left the constraint manifold at t = " << t << " s: max |g| = " << position_residual
      << " > stabilization.max_residual = " << stab.max_residual << " (max |g'|, |h| = "
      << velocity_residual << "; worst: " << where << " = " << worst
      << ") with stabilization.method = " << stab.method;
  if (!stab.uses_dsc()) msg << "; dsc or dsc+baumgarte keeps the state on the manifold";
  throw ManifoldLossError(t, msg.str());
}

// dynamics.evaluate at an output row, then the manifold check. A state far off the manifold
// may already make the KKT matrix singular: then the residuals (computed apart, allocating —
// this is the failure path) decide which message the user sees.
void evaluate_on_manifold(const Model& model, const StabilizationConfig& stab,
                          StabilizedDynamics& dynamics, double t, CVec z) {
  if (!z.allFinite()) check_on_manifold(model, stab, t, z, 0.0, 0.0);
  try {
    dynamics.evaluate(t, z);
  } catch (const NumericalError&) {
    const int nq = model.nq();
    const auto [rp, rv] = constraint_residuals(model, t, z.head(nq), z.segment(nq, nq));
    check_on_manifold(model, stab, t, z, rp, rv);
    throw;
  }
  check_on_manifold(model, stab, t, z, dynamics.position_residual(), dynamics.velocity_residual());
}

/// A quaternion body's orientation or rate given in a run file's `initial.q` / `initial.v` by
/// the names model files accept: `<body>.yaw/.pitch/.roll` (zyx angles, rad) and
/// `<body>.wx/.wy/.wz` (body-frame angular velocity, rad/s). Angles or components not given keep
/// the values of the state they override.
struct QuaternionOverride {
  const elements::Body* body = nullptr;
  std::optional<double> angle[3], omega[3];
  bool e_given = false;  ///< an e0..e3 coordinate was set too
  bool any_angle() const { return angle[0] || angle[1] || angle[2]; }
};

void apply_quaternion_overrides(const RunConfig& cfg, const std::vector<QuaternionOverride>& bodies, VecRef q,
                                VecRef v) {
  for (const auto& o : bodies) {
    const elements::Body& b = *o.body;
    if (o.any_angle() && o.e_given)
      throw InputError(cfg.source + ": initial.q." + b.name + ".yaw/pitch/roll: expected the orientation of "
                       "quaternion body '" + b.name + "' either as Euler parameters (" + b.name +
                       ".e0..e3) or as zyx angles (" + b.name + ".yaw, .pitch, .roll), got both");
    set_quaternion_body_state(b, o.angle, o.omega, q, v, true);
  }
}

// Shortest text that reads back as exactly x (std::to_chars: "0.001", "1e+08", "100000001").
std::string shortest(double x) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, x);
  return std::string(text, result.ptr);
}

// The run's output grid; the reason of an invalid one becomes an InputError naming the run file.
// A fixed-step run needs exactly grid.total_steps() steps: more than integrator.max_steps would
// run for as long as max_steps allows and then fail, so it is refused at once. (An adaptive
// method's step count is not known in advance: its rows need no steps of their own.)
OutputGrid make_output_grid(const RunConfig& cfg, bool adaptive) {
  const std::optional<double> dt = adaptive ? std::nullopt : std::optional<double>(cfg.integrator.dt);
  const std::string reason = OutputGrid::check(cfg.time.start, cfg.time.end, cfg.time.output_interval, dt);
  if (!reason.empty()) {
    throw InputError(cfg.source + ": " + reason +
                     (adaptive ? "" : " (fixed-step method " + cfg.integrator.method + ")"));
  }
  OutputGrid grid(cfg.time.start, cfg.time.end, cfg.time.output_interval, dt);
  if (grid.fixed_step() && grid.total_steps() > cfg.integrator.max_steps) {
    throw InputError(cfg.source + ": time.end − time.start = " + shortest(cfg.time.end - cfg.time.start) +
                     " s at integrator.dt = " + shortest(cfg.integrator.dt) + " s is " +
                     std::to_string(grid.total_steps()) + " fixed steps of " + cfg.integrator.method +
                     "; expected at most integrator.max_steps = " + std::to_string(cfg.integrator.max_steps) +
                     ": choose a larger dt, a shorter run, an adaptive method or a larger "
                     "integrator.max_steps");
  }
  return grid;
}

// An output named like the run file, the model file, a motion file or the other output would
// destroy it: refused before anything is written.
void refuse_outputs_over_inputs(const RunConfig& cfg) {
  refuse_same_files({{"output.hdf5 (-o)", cfg.output.hdf5}, {"output.csv (--csv)", cfg.output.csv}},
                    run_input_files(cfg));
}

// Integrator settings that cannot work, named with the run file's fields; true for an adaptive
// method.
bool check_integrator_settings(const RunConfig& cfg) {
  IntegratorOptions probe = cfg.integrator;
  if (probe.dt == 0.0) probe.dt = 1.0;  // 'auto': judged below with the method known
  const bool adaptive = make_integrator(probe)->adaptive();
  const IntegratorOptions& o = cfg.integrator;
  if (!adaptive && o.dt == 0.0) {
    throw InputError(cfg.source + ": integrator.dt: 'auto' lets an adaptive method (rk45, bs32, ida, "
                     "ida-index3, cvode-bdf, cvode-adams) choose its first step; the fixed-step method " +
                     o.method + " needs a step in s, e.g. dt: 1.0e-3");
  }
  if (adaptive && o.rtol < 1e-15) {
    std::ostringstream msg;
    msg << cfg.source << ": integrator.rtol = " << o.rtol << ": expected ≥ 1e-15; a relative "
        << "tolerance below the round-off of double precision (2.2e-16) cannot be met, so the step "
           "size would collapse (atol = " << o.atol << ")";
    throw InputError(msg.str());
  }
  return adaptive;
}

// Settings that are valid but lose information the user may not expect to lose.
void warn_about_lost_detail(const RunConfig& cfg, const PreparedRun& run, bool adaptive) {
  const double span = cfg.time.end - cfg.time.start;
  if (cfg.time.output_interval > span) {
    spdlog::warn("{}: time.output_interval = {} s is longer than the run (time.end − time.start = {} s): "
                 "only the start and the end are written", cfg.source, cfg.time.output_interval, span);
  }
  if (!adaptive && run.input_sample_interval > 0.0 &&
      cfg.integrator.dt > run.input_sample_interval * (1.0 + 1e-9)) {
    spdlog::warn("{}: integrator.dt = {} s is coarser than the sample interval {} s of a sampled "
                 "input: the fixed-step method {} samples the input only at its own steps and skips "
                 "the samples between them; choose dt ≤ {} s",
                 cfg.source, cfg.integrator.dt, run.input_sample_interval, cfg.integrator.method,
                 run.input_sample_interval);
  }
}


MotionChannel select_channel(const RunConfig& cfg, const InputConfig& in,
                             std::vector<MotionChannel> channels, const std::string& path) {
  const auto list = [&] {
    std::ostringstream out;
    for (const auto& c : channels) out << " [" << c.channel << "] '" << c.component << "'";
    return out.str();
  };
  const std::string where = cfg.source + ": inputs." + in.name;
  if (in.channel >= 0) {
    if (in.channel >= static_cast<int>(channels.size())) {
      throw InputError(where + ".channel: expected 0 … " + std::to_string(channels.size() - 1) +
                       " (" + path + " has" + list() + "), got " + std::to_string(in.channel));
    }
    return channels[static_cast<size_t>(in.channel)];
  }
  if (!in.component.empty()) {
    for (auto& c : channels)
      if (c.component == in.component) return c;
    throw InputError(where + ".component: no channel '" + in.component + "' in " + path +
                     "; it has" + list());
  }
  if (channels.size() != 1) {
    throw InputError(where + ": " + path + " has " + std::to_string(channels.size()) +
                     " channels" + list() + "; choose one with 'channel' or 'component'");
  }
  return channels.front();
}

// What the run file says about a record that its file may not state, named as the run file
// names it in messages ("inputs.floor_x.dt (run.yaml)").
MotionReadOptions read_options(const RunConfig& cfg, const InputConfig& in) {
  MotionReadOptions o;
  o.dt = in.record_dt;
  o.units = in.units;
  o.dt_name = "inputs." + in.name + ".dt (" + cfg.source + ")";
  o.units_name = "inputs." + in.name + ".units (" + cfg.source + ")";
  return o;
}

// Reads or generates every input signal of the run file, scaled as asked.
ModelInputs build_inputs(const RunConfig& cfg) {
  ModelInputs inputs;
  for (const InputConfig& in : cfg.inputs) {
    MotionChannel motion;
    if (in.synthetic) {
      const double duration = in.duration > 0.0 ? in.duration : cfg.time.end - cfg.time.start;
      motion = synthetic_filtered_noise(static_cast<std::uint64_t>(in.seed), duration, in.dt, in.tau);
    } else {
      const std::string path = resolve_run_path(cfg, in.file);
      motion = select_channel(cfg, in, read_motion_file_cached(path, in.format, read_options(cfg, in)), path);
      // A vertical record on a horizontal floor input (or the reverse) runs, but is most likely
      // a wrong channel or component choice.
      if (const std::string w = input_orientation_warning(in.name, motion); !w.empty())
        spdlog::warn("{}: {}", cfg.source, w);
    }
    if (in.peak > 0.0) motion = scale_to_peak(std::move(motion), in.peak);
    inputs.signals.emplace_back(in.name, to_signal(motion, in.scale));
    spdlog::info("input {}: {} (peak {:.4g} m/s², {} samples at {} s)", in.name,
                 inputs.signals.back().second->description(), motion.peak() * std::abs(in.scale),
                 motion.acceleration.size(), motion.dt);
  }
  return inputs;
}

// Progress of a run between output rows (RunProgress): the integrator calls step() after every
// accepted step; a coarse clock read (≈ 6 ns; docs/performance.md, "Output") decides whether a
// report is due. Reports go to the caller's sink or, without one, to the info log every 5 s.
class ProgressReporter {
 public:
  ProgressReporter(const RunConfig& cfg, const ProgressSink& sink, double seconds)
      : sink_(sink),
        interval_(std::chrono::duration_cast<CoarseClock::duration>(
            std::chrono::duration<double>(sink ? seconds : 5.0))),
        started_(CoarseClock::now()),
        last_(started_),
        next_(started_ + interval_),
        start_(cfg.time.start),
        end_(cfg.time.end) {}

  /// After each accepted step: nothing but a clock read until a report is due.
  void step(double t, double h, long steps) {
    const auto now = CoarseClock::now();
    if (now < next_) return;
    report(now, t, h, steps, false);
  }
  /// The last report (sinks only: the log needs no "done" line).
  void finish(double t, double h, long steps) {
    if (sink_) report(CoarseClock::now(), t, h, steps, true);
  }
  long rows = 0;

 private:
  void report(CoarseClock::time_point now, double t, double h, long steps, bool finished) {
    RunProgress p;
    p.time = t;
    p.start = start_;
    p.end = end_;
    p.step_size = h;
    p.steps = steps;
    p.rows = rows;
    p.wall_seconds = std::chrono::duration<double>(now - started_).count();
    const double since_last = std::chrono::duration<double>(now - last_).count();
    p.steps_per_second = since_last > 0.0 ? static_cast<double>(steps - last_steps_) / since_last : 0.0;
    const double rate = p.wall_seconds > 0.0 ? (t - start_) / p.wall_seconds : 0.0;  // simulated s per s
    if (finished) {
      p.eta_seconds = 0.0;
    } else if (rate > 0.0) {
      p.eta_seconds = std::max(0.0, end_ - t) / rate;
    }
    p.finished = finished;
    last_ = now;
    last_steps_ = steps;
    next_ = now + interval_;
    if (sink_) {
      sink_(p);
    } else {
      spdlog::info("t = {:.4g} s of {:.4g} s ({:.0f}%), h = {:.2g} s, {} steps", t, end_,
                   100.0 * p.fraction(), h, steps);
    }
  }

  const ProgressSink& sink_;
  CoarseClock::duration interval_;
  CoarseClock::time_point started_, last_, next_;
  long last_steps_ = 0;
  double start_, end_;
};

// The singular-position note of a failure (singular_position_note) at the integrator's last
// accepted state, against the rank at the start of the run. A failure path: allocates; never
// throws (a diagnosis that fails leaves the message as it was).
std::string singular_position_note_at_failure(Integrator& integrator, const PreparedRun& run, int dimension) {
  try {
    const Model& model = *run.built.model;
    if (model.n_constraints() == 0) return "";
    Vec z = Vec::Zero(dimension);
    if (!integrator.state_at_last_step(z)) return "";
    const int regular_rank = constraint_rank(model, run.config.time.start, run.z0.head(model.nq())).rank;
    return singular_position_note(model, integrator.time(), z.head(model.nq()), regular_rank);
  } catch (...) {
    return "";
  }
}

}  // namespace

void apply_initial_overrides(const RunConfig& cfg, const Model& model, VecRef q, VecRef v) {
  std::vector<QuaternionOverride> quaternions;
  if (const auto* assembled = dynamic_cast<const elements::AssembledModel*>(&model))
    for (const auto& b : assembled->bodies())
      if (b.kind == elements::BodyKind::kQuaternion) {
        quaternions.emplace_back();
        quaternions.back().body = &b;
      }
  // The quaternion-body angle (positions) or rate (velocities) a name stands for, if any.
  const auto quaternion_field = [&](const std::string& name, bool positions, int& which) -> QuaternionOverride* {
    for (auto& o : quaternions) {
      const std::string& body = o.body->name;
      if (name.size() <= body.size() + 1 || name.compare(0, body.size(), body) != 0 || name[body.size()] != '.')
        continue;
      const std::string suffix = name.substr(body.size() + 1);
      which = positions ? name_suffix_index(suffix, {"yaw", "pitch", "roll"}) : name_suffix_index(suffix, {"wx", "wy", "wz"});
      if (positions && name_suffix_index(suffix, {"e0", "e1", "e2", "e3"}) >= 0) o.e_given = true;
      return which >= 0 ? &o : nullptr;
    }
    return nullptr;
  };
  const auto apply = [&](const std::vector<std::pair<std::string, double>>& values, VecRef x,
                         const char* field) {
    const bool positions = std::string(field) == "q";
    for (const auto& [name, value] : values) {
      if (!std::isfinite(value)) {
        std::ostringstream msg;
        msg << cfg.source << ": initial." << field << "." << name
            << ": expected a finite number, got " << value;
        throw InputError(msg.str());
      }
      int which = -1;
      if (QuaternionOverride* o = quaternion_field(name, positions, which)) {
        (positions ? o->angle : o->omega)[which] = value;
        continue;
      }
      int index = 0;
      try {
        index = model.coordinate_index(name);
      } catch (const InputError& e) {
        std::string also;
        for (const auto& o : quaternions)
          also += "; for quaternion body '" + o.body->name + "' also " + o.body->name +
                  (positions ? ".yaw, .pitch, .roll" : ".wx, .wy, .wz");
        throw InputError(cfg.source + ": initial." + field + "." + name + ": " + e.what() + also);
      }
      x(index) = value;
    }
  };
  apply(cfg.initial.q, q, "q");
  apply(cfg.initial.v, v, "v");
  apply_quaternion_overrides(cfg, quaternions, q, v);
}

double RunProgress::fraction() const {
  const double span = end - start;
  if (!(span > 0.0)) return 1.0;
  return std::clamp((time - start) / span, 0.0, 1.0);
}

std::string singular_position_note(const Model& model, double t, CVec q, int regular_rank) {
  try {
    if (model.n_constraints() == 0 || !q.allFinite()) return "";
    const ConstraintRankReport r = constraint_rank(model, t, q);
    const int weak = static_cast<int>(r.weakest_rows.size());
    const int first_weak = r.rows - weak;  // pivot position of weakest_rows[0]
    // The weakest of the directions a regular state has: rows beyond them are redundant
    // throughout (a rank-deficient start makes rank > regular_rank; then the current rank).
    const int last = std::min(std::max(r.rank, regular_rank), r.rows) - 1;
    if (last < 0 || last < first_weak) return "";
    std::string names;
    for (int k = first_weak; k <= last; ++k) {
      names += (names.empty() ? "" : ", ") + model.constraint_name(r.weakest_rows[static_cast<size_t>(k - first_weak)]);
    }
    std::ostringstream msg;
    msg << "; near a singular position: the constraint Jacobian's smallest relative singular value is ≈ "
        << std::setprecision(2) << r.weakest_ratios[static_cast<size_t>(last - first_weak)]
        << std::setprecision(6) << " (rank " << r.rank << " of " << r.rows << " rows at t = " << t << " s";
    if (r.rank != regular_rank) msg << ", " << regular_rank << " at the start of the run";
    msg << "); rows whose rank is dropping: " << names;
    return msg.str();
  } catch (...) {
    return "";
  }
}

std::vector<std::pair<std::string, std::string>> run_input_files(const RunConfig& cfg) {
  std::vector<std::pair<std::string, std::string>> inputs = {{"the run file", cfg.source}};
  if (!cfg.model_file.empty()) inputs.emplace_back("the model file", cfg.model_file);  // resolved on load
  for (const InputConfig& in : cfg.inputs) {
    if (!in.synthetic) inputs.emplace_back("the motion file of input " + in.name, resolve_run_path(cfg, in.file));
  }
  return inputs;
}

void request_stop() { g_stop_requested.store(true); }
void clear_stop_request() { g_stop_requested.store(false); }

void install_stop_signal_handlers() {
  // SA_RESETHAND: a second Ctrl-C ends the process at once (the first one asks for a clean stop).
  struct sigaction action {};
  action.sa_handler = handle_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
}

bool stop_requested() { return g_stop_requested.load(); }

BuiltModel build_run_model(const RunConfig& config, const ModelInputs& inputs) {
  ModelRequest request;
  request.source = config.source;
  request.model = config.model;
  request.parameters = config.parameters;
  request.model_file = config.model_file;
  request.model_file_text = config.model_file_text;
  request.model_changes = config.model_changes;
  request.outputs = config.outputs;
  return build_requested_model(request, inputs);
}

StabilizationOptions stabilization_options(const StabilizationConfig& cfg) {
  StabilizationOptions options = StabilizationOptions::from_name(cfg.method);
  options.gains = {cfg.alpha, cfg.beta, cfg.gamma};
  options.dsc_options.tolerance = cfg.dsc_tolerance;
  options.dsc_options.max_iterations = cfg.dsc_max_iterations;
  options.dsc_options.dependent_only = cfg.dsc_mode == "dependent";
  options.dsc_options.use_explicit = cfg.dsc_explicit;
  options.kkt.verify_structure = cfg.verify_structure;
  options.dsc_options.mass_weighted = cfg.dsc_metric == "mass";
  options.kkt.singular_tolerance = cfg.singular_tolerance;
  options.dsc_options.singular_tolerance = cfg.singular_tolerance;
  return options;
}

InitialState initial_state_of_run(const RunConfig& config, const Model& model, Vec q, Vec v,
                                  bool model_projects, const DscOptions& dsc_options) {
  InitialState state;
  apply_initial_overrides(config, model, q, v);
  if (!q.allFinite() || !v.allFinite()) {
    throw InputError(config.source + ": the initial state has non-finite entries");
  }
  const double t0 = config.time.start;
  const auto [rp, rv] = constraint_residuals(model, t0, q, v);
  state.residual = std::max(rp, rv);
  if (state.residual > config.initial.tolerance) {
    double worst = 0.0;
    const std::string where = worst_constraint(model, t0, q, v, &worst);
    if (!config.initial.project && !model_projects) {
      std::ostringstream msg;
      msg << config.source << ": initial state is inconsistent: " << where << " is " << worst
          << " (expected |residual| ≤ initial.tolerance = " << config.initial.tolerance
          << "); set initial.project: true (or --set initial.project=true) to project it onto "
             "the constraints";
      throw InputError(msg.str());
    }
    DscOptions projection = dsc_options;
    projection.use_explicit = true;
    DscProjector projector(model, projection);
    const double size = projector.correct(t0, q, v);
    spdlog::info("projected the initial state onto the constraints: {} was {:.3e}, correction {:.3e}",
                 where, worst, size);
    state.projected = true;
  }
  state.q = std::move(q);
  state.v = std::move(v);
  return state;
}

PreparedRun prepare_run(const RunConfig& config) {
  PreparedRun run;
  run.config = config;
  run.inputs = build_inputs(config);
  const ModelInputs& inputs = run.inputs;
  for (const auto& [name, signal] : inputs.signals) {
    run.input_descriptions.emplace_back(name, signal->description());
    const double interval = signal->sample_interval();
    if (interval > 0.0 && (run.input_sample_interval == 0.0 || interval < run.input_sample_interval)) {
      run.input_sample_interval = interval;
    }
  }
  run.built = build_run_model(config, inputs);
  const Model& model = *run.built.model;
  run.stabilization = stabilization_options(config.stabilization);

  const int nq = model.nq();
  const InitialState initial = initial_state_of_run(config, model, run.built.q0, run.built.v0,
                                                    run.built.project_initial_state,
                                                    run.stabilization.dsc_options);
  run.initial_residual = initial.residual;
  run.projected = initial.projected;
  const Vec& q = initial.q;
  const Vec& v = initial.v;
  refuse_outputs_over_inputs(config);
  const bool adaptive = check_integrator_settings(config);
  make_output_grid(config, adaptive);
  warn_about_lost_detail(config, run, adaptive);
  run.z0 = Vec::Zero(2 * nq + model.nz());
  run.z0.head(nq) = q;
  run.z0.segment(nq, nq) = v;
  return run;
}

RunSummary integrate(const PreparedRun& run, const SampleSink& sink, const ProgressSink& progress,
                     double progress_seconds) {
  const RunConfig& cfg = run.config;
  const Model& model = *run.built.model;
  const int nq = model.nq(), nz = model.nz();
  RunSummary summary;
  summary.max_energy_error = model.has_energy() ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  if (!(progress_seconds > 0.0) || !std::isfinite(progress_seconds)) {
    throw std::invalid_argument("integrate: progress_seconds must be a finite number > 0, got " +
                                shortest(progress_seconds));
  }

  // SUNDIALS methods must not step past the end of the run (inputs end there).
  IntegratorOptions options = cfg.integrator;
  options.stop_time = cfg.time.end;
  options.stop_flag = &g_stop_requested;
  // Progress between output rows, however far apart: after every accepted step (a pointer
  // capture, so the std::function holds it without allocating).
  ProgressReporter reporter(cfg, progress, progress_seconds);
  options.on_step = [r = &reporter](double t, double h, long steps) { r->step(t, h, steps); };
  auto integrator = make_integrator(options);
  const OutputGrid grid = make_output_grid(cfg, integrator->adaptive());

  StabilizedDynamics dynamics(model, run.stabilization);
  // Adaptive methods end steps on the sample instants of recorded inputs (their kinks)
  // instead of stepping across them (docs/integrators.md, "Sampled inputs").
  dynamics.set_inputs(run.inputs);
  Vec z = run.z0;
  const std::vector<NamedQuantity> quantities = model.output_quantities();
  Vec outputs = Vec::Zero(static_cast<Eigen::Index>(quantities.size()));
  for (const auto& quantity : quantities) summary.output_peaks.push_back({quantity.name, quantity.unit});
  const auto started = std::chrono::steady_clock::now();
  double last_position_residual = 0.0, last_velocity_residual = 0.0;

  try {
    integrator->initialize(dynamics, cfg.time.start, run.z0);
    for (long k = 0; k < grid.rows(); ++k) {
      const double t = grid.time(k);
      if (k == 0) {
        z = run.z0;
        if (dynamics.has_projection()) dynamics.project(t, z);
      } else if (grid.fixed_step()) {
        integrator->advance_to_step(grid.step(k), z);
      } else {
        integrator->advance_to(t, z);
      }
      evaluate_on_manifold(model, cfg.stabilization, dynamics, t, z);
      const auto q = z.head(nq), v = z.segment(nq, nq);
      outputs.setZero();
      const double energy = model.energy_and_derived_outputs(
          {t, q, v, dynamics.accelerations(), dynamics.multipliers(), z.tail(nz), dynamics.kkt().forces()},
          outputs);
      if (k == 0) summary.initial_energy = energy;
      if (outputs.size() > 0) {
        for (Eigen::Index j = 0; j < outputs.size(); ++j) {
          OutputPeak& peak = summary.output_peaks[static_cast<size_t>(j)];
          if (std::abs(outputs(j)) > peak.peak) {
            peak.peak = std::abs(outputs(j));
            peak.time = t;
          }
        }
      }
      OutputSample sample{t,
                          q,
                          v,
                          dynamics.multipliers(),
                          z.tail(nz),
                          dynamics.position_residual(),
                          dynamics.velocity_residual(),
                          integrator->take_correction(),
                          energy,
                          outputs};
      sink(sample);
      summary.rows = k + 1;
      reporter.rows = summary.rows;
      summary.end_time = t;
      last_position_residual = sample.residual_position;
      last_velocity_residual = sample.residual_velocity;
      summary.max_position_residual = std::max(summary.max_position_residual, sample.residual_position);
      summary.max_velocity_residual = std::max(summary.max_velocity_residual, sample.residual_velocity);
      summary.max_correction = std::max(summary.max_correction, sample.correction);
      if (model.has_energy()) {
        summary.max_energy_error =
            std::max(summary.max_energy_error, std::abs(energy - summary.initial_energy));
      }
      if (g_stop_requested.load()) {
        summary.interrupted = true;
        summary.failure = "interrupted at t = " + std::to_string(t) + " s";
        break;
      }
    }
    summary.completed = !summary.interrupted;
  } catch (const StopRequested& e) {
    summary.interrupted = true;
    std::ostringstream msg;
    msg << "interrupted at t = " << e.time() << " s (last output row: t = " << summary.end_time << " s)";
    summary.failure = msg.str();
  } catch (const ManifoldLossError& e) {
    summary.failure = e.what();
  } catch (const NumericalError& e) {
    summary.failure = e.what();
    // A failure between output rows (e.g. a singular KKT matrix after a blow-up inside one
    // output interval) says little about how it came about: add the last row's residuals.
    if (summary.rows > 0) {
      std::ostringstream context;
      context << " (last output row: t = " << summary.end_time << " s, max |g| = "
              << last_position_residual << ", max |g'|, |h| = " << last_velocity_residual << ")";
      summary.failure += context.str();
    }
    // A step size that collapses (or a solve that fails) near a singular position of the
    // constraints: name the rows whose rank is dropping.
    summary.failure += singular_position_note_at_failure(*integrator, run, dynamics.dimension());
  }
  const auto& stats = integrator->stats();
  // How far the run got: the end of the run exactly when it completed (the integrator's
  // t0 + N·dt may differ from it by rounding), else the last accepted step.
  reporter.finish(summary.completed ? summary.end_time : integrator->time(), stats.last_step, stats.steps);
  summary.steps = stats.steps;
  summary.rejected_steps = stats.rejected_steps;
  summary.rhs_evaluations = stats.rhs_evaluations;
  summary.dependent_untested_from = stats.dependent_untested_from;
  if (stats.dependent_untested_from >= 0.0) {
    spdlog::warn("{}: from t = {} s the integrator ({}) left the DSC-dependent coordinates and "
                 "velocities out of its error test: a convergence failure recurred right after a "
                 "restart (a dependent coordinate turning faster than any useful step, e.g. a "
                 "rolling ball passing within round-off of its dish centre); they are still held "
                 "by the constraint rows and projected at every output (docs/theory.md §4)",
                 cfg.name, stats.dependent_untested_from, cfg.integrator.method);
  }
  // The index-3 DAE holds no velocity constraint: through a singular position it can leave
  // the physical branch where the GGL formulation does not (docs/benchmarks.md#a02).
  if (const auto* ida = dynamic_cast<const SundialsIda*>(integrator.get());
      ida != nullptr && cfg.integrator.method == "ida-index3" && ida->singular_windows() > 0) {
    spdlog::warn("{}: ida-index3 opened {} singular window(s) near singular positions of the "
                 "constraints; the index-3 formulation can leave the physical branch there (A02: 2.0 m "
                 "at rtol 1e-6) — check the result against integrator.method = ida",
                 cfg.name, ida->singular_windows());
  }
  summary.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

namespace {

ResultLayout make_layout(const PreparedRun& run, const std::string& run_file_text) {
  const RunConfig& cfg = run.config;
  const Model& model = *run.built.model;
  ResultLayout layout;
  layout.coordinates = model.coordinate_names();
  layout.constraints = model.constraint_names();
  layout.states = model.state_names();
  for (const auto& c : model.coordinates()) layout.coordinate_units.push_back(c.unit);
  for (const auto& st : model.states()) layout.state_units.push_back(st.unit);
  layout.has_energy = model.has_energy();
  layout.expected_rows = OutputGrid(cfg.time.start, cfg.time.end, cfg.time.output_interval).rows();
  for (const auto& quantity : model.output_quantities()) {
    layout.outputs.push_back(quantity.name);
    layout.output_units.push_back(quantity.unit);
  }
  layout.string_attributes = {
      {"program", "GaussMBD gmbd"},
      {"version", kVersion},
      {"run_name", cfg.name},
      {"run_file", cfg.source},
      {"run_file_text", run_file_text},
      {"model", model.type()},
      {"integrator", cfg.integrator.method},
      {"stabilization", run.stabilization.name()},
      {"dsc_mode", cfg.stabilization.dsc_mode},
      {"dsc_metric", cfg.stabilization.dsc_metric},
      // docs/theory.md §1.5: with redundant rows the multipliers are not unique.
      {"multipliers", "minimum-norm (lambda = pinv(A^T) (f - M a)) where constraint rows are redundant"},
  };
  layout.numeric_attributes = {
      {"dt", cfg.integrator.dt},
      {"rtol", cfg.integrator.rtol},
      {"atol", cfg.integrator.atol},
      {"max_step", cfg.integrator.max_step},
      {"singular_tolerance", cfg.stabilization.singular_tolerance},
      {"baumgarte_alpha", cfg.stabilization.alpha},
      {"baumgarte_beta", cfg.stabilization.beta},
      {"baumgarte_gamma", cfg.stabilization.gamma},
      {"dsc_tolerance", cfg.stabilization.dsc_tolerance},
      {"max_residual", cfg.stabilization.max_residual},
      {"t_start", cfg.time.start},
      {"t_end", cfg.time.end},
      {"output_interval", cfg.time.output_interval},
      {"initial_residual", run.initial_residual},
      {"initial_projected", run.projected ? 1.0 : 0.0},
  };
  // Degrees of freedom from the rank of the constraint Jacobian at the initial state
  // (docs/theory.md §1.5): redundant rows are named, not counted.
  const ConstraintRankReport rank =
      constraint_rank(model, cfg.time.start, run.z0.head(model.nq()));
  layout.numeric_attributes.emplace_back("constraint_rank", rank.rank);
  layout.numeric_attributes.emplace_back("configuration_dof", rank.configuration_dof);
  layout.numeric_attributes.emplace_back("velocity_dof", rank.velocity_dof);
  layout.string_attributes.emplace_back("redundant_constraints", rank.redundant_names(model));
  for (const auto& [name, description] : run.input_descriptions) {
    layout.string_attributes.emplace_back("input." + name, description);
  }
  for (const auto& [name, value] : model.parameter_record()) {
    layout.numeric_attributes.emplace_back("parameter." + name, value);
  }
  if (run.built.file) {
    const ModelFileSpec& file = *run.built.file;
    layout.string_attributes.emplace_back("model_file", file.source);
    layout.string_attributes.emplace_back("model_file_text", file.text);
    for (const auto& p : file.parameters.entries())
      layout.string_attributes.emplace_back("parameter_origin." + p.name,
                                            std::string(to_string(p.origin)) +
                                                (p.origin_detail.empty() ? "" : ": " + p.origin_detail) +
                                                " (" + p.expression + ")");
  }
  return layout;
}

}  // namespace

RunSummary run_to_files(const PreparedRun& run, const std::string& run_file_text, int keep_every,
                        const ProgressSink& progress) {
  if (keep_every < 1) throw std::invalid_argument("run_to_files: keep_every must be >= 1");
  const RunConfig& cfg = run.config;
  const ResultLayout layout = make_layout(run, run_file_text);
  Hdf5ResultWriter h5(cfg.output.hdf5, layout, cfg.output.flush_rows, cfg.output.compression,
                      cfg.output.flush_seconds);
  // On disk at once: a process killed before its first flush leaves a file that says so.
  h5.set_attribute("status", "running (or ended without recording its end: killed, crashed or "
                             "power lost; process " + std::to_string(::getpid()) + ")");
  h5.flush();
  std::optional<CsvResultWriter> csv;
  // An error that is not the run's own (a full disk, an unwritable CSV, …): the status says
  // what happened, the rows so far stay in the staging files and the earlier results under the
  // requested names are left as they were.
  const auto fail = [&](const std::exception& e) {
    try {
      h5.set_attribute("status", std::string("failed: ") + e.what());
    } catch (const std::exception&) {
      // the disk may be full
    }
    std::string kept = "; the rows written so far are in '" + h5.staging_path() + "'";
    h5.abandon();
    if (csv) csv->abandon();
    if (csv) kept += " and '" + csv->staging_path() + "'";
    kept += " (earlier files of the requested names are unchanged)";
    if (dynamic_cast<const InputError*>(&e) != nullptr) throw InputError(e.what() + kept);
    throw std::runtime_error(e.what() + kept);
  };
  RunSummary summary;
  try {
    if (!cfg.output.csv.empty()) csv.emplace(cfg.output.csv, layout);
    long sample_index = 0;
    // Every flush_seconds of wall time, also between output rows far apart: the rows so far
    // and how far the run got are flushed to disk (a killed run loses at most that much), then
    // the caller's progress display. flush_seconds = 0 (rows only): the display alone, every 1 s.
    const bool record_progress = cfg.output.flush_seconds > 0.0;
    ProgressSink on_progress;
    if (record_progress || progress) {
      on_progress = [&](const RunProgress& p) {
        if (record_progress) {
          h5.record_progress(p.time, p.step_size, p.steps, p.wall_seconds);
          if (csv) csv->flush();
        }
        if (progress) progress(p);
      };
    }
    summary = integrate(
        run,
        [&](const OutputSample& s) {
          if (sample_index++ % keep_every != 0) return;  // decimated histories (sweeps)
          const ResultRow row{s.time, s.q, s.v, s.lambda, s.z, s.residual_position,
                              s.residual_velocity, s.correction, s.energy,
                              s.outputs.size() > 0 ? s.outputs.data() : nullptr};
          h5.append(row);
          if (csv) csv->append(row);
        },
        on_progress, record_progress ? cfg.output.flush_seconds : 1.0);
    // Every row on disk before the status says how the run ended: a disk that fills up on the
    // last rows leaves "failed: …", never "completed" over missing rows.
    h5.flush();
    if (csv) csv->flush();
    const std::string status = summary.completed ? "completed"
                               : summary.interrupted ? "interrupted: " + summary.failure
                                                     : "failed: " + summary.failure;
    h5.set_attribute("status", status);
    h5.set_attribute("wall_seconds", summary.wall_seconds);
    h5.set_attribute("steps", static_cast<double>(summary.steps));
  } catch (const std::exception& e) {
    fail(e);
  }
  // A failure inside close (HDF5's own metadata) leaves the file under its staging name and the
  // message says so; the requested name keeps its earlier file. The CSV closes first, so that
  // the HDF5 file saying "completed" is committed only after both are complete.
  if (csv) {
    try {
      csv->close();
    } catch (const std::exception& e) {
      fail(e);
    }
  }
  h5.close();
  return summary;
}

}  // namespace gmbd
