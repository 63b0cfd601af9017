// A sweep's runs: records × intensities × designs × initial conditions expanded from a sweep
// file, each run a run configuration and a key that changes whenever anything it depends on does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulation/run_config.hpp"
#include "study/sweep_file.hpp"

namespace gmbd {

/// One input-to-channel assignment of a record.
struct SweepChannel {
  std::string input;      ///< model input, e.g. floor_x
  int channel = 0;        ///< 0-based channel in the file
  std::string component;  ///< as the file writes it
  bool vertical = false;
  double peak = 0.0;      ///< of the channel as read (m/s²)
};

/// One record of the sweep: a file and the channels that drive the model's inputs.
struct SweepRecord {
  std::string file;       ///< absolute path
  std::string label;      ///< "<file name> ch <k> (<component>)" or "<file name> (triaxial)"
  std::string format, station, event;
  double dt = 0.0;
  long points = 0;
  std::vector<SweepChannel> channels;
  /// Intensity measure of the record as read (m/s²): the largest peak of its horizontal
  /// channels (of all channels when none is horizontal). Targets scale every channel of the
  /// record by the same factor target / measure.
  double intensity_measure = 0.0;
  std::uint64_t content_hash = 0;  ///< of the file's bytes: a changed file changes every key
};

/// Where run i sits on each axis.
struct SweepRunIndex {
  int record = 0, intensity = 0, design = 0, initial_condition = 0;
};

class SweepPlan {
 public:
  /// Reads every record (channels, peaks, provenance), draws the initial conditions and the
  /// Latin hypercube, and checks the base run file with the sweep's `set:` overrides.
  /// Throws InputError (file, line, field, expected and actual) for unreadable records,
  /// channels that do not exist, inputs the model does not take, parameters it does not have.
  explicit SweepPlan(SweepSpec spec);

  const SweepSpec& spec() const { return spec_; }
  long size() const;
  SweepRunIndex index(long run) const;

  const std::vector<SweepRecord>& records() const { return records_; }
  /// Intensity levels (the sweep file's values, or {1} without intensity axis).
  const std::vector<double>& intensities() const { return intensities_; }
  /// Design points: one value per parameter name (grid axes then Latin hypercube ranges).
  const std::vector<std::string>& parameter_names() const { return parameter_names_; }
  const std::vector<std::vector<double>>& designs() const { return designs_; }
  /// Keys varied by the drawn initial conditions, and the values drawn (text) per condition.
  const std::vector<std::string>& varied_keys() const { return varied_keys_; }
  int initial_condition_count() const { return static_cast<int>(ic_settings_.size()); }
  const std::vector<std::string>& initial_condition_values(int ic) const { return ic_values_[static_cast<size_t>(ic)]; }

  /// Scale factor applied to every channel of run's record.
  double scale(long run) const;
  /// Intensity of the run as applied (g for peak_g, m/s² for peak, the record's measure × the
  /// factor in m/s² for scale; NaN without records).
  double intensity_value(long run) const;
  /// The run's configuration: the base run file with the sweep's overrides, the design's
  /// parameters, the initial condition's draws and the record's channels as inputs.
  RunConfig config(long run) const;
  /// 16 hex digits identifying everything the run's result depends on.
  std::string key(long run) const;
  /// One line describing the run, e.g. "record 3/24 'x.v2 ch 2 (90 Deg)', 0.3 g, b0=0.08, ic 2".
  std::string describe(long run) const;

 private:
  /// The run's changes of the base, as the key spells them (design values, then the drawn
  /// initial condition) and as typed settings applied to the template.
  std::vector<std::string> overrides(long run) const;
  std::vector<RunSetting> settings(long run) const;

  SweepSpec spec_;
  /// The base run file read once (with the sweep's `set:` and --set overrides) and the bytes of
  /// its model file — what every run is made from and what the keys hash.
  std::optional<RunTemplate> template_;
  std::vector<SweepRecord> records_;
  std::vector<double> intensities_;
  std::vector<std::string> parameter_names_;
  std::vector<std::vector<double>> designs_;
  std::vector<std::string> varied_keys_;
  std::vector<std::vector<std::string>> ic_values_;
  std::vector<std::vector<RunSetting>> ic_settings_;
  std::uint64_t base_hash_ = 0;
};

/// FNV-1a, 64 bits (keys and content hashes; not cryptographic).
std::uint64_t fnv1a(const std::string& bytes, std::uint64_t h = 0xcbf29ce484222325ULL);

}  // namespace gmbd
