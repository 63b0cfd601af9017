// IDA curves, lognormal fragility fits (binomial maximum likelihood, Nelder–Mead in ln θ, ln β)
// and the total-probability integral over a hazard curve, all from a sweep results table.
#include "study/sweep_statistics.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string available(const SweepTable& t) {
  std::string out;
  for (const auto& o : t.outputs) out += (out.empty() ? "" : ", ") + o;
  return out;
}

int require_output(const SweepTable& t, const std::string& output) {
  const int j = t.output_index(output);
  if (j < 0) throw InputError("output '" + output + "' is not in the sweep results; they have: " + available(t));
  return j;
}

int designs_of(const SweepTable& t) {
  int n = 0;
  for (int d : t.design) n = std::max(n, d + 1);
  return n;
}

int levels_of(const SweepTable& t) { return static_cast<int>(t.intensity_levels.size()); }

// The sample (record, initial condition) a run belongs to, and its name.
int sample_of(const SweepTable& t, long run, int ics) {
  const auto r = static_cast<size_t>(run);
  return std::max(t.record[r], 0) * ics + t.initial_condition[r];
}

// Median intensity of each level over the runs of one design (constant for targeted peaks).
std::vector<double> level_intensities(const SweepTable& t, int design) {
  std::vector<std::vector<double>> values(static_cast<size_t>(levels_of(t)));
  for (long r = 0; r < t.runs; ++r) {
    const auto i = static_cast<size_t>(r);
    if (t.design[i] == design && std::isfinite(t.intensity[i])) values[static_cast<size_t>(t.level[i])].push_back(t.intensity[i]);
  }
  std::vector<double> out;
  for (size_t k = 0; k < values.size(); ++k) {
    out.push_back(values[k].empty() ? t.intensity_levels[k] : percentile(values[k], 50.0));
  }
  return out;
}

// −ln L of the binomial likelihood with p_j = Φ((ln x_j − μ)/β).
double negative_log_likelihood(const std::vector<double>& lnx, const std::vector<int>& n, const std::vector<int>& z,
                               double mu, double beta) {
  double nll = 0.0;
  for (size_t j = 0; j < lnx.size(); ++j) {
    const double p = std::clamp(normal_cdf((lnx[j] - mu) / beta), 1e-300, 1.0 - 1e-16);
    nll -= z[j] * std::log(p) + (n[j] - z[j]) * std::log1p(-p);
  }
  return nll;
}

// Nelder–Mead on a smooth two-parameter function (standard coefficients 1, 2, ½, ½).
std::array<double, 2> nelder_mead(const std::function<double(const std::array<double, 2>&)>& f, std::array<double, 2> x0,
                                  std::array<double, 2> step) {
  std::array<std::array<double, 2>, 3> s = {x0, {x0[0] + step[0], x0[1]}, {x0[0], x0[1] + step[1]}};
  std::array<double, 3> fs = {f(s[0]), f(s[1]), f(s[2])};
  for (int iter = 0; iter < 2000; ++iter) {
    std::array<int, 3> o = {0, 1, 2};
    std::sort(o.begin(), o.end(), [&](int a, int b) { return fs[static_cast<size_t>(a)] < fs[static_cast<size_t>(b)]; });
    const auto& best = s[static_cast<size_t>(o[0])];
    const auto& worst = s[static_cast<size_t>(o[2])];
    if (std::abs(fs[static_cast<size_t>(o[2])] - fs[static_cast<size_t>(o[0])]) < 1e-12 &&
        std::abs(worst[0] - best[0]) + std::abs(worst[1] - best[1]) < 1e-10) {
      break;
    }
    std::array<double, 2> c{};
    for (int k : {o[0], o[1]}) {
      c[0] += 0.5 * s[static_cast<size_t>(k)][0];
      c[1] += 0.5 * s[static_cast<size_t>(k)][1];
    }
    const auto along = [&](double t) { return std::array<double, 2>{c[0] + t * (worst[0] - c[0]), c[1] + t * (worst[1] - c[1])}; };
    const auto xr = along(-1.0);
    const double fr = f(xr);
    const auto w = static_cast<size_t>(o[2]);
    if (fr < fs[static_cast<size_t>(o[0])]) {
      const auto xe = along(-2.0);
      const double fe = f(xe);
      if (fe < fr) {
        s[w] = xe;
        fs[w] = fe;
      } else {
        s[w] = xr;
        fs[w] = fr;
      }
    } else if (fr < fs[static_cast<size_t>(o[1])]) {
      s[w] = xr;
      fs[w] = fr;
    } else {
      const auto xc = along(0.5);
      const double fc = f(xc);
      if (fc < fs[w]) {
        s[w] = xc;
        fs[w] = fc;
      } else {  // shrink toward the best
        for (int k : {o[1], o[2]}) {
          auto& p = s[static_cast<size_t>(k)];
          p = {best[0] + 0.5 * (p[0] - best[0]), best[1] + 0.5 * (p[1] - best[1])};
          fs[static_cast<size_t>(k)] = f(p);
        }
      }
    }
  }
  const auto it = std::min_element(fs.begin(), fs.end());
  return s[static_cast<size_t>(it - fs.begin())];
}

}  // namespace

