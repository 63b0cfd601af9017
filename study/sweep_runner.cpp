// Sweep execution: the table from the plan or resumed from an earlier file (kept, changed, added,
// dropped runs), worker threads drawing run indices dynamically, outcomes written by one thread.
#include "study/sweep_runner.hpp"

#include <hdf5.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/errors.hpp"
#include "gmbd/version.hpp"
#include "io/motion_cache.hpp"
#include "simulation/run_driver.hpp"
#include "study/sweep_report.hpp"

#ifdef GMBD_HAVE_MPI
#include <mpi.h>
#endif

namespace gmbd {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string intensity_unit(const std::string& kind) {
  if (kind == "peak_g") return "g";
  if (kind == "peak") return "m/s^2";
  if (kind == "scale") return "m/s^2";  // the scaled record's measure
  return "";
}

double first_number(const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' ? x : kNaN;
}

// The run's outcome from a summary of integrate().
SweepRunOutcome outcome_of(const RunSummary& s) {
  SweepRunOutcome o;
  o.status = s.completed ? SweepRunStatus::kCompleted : SweepRunStatus::kFailed;
  o.message = s.completed ? std::string() : s.failure;
  o.wall_seconds = s.wall_seconds;
  o.end_time = s.end_time;
  o.steps = s.steps;
  o.rejected_steps = s.rejected_steps;
  o.max_residual_position = s.max_position_residual;
  o.max_residual_velocity = s.max_velocity_residual;
  o.max_energy_error = s.max_energy_error;
  for (const auto& p : s.output_peaks) {
    o.peak.push_back(s.rows > 0 ? p.peak : kNaN);
    o.peak_time.push_back(s.rows > 0 ? p.time : kNaN);
  }
  return o;
}

/// The results table to continue from: a new one, the existing file's (same plan), or a new
/// layout with the existing file's finished runs copied where their keys still match.
struct TableStart {
  SweepTable table;
  SweepResume resume;
  bool reopen = false;  // write into the existing file as it is
};

TableStart start_table(SweepTable fresh, const std::string& path) {
  TableStart start;
  start.table = std::move(fresh);
  if (!std::filesystem::exists(path)) return start;
  SweepTable old = read_sweep_table(path);
  start.resume.existing = true;
  const bool same_plan = old.keys == start.table.keys && old.outputs == start.table.outputs &&
                         old.sweep_text == start.table.sweep_text && old.base_text == start.table.base_text;
  if (same_plan) {
    start.reopen = true;
    start.resume.kept = old.runs - old.count(SweepRunStatus::kPending);
    start.table = std::move(old);
    return start;
  }
  // Another study's results are not ours to re-lay out (its finished runs would be dropped).
  if (old.name != start.table.name && old.sweep_file != start.table.sweep_file) {
    throw InputError("sweep results '" + path + "' belong to another sweep ('" + old.name + "', from " + old.sweep_file +
                     "); give another -o, or remove the file to start afresh");
  }
  // A changed sweep: match finished runs by key (a key changes with anything the run depends on).
  start.resume.relaid = true;
  std::unordered_map<std::string, long> finished;
  for (long r = 0; r < old.runs; ++r) {
    if (old.status[static_cast<size_t>(r)] != static_cast<int>(SweepRunStatus::kPending)) finished[old.keys[static_cast<size_t>(r)]] = r;
  }
  std::unordered_map<std::string, bool> new_keys;
  for (long r = 0; r < start.table.runs; ++r) {
    const std::string& key = start.table.keys[static_cast<size_t>(r)];
    new_keys[key] = true;
    if (auto it = finished.find(key); it != finished.end()) {
      start.table.copy_result(r, old, it->second);
      ++start.resume.kept;
    } else {
      ++start.resume.added;
    }
  }
  for (const auto& [key, row] : finished) {
    if (!new_keys.count(key)) ++start.resume.dropped;
  }
  if (old.sweep_text != start.table.sweep_text) start.resume.notes.push_back("the sweep file changed");
  if (old.base_text != start.table.base_text) start.resume.notes.push_back("the base run file changed (every run depends on it)");
  if (old.outputs != start.table.outputs) start.resume.notes.push_back("the model's outputs changed");
  if (old.record_files != start.table.record_files || old.record_channels != start.table.record_channels) {
    start.resume.notes.push_back("the records changed");
  }
  return start;
}

/// Pending run indices handed out one at a time (dynamic scheduling: records differ in length).
class WorkQueue {
 public:
  explicit WorkQueue(std::vector<long> pending) : pending_(std::move(pending)) {}
  /// The next run, or −1 when none is left or a stop was requested.
  long next() {
    if (stop_requested() || stopped_.load()) return -1;
    const size_t k = next_.fetch_add(1);
    return k < pending_.size() ? pending_[k] : -1;
  }
  void stop() { stopped_.store(true); }
  size_t size() const { return pending_.size(); }

