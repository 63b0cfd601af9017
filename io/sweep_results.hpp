// The sweep results file (HDF5): one row per run, laid out in full when the sweep starts and
// filled in place as runs finish, so that a killed sweep leaves a readable, resumable file.
#pragma once

#include <memory>
#include <utility>
#include <string>
#include <vector>

namespace gmbd {

/// Status of one run in the table.
enum class SweepRunStatus : int { kPending = 0, kCompleted = 1, kFailed = 2 };

/// How one run ended (what the runner reports and the table stores).
struct SweepRunOutcome {
  SweepRunStatus status = SweepRunStatus::kPending;
  std::string message;  ///< failure message (at most 255 bytes are stored)
  double wall_seconds = 0.0, end_time = 0.0;
  long steps = 0, rejected_steps = 0;
  double max_residual_position = 0.0, max_residual_velocity = 0.0, max_energy_error = 0.0;
  std::vector<double> peak, peak_time;  ///< one per output
};

/// Everything in a sweep results file, in memory (per-run matrices row-major: run × column).
struct SweepTable {
  // provenance
  std::string name, sweep_file, sweep_text, base_file, base_text, version, created, intensity_kind, intensity_unit;
  std::vector<std::string> outputs, output_units, parameter_names, varied_keys;
  std::vector<double> intensity_levels;
  // records
  std::vector<std::string> record_labels, record_files, record_formats, record_stations, record_events,
      record_channels;
  std::vector<double> record_dt, record_measure;
  std::vector<long> record_points;
  // runs: fixed by the plan
  long runs = 0;
  std::vector<std::string> keys;
  std::vector<int> record, level, design, initial_condition;
  std::vector<double> intensity, scale;
  std::vector<double> parameters;      ///< runs × parameter_names
  std::vector<double> initial_values;  ///< runs × varied_keys (NaN for list values)
  // runs: results
  std::vector<int> status;
  std::vector<std::string> messages;
  std::vector<double> wall_seconds, end_time, residual_position, residual_velocity, energy_error;
  std::vector<long> steps, rejected_steps;
  std::vector<double> peak, peak_time;  ///< runs × outputs

  /// Sizes every per-run vector for `runs` rows (results pending, NaN peaks).
  void resize_runs(long runs);
  /// Copies the result columns of row `from` of `other` into row `to`.
  void copy_result(long to, const SweepTable& other, long from);
  /// Stores an outcome in row `run`.
  void set_result(long run, const SweepRunOutcome& outcome);
  long count(SweepRunStatus s) const;
  /// Index of an output by name, −1 if absent.
  int output_index(const std::string& output) const;
};

/// Reads a whole sweep results file. Throws InputError naming the file for a missing,
/// unreadable or foreign file (not "GaussMBD sweep").
SweepTable read_sweep_table(const std::string& path);

/// Reads the file as read_sweep_table does, in a child process (io/guarded_read.hpp), and
/// throws what that throws — or DamagedFileError naming the file when the damage crashes or
/// loops the HDF5 library. For a file this process did not write and no sweep is writing (sweep-report),
/// before read_sweep_table; single-threaded callers only, before MPI is initialised.
void check_sweep_table_readable(const std::string& path);

/// An exclusive advisory lock on "<results>.lock" (flock; the file stays): taken before an
/// existing results file is read and held by the writer for the sweep's lifetime, so that a
/// second sweep on the same results fails at once.
class SweepLock {
 public:
  /// Throws InputError naming the results file when the lock is held or cannot be created.
  explicit SweepLock(const std::string& results);
  ~SweepLock();
  SweepLock(SweepLock&& other) noexcept;
  SweepLock(const SweepLock&) = delete;
  SweepLock& operator=(const SweepLock&) = delete;
  SweepLock& operator=(SweepLock&&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

/// Writes result rows into a sweep results file in place, holding its lock.
class SweepResultsWriter {
 public:
  /// Creates `path` (replacing a file there) with every row of `table` — plan columns and
  /// whatever results it already holds — written and flushed, and its storage allocated, so
  /// that later rows change no file metadata. Throws InputError (unwritable path, lock held)
  /// or std::runtime_error (disk full, naming the path).
  static SweepResultsWriter create(const std::string& path, const SweepTable& table, SweepLock lock);
  /// Opens an existing file for more rows (the caller checked that its plan is unchanged).
  static SweepResultsWriter open(const std::string& path, SweepLock lock);
  ~SweepResultsWriter();
  SweepResultsWriter(SweepResultsWriter&&) noexcept;
  SweepResultsWriter& operator=(SweepResultsWriter&&) noexcept;

  /// Writes the rows' results, fsyncs, then writes their statuses: after a crash or power cut a
  /// row is either complete or still pending. Peaks are stored one per output column (NaN where
  /// an outcome has fewer). Throws std::runtime_error naming the file, the run and the reason
  /// (e.g. disk full); every row written before stays.
  void write(const std::vector<std::pair<long, SweepRunOutcome>>& batch);
  void write(long run, const SweepRunOutcome& outcome);
  /// Sets a root string attribute (e.g. "status").
  void set_attribute(const std::string& name, const std::string& value);
  /// fsync and close.
  void close();

 private:
  struct Impl;
  explicit SweepResultsWriter(std::unique_ptr<Impl> impl);
  static void open_file(Impl& impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gmbd