double percentile(std::vector<double> values, double p) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double x) { return !std::isfinite(x); }), values.end());
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  const double h = (static_cast<double>(values.size()) - 1.0) * std::clamp(p, 0.0, 100.0) / 100.0;
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

std::vector<IdaCurves> ida_curves(const SweepTable& t, const std::string& output) {
  const int j = require_output(t, output);
  int ics = 1;
  for (int c : t.initial_condition) ics = std::max(ics, c + 1);
  int records = 1;
  for (int r : t.record) records = std::max(records, r + 1);
  const size_t k = t.outputs.size();
  std::vector<IdaCurves> out;
  for (int d = 0; d < designs_of(t); ++d) {
    IdaCurves c;
    c.output = output;
    c.unit = static_cast<size_t>(j) < t.output_units.size() ? t.output_units[static_cast<size_t>(j)] : "";
    c.design = d;
    c.intensity = level_intensities(t, d);
    const auto levels = static_cast<size_t>(levels_of(t));
    for (int s = 0; s < records * ics; ++s) {
      const int record = s / ics, ic = s % ics;
      std::string name = t.record_labels.empty() ? "base run" : t.record_labels[static_cast<size_t>(record)];
      if (ics > 1) name += fmt::format(" / ic {}", ic + 1);
      c.samples.push_back(name);
    }
    c.peak.assign(c.samples.size(), std::vector<double>(levels, kNaN));
    c.finished.assign(levels, 0);
    c.failed.assign(levels, 0);
    for (long r = 0; r < t.runs; ++r) {
      const auto i = static_cast<size_t>(r);
      if (t.design[i] != d) continue;
      const auto level = static_cast<size_t>(t.level[i]);
      if (t.status[i] == static_cast<int>(SweepRunStatus::kFailed)) ++c.failed[level];
      if (t.status[i] != static_cast<int>(SweepRunStatus::kCompleted)) continue;
      ++c.finished[level];
      c.peak[static_cast<size_t>(sample_of(t, r, ics))][level] = t.peak[i * k + static_cast<size_t>(j)];
    }
    for (size_t l = 0; l < levels; ++l) {
      std::vector<double> column;
      for (const auto& row : c.peak) column.push_back(row[l]);
      c.median.push_back(percentile(column, 50.0));
      c.p16.push_back(percentile(column, 16.0));
      c.p84.push_back(percentile(column, 84.0));
    }
    out.push_back(std::move(c));
  }
  return out;
}