 private:
  std::vector<long> pending_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stopped_{false};
};

/// Outcomes handed from the workers to the coordinating thread, which alone writes the file.
class OutcomeQueue {
 public:
  void push(long run, SweepRunOutcome o) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.emplace_back(run, std::move(o));
    }
    ready_.notify_one();
  }
  void worker_done() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++finished_workers_;
    }
    ready_.notify_one();
  }
  /// Waits up to `timeout` for outcomes; returns them (possibly none).
  std::deque<std::pair<long, SweepRunOutcome>> take(std::chrono::duration<double> timeout, int workers, bool* all_done) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return !items_.empty() || finished_workers_ == workers; });
    std::deque<std::pair<long, SweepRunOutcome>> out;
    out.swap(items_);
    *all_done = finished_workers_ == workers && out.empty();
    return out;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<long, SweepRunOutcome>> items_;
  int finished_workers_ = 0;
};

std::string history_path(const SweepPlan& plan, const std::string& results, long run) {
  const SweepTimeHistories& th = plan.spec().time_histories;
  if (!th.enabled) return {};
  std::filesystem::path dir = th.directory;
  if (dir.empty()) {
    const std::filesystem::path r(results);
    dir = r.parent_path() / (r.stem().string() + "_runs");
  }
  // Named by key, not by position: a re-laid-out table moves kept runs to other rows.
  return (dir / ("run_" + plan.key(run) + ".h5")).string();
}

}  // namespace

SweepTable make_sweep_table(const SweepPlan& plan, const std::vector<std::pair<std::string, std::string>>& outputs) {
  SweepTable t;
  const SweepSpec& spec = plan.spec();
  t.name = spec.name;
  t.sweep_file = std::filesystem::absolute(spec.source).lexically_normal().string();
  t.sweep_text = spec.text;
  t.base_file = spec.base;
  t.base_text = spec.base_text;
  t.version = kVersion;
  t.intensity_kind = spec.intensity_kind;
  t.intensity_unit = intensity_unit(spec.intensity_kind);
  for (const auto& [name, unit] : outputs) {
    t.outputs.push_back(name);
    t.output_units.push_back(unit);
  }
  t.parameter_names = plan.parameter_names();
  t.varied_keys = plan.varied_keys();
  t.intensity_levels = plan.intensities();
  for (const auto& r : plan.records()) {
    t.record_labels.push_back(r.label);
    t.record_files.push_back(r.file);
    t.record_formats.push_back(r.format);
    t.record_stations.push_back(r.station);
    t.record_events.push_back(r.event);
    std::string channels;
    for (const auto& c : r.channels) {
      channels += fmt::format("{}{}=ch {} ({}, {})", channels.empty() ? "" : "; ", c.input, c.channel, c.component,
                              c.vertical ? "vertical" : "horizontal");
    }
    t.record_channels.push_back(channels);
    t.record_dt.push_back(r.dt);
    t.record_measure.push_back(r.intensity_measure);
    t.record_points.push_back(r.points);
  }
  t.resize_runs(plan.size());
  const size_t np = t.parameter_names.size(), nv = t.varied_keys.size();
  for (long run = 0; run < plan.size(); ++run) {
    const auto r = static_cast<size_t>(run);
    const SweepRunIndex ix = plan.index(run);
    t.keys[r] = plan.key(run);
    t.record[r] = plan.records().empty() ? -1 : ix.record;
    t.level[r] = ix.intensity;
    t.design[r] = ix.design;
    t.initial_condition[r] = ix.initial_condition;
    t.intensity[r] = plan.intensity_value(run);
    t.scale[r] = plan.scale(run);
    const auto& design = plan.designs()[static_cast<size_t>(ix.design)];
    for (size_t k = 0; k < np; ++k) t.parameters[r * np + k] = design[k];
    const auto& values = plan.initial_condition_values(ix.initial_condition);
    for (size_t k = 0; k < nv && k < values.size(); ++k) t.initial_values[r * nv + k] = first_number(values[k]);
  }
  return t;
}

