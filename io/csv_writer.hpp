// CSV time histories: a streaming writer with the same rows as the HDF5 results file, and the
// conversion of an HDF5 results file to CSV (for `gmbd export`); format: docs/results-format.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/hdf5_writer.hpp"

namespace gmbd {

/// Writes one header line
///   time,q:<name>…,v:<name>…,lambda:<name>…[,z:<name>…],residual_position,residual_velocity,
///   correction[,energy]
/// then one line per row, every value printed with %.17g (round-trips exactly). Names that
/// contain a comma, quote or line break are quoted as in RFC 4180. Lines are buffered in
/// storage allocated by the constructor and flushed to the operating system every
/// `flush_rows` rows. Not copyable; movable.
class CsvResultWriter {
 public:
  /// Creates (truncates) `path` and writes the header. Throws InputError naming the path and
  /// the reason if it cannot be created, std::invalid_argument if flush_rows < 1.
  CsvResultWriter(const std::string& path, const ResultLayout& layout, int flush_rows = 256);
  ~CsvResultWriter();  ///< close(); errors are logged, never thrown
  CsvResultWriter(CsvResultWriter&&) noexcept;
  CsvResultWriter& operator=(CsvResultWriter&&) noexcept;
  CsvResultWriter(const CsvResultWriter&) = delete;
  CsvResultWriter& operator=(const CsvResultWriter&) = delete;

  /// Writes one line. A non-finite value throws NumericalError (see check_result_row) before
  /// anything of the row is written. Throws std::runtime_error naming the path if writing
  /// fails (e.g. disk full), std::logic_error after close(). Does not allocate.
  void append(const ResultRow& row);
  /// Hands the buffered lines to the operating system (fflush).
  void flush();
  /// Flushes and closes the file; further calls are no-ops.
  /// After a failure: closes the file without reporting errors and keeps it under its staging
  /// name "<path>.partial", leaving an earlier file at the path untouched. Never throws.
  void abandon() noexcept;
  void close();
  /// Rows written so far.
  long rows() const;
  const std::string& path() const;
  /// Where the rows are written until close() renames it onto path() ("<path>.partial", next to
  /// the file a symbolic link names; path() itself for a device or stream).
  const std::string& staging_path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Converts the HDF5 results file `h5_path` (as written by Hdf5ResultWriter, also an
/// interrupted one) to a CSV file in the CsvResultWriter format, reading a block of rows at a
/// time. When datasets differ in length (a run interrupted during a flush) the common length
/// is exported. Throws InputError naming the file if it cannot be opened or is not a
/// GaussMBD results file (naming the missing dataset or attribute).
void export_hdf5_to_csv(const std::string& h5_path, const std::string& csv_path);

}  // namespace gmbd
