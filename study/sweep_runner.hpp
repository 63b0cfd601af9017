// Running a sweep: the results table laid out from the plan (or resumed from an earlier file),
// the pending runs executed on a pool of worker threads, outcomes written as they arrive.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "io/sweep_results.hpp"
#include "study/sweep_plan.hpp"

namespace gmbd {

/// Progress of a running sweep, as the coordinating thread sees it.
struct SweepProgress {
  long total = 0;      ///< runs in the sweep
  long done = 0;       ///< completed + failed, including those found in an earlier file
  long failed = 0;
  long this_session = 0;       ///< runs finished since this invocation started
  double elapsed = 0.0;        ///< seconds since this invocation started running
  double runs_per_second = 0.0;
  double eta_seconds = 0.0;    ///< NaN until a run has finished
  std::string last;            ///< description of the last finished run
  bool last_failed = false;
};

/// What an existing results file meant for this invocation.
struct SweepResume {
  bool existing = false;     ///< a results file was there
  bool relaid = false;       ///< its plan differed: the table was laid out anew
  long kept = 0;             ///< finished runs taken over (their key is unchanged)
  long added = 0;            ///< runs to compute: new, or with a changed definition (new key)
  long dropped = 0;          ///< finished runs of the earlier file whose key is no longer in the sweep
  std::vector<std::string> notes;  ///< what changed, for the user
};

struct SweepOptions {
  std::string results;  ///< the results file (HDF5)
  int threads = 0;      ///< worker threads; 0: every core
  /// Called on the coordinating thread after each finished run, and every progress_interval.
  std::function<void(const SweepProgress&)> progress;
  double progress_interval = 1.0;
  /// Called once, before any run, with what an existing results file meant.
  std::function<void(const SweepResume&)> resumed;
  /// Statistics the report will need, checked against the model's outputs before any run (a
  /// typo must not end a long sweep at its end); null: not checked.
  const SweepStatisticsSpec* statistics = nullptr;
};

struct SweepSummary {
  long total = 0, completed = 0, failed = 0, pending = 0;
  long ran = 0;           ///< runs executed by this invocation
  double wall_seconds = 0.0;
  bool interrupted = false;
  SweepResume resume;
  std::vector<std::string> outputs;
  int rank = 0;   ///< this process's MPI rank (0 without MPI): only rank 0 holds the totals
  int ranks = 1;
};

/// The table a plan lays out: provenance, records, plan columns; every run pending.
/// `outputs`: the model's derived outputs (names, units), from a prepared run.
SweepTable make_sweep_table(const SweepPlan& plan, const std::vector<std::pair<std::string, std::string>>& outputs);

/// Executes one run of the plan and returns how it ended (never throws for the run's own
/// failures: input errors met on the way — an unreadable record — and numerical failures are
/// outcomes). `history`: when not empty, the run's time histories are written there, every
/// `decimate`-th output row.
SweepRunOutcome execute_sweep_run(const SweepPlan& plan, long run, const std::string& history = {}, int decimate = 1);

/// Runs every run of the plan that the results file does not hold yet, `threads` at a time
/// (dynamic scheduling), writing each outcome as it arrives. An existing file of the same plan
/// is resumed; one of a changed plan is laid out anew with the finished runs whose key is
/// unchanged taken over (SweepResume says what). Stops early, keeping every finished run, when
/// stop_requested() (simulation/run_driver.hpp) becomes true. Throws InputError for a plan whose first
/// run cannot be prepared (bad parameter, input, …) and std::runtime_error when the results
/// cannot be written (e.g. disk full: the message says that every run written before is kept
/// and the same command resumes).
SweepSummary run_sweep(const SweepPlan& plan, const SweepOptions& options);

/// MPI rank and size of this process as mpirun announces them in the environment (0 and 1
/// when not started by mpirun, or when GaussMBD was built without MPI). Under mpirun with more
/// than one rank, run_sweep initialises MPI and spreads the runs: rank 0 hands out runs, writes
/// the results file and reports progress; every rank (0 included) runs runs on its threads
/// (default 1 per rank under MPI). The file is the same, row for row, as a threaded run's.
int sweep_mpi_rank();
int sweep_mpi_size();
/// True when GaussMBD was built with MPI.
bool sweep_mpi_available();

/// What one run of a plan costs, measured on run 0 (gmbd sweep --dry-run).
struct SweepCostEstimate {
  double per_run_seconds = 0.0;   ///< prepare + the whole span's integration, extrapolated
  double prepare_seconds = 0.0;   ///< reading and building (once per run)
  double probe_seconds = 0.0;     ///< simulated time integrated to measure the step cost
  double span_seconds = 0.0;      ///< the run's simulated time span
  std::string failure;            ///< the probe's failure, "" when it completed
};

/// Times run 0: its preparation (model, records, initial state) once, then its integration
/// over a probe (from 5 % of the span, at least 0.5 s, grown until it takes 50 ms of wall time
/// or covers the span), which is extrapolated to the span after a first untimed probe has
/// warmed caches. Per-run preparation and per-step cost are
/// kept apart because they scale differently (docs/sweeps.md, "Cost estimate").
SweepCostEstimate estimate_sweep_run_cost(const SweepPlan& plan);

/// The outputs (name, unit) of the plan's first run: builds it without integrating.
std::vector<std::pair<std::string, std::string>> sweep_outputs(const SweepPlan& plan);

}  // namespace gmbd