SweepCostEstimate estimate_sweep_run_cost(const SweepPlan& plan) {
  using clock = std::chrono::steady_clock;
  const auto seconds_since = [](clock::time_point t0) {
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  SweepCostEstimate estimate;
  RunConfig cfg = plan.config(0);
  estimate.span_seconds = cfg.time.end - cfg.time.start;
  // A fixed-step run must end on its step grid: probes are whole numbers of steps.
  const double dt = cfg.integrator.dt;
  const auto on_grid = [&](double probe) {
    if (dt > 0.0 && probe < estimate.span_seconds) probe = std::ceil(probe / dt - 1e-9) * dt;
    return std::min(estimate.span_seconds, probe);
  };
  estimate.probe_seconds = on_grid(std::max(0.5, 0.05 * estimate.span_seconds));
  cfg.time.end = cfg.time.start + estimate.probe_seconds;
  // First pass untimed: records into the motion cache, first-touch page faults, lazy symbol
  // binding — costs a sweep pays once, not per run.
  (void)integrate(prepare_run(cfg), [](const OutputSample&) {});
  auto started = clock::now();
  PreparedRun run = prepare_run(cfg);
  estimate.prepare_seconds = seconds_since(started);
  // The probe grows until its integration takes long enough (50 ms) to be timed reliably on a
  // busy machine, or covers the span: a 2-ms probe scaled ×20 was off by 2× from noise alone.
  double integration = 0.0;
  RunSummary s;
  for (;;) {
    started = clock::now();
    s = integrate(run, [](const OutputSample&) {});
    integration = seconds_since(started);
    if (integration >= 0.05 || estimate.probe_seconds >= estimate.span_seconds || !s.completed) break;
    estimate.probe_seconds = on_grid(estimate.probe_seconds * std::max(2.0, 0.1 / std::max(integration, 1e-4)));
    RunConfig longer = plan.config(0);
    longer.time.end = longer.time.start + estimate.probe_seconds;
    run = prepare_run(longer);
  }
  if (!s.completed) estimate.failure = s.failure;
  const double scale = estimate.probe_seconds > 0.0 ? estimate.span_seconds / estimate.probe_seconds : 1.0;
  estimate.per_run_seconds = estimate.prepare_seconds + integration * scale;
  return estimate;
}

std::vector<std::pair<std::string, std::string>> sweep_outputs(const SweepPlan& plan) {
  // One run per distinct set of driven inputs is prepared: an input the model does not take, a
  // parameter it does not have, fail here, before anything is written.
  std::vector<std::string> seen;
  const long per_record = plan.size() / std::max<long>(1, static_cast<long>(plan.records().size()));
  for (size_t r = 0; r < plan.records().size(); ++r) {
    std::string inputs;
    for (const auto& c : plan.records()[r].channels) inputs += c.input + ",";
    if (std::find(seen.begin(), seen.end(), inputs) != seen.end()) continue;
    seen.push_back(inputs);
    const long run = static_cast<long>(r) * per_record;
    try {
      prepare_run(plan.config(run));
    } catch (const InputError& e) {
      throw InputError(plan.spec().source + ": run " + std::to_string(run) + " (" + plan.describe(run) + "): " + e.what());
    }
  }
  const PreparedRun run = prepare_run(plan.config(0));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& q : run.built.model->output_quantities()) out.emplace_back(q.name, q.unit);
  return out;
}