FragilityCurve fit_fragility(const std::vector<double>& intensity, const std::vector<int>& runs,
                             const std::vector<int>& exceeding) {
  FragilityCurve f;
  f.intensity = intensity;
  f.runs = runs;
  f.exceeding = exceeding;
  std::vector<double> lnx;
  std::vector<int> n, z;
  int total = 0, total_exceeding = 0;
  for (size_t l = 0; l < intensity.size(); ++l) {
    if (runs[l] == 0 || !(intensity[l] > 0.0)) continue;
    lnx.push_back(std::log(intensity[l]));
    n.push_back(runs[l]);
    z.push_back(exceeding[l]);
    total += runs[l];
    total_exceeding += exceeding[l];
  }
  if (lnx.empty()) {
    f.note = "no finished runs";
    return f;
  }
  if (total_exceeding == 0) {
    f.note = "no run exceeds the threshold: the median capacity lies above the largest intensity";
    return f;
  }
  if (total_exceeding == total) {
    f.note = "every run exceeds the threshold: the median capacity lies below the smallest intensity";
    return f;
  }
  if (lnx.size() < 2) {
    f.note = "one intensity level cannot fix both θ and β";
    return f;
  }
  // Separation: no run exceeds below some level and every run does above it, with at most one
  // level in between that is mixed. The likelihood then grows as β → 0 without a maximum (with
  // one mixed level it tends to that of a step at it), and where the optimiser stops (β = 0.044
  // for 0/3, 3/3, 3/3) says nothing. θ lies between the levels named; β is not resolved.
  {
    std::vector<std::pair<double, std::pair<int, int>>> levels;  // ln x, (n, z), equal x merged
    for (size_t l = 0; l < lnx.size(); ++l) {
      auto it = std::find_if(levels.begin(), levels.end(), [&](const auto& e) { return e.first == lnx[l]; });
      if (it == levels.end()) levels.push_back({lnx[l], {n[l], z[l]}});
      else it->second.first += n[l], it->second.second += z[l];
    }
    std::sort(levels.begin(), levels.end());
    size_t none_until = 0;  // levels [0, none_until) have no exceedance
    while (none_until < levels.size() && levels[none_until].second.second == 0) ++none_until;
    size_t all_from = levels.size();  // levels [all_from, end) exceed in every run
    while (all_from > none_until && levels[all_from - 1].second.second == levels[all_from - 1].second.first) --all_from;
    if (none_until > 0 && all_from < levels.size() && all_from - none_until <= 1) {
      const double below = std::exp(levels[none_until - 1].first), above = std::exp(levels[all_from].first);
      f.note = all_from == none_until
                   ? fmt::format("the exceedance jumps from none to all between the levels {:.4g} and {:.4g}: "
                                 "θ lies between them and β is not resolved (more levels needed)",
                                 below, above)
                   : fmt::format("the exceedance goes from none to all across the one level {:.4g} (between "
                                 "{:.4g} and {:.4g}): θ is near it and β is not resolved (more levels needed)",
                                 std::exp(levels[none_until].first), below, above);
      return f;
    }
  }
  // Start from the level nearest half exceedance and β = 0.4 (a common record-to-record value).
  double mu0 = lnx.front(), best = 2.0;
  for (size_t l = 0; l < lnx.size(); ++l) {
    const double gap = std::abs(static_cast<double>(z[l]) / n[l] - 0.5);
    if (gap < best) {
      best = gap;
      mu0 = lnx[l];
    }
  }
  const auto nll = [&](const std::array<double, 2>& p) {
    return negative_log_likelihood(lnx, n, z, p[0], std::exp(p[1]));
  };
  const auto p = nelder_mead(nll, {mu0, std::log(0.4)}, {0.3, 0.3});
  f.theta = std::exp(p[0]);
  f.beta = std::exp(p[1]);
  // Counts that jump from none to all between two levels drive β to 0: the data cannot
  // resolve the spread; say so rather than report a step as a fit.
  if (f.beta < 1e-3) {
    f.note = "the exceedance jumps from none to all between two levels: β is not resolved (more levels needed)";
    f.beta = std::max(f.beta, 1e-3);
  }
  f.fitted = std::isfinite(f.theta) && std::isfinite(f.beta);
  return f;
}

double FragilityCurve::probability(double x) const {
  if (!(x > 0.0)) return 0.0;
  if (fitted) return normal_cdf(std::log(x / theta) / beta);
  // Observed fractions, linear in ln x between levels, constant beyond.
  std::vector<std::pair<double, double>> pts;
  for (size_t l = 0; l < intensity.size(); ++l) {
    if (runs[l] > 0 && intensity[l] > 0.0) pts.emplace_back(std::log(intensity[l]), static_cast<double>(exceeding[l]) / runs[l]);
  }
  if (pts.empty()) return kNaN;
  std::sort(pts.begin(), pts.end());
  const double lx = std::log(x);
  if (lx <= pts.front().first) return pts.front().second;
  if (lx >= pts.back().first) return pts.back().second;
  for (size_t k = 1; k < pts.size(); ++k) {
    if (lx <= pts[k].first) {
      const double s = (lx - pts[k - 1].first) / (pts[k].first - pts[k - 1].first);
      return pts[k - 1].second + s * (pts[k].second - pts[k - 1].second);
    }
  }
  return pts.back().second;
}

