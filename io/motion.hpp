// Recorded ground/floor motions: readers for PEER AT2, CSMIP/CGS V2, COSMOS V1.20, USGS SMC,
// free-format values with an NPTS/DT header, plain values and plain columns (CSV), scaling,
// resampling, the SampledSignal a model consumes, synthetic noise.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/signal.hpp"

namespace gmbd {

/// Standard gravity (m/s² per g, exact, CGPM 1901): every conversion from g in records, run
/// files and sweeps.
inline constexpr double kStandardGravity = 9.80665;

/// One acceleration channel of a recorded (or synthetic) motion, in SI units.
/// Sample k is the acceleration at t = k·dt (t = 0 at the first sample of the record).
/// Conventions (docs/motions.md):
///  - acceleration in m/s², converted from `units_in_file` (g = 9.80665 m/s² exactly);
///  - vertical channels are positive UP: a down-positive record ("DWN", "Down", COSMOS 401,
///    CSMIP 600, SMC vertical orientation 180) is multiplied by −1 and `sign_flipped` is set;
///  - horizontal channels keep the file's sign; `azimuth_deg` is the direction of positive
///    acceleration, degrees clockwise from north in [0, 360), NaN when the file does not say.
struct MotionChannel {
  std::string source;  ///< file path ("synthetic" for synthetic_filtered_noise)
  std::string
      format;  ///< "peer-at2" | "csmip-v2" | "cosmos-v1.20" | "usgs-smc" | "text-npts-dt" |
               ///< "values" | "csv" | "synthetic"
  int channel = 0;  ///< index within the file (0-based)
  std::string component;  ///< as written in the file: "180", "90", "Up", "DWN", "171", "BNZ", …
  double azimuth_deg = std::numeric_limits<double>::quiet_NaN();  ///< NaN for vertical/unknown
  bool vertical = false;
  bool sign_flipped = false;         ///< true: the file was down-positive and has been negated
  double dt = 0.0;                   ///< sample interval (s), > 0
  std::vector<double> acceleration;  ///< m/s², finite
  std::string units_in_file;         ///< "g", "cm/s^2", "m/s^2", "mm/s^2", "mg", "in/s^2"
  double scale = 1.0;  ///< factor applied after unit conversion (scale_to_peak multiplies it)
  std::string station, event;  ///< when the header gives them, else empty
  /// What the reader accepted but a user should know (e.g. a text trailer after the NPTS values
  /// that was ignored), one sentence each naming the line; callers log them as warnings.
  std::vector<std::string> notes;