SweepRunOutcome execute_sweep_run(const SweepPlan& plan, long run, const std::string& history, int decimate) {
  const auto started = std::chrono::steady_clock::now();
  SweepRunOutcome outcome;
  try {
    RunConfig cfg = plan.config(run);
    if (!history.empty()) {
      std::filesystem::create_directories(std::filesystem::path(history).parent_path());
      cfg.output.hdf5 = history;
      cfg.output.csv.clear();
    }
    const PreparedRun prepared = prepare_run(cfg);
    const RunSummary summary = history.empty() ? integrate(prepared, [](const OutputSample&) {})
                                               : run_to_files(prepared, cfg.effective_yaml, decimate);
    outcome = outcome_of(summary);
    if (summary.interrupted) {  // not a result: rerun on resume
      outcome.status = SweepRunStatus::kPending;
      outcome.message.clear();
    }
  } catch (const std::exception& e) {
    // An unreadable record or a model that cannot be built with these parameters: this run's
    // result, not the sweep's end. A full disk under the histories is the sweep's: the run stays
    // pending and the message stops the sweep (resumed once there is room).
    const std::string what = e.what();
    const bool disk_full = !history.empty() && what.find("No space left on device") != std::string::npos;
    outcome.status = disk_full ? SweepRunStatus::kPending : SweepRunStatus::kFailed;
    outcome.message = disk_full ? "time histories: " + what : what;
  }
  outcome.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return outcome;
}


namespace {

// ---- MPI: rank 0 coordinates and writes; every rank runs runs ---------------------------------
// Protocol (MPI_THREAD_SERIALIZED; a mutex serialises each rank's calls): a worker thread of rank
// k > 0 sends kRequest (its thread number) and receives its run on kAssign + thread (−1: none
// left); it sends each outcome as kResult (packed bytes) before asking again, so rank 0 sees it
// first (messages between two ranks do not overtake). Rank k sends kDone when its threads ended.
constexpr int kRequest = 1, kResult = 2, kDone = 3, kAssign = 100;

std::vector<char> pack_outcome(long run, const SweepRunOutcome& o) {
  std::vector<char> out;
  const auto put = [&](const void* p, size_t n) { out.insert(out.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n); };
  const int status = static_cast<int>(o.status);
  const long k = static_cast<long>(o.peak.size()), m = static_cast<long>(o.message.size());
  put(&run, sizeof run);
  put(&status, sizeof status);
  for (double x : {o.wall_seconds, o.end_time, o.max_residual_position, o.max_residual_velocity, o.max_energy_error}) put(&x, sizeof x);
  put(&o.steps, sizeof o.steps);
  put(&o.rejected_steps, sizeof o.rejected_steps);
  put(&k, sizeof k);
  put(o.peak.data(), sizeof(double) * o.peak.size());
  put(o.peak_time.data(), sizeof(double) * o.peak_time.size());
  put(&m, sizeof m);
  put(o.message.data(), o.message.size());
  return out;
}

std::pair<long, SweepRunOutcome> unpack_outcome(const std::vector<char>& in) {
  size_t at = 0;
  const auto get = [&](void* p, size_t n) {
    if (at + n > in.size()) throw std::runtime_error("sweep: a malformed result message from another rank");
    std::memcpy(p, in.data() + at, n);
    at += n;
  };
  long run = 0, k = 0, m = 0;
  int status = 0;
  SweepRunOutcome o;
  get(&run, sizeof run);
  get(&status, sizeof status);
  o.status = static_cast<SweepRunStatus>(status);
  for (double* x : {&o.wall_seconds, &o.end_time, &o.max_residual_position, &o.max_residual_velocity, &o.max_energy_error}) get(x, sizeof *x);
  get(&o.steps, sizeof o.steps);
  get(&o.rejected_steps, sizeof o.rejected_steps);
  get(&k, sizeof k);
  o.peak.resize(static_cast<size_t>(k));
  o.peak_time.resize(static_cast<size_t>(k));
  get(o.peak.data(), sizeof(double) * o.peak.size());
  get(o.peak_time.data(), sizeof(double) * o.peak_time.size());
  get(&m, sizeof m);
  o.message.resize(static_cast<size_t>(m));
  get(o.message.data(), o.message.size());
  return {run, std::move(o)};
}

/// Rank 0's side: answers requests from the threads of other ranks and collects their outcomes.
class RemoteRanks {
 public:
  explicit RemoteRanks(int ranks) : ranks_(ranks) {}
#ifdef GMBD_HAVE_MPI
  void poll(WorkQueue& work, OutcomeQueue& outcomes) {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) return;
      if (st.MPI_TAG == kRequest) {
        int thread = 0;
        MPI_Recv(&thread, 1, MPI_INT, st.MPI_SOURCE, kRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        long run = work.next();
        MPI_Send(&run, 1, MPI_LONG, st.MPI_SOURCE, kAssign + thread, MPI_COMM_WORLD);
      } else if (st.MPI_TAG == kResult) {
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        std::vector<char> buffer(static_cast<size_t>(bytes));
        MPI_Recv(buffer.data(), bytes, MPI_BYTE, st.MPI_SOURCE, kResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        auto [run, outcome] = unpack_outcome(buffer);
        outcomes.push(run, std::move(outcome));
      } else {
        int ignored = 0;
        MPI_Recv(&ignored, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == kDone) ++done_;
      }
    }
  }
#else
  void poll(WorkQueue&, OutcomeQueue&) {}
#endif
  bool finished() const { return done_ == ranks_ - 1; }

