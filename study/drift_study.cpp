// The drift study: configurations per drawn initial condition, each (integrator, stabilisation,
// dt, tolerance) cell run over them, cells reported as they finish; interruptible between runs.
// Also the reference histories of convergence studies: reading them, comparing output rows.
#include "study/drift_study.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string_view>

#include "core/errors.hpp"
#include "integrators/integrator.hpp"
#include "simulation/output_grid.hpp"

namespace gmbd {
namespace {

// Output rows and reference rows are the same instant when |Δt| ≤ 1e-9·max(1, |t|).
bool same_time(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A field as quoted in a message: at most 40 characters.
std::string excerpt(std::string_view s) {
  return s.size() <= 40 ? std::string(s) : std::string(s.substr(0, 37)) + "...";
}

// Splits a CSV line at commas (no quoting: reference histories hold names and numbers).
std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(trim_view(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

// A whole field as a finite number (strtod: "1e-3", "-0.5", "inf" is refused as not finite).
bool parse_finite(std::string_view field, double& x) {
  if (field.empty()) return false;
  const std::string text(field);
  char* end = nullptr;
  errno = 0;
  x = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(x);
}

std::string time_range(double first, double last) { return fmt::format("t = {:.9g} … {:.9g} s", first, last); }

// Rounds the output interval to a whole number of steps (at least one) and the end time down
// to the step grid, so that every output time is reached by whole fixed steps.
void align_output_grid(TimeConfig& time, double dt) {
  const double per_output = std::max(1.0, std::round(time.output_interval / dt));
  time.output_interval = per_output * dt;
  const double steps = std::floor((time.end - time.start) / dt + 1e-9);
  time.end = time.start + steps * dt;
}

// Rows of the output grid of `time` at a reference time (-1: an invalid grid, which the run
// reports). O(reference rows): row k of the grid is at start + k·interval, the last at the end.
long common_times(const TimeConfig& time, const ReferenceHistory& ref) {
  if (!OutputGrid::check(time.start, time.end, time.output_interval).empty()) return -1;
  const OutputGrid grid(time.start, time.end, time.output_interval);
  const long last = grid.rows() - 1;
  long n = 0;
  for (double t : ref.time) {
    const double k = std::round((t - time.start) / time.output_interval);
    if (!(k >= 0.0)) continue;
    const long row = k > static_cast<double>(last) ? last : static_cast<long>(k);
    if (same_time(grid.time(row), t) || same_time(grid.time(last), t)) ++n;
  }
  return n;
}

// "reference file 'F' (t = a … b s, n rows) and the output of run file 'R' (…): expected …".
std::string no_common_time(const ReferenceHistory& ref, const std::string& run_file, const std::string& output_times,
                           long output_rows, const std::string& method) {
  return fmt::format(
      "reference file '{}' ({}, {} rows) and the output of run file '{}' ({}, {} rows{}): expected at least one "
      "output time equal to a reference time (|Δt| ≤ 1e-9·max(1, |t|)), found none; give the run an output grid "
      "(time.start, time.end, time.output_interval{}) through the reference times",
      ref.path, time_range(ref.time.front(), ref.time.back()), ref.time.size(), run_file, output_times, output_rows,
      method, method.empty() ? "" : ", a dt dividing it");
}

}  // namespace

// ---- reference histories --------------------------------------------------------------------

int ReferenceHistory::column(const std::string& name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  return it == columns.end() ? -1 : static_cast<int>(it - columns.begin());
}

ReferenceHistory read_reference_history(const std::string& path) {
  const std::string who = "reference file '" + path + "'";
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  std::string problem;
  if (!fs::exists(status)) {
    problem = "no such file";
  } else if (fs::is_directory(status)) {
    problem = "a directory";
  } else if (!fs::is_regular_file(status)) {
    problem = "a device, pipe or socket";  // /dev/zero would never end
  }
  std::ifstream in;
  if (problem.empty()) {
    errno = 0;
    in.open(path, std::ios::binary);
    if (!in) problem = std::string("a file that cannot be read") + (errno != 0 ? std::string(" (") + std::strerror(errno) + ")" : "");
  }
  if (!problem.empty()) {
    throw InputError(who + ": expected a readable CSV file (a header line 'time,NAME,…' and rows of numbers), found " + problem);
  }
  ReferenceHistory ref;
  ref.path = path;
  std::string line;
  int number = 0;
  const auto where = [&](int line_number, size_t column) {
    return fmt::format("{} line {}, column {} ('{}')", who, line_number, column + 1,
                       column < ref.columns.size() ? ref.columns[column] : std::string("?"));
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.find('\0') != std::string::npos) {
      throw InputError(fmt::format("{} line {}: expected text (a CSV file), found a NUL byte (binary data)", who, number));
    }
    std::string_view text = trim_view(line);
    if (number == 1 && text.substr(0, 3) == "\xEF\xBB\xBF") text = trim_view(text.substr(3));  // a UTF-8 byte-order mark
    if (text.empty() || text.front() == '#') continue;
    const std::vector<std::string_view> fields = split_commas(text);
    if (ref.columns.empty()) {  // the header
      ref.header_line = number;
      if (fields.front() != "time" && fields.front() != "t") {
        double x = 0.0;
        throw InputError(fmt::format("{} line {}, column 1: expected the header's time column 'time' (or 't'), found '{}'{}",
                                     who, number, excerpt(fields.front()),
                                     parse_finite(fields.front(), x) ? " (a number: the file needs a header line naming its columns)" : ""));
      }
      if (fields.size() < 2) {
        throw InputError(fmt::format("{} line {}: expected a header naming the time column and at least one value "
                                     "column ('time,NAME,…'), found only '{}'", who, number, excerpt(text)));
      }
      for (size_t j = 0; j < fields.size(); ++j) {
        if (fields[j].empty()) {
          throw InputError(fmt::format("{} line {}, column {}: expected a column name, found an empty field", who, number, j + 1));
        }
        for (size_t k = 0; k < j; ++k) {
          if (fields[k] == fields[j]) {
            throw InputError(fmt::format("{} line {}, column {}: expected a name not used before, found '{}' "
                                         "(also column {})", who, number, j + 1, excerpt(fields[j]), k + 1));
          }
        }
        ref.columns.emplace_back(fields[j]);
      }
      ref.values.assign(ref.columns.size(), {});
      continue;
    }
    if (fields.size() != ref.columns.size()) {
      throw InputError(fmt::format("{} line {}: expected {} fields (as the header at line {}), found {} in '{}'", who,
                                   number, ref.columns.size(), ref.header_line, fields.size(), excerpt(text)));
    }
    for (size_t j = 0; j < fields.size(); ++j) {
      double x = 0.0;
      if (!parse_finite(fields[j], x)) {
        throw InputError(fmt::format("{}: expected a finite number, found '{}'", where(number, j), excerpt(fields[j])));
      }
      ref.values[j].push_back(x);
    }
    const double t = ref.values[0].back();
    if (!ref.time.empty() && !(t > ref.time.back())) {
      throw InputError(fmt::format("{}: expected a time greater than {} (line {}): times must increase, found '{}'",
                                   where(number, 0), ref.time.back(), ref.lines.back(), excerpt(fields[0])));
    }
    ref.time.push_back(t);
    ref.lines.push_back(number);
  }
  if (in.bad()) throw InputError(who + ": reading failed after line " + std::to_string(number) + " (" + std::strerror(errno) + ")");
  if (ref.columns.empty()) {
    throw InputError(fmt::format("{}: expected a header line ('time,NAME,…') and rows, found {}", who,
                                 number == 0 ? std::string("an empty file") : fmt::format("only comments or blank lines ({} lines)", number)));
  }
  if (ref.time.empty()) {
    throw InputError(fmt::format("{} line {}: expected at least one row of numbers after the header (line {}), found "
                                 "the end of the file", who, number, ref.header_line));
  }
  return ref;
}

ComparedQuantity parse_compared_quantity(const std::string& text) {
  ComparedQuantity q;
  q.text = text;
  const size_t eq = text.find('=');
  q.name = std::string(trim_view(std::string_view(text).substr(0, eq)));
  q.column = eq == std::string::npos ? q.name : std::string(trim_view(std::string_view(text).substr(eq + 1)));
  const std::string bare = q.name.rfind("v:", 0) == 0 ? q.name.substr(2) : q.name;
  if (bare.empty() || q.column.empty()) {
    throw InputError("--compare '" + text + "': expected NAME, v:NAME or NAME=COLUMN (a model coordinate, its "
                     "velocity or a derived output, and a reference column), found an empty " +
                     (bare.empty() ? "name" : "column"));
  }
  return q;
}

ReferenceComparison::ReferenceComparison(std::shared_ptr<const ReferenceHistory> reference,
                                         std::vector<ComparedQuantity> quantities)
    : reference_(std::move(reference)), quantities_(std::move(quantities)) {
  const ReferenceHistory& ref = *reference_;
  for (const auto& q : quantities_) {
    const int c = ref.column(q.column);
    if (c <= 0) {
      std::string names;
      for (size_t j = 1; j < ref.columns.size(); ++j) names += (j > 1 ? ", " : "") + ref.columns[j];
      throw InputError(fmt::format("reference file '{}' line {} (header): --compare {}: expected a value column named "
                                   "'{}', found {}; the value columns are: {}", ref.path, ref.header_line, q.text,
                                   q.column, c == 0 ? "the time column" : "none", names));
    }
    columns_.push_back(c);
  }
}

void ReferenceComparison::start(const Model& model) {
  bound_.clear();
  const auto& coords = model.coordinates();
  const std::vector<NamedQuantity> outputs = model.output_quantities();
  for (size_t k = 0; k < quantities_.size(); ++k) {
    const ComparedQuantity& q = quantities_[k];
    Bound b;
    b.column = columns_[k];
    const bool velocity = q.name.rfind("v:", 0) == 0;
    const std::string name = velocity ? q.name.substr(2) : q.name;
    const auto coord = std::find_if(coords.begin(), coords.end(), [&](const NamedQuantity& c) { return c.name == name; });
    const auto out = std::find_if(outputs.begin(), outputs.end(), [&](const NamedQuantity& o) { return o.name == name; });
    if (coord != coords.end()) {
      b.kind = velocity ? Kind::velocity : Kind::position;
      b.index = static_cast<int>(coord - coords.begin());
    } else if (!velocity && out != outputs.end()) {
      b.kind = Kind::output;
      b.index = static_cast<int>(out - outputs.begin());
    } else {
      std::string cs, os;
      for (size_t i = 0; i < coords.size() && i < 40; ++i) cs += (i ? ", " : "") + coords[i].name;
      if (coords.size() > 40) cs += fmt::format(", … ({} in all)", coords.size());
      for (size_t i = 0; i < outputs.size() && i < 40; ++i) os += (i ? ", " : "") + outputs[i].name;
      if (outputs.size() > 40) os += fmt::format(", … ({} in all)", outputs.size());
      throw InputError(fmt::format("--compare {}: expected {} of the model, found no '{}'; the coordinates are: {}{}",
                                   q.text, velocity ? "a coordinate after 'v:'" : "a coordinate, v:COORDINATE or a derived output",
                                   name, cs, velocity ? std::string() : "; the derived outputs are: " + (os.empty() ? std::string("none") : os)));
    }
    bound_.push_back(b);
  }
  cursor_ = 0;
  result_ = ReferenceError{};
}

void ReferenceComparison::add(const OutputSample& s) {
  const ReferenceHistory& ref = *reference_;
  if (result_.rows++ == 0) result_.first_time = s.time;
  result_.last_time = s.time;
  while (cursor_ < ref.time.size() && ref.time[cursor_] < s.time && !same_time(s.time, ref.time[cursor_])) ++cursor_;
  if (cursor_ == ref.time.size() || !same_time(s.time, ref.time[cursor_])) return;  // the reference lacks this row
  double e = 0.0;
  for (const Bound& b : bound_) {
    const double value = b.kind == Kind::position ? s.q[b.index] : b.kind == Kind::velocity ? s.v[b.index] : s.outputs[b.index];
    const double d = std::abs(value - ref.values[static_cast<size_t>(b.column)][cursor_]);
    if (std::isnan(d) || d > e) e = d;  // a NaN value is no agreement: it stays NaN
    if (std::isnan(e)) break;
  }
  if (result_.compared_rows++ == 0 || std::isnan(e)) {
    result_.error = e;
  } else if (!std::isnan(result_.error)) {
    result_.error = std::max(result_.error, e);
  }
  ++cursor_;
}

void ReferenceComparison::require_match(const RunSummary& summary, const std::string& run_file) const {
  if (!summary.completed || result_.compared_rows > 0) return;
  throw InputError(no_common_time(*reference_, run_file,
                                  result_.rows > 0 ? time_range(result_.first_time, result_.last_time) : "no rows",
                                  result_.rows, ""));
}

// ---- the study -------------------------------------------------------------------------------

void DriftMaxima::add(const RunSummary& s) {
  g = std::max(g, s.max_position_residual);
  gv = std::max(gv, s.max_velocity_residual);
  energy = std::fmax(energy, s.max_energy_error);  // fmax ignores NaN (energy not conserved)
  correction = std::max(correction, s.max_correction);
}

void DriftMaxima::add(const RunSummary& s, const ReferenceError& e) {
  add(s);
  if (e.compared_rows > 0) {
    // NaN (a NaN value was compared) stays NaN: fmax would hide it.
    if (compared_runs++ == 0 || std::isnan(e.error)) {
      error = e.error;
    } else if (!std::isnan(error)) {
      error = std::max(error, e.error);
    }
  }
  compared_rows = compared_rows < 0 ? e.compared_rows : std::min(compared_rows, e.compared_rows);
}

double DriftStudy::observed_order(double e1, double x1, double e2, double x2) {
  if (!(e1 > 0.0 && e2 > 0.0 && x1 > 0.0 && x2 > 0.0) || !std::isfinite(e1) || !std::isfinite(e2) ||
      !std::isfinite(x1) || !std::isfinite(x2) || x1 == x2) {
    return NAN;
  }
  return std::log(e1 / e2) / std::log(x1 / x2);
}

bool DriftStudy::adaptive_method(const IntegratorOptions& base, const std::string& method) {
  IntegratorOptions probe = base;
  probe.method = method;
  probe.dt = 1e-3;  // the run file's dt (maybe 'auto' = 0) is replaced by the study's
  probe.max_step = std::numeric_limits<double>::infinity();
  probe.min_step = std::min(probe.min_step, 1e-14);
  return make_integrator(probe)->adaptive();
}

size_t DriftStudy::cells() const {
  size_t n = 0;
  for (size_t i = 0; i < spec_.integrators.size(); ++i) {
    const size_t per = adaptive_[i] ? std::max<size_t>(1, spec_.dts.size()) * std::max<size_t>(1, spec_.tolerances.size())
                                    : spec_.dts.size();
    n += per * spec_.stabilizations.size();
  }
  return n;
}

DriftStudy::DriftStudy(DriftStudySpec spec) : spec_(std::move(spec)) {
  base_ = load_run_config(spec_.run_file, spec_.overrides);
  for (const auto& method : spec_.integrators) adaptive_.push_back(adaptive_method(base_.integrator, method));
  for (double dt : spec_.dts) {
    if (!(dt > 0.0) || !std::isfinite(dt)) throw InputError(fmt::format("drift study: expected positive time steps, got {}", dt));
  }
  for (double tol : spec_.tolerances) {
    if (!(tol > 0.0) || !std::isfinite(tol)) throw InputError(fmt::format("drift study: expected positive tolerances, got {}", tol));
  }
  if (spec_.dts.empty()) {
    for (size_t i = 0; i < spec_.integrators.size(); ++i) {
      if (!adaptive_[i]) {
        throw InputError("drift study: the fixed-step integrator " + spec_.integrators[i] +
                         " needs time steps (dts); without them only adaptive integrators can run (with tolerances)");
      }
    }
    if (spec_.tolerances.empty()) throw InputError("drift study: expected time steps (dts) or tolerances, found neither");
  }
  if (spec_.reference.empty() != spec_.compare.empty()) {
    throw InputError(spec_.reference.empty() ? "drift study: compared quantities need a reference history"
                                             : "drift study: a reference history needs quantities to compare");
  }
  if (!spec_.reference.empty()) {
    std::vector<ComparedQuantity> quantities;
    for (const auto& text : spec_.compare) quantities.push_back(parse_compared_quantity(text));
    reference_ = std::make_shared<const ReferenceHistory>(read_reference_history(spec_.reference));
    comparison_ = std::make_unique<ReferenceComparison>(reference_, std::move(quantities));
    // Refused before any run (and before a table is written): an output grid of some cell
    // without a reference time, and a compared name the model lacks.
    for (size_t i = 0; i < spec_.integrators.size(); ++i) {
      for (double dt : spec_.dts.empty() ? std::vector<double>{0.0} : spec_.dts) {
        TimeConfig time = base_.time;
        if (!adaptive_[i]) align_output_grid(time, dt);
        if (common_times(time, *reference_) != 0) continue;
        const std::string method = adaptive_[i] ? std::string() : fmt::format(" with {} at dt = {:.9g} s", spec_.integrators[i], dt);
        throw InputError(no_common_time(*reference_, spec_.run_file, fmt::format("{} every {:.9g} s", time_range(time.start, time.end), time.output_interval),
                                        OutputGrid(time.start, time.end, time.output_interval).rows(), method));
      }
    }
    try {
      const PreparedRun probe = prepare_run(base_);
      comparison_->start(*probe.built.model);
    } catch (const NumericalError&) {
      // e.g. an initial state that cannot be projected: each run reports it as its failure
    }
  }
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
  DriftCase c;
  c.method = method;
  c.stabilization = stabilization;
  c.dt = dt;
  c.adaptive = adaptive;
  return run_case(config, c);
}

RunSummary DriftStudy::run_case(const RunConfig& config, const DriftCase& c, ReferenceComparison* comparison) {
  RunConfig cfg = config;
  cfg.integrator.method = c.method;
  cfg.stabilization.method = c.stabilization;
  // For adaptive methods the study's dt is the largest step they may take (and the first);
  // fixed-step methods need the output grid on their step grid.
  if (c.adaptive) {
    if (c.dt > 0.0) {
      cfg.integrator.dt = c.dt;
      cfg.integrator.max_step = c.dt;
    }
    if (!std::isnan(c.tolerance)) {
      cfg.integrator.rtol = c.tolerance;
      cfg.integrator.atol = c.tolerance;
    }
  } else {
    cfg.integrator.dt = c.dt;
    align_output_grid(cfg.time, c.dt);
  }
  RunSummary s;
  try {
    const PreparedRun run = prepare_run(cfg);
    if (comparison != nullptr) {
      comparison->start(*run.built.model);  // InputError for a name the model lacks: not caught
      s = integrate(run, [comparison](const OutputSample& sample) { comparison->add(sample); });
    } else {
      s = integrate(run, [](const OutputSample&) {});
    }
    if (!run.built.model->conserves_energy()) s.max_energy_error = NAN;
  } catch (const NumericalError& e) {  // e.g. the projection of a drawn initial state
    s.failure = fmt::format("preparing the run: {}", e.what());
    s.max_energy_error = NAN;
  }
  return s;
}

bool DriftStudy::run(const std::function<void(const DriftRun&)>& on_run,
                     const std::function<void(const DriftCell&)>& on_cell) const {
  ReferenceComparison* comparison = comparison_.get();
  for (size_t i = 0; i < spec_.integrators.size(); ++i) {
    const std::string& method = spec_.integrators[i];
    const bool adaptive = adaptive_[i];
    // Adaptive methods without dts keep the run file's largest step (0 here); tolerance NaN:
    // the run file's tolerances (and every fixed-step method).
    const std::vector<double> dts = spec_.dts.empty() ? std::vector<double>{0.0} : spec_.dts;
    const std::vector<double> tolerances =
        adaptive && !spec_.tolerances.empty() ? spec_.tolerances : std::vector<double>{NAN};
    const bool tolerance_sweep = tolerances.size() > 1 || !std::isnan(tolerances.front());
    for (const auto& stabilization : spec_.stabilizations) {
      double previous_x = NAN, previous_error = NAN;  // the previous cell of the series
      for (double dt : dts) {
        if (tolerance_sweep) previous_x = previous_error = NAN;  // a series per dt
        for (double tolerance : tolerances) {
          DriftCase c;
          c.method = method;
          c.stabilization = stabilization;
          c.dt = dt;
          c.tolerance = tolerance;
          c.adaptive = adaptive;
          DriftCell cell;
          cell.method = method;
          cell.stabilization = stabilization;
          cell.dt = dt > 0.0 ? dt : base_.integrator.max_step;
          cell.tolerance = tolerance;
          for (size_t k = 0; k < configs_.size(); ++k) {
            DriftRun r;
            r.cell = &cell;
            r.initial_condition = k;
            r.drawn = drawn_.empty() ? nullptr : &drawn_[k];
            r.summary = run_case(configs_[k], c, comparison);
            const RunSummary& s = r.summary;
            if (comparison != nullptr) {
              comparison->require_match(s, spec_.run_file);
              r.reference = comparison->result();
            }
            ++cell.runs;
            if (s.completed) {
              cell.ok.add(s, r.reference);
            } else if (cell.failed++ == 0) {
              cell.first_failure = fmt::format("initial condition {}: {}", k, s.failure);
            }
            cell.all.add(s, r.reference);
            cell.steps += static_cast<double>(s.steps);
            cell.rhs += static_cast<double>(s.rhs_evaluations);
            cell.wall += s.wall_seconds;
            if (on_run) on_run(r);
            if (stop_requested()) return false;  // an unfinished cell is not reported
          }
          const double x = tolerance_sweep ? tolerance : cell.dt;
          const double error = cell.failed == 0 ? cell.ok.error : NAN;
          cell.order = observed_order(previous_error, previous_x, error, x);
          previous_x = x;
          previous_error = error;
          if (on_cell) on_cell(cell);
        }
      }
    }
  }
  return true;
}

}  // namespace gmbd