std::vector<FragilityCurve> fragility_curves(const SweepTable& t, const std::string& output, double threshold) {
  const int j = require_output(t, output);
  const size_t k = t.outputs.size();
  std::vector<FragilityCurve> out;
  for (int d = 0; d < designs_of(t); ++d) {
    const auto levels = static_cast<size_t>(levels_of(t));
    std::vector<int> n(levels, 0), z(levels, 0);
    for (long r = 0; r < t.runs; ++r) {
      const auto i = static_cast<size_t>(r);
      if (t.design[i] != d || t.status[i] != static_cast<int>(SweepRunStatus::kCompleted)) continue;
      const auto l = static_cast<size_t>(t.level[i]);
      ++n[l];
      if (t.peak[i * k + static_cast<size_t>(j)] > threshold) ++z[l];
    }
    FragilityCurve f = fit_fragility(level_intensities(t, d), n, z);
    f.output = output;
    f.threshold = threshold;
    f.design = d;
    out.push_back(std::move(f));
  }
  return out;
}

double HazardCurve::rate_at(double x) const {
  if (intensity.empty()) return kNaN;
  const double lx = std::log(x);
  size_t k = 1;
  while (k + 1 < intensity.size() && std::log(intensity[k]) < lx) ++k;
  const double x0 = std::log(intensity[k - 1]), x1 = std::log(intensity[k]);
  const double y0 = std::log(rate[k - 1]), y1 = std::log(rate[k]);
  return std::exp(y0 + (lx - x0) * (y1 - y0) / (x1 - x0));  // log-log, extrapolated at the ends
}

HazardCurve read_hazard_curve(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("hazard curve '" + path + "': cannot be read");
  HazardCurve h;
  h.source = path;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    for (char& c : line) {
      if (c == ',' || c == ';' || c == '\t' || c == '\r') c = ' ';
    }
    std::istringstream fields(line);
    std::string a, b, extra;
    if (!(fields >> a)) continue;
    char* end = nullptr;
    const double x = std::strtod(a.c_str(), &end);
    if (end == a.c_str() && h.intensity.empty()) continue;  // a header line before the data
    const bool ok_x = end != a.c_str() && *end == '\0';
    double y = kNaN;
    if (fields >> b) {
      y = std::strtod(b.c_str(), &end);
      if (*end != '\0') y = kNaN;
    }
    const std::string where = "hazard curve '" + path + "' line " + std::to_string(number);
    if (!ok_x || !std::isfinite(x) || !std::isfinite(y)) {
      throw InputError(where + ": expected two numbers (intensity, annual rate of exceedance), got '" + line + "'");
    }
    if (!(x > 0.0) || !(y > 0.0)) throw InputError(where + ": intensity and rate must be > 0, got " + a + ", " + b);
    if (!h.intensity.empty() && !(x > h.intensity.back())) {
      throw InputError(where + ": intensities must increase, got " + a + " after " + fmt::format("{}", h.intensity.back()));
    }
    if (!h.rate.empty() && !(y < h.rate.back())) {
      throw InputError(where + ": annual rates must decrease as intensity grows, got " + b + " after " +
                       fmt::format("{}", h.rate.back()));
    }
    h.intensity.push_back(x);
    h.rate.push_back(y);
  }
  if (h.intensity.size() < 2) throw InputError("hazard curve '" + path + "': expected at least two points, got " + std::to_string(h.intensity.size()));
  return h;
}

double annual_exceedance_rate(const FragilityCurve& f, const HazardCurve& h) {
  const double lo = std::log(h.intensity.front()), hi = std::log(h.intensity.back());
  constexpr int kSteps = 2000;
  double rate = 0.0;
  double previous = h.rate_at(h.intensity.front());
  for (int k = 1; k <= kSteps; ++k) {
    const double x = std::exp(lo + (hi - lo) * k / kSteps);
    const double mid = std::exp(lo + (hi - lo) * (k - 0.5) / kSteps);
    const double current = h.rate_at(x);
    rate += f.probability(mid) * (previous - current);
    previous = current;
  }
  return rate + f.probability(h.intensity.back()) * h.rate.back();
}

}  // namespace gmbd