 private:
  int ranks_;
  int done_ = 0;
};

SweepSummary run_sweep_local(const SweepPlan& plan, const SweepOptions& options, RemoteRanks* remote) {
  const auto outputs = sweep_outputs(plan);
  if (options.statistics != nullptr) {
    std::vector<std::string> names;
    for (const auto& [name, unit] : outputs) names.push_back(name);
    check_sweep_statistics(*options.statistics, names, plan.spec().source);
  }
  SweepLock lock(options.results);  // before the earlier file is read: nobody changes it meanwhile
  TableStart start = start_table(make_sweep_table(plan, outputs), options.results);
  SweepTable& table = start.table;
  if (options.resumed) options.resumed(start.resume);
  SweepResultsWriter writer = start.reopen ? SweepResultsWriter::open(options.results, std::move(lock))
                                           : SweepResultsWriter::create(options.results, table, std::move(lock));
  std::vector<long> pending;
  for (long r = 0; r < table.runs; ++r) {
    if (table.status[static_cast<size_t>(r)] == static_cast<int>(SweepRunStatus::kPending)) pending.push_back(r);
  }
  SweepSummary summary;
  summary.total = table.runs;
  summary.resume = start.resume;
  for (const auto& [name, unit] : outputs) summary.outputs.push_back(name);

  const SweepTimeHistories& th = plan.spec().time_histories;
  int threads = std::max(1, std::min<int>(options.threads > 0 ? options.threads
                                                               : static_cast<int>(std::thread::hardware_concurrency()),
                                          static_cast<int>(std::max<size_t>(pending.size(), 1))));
  // Histories are written by the workers while this thread writes the table: concurrent HDF5
  // calls need a thread-safe HDF5 library (Debian's serial one is; its MPI build is not).
  hbool_t threadsafe = 0;
  H5is_library_threadsafe(&threadsafe);
  if (th.enabled && !threadsafe && threads > 1) threads = 1;
  WorkQueue work(pending);
  OutcomeQueue outcomes;
  std::vector<std::thread> workers;
  // However the coordinating loop ends, the workers are told to stop and joined.
  struct JoinWorkers {
    WorkQueue& work;
    std::vector<std::thread>& workers;
    ~JoinWorkers() {
      work.stop();
      for (auto& t : workers) {
        if (t.joinable()) t.join();
      }
    }
  } join_workers{work, workers};
  for (int w = 0; w < threads; ++w) {
    workers.emplace_back([&] {
      for (long run = work.next(); run >= 0; run = work.next()) {
        outcomes.push(run, execute_sweep_run(plan, run, history_path(plan, options.results, run), th.decimate));
      }
      outcomes.worker_done();
    });
  }

  const auto started = std::chrono::steady_clock::now();
  SweepProgress progress;
  progress.total = table.runs;
  progress.done = table.runs - static_cast<long>(pending.size());
  progress.failed = table.count(SweepRunStatus::kFailed);
  auto last_report = started;
  std::string write_error;
  bool all_done = false;
  while (!all_done || (remote != nullptr && !remote->finished())) {
    if (remote != nullptr) remote->poll(work, outcomes);
    const double wait = remote != nullptr ? 0.002 : std::max(0.05, options.progress_interval);
    bool local_done = false;
    auto batch = outcomes.take(std::chrono::duration<double>(wait), threads, &local_done);
    // Local threads done, other ranks still running: take() no longer waits, so this thread would spin.
    if (local_done && batch.empty() && remote != nullptr) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    all_done = local_done;
    std::vector<std::pair<long, SweepRunOutcome>> finished;
    for (auto& [run, outcome] : batch) {
      if (outcome.status == SweepRunStatus::kPending) {  // interrupted, or its history hit a full disk
        if (!outcome.message.empty() && write_error.empty()) {
          write_error = outcome.message;
          work.stop();
        }
        continue;
      }
      finished.emplace_back(run, std::move(outcome));
    }
    if (!finished.empty() && write_error.empty()) {
      try {
        writer.write(finished);
      } catch (const std::exception& e) {
        write_error = e.what();
        work.stop();  // nothing more can be recorded: let the running runs end, start none
        finished.clear();
      }
    } else {
      finished.clear();
    }
    for (const auto& [run, outcome] : finished) {
      table.set_result(run, outcome);
      ++progress.done;
      ++progress.this_session;
      if (outcome.status == SweepRunStatus::kFailed) ++progress.failed;
      progress.last = plan.describe(run) + (outcome.status == SweepRunStatus::kFailed ? ": " + outcome.message : "");
      progress.last_failed = outcome.status == SweepRunStatus::kFailed;
      // Every failure reaches the progress callback (which prints the first ones).
      if (progress.last_failed && options.progress) options.progress(progress);
    }
    const auto now = std::chrono::steady_clock::now();
    progress.elapsed = std::chrono::duration<double>(now - started).count();
    progress.runs_per_second = progress.elapsed > 0 ? static_cast<double>(progress.this_session) / progress.elapsed : 0.0;
    progress.eta_seconds = progress.runs_per_second > 0
                               ? static_cast<double>(progress.total - progress.done) / progress.runs_per_second
                               : kNaN;
    progress.last_failed = false;
    if (options.progress && (!finished.empty() || now - last_report >= std::chrono::duration<double>(options.progress_interval))) {
      options.progress(progress);
      last_report = now;
    }
  }
  work.stop();
  for (auto& t : workers) t.join();
  summary.ran = progress.this_session;
  summary.completed = table.count(SweepRunStatus::kCompleted);
  summary.failed = table.count(SweepRunStatus::kFailed);
  summary.pending = table.count(SweepRunStatus::kPending);
  summary.interrupted = summary.pending > 0 && write_error.empty();
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!write_error.empty()) {
    throw std::runtime_error(write_error + "; every run written before is kept in '" + options.results +
                             "' — free space (or fix the cause) and run the same command to resume");
  }
  writer.set_attribute("status", summary.pending == 0 ? "completed" : "incomplete: " + std::to_string(summary.pending) + " runs pending");
  writer.close();
  return summary;
}

}  // namespace

