// The drift study's CSV tables (study/drift_tables.hpp): columns, number formats (17 significant
// digits: the tables are data), RFC 4180 quoting of messages and drawn values.
#include "study/drift_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/errors.hpp"

namespace gmbd {
namespace {

std::string csv_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

DriftTables::DriftTables(const std::string& cell_csv, const std::string& per_run_csv,
                         const std::vector<VariedValue>& varied) {
  cell_file_.emplace(cell_csv, "drift table", false);
  cells_.open(cell_file_->staging_path());
  if (!cells_) throw InputError("cannot write drift table '" + cell_csv + "'");
  cells_ << "integrator,stabilization,dt,tolerance,max_position_residual,max_velocity_residual,"
            "max_energy_error,max_correction,error,compared_rows,order,steps,rhs_evaluations,wall_seconds,status,"
            "initial_conditions,failed,total_wall_seconds,first_failure\n";
  if (per_run_csv.empty()) return;
  per_run_file_.emplace(per_run_csv, "per-run drift table", false);
  per_run_.open(per_run_file_->staging_path());
  if (!per_run_) throw InputError("cannot write per-initial-condition table '" + per_run_csv + "'");
  per_run_ << "integrator,stabilization,dt,tolerance,initial_condition";
  for (const auto& vv : varied) per_run_ << "," << vv.key;
  per_run_ << ",initial_energy,max_position_residual,max_velocity_residual,max_energy_error,"
              "max_correction,error,compared_rows,steps,rhs_evaluations,wall_seconds,end_time,status,failure\n";
}

void DriftTables::add_run(const DriftRun& r) {
  if (!per_run_file_) return;
  const RunSummary& s = r.summary;
  per_run_ << fmt::format("{},{},{:.17g},{:.17g},{}", r.cell->method, r.cell->stabilization, r.cell->dt,
                          r.cell->tolerance, r.initial_condition);
  if (r.drawn != nullptr) {
    for (const auto& v : r.drawn->values) per_run_ << "," << (v.find(',') == std::string::npos ? v : csv_quote(v));
  }
  per_run_ << fmt::format(",{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{},{},{},{:.6f},{:.17g},{},{}\n",
                          s.initial_energy, s.max_position_residual, s.max_velocity_residual, s.max_energy_error,
                          s.max_correction, r.reference.error, r.reference.compared_rows, s.steps, s.rhs_evaluations,
                          s.wall_seconds, s.end_time, s.completed ? "ok" : s.interrupted ? "interrupted" : "failed",
                          csv_quote(s.failure));
}

void DriftTables::add_cell(const DriftCell& c) {
  const DriftMaxima& m = c.maxima();
  const double n = static_cast<double>(c.runs);
  const long compared = std::max(0L, m.compared_rows);
  cells_ << fmt::format(
      "{},{},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{},{:.17g},{:.17g},{:.17g},{:.6f},{},{},{},{:.6f},{}\n",
      c.method, c.stabilization, c.dt, c.tolerance, m.g, m.gv, m.energy, m.correction, m.error, compared, c.order,
      c.steps / n, c.rhs / n, c.wall / n, c.failed == 0 ? "ok" : "failed", c.runs, c.failed, c.wall,
      csv_quote(c.first_failure));
  cells_.flush();  // each finished cell is on disk (in the staging file) at once
  if (per_run_.is_open()) per_run_.flush();
  check_written();
}

void DriftTables::check_written() const {
  const auto check = [](const std::ofstream& out, const std::optional<StagedFile>& file) {
    if (file && !out.good()) {
      throw std::runtime_error("drift table '" + file->path() + "': writing failed (" + std::strerror(errno) +
                               "); the rows written so far are in '" + file->staging_path() +
                               "' and an earlier table of that name is unchanged");
    }
  };
  check(cells_, cell_file_);
  if (per_run_.is_open()) check(per_run_, per_run_file_);
}

void DriftTables::commit() {
  cells_.flush();
  if (per_run_.is_open()) per_run_.flush();
  check_written();
  cells_.close();
  if (per_run_.is_open()) per_run_.close();
  check_written();  // a failed close sets failbit
  if (cell_file_) cell_file_->commit();
  if (per_run_file_) per_run_file_->commit();
}

}  // namespace gmbd
