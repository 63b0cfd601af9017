// Streamed HDF5 time histories of a run: the column layout, one output row, and a writer that
// buffers rows and appends them to chunked, compressed datasets (layout: docs/results-format.md).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/types.hpp"

namespace gmbd {

/// The columns of a results file and its metadata. Sizes: nq = coordinates.size(),
/// m = constraints.size(), nz = states.size().
struct ResultLayout {
  std::vector<std::string> coordinates;  ///< q and v columns (nq)
  std::vector<std::string> constraints;  ///< lambda columns (m)
  std::vector<std::string> states;       ///< non-mechanical states z (nz, may be empty)
  bool has_energy = false;               ///< write the `energy` column
  /// Rows the caller expects to write (0: unknown). Chunks are no taller, so that a short run
  /// does not occupy a whole flush_rows-row chunk on disk.
  long expected_rows = 0;
  /// Optional units, parallel to coordinates / states (empty = not recorded). The units of v
  /// are derived as "<unit>/s".
  std::vector<std::string> coordinate_units;
  std::vector<std::string> state_units;
  /// Model-defined derived outputs (dataset `outputs`, N × k) and their units; may be empty.
  std::vector<std::string> outputs;
  std::vector<std::string> output_units;
  /// Root attributes: model, integrator, version, run file text, … (strings) and tolerances,
  /// dt, parameters, … (numbers). A later entry with the same name replaces an earlier one.
  std::vector<std::pair<std::string, std::string>> string_attributes;
  std::vector<std::pair<std::string, double>> numeric_attributes;
};

/// One output row: views into the caller's storage (no allocation per row). Sizes must match
/// the layout: q, v (nq), lambda (m), z (nz). `energy` is ignored unless layout.has_energy.
struct ResultRow {
  double time;
  CVec q;
  CVec v;
  CVec lambda;
  CVec z;
  double residual_position;  ///< ‖g(t, q)‖∞, holonomic constraint residual
  double residual_velocity;  ///< ‖G v + g_t; h(t, q, v)‖∞, velocity-level residual
  double correction;         ///< largest state correction (DSC) since the previous row
  double energy;             ///< total energy T + V (J)
  /// layout.outputs.size() derived output values (may be null when the layout has none).
  const double* outputs = nullptr;
};

/// Checks that every value of `row` is finite and every size matches `layout`.
/// Throws NumericalError(row.time, …) naming `sink`, the dataset and column and the value for
/// a non-finite entry, std::invalid_argument naming expected and actual size for a size
/// mismatch (a programming error). Does not allocate unless it throws.
void check_result_row(const ResultLayout& layout, const ResultRow& row, const std::string& sink);

/// Appends rows to an HDF5 results file (HDF5 C API; file format 1.8, readable by HDF5 ≥ 1.8,
/// h5py, MATLAB, Octave). Rows are buffered in storage preallocated by the constructor and
/// written every `flush_rows` rows or `flush_seconds` of wall time (dataset extension + chunk
/// write + H5Fflush), so an interrupted run keeps every flushed row. Between rows far apart the
/// run driver calls record_progress() every flush_seconds, which flushes too. Not copyable; movable. One writer per file; writers
/// of different files may run on different threads (HDF5 serialises calls internally).
class Hdf5ResultWriter {
 public:
  /// Creates the file with every dataset at zero rows and the layout's attributes, under
  /// "<path>.partial" (locked against a second writer; io/staged_file.hpp) until close() renames
  /// it onto `path`: an earlier file at `path` survives every failure before that. The row
  /// buffers hold at most 32 MiB: a larger flush_rows flushes when they are full.
  /// Throws InputError naming the path and the reason (missing directory, permission, …) if
  /// the file cannot be created, std::invalid_argument if flush_rows < 1.
  /// `compression`: deflate level 0 (none) … 9 of every dataset (with the shuffle filter).
  /// Default 0, by measurement (bench/bench_output.cpp, docs/performance.md "Output"): deflate
  /// costs ≈ 10 µs per RIS-sized row at any level against 0.85 µs uncompressed — more than
  /// the two RK4 steps between 10 ms rows — for files about half the size.
  /// std::invalid_argument outside 0 … 9.
  /// `flush_rows` is also the chunk height of the datasets: whole aligned chunks go to the file
  /// as they are (H5Dwrite_chunk, when uncompressed), without HDF5's chunk cache. `flush_seconds` > 0: rows that
  /// have waited that long in the buffer are flushed with the next append, so a slow run loses
  /// at most that much wall time to a kill; 0 flushes by rows only. std::invalid_argument if
  /// negative or not finite.
  Hdf5ResultWriter(const std::string& path, const ResultLayout& layout, int flush_rows = kDefaultFlushRows,
                   int compression = kDefaultCompression, double flush_seconds = kDefaultFlushSeconds);
  static constexpr int kDefaultCompression = 0;
  /// Defaults by measurement (docs/performance.md "Output"): per-flush costs (dataset
  /// extension, metadata flush) dominate below ≈ 1000 rows.
  static constexpr int kDefaultFlushRows = 4096;
  static constexpr double kDefaultFlushSeconds = 1.0;
  /// close() (errors are logged, never thrown); while an exception unwinds, abandon(): the
  /// rows stay in the staging file and an earlier file of the name is kept.
  ~Hdf5ResultWriter();
  Hdf5ResultWriter(Hdf5ResultWriter&&) noexcept;
  Hdf5ResultWriter& operator=(Hdf5ResultWriter&&) noexcept;
  Hdf5ResultWriter(const Hdf5ResultWriter&) = delete;
  Hdf5ResultWriter& operator=(const Hdf5ResultWriter&) = delete;

  /// Buffers one row; writes the buffer at each chunk boundary, or when flush_seconds of wall
  /// time have passed since the last flush. A row with a
  /// non-finite value throws NumericalError (see check_result_row) before anything of it is
  /// stored, so the file keeps every earlier row. Does not allocate except inside the HDF5
  /// library when it flushes. Throws std::runtime_error if writing fails (e.g. disk full),
  /// std::logic_error after close().
  void append(const ResultRow& row);
  /// Writes the buffered rows and flushes the file to disk. Throws std::runtime_error naming
  /// the path and dataset on failure (the rows stay buffered for a later attempt).
  void flush();
  /// How far the run has got, for a reader of a file whose run never recorded its end (killed):
  /// writes the root attributes progress_time (s), progress_step_size (s), progress_steps and
  /// progress_wall_seconds (overwritten in place after the first call), then flush(): the
  /// buffered rows and the attributes are in the file (docs/results-format.md, "Progress").
  /// Throws like flush(); allocates only inside the HDF5 library.
  void record_progress(double time, double step_size, long steps, double wall_seconds);
  /// Sets (or replaces) a root attribute, e.g. "status". Throws std::runtime_error on failure.
  void set_attribute(const std::string& name, const std::string& value);
  void set_attribute(const std::string& name, double value);
  /// Flushes and closes every HDF5 handle; further calls are no-ops. Throws like flush(), but
  /// the handles are closed even then.
  void close();
  /// After a failure that is not the run's own (an unwritable disk, an error elsewhere): writes
  /// what it can, closes every handle and keeps the file under its staging name
  /// (staging_path()), leaving an earlier file at path() untouched. Never throws.
  void abandon() noexcept;
  /// Where rows are written until close() renames the file onto path(): "<path>.partial".
  std::string staging_path() const;
  /// Rows appended so far (written or buffered).
  long rows() const;
  /// Rows written to the file so far.
  long rows_written() const;
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gmbd