#ifdef GMBD_HAVE_MPI
namespace {

// A worker rank: `threads` threads ask rank 0 for runs and send back their outcomes.
SweepSummary run_sweep_worker_rank(const SweepPlan& plan, const SweepOptions& options, int rank) {
  const int threads = std::max(1, options.threads);
  std::mutex mpi;
  const SweepTimeHistories& th = plan.spec().time_histories;
  std::atomic<long> ran{0};
  std::vector<std::thread> pool;
  for (int w = 0; w < threads; ++w) {
    pool.emplace_back([&, w] {
      for (;;) {
        long run = -1;
        if (stop_requested()) break;  // interrupted here: ask for no more runs
        {
          std::lock_guard<std::mutex> lock(mpi);
          MPI_Send(&w, 1, MPI_INT, 0, kRequest, MPI_COMM_WORLD);
          MPI_Recv(&run, 1, MPI_LONG, 0, kAssign + w, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (run < 0) break;
        const std::vector<char> packed =
            pack_outcome(run, execute_sweep_run(plan, run, history_path(plan, options.results, run), th.decimate));
        std::lock_guard<std::mutex> lock(mpi);
        MPI_Send(packed.data(), static_cast<int>(packed.size()), MPI_BYTE, 0, kResult, MPI_COMM_WORLD);
        ++ran;
      }
    });
  }
  for (auto& t : pool) t.join();
  int zero = 0;
  MPI_Send(&zero, 1, MPI_INT, 0, kDone, MPI_COMM_WORLD);
  SweepSummary summary;
  summary.rank = rank;
  summary.ran = ran.load();
  return summary;
}

}  // namespace
#endif

int sweep_mpi_rank() {
#ifdef GMBD_HAVE_MPI
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
#endif
  return 0;
}

bool sweep_mpi_available() {
#ifdef GMBD_HAVE_MPI
  return true;
#else
  return false;
#endif
}

int sweep_mpi_size() {
#ifdef GMBD_HAVE_MPI
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name)) return std::max(1, std::atoi(v));
  }