  /// max_k |a_k| (m/s²); 0 for an empty record.
  double peak() const;
  /// Record length (n − 1)·dt (s); 0 for fewer than two samples.
  double duration() const;
};

/// What a caller knows about a record that its file may not state (docs/motions.md, "Records
/// that do not state everything"): the sample interval of plain values and the units of plain
/// values, text-npts-dt and CSV files. A file that states them must agree with what is given.
struct MotionReadOptions {
  double dt = 0.0;    ///< sample interval (s); 0: not given (then a "values" file is an error)
  std::string units;  ///< one of motion_unit_names(); "": the format's default (docs/motions.md)
  /// How the caller names these two in error messages ("inputs.floor_x.dt (run.yaml)", "--dt"),
  /// so that a missing or contradicted value says where to give it.
  std::string dt_name = "dt", units_name = "units";
};

/// Reads every acceleration channel of a recorded-motion file.
/// `format` = "auto" detects the format from the content (never from the extension):
///   line 1 "… (Format v01.20 …)" → "cosmos-v1.20"; line 1 "<digit> CORRECTED ACCELEROGRAM" →
///   "usgs-smc"; line 1 "Corrected accelerogram …" (any case) → "csmip-v2"; line 4 with NPTS and
///   DT → "peer-at2"; a header line with the words NPTS and DT and their numbers, or a first
///   line of two numbers N and DT followed by exactly N numbers → "text-npts-dt" (free-format
///   values as in OpenSees examples; units from options, default g); one number per line and
///   nothing else → "values" (dt from options, required; units default g). Plain columns are
///   never guessed: pass "csv" (time in column 0, every other column an acceleration in m/s²
///   unless options.units says otherwise) or call read_csv_motion. "values" given explicitly
///   reads the numbers in order whatever their layout (as OpenSees's Path time series does).
/// Fixed-width formats (CSMIP, COSMOS, SMC) are split by the column widths of their Fortran
/// format statements, never by whitespace, so touching numbers ("3.2E-2-5.1E-2") are read
/// correctly. CRLF line endings and trailing 0x1A (DOS end-of-file) bytes are accepted.
/// Throws InputError naming the file, the 1-based line number and the expected vs found
/// content for: a missing/unreadable/empty file, an unrecognised or malformed header, fewer or
/// more data values than the header states, a non-numeric, NaN/inf or implausibly large value
/// (a missing-value marker), velocity/displacement-only files, unsupported units, a "values"
/// file without options.dt, and an options.dt or options.units that contradicts the file.
std::vector<MotionChannel> read_motion_file(const std::string& path,
                                            const std::string& format = "auto",
                                            const MotionReadOptions& options = {});

/// The format names read_motion_file accepts besides "auto", in documentation order.
const std::vector<std::string>& motion_format_names();
/// The unit names of MotionReadOptions::units and CsvMotionOptions::units, in documentation order.
const std::vector<std::string>& motion_unit_names();
/// Factor from `units` (a name of motion_unit_names() or a spelling such as "cm/s2") to m/s²;
/// throws InputError for an unknown unit.
double motion_unit_factor(const std::string& units);

/// Options of read_csv_motion.
struct CsvMotionOptions {
  double dt = 0.0;              ///< fixed sample interval (s); 0: take it from time_column
  int time_column = -1;         ///< 0-based column holding t (s); −1: none (dt must then be > 0)
  std::vector<int> columns;     ///< 0-based acceleration columns; empty: every non-time column
  std::string units = "m/s^2";  ///< "m/s^2" | "cm/s^2" | "gal" | "mm/s^2" | "in/s^2" | "g" | "mg"
  char delimiter = 0;  ///< 0: auto (',' if the first data line has one, else ';', else blanks)
};

/// Plain columns / CSV: one channel per acceleration column. Lines that are blank, start with
/// '#', or (before the first data line) are not numeric are skipped; the last skipped
/// non-'#' line before the data, if it has one field per column, names the components.
/// With a time column the times must be uniformly spaced (|t_k − t_0 − k·dt| ≤ 0.01·dt) and
/// dt = (t_last − t_0)/(n − 1); with both time column and dt given they must agree to 1e-6.
/// Throws InputError (file:line, expected vs found) for ragged rows, non-numeric/NaN values,
/// non-uniform or decreasing times, fewer than two rows, bad options.
std::vector<MotionChannel> read_csv_motion(const std::string& path,
                                           const CsvMotionOptions& options);

/// a ← a · target_peak / peak(): the peak |a| becomes target_peak (m/s²); `scale` is updated.
/// Throws InputError for target_peak ≤ 0 or non-finite, or an all-zero record.
MotionChannel scale_to_peak(MotionChannel m, double target_peak);

/// Linear interpolation onto the grid t_k = k·dt, k = 0 … ⌊(n−1)·dt_old/dt⌋ (the new record
/// never extends past the old one). Linear: no overshoot (the peak never grows), exact for the
/// piecewise-linear acceleration that SampledSignal and record processing assume. No
/// anti-alias filtering: when dt > dt_old, content above 1/(2·dt) aliases — filter first.
/// Throws InputError for dt ≤ 0 / non-finite or an empty record.
MotionChannel resample(const MotionChannel& m, double dt);

/// The signal a model consumes: SampledSignal(t0 = 0, dt, scale·a), linearly interpolated,
/// zero outside the record. Its description names file, format, channel, component and
/// orientation, units, sign flip and the total scaling. Throws InputError for an empty record,
/// dt ≤ 0 or a non-finite scale.
std::shared_ptr<const SampledSignal> to_signal(const MotionChannel& m, double scale = 1.0);

/// Seeded synthetic motion: ξ_k unit-variance Gaussian (std::mt19937_64(seed) and the
/// Marsaglia polar transform — not std::normal_distribution, whose output differs between
/// standard libraries) drives the exact discretisation of the first-order filter
///   τ ẏ + y = w(t),  w unit-intensity white noise (E[w(t)w(s)] = δ(t − s)):
///   y_0 = 0,  y_{k+1} = e^{−dt/τ} y_k + sqrt((1 − e^{−2dt/τ})/(2τ)) ξ_k,
/// so the statistics do not depend on dt (stationary variance 1/(2τ) (m/s²)²).
/// n = ⌊duration/dt + 1e-9⌋ + 1 samples. The same (seed, dt, tau) always gives the same
/// sequence, and a longer duration extends a shorter one. target_peak > 0 scales the record
/// to that peak (scale_to_peak); 0 leaves it unscaled. docs/reference-models.md §1.9 uses τ = 0.1 s
/// (horizontal) and 0.02 s (vertical). Throws InputError for duration ≤ 0, dt ≤ 0, tau ≤ 0,
/// target_peak < 0, any non-finite argument or more than 1e8 samples.
MotionChannel synthetic_filtered_noise(std::uint64_t seed, double duration, double dt, double tau,
                                       double target_peak = 0.0);

}  // namespace gmbd
