// Writing a sweep's statistics as CSV tables (IDA per run and summarised, fragility fits, hazard
// rates) and the short text summary the CLI prints; the plots are drawn from these tables.
#include "study/sweep_report.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "core/errors.hpp"
#include "study/sweep_statistics.hpp"

namespace gmbd {
namespace {

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string num(double x) { return std::isfinite(x) ? fmt::format("{:.10g}", x) : std::string(); }

class CsvFile {
 public:
  CsvFile(const std::string& path, const std::string& header) : path_(path), out_(path) {
    if (!out_) throw std::runtime_error("cannot write '" + path + "' (" + std::strerror(errno) + ")");
    out_ << header << "\n";
  }
  template <class... Args>
  void row(fmt::format_string<Args...> f, Args&&... args) {
    out_ << fmt::format(f, std::forward<Args>(args)...) << "\n";
  }
  void close() {
    out_.close();
    if (!out_) throw std::runtime_error("cannot write '" + path_ + "' (disk full?)");
  }

 private:
  std::string path_;
  std::ofstream out_;
};

std::string design_text(const SweepTable& t, int design) {
  // The parameters of the design, from its first run.
  for (long r = 0; r < t.runs; ++r) {
    if (t.design[static_cast<size_t>(r)] != design) continue;
    std::string text;
    for (size_t k = 0; k < t.parameter_names.size(); ++k) {
      text += fmt::format("{}{}={:.6g}", text.empty() ? "" : " ", t.parameter_names[k],
                          t.parameters[static_cast<size_t>(r) * t.parameter_names.size() + k]);
    }
    return text.empty() ? "base" : text;
  }
  return "base";
}

std::vector<std::string> default_ida_outputs(const SweepTable& t) {
  std::vector<std::string> out;
  for (const char* name : {"accel_horizontal", "drift"}) {
    if (t.output_index(name) >= 0) out.emplace_back(name);
  }
  if (out.empty() && !t.outputs.empty()) out.push_back(t.outputs.front());
  return out;
}

}  // namespace

void check_sweep_statistics(const SweepStatisticsSpec& statistics, const std::vector<std::string>& outputs,
                            const std::string& source) {
  std::string names;
  for (const auto& o : outputs) names += (names.empty() ? "" : ", ") + o;
  const auto known = [&](const std::string& output, const std::string& field) {
    if (std::find(outputs.begin(), outputs.end(), output) == outputs.end()) {
      throw InputError(source + ": " + field + ": the model has no output '" + output + "'; it has: " + names);
    }
  };
  for (const auto& [output, values] : statistics.thresholds) {
    known(output, "statistics.thresholds." + output);
    for (double v : values) {
      if (!std::isfinite(v)) throw InputError(source + ": statistics.thresholds." + output + ": expected finite numbers");
    }
  }
  for (const auto& output : statistics.ida_outputs) known(output, "statistics.ida_outputs");
  if (!statistics.hazard_file.empty()) read_hazard_curve(statistics.hazard_file);
}

SweepReport write_sweep_report(const SweepTable& t, const SweepReportOptions& options) {
  namespace fs = std::filesystem;
  SweepReport report;
  fs::create_directories(options.directory);
  const auto path = [&](const std::string& name) { return (fs::path(options.directory) / name).string(); };
  const std::string unit = t.intensity_unit.empty() ? "" : " (" + t.intensity_unit + ")";
  const std::vector<std::string> outputs =
      options.statistics.ida_outputs.empty() ? default_ida_outputs(t) : options.statistics.ida_outputs;

  CsvFile summary(path("ida_summary.csv"), "output,unit,design,parameters,level,intensity,finished,failed,median,p16,p84");
  for (const auto& output : outputs) {
    const std::string file = path("ida_" + output + ".csv");
    CsvFile per_run(file, "design,parameters,sample,level,intensity,peak");
    for (const IdaCurves& c : ida_curves(t, output)) {
      const std::string params = csv_text(design_text(t, c.design));
      for (size_t s = 0; s < c.samples.size(); ++s) {
        for (size_t l = 0; l < c.intensity.size(); ++l) {
          per_run.row("{},{},{},{},{},{}", c.design, params, csv_text(c.samples[s]), l, num(c.intensity[l]), num(c.peak[s][l]));
        }
      }
      for (size_t l = 0; l < c.intensity.size(); ++l) {
        summary.row("{},{},{},{},{},{},{},{},{},{},{}", output, csv_text(c.unit), c.design, params, l, num(c.intensity[l]),
                    c.finished[l], c.failed[l], num(c.median[l]), num(c.p16[l]), num(c.p84[l]));
      }
      if (!c.intensity.empty()) {
        report.lines.push_back(fmt::format("IDA {} [{}] design {}: median {:.4g} … {:.4g} {} at intensity {:.4g} … {:.4g}{}",
                                           output, design_text(t, c.design), c.design, c.median.front(), c.median.back(),
                                           c.unit, c.intensity.front(), c.intensity.back(), unit));
      }
    }
    per_run.close();
    report.files.push_back(file);
  }
  summary.close();
  report.files.push_back(path("ida_summary.csv"));

  if (!options.statistics.thresholds.empty()) {
    HazardCurve hazard;
    const bool with_hazard = !options.statistics.hazard_file.empty();
    if (with_hazard) hazard = read_hazard_curve(options.statistics.hazard_file);
    CsvFile fragility(path("fragility.csv"),
                      "output,threshold,design,parameters,level,intensity,runs,exceeding,fraction,fitted_probability,theta,beta,note");
    std::optional<CsvFile> rates;
    if (with_hazard) rates.emplace(path("hazard.csv"), "output,threshold,design,parameters,annual_rate,return_period_years,fragility");
    for (const auto& [output, thresholds] : options.statistics.thresholds) {
      for (double threshold : thresholds) {
        for (const FragilityCurve& f : fragility_curves(t, output, threshold)) {
          const std::string params = csv_text(design_text(t, f.design));
          for (size_t l = 0; l < f.intensity.size(); ++l) {
            const double fraction = f.runs[l] > 0 ? static_cast<double>(f.exceeding[l]) / f.runs[l] : NAN;
            fragility.row("{},{},{},{},{},{},{},{},{},{},{},{},{}", output, num(threshold), f.design, params, l,
                          num(f.intensity[l]), f.runs[l], f.exceeding[l], num(fraction),
                          num(f.fitted ? f.probability(f.intensity[l]) : NAN), num(f.fitted ? f.theta : NAN),
                          num(f.fitted ? f.beta : NAN), csv_text(f.note));
          }
          report.lines.push_back(
              f.fitted ? fmt::format("fragility {} > {:g} [{}]: θ = {:.4g}{}, β = {:.3f}{}", output, threshold,
                                     design_text(t, f.design), f.theta, unit, f.beta, f.note.empty() ? "" : " (" + f.note + ")")
                       : fmt::format("fragility {} > {:g} [{}]: not fitted: {}", output, threshold, design_text(t, f.design), f.note));
          if (with_hazard) {
            const double rate = annual_exceedance_rate(f, hazard);
            rates->row("{},{},{},{},{},{},{}", output, num(threshold), f.design, params, num(rate),
                       num(rate > 0 ? 1.0 / rate : INFINITY), f.fitted ? "lognormal fit" : "observed fractions");
            report.lines.push_back(fmt::format("  annual rate of exceedance {:.4g} /yr (return period {:.4g} yr)", rate,
                                               rate > 0 ? 1.0 / rate : INFINITY));
          }
        }
      }
    }
    fragility.close();
    report.files.push_back(path("fragility.csv"));
    if (rates) {
      rates->close();
      report.files.push_back(path("hazard.csv"));
    }
  }
  return report;
}

}  // namespace gmbd