#endif
  return 1;
}

SweepSummary run_sweep(const SweepPlan& plan, const SweepOptions& options) {
  // Hundreds of runs read the same records: read each once (while unchanged on disk).
  struct CacheOn {
    CacheOn() { set_motion_file_cache(true); }
    ~CacheOn() { set_motion_file_cache(false); }
  } cache_on;
  if (sweep_mpi_size() <= 1) return run_sweep_local(plan, options, nullptr);
#ifdef GMBD_HAVE_MPI
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Every rank planned on its own: the plans must be the same run for run (same files, same
  // records on every machine), or results would land in other runs' rows.
  std::string all_keys;
  for (long run = 0; run < plan.size(); ++run) all_keys += plan.key(run);
  unsigned long long mine = fnv1a(all_keys), rank0 = mine;
  MPI_Bcast(&rank0, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  int differs = mine != rank0 ? 1 : 0, any_differs = 0;
  MPI_Allreduce(&differs, &any_differs, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_differs) {
    if (differs) {
      std::fprintf(stderr, "error: rank %d planned a different sweep than rank 0 (its records or base run file differ: "
                   "every rank must see the same files)\n", rank);
    }
    MPI_Finalize();
    throw InputError("the MPI ranks planned different sweeps (records or base run file differ between them); nothing was run");
  }
  SweepSummary summary;
  if (rank == 0) {
    // Every rank waits on rank 0: a failure here (lock held, unwritable file, full disk) must
    // end them all, after saying why.
    try {
      SweepOptions local = options;
      if (local.threads <= 0) local.threads = 1;  // one thread per rank unless -j says otherwise
      RemoteRanks remote(size);
      summary = run_sweep_local(plan, local, &remote);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  } else {
    summary = run_sweep_worker_rank(plan, options, rank);
  }
  summary.rank = rank;
  summary.ranks = size;
  MPI_Finalize();
  return summary;
#else
  return run_sweep_local(plan, options, nullptr);
#endif
}

}  // namespace gmbd
