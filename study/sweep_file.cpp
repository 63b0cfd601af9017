// Reading sweep files: YAML sections checked key by key, every error naming the file, line and
// field with the expected and actual value; record globs expanded and relative paths resolved.
#include "study/sweep_file.hpp"

#include <glob.h>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "simulation/run_config.hpp"
#include "io/yaml_document.hpp"

namespace gmbd {
namespace fs = std::filesystem;
namespace {

using io_detail::describe;  // how a node is shown as "got …" in messages

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

int line_of(const YAML::Node& node) {
  return node.IsDefined() && !node.Mark().is_null() ? node.Mark().line + 1 : 0;
}

/// Typed access to the sweep file's tree; every failure is "<field>: <problem> (<file> line n)".
class SweepReader {
 public:
  SweepReader(std::string source, std::string directory)
      : source_(std::move(source)), directory_(std::move(directory)) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& field, const std::string& problem) const {
    const int line = line_of(node);
    throw InputError(field + ": " + problem + " (" + source_ + (line > 0 ? " line " + std::to_string(line) : "") + ")");
  }

  /// Checks that `node` is a mapping whose keys all come from `valid` (no duplicates).
  void keys(const YAML::Node& node, const std::string& field, const std::vector<std::string>& valid) const {
    if (!node.IsMap()) fail(node, field, "expected a mapping with keys " + join(valid) + ", got " + describe(node));
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
        fail(it->first, field.empty() ? key : field + "." + key,
             "unknown key '" + key + "'; expected one of: " + join(valid));
      }
      if (!seen.insert(key).second) fail(it->first, field.empty() ? key : field + "." + key, "duplicate key '" + key + "'");
    }
  }

  double number(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) fail(node, field, "expected a number, got " + describe(node));
    double value = 0.0;
    try {
      value = evaluate_expression(node.Scalar());
    } catch (const InputError&) {
      fail(node, field, "expected a number, got " + describe(node));
    }
    if (!std::isfinite(value)) fail(node, field, "expected a finite number, got " + describe(node));
    return value;
  }

  long integer(const YAML::Node& node, const std::string& field, long lo, long hi) const {
    const double x = number(node, field);
    if (std::floor(x) != x || x < static_cast<double>(lo) || x > static_cast<double>(hi)) {
      fail(node, field, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " +
                            describe(node));
    }
    return static_cast<long>(x);
  }

  std::string text(const YAML::Node& node, const std::string& field, const std::string& expected) const {
    if (!node.IsScalar() || node.Scalar().empty()) fail(node, field, "expected " + expected + ", got " + describe(node));
    return node.Scalar();
  }

  /// A list of non-empty texts (one text is a list of one when `single_allowed`).
  std::vector<std::string> texts(const YAML::Node& node, const std::string& field, const std::string& expected,
                                 bool single_allowed) const {
    std::vector<std::string> out;
    if (single_allowed && node.IsScalar()) return {text(node, field, expected)};
    if (!node.IsSequence()) fail(node, field, "expected a list of " + expected + ", got " + describe(node));
    for (size_t k = 0; k < node.size(); ++k) out.push_back(text(node[k], field + "[" + std::to_string(k) + "]", expected));
    return out;
  }

  bool boolean(const YAML::Node& node, const std::string& field) const {
    const std::string t = node.IsScalar() ? node.Scalar() : "";
    if (t == "true" || t == "yes" || t == "on") return true;
    if (t == "false" || t == "no" || t == "off") return false;
    fail(node, field, "expected true or false, got " + describe(node));
  }

  std::string path(const std::string& relative) const {
    const fs::path p(relative);
    return fs::absolute(p.is_absolute() ? p : fs::path(directory_) / p).lexically_normal().string();
  }

  /// A list of numbers, or a grid {from, to, count[, log]} (count points, ends included).
  std::vector<double> values(const YAML::Node& node, const std::string& field) const {
    std::vector<double> out;
    if (node.IsSequence()) {
      for (size_t k = 0; k < node.size(); ++k) out.push_back(number(node[k], field + "[" + std::to_string(k) + "]"));
    } else if (node.IsMap()) {
      keys(node, field, {"from", "to", "count", "log"});
      for (const char* required : {"from", "to", "count"}) {
        if (!node[required]) fail(node, field, std::string("a grid needs from, to and count; '") + required + "' is missing");
      }
      const double from = number(node["from"], field + ".from"), to = number(node["to"], field + ".to");
      const long count = integer(node["count"], field + ".count", 1, 100000);
      const bool log = node["log"] && boolean(node["log"], field + ".log");
      if (log && (from <= 0.0 || to <= 0.0)) {
        fail(node, field, "a logarithmic grid needs from > 0 and to > 0, got from " + describe(node["from"]) + ", to " +
                              describe(node["to"]));
      }
      if (count == 1 && from != to) fail(node["count"], field + ".count", "count 1 needs from = to; give count >= 2");
      for (long k = 0; k < count; ++k) {
        const double s = count == 1 ? 0.0 : static_cast<double>(k) / static_cast<double>(count - 1);
        out.push_back(log ? std::exp(std::log(from) + s * (std::log(to) - std::log(from))) : from + s * (to - from));
      }
    } else {
      out.push_back(number(node, field));
    }
    if (out.empty()) fail(node, field, "expected at least one value (an empty list gives no runs), got an empty list");
    return out;
  }

 private:
  std::string source_, directory_;
};

std::vector<std::string> expand_glob(const std::string& pattern) {
  glob_t g{};
  std::vector<std::string> out;
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t k = 0; k < g.gl_pathc; ++k) {
      if (fs::is_regular_file(g.gl_pathv[k])) out.emplace_back(g.gl_pathv[k]);
    }
  }
  ::globfree(&g);
  return out;
}

SweepRecordGroup read_record_group(const SweepReader& r, const YAML::Node& node, const std::string& field) {
  SweepRecordGroup group;
  group.line = line_of(node);
  if (node.IsScalar()) {  // a bare file or glob
    group.patterns.push_back(node.Scalar());
  } else {
    r.keys(node, field, {"files", "channels", "input"});
    if (!node["files"]) r.fail(node, field, "expected 'files' (a file, a glob or a list of them)");
    group.patterns = r.texts(node["files"], field + ".files", "a file or glob", true);
    if (const YAML::Node ch = node["channels"]) {
      if (ch.IsMap()) {
        group.mode = "map";
        for (auto it = ch.begin(); it != ch.end(); ++it) {
          group.assignments.emplace_back(it->first.Scalar(),
                                         r.text(it->second, field + ".channels." + it->first.Scalar(),
                                                "a channel index or component text"));
          // yaml-cpp tags a quoted scalar "!", a plain one "?" (and `!!str 90` with its tag):
          // `floor_x: "90"` names the component 90 (as run files read it), `floor_x: 1` the
          // second channel.
          const std::string& tag = it->second.Tag();
          group.by_component.push_back(tag == "!" || tag == "tag:yaml.org,2002:str" ? 1 : 0);
        }
        if (group.assignments.empty()) r.fail(ch, field + ".channels", "expected at least one input: channel pair");
      } else {
        group.mode = r.text(ch, field + ".channels", "each_horizontal, each, triaxial or a mapping input: channel");
        if (group.mode != "each_horizontal" && group.mode != "each" && group.mode != "triaxial") {
          r.fail(ch, field + ".channels",
                 "expected each_horizontal, each, triaxial or a mapping {input: channel}, got " + describe(ch));
        }
      }
    }
    if (const YAML::Node in = node["input"]) {
      group.input = r.text(in, field + ".input", "an input name (floor_x, floor_y, floor_z)");
      if (group.mode == "map" || group.mode == "triaxial") {
        r.fail(in, field + ".input", "'input' goes with channels: each_horizontal or each, not with " + group.mode);
      }
    }
  }
  std::set<std::string> seen;
  for (const auto& pattern : group.patterns) {
    const std::vector<std::string> matched = expand_glob(r.path(pattern));
    if (matched.empty()) {
      r.fail(node, field, "'" + pattern + "' matches no file (looked for " + r.path(pattern) + ")");
    }
    for (const auto& f : matched) {
      if (seen.insert(f).second) group.files.push_back(f);
    }
  }
  std::sort(group.files.begin(), group.files.end());
  return group;
}

void read_intensity(const SweepReader& r, const YAML::Node& node, SweepSpec& spec) {
  r.keys(node, "intensity", {"peak_g", "peak", "scale"});
  if (node.size() != 1) {
    r.fail(node, "intensity", "expected exactly one of peak_g (target peak in g), peak (m/s²) or scale (factors), got " +
                                  std::to_string(node.size()));
  }
  const auto it = node.begin();
  spec.intensity_kind = it->first.Scalar();
  spec.intensities = r.values(it->second, "intensity." + spec.intensity_kind);
  for (size_t k = 0; k < spec.intensities.size(); ++k) {
    if (!(spec.intensities[k] > 0.0)) {
      r.fail(it->second, "intensity." + spec.intensity_kind + "[" + std::to_string(k) + "]",
             "expected a value > 0, got " + std::to_string(spec.intensities[k]));
    }
    // IDA curves and fragility fits read the levels in order: ascending, each once.
    if (k > 0 && !(spec.intensities[k] > spec.intensities[k - 1])) {
      r.fail(it->second, "intensity." + spec.intensity_kind,
             "expected increasing intensity levels (IDA curves and fragility read them in order), got " +
                 fmt::format("{:g} after {:g} at level {}", spec.intensities[k], spec.intensities[k - 1], k) +
                 (it->second.IsMap() ? " (a grid runs from 'from' to 'to': give from < to)" : ""));
    }
  }
}

void read_initial_conditions(const SweepReader& r, const YAML::Node& node, SweepInitialConditions& ic) {
  r.keys(node, "initial_conditions", {"count", "seed", "vary"});
  if (!node["count"]) r.fail(node, "initial_conditions", "expected 'count' (the number of drawn initial states)");
  ic.count = static_cast<int>(r.integer(node["count"], "initial_conditions.count", 1, 100000));
  if (node["seed"]) ic.seed = static_cast<std::uint64_t>(r.integer(node["seed"], "initial_conditions.seed", 0, 2147483647L));
  if (const YAML::Node vary = node["vary"]) ic.vary = r.texts(vary, "initial_conditions.vary", "KEY or KEY=LO:HI", false);
}

void read_latin_hypercube(const SweepReader& r, const YAML::Node& node, SweepLatinHypercube& lhs) {
  r.keys(node, "latin_hypercube", {"count", "seed", "ranges"});
  if (!node["count"] || !node["ranges"]) r.fail(node, "latin_hypercube", "expected 'count' and 'ranges'");
  lhs.count = static_cast<int>(r.integer(node["count"], "latin_hypercube.count", 1, 1000000));
  if (node["seed"]) lhs.seed = static_cast<std::uint64_t>(r.integer(node["seed"], "latin_hypercube.seed", 0, 2147483647L));
  const YAML::Node ranges = node["ranges"];
  if (!ranges.IsMap() || ranges.size() == 0) {
    r.fail(ranges, "latin_hypercube.ranges", "expected a mapping name: [lo, hi], got " + describe(ranges));
  }
  for (auto it = ranges.begin(); it != ranges.end(); ++it) {
    const std::string field = "latin_hypercube.ranges." + it->first.Scalar();
    if (!it->second.IsSequence() || it->second.size() != 2) r.fail(it->second, field, "expected [lo, hi], got " + describe(it->second));
    const double lo = r.number(it->second[0], field + "[0]"), hi = r.number(it->second[1], field + "[1]");
    if (!(lo < hi)) r.fail(it->second, field, "expected lo < hi, got [" + describe(it->second[0]) + ", " + describe(it->second[1]) + "]");
    lhs.ranges.push_back({it->first.Scalar(), {lo, hi}});
  }
}

void read_statistics(const SweepReader& r, const YAML::Node& node, SweepStatisticsSpec& st) {
  r.keys(node, "statistics", {"thresholds", "hazard", "ida_outputs"});
  if (const YAML::Node th = node["thresholds"]) {
    if (!th.IsMap()) r.fail(th, "statistics.thresholds", "expected a mapping output: [thresholds], got " + describe(th));
    for (auto it = th.begin(); it != th.end(); ++it) {
      st.thresholds.push_back({it->first.Scalar(), r.values(it->second, "statistics.thresholds." + it->first.Scalar())});
    }
  }
  if (const YAML::Node hz = node["hazard"]) st.hazard_file = r.path(r.text(hz, "statistics.hazard", "a CSV file"));
  if (const YAML::Node io = node["ida_outputs"]) st.ida_outputs = r.texts(io, "statistics.ida_outputs", "output names", false);
}

void read_time_histories(const SweepReader& r, const YAML::Node& node, SweepTimeHistories& th) {
  r.keys(node, "time_histories", {"enabled", "directory", "decimate"});
  th.enabled = node["enabled"] ? r.boolean(node["enabled"], "time_histories.enabled") : true;
  if (node["directory"]) th.directory = r.path(r.text(node["directory"], "time_histories.directory", "a directory"));
  if (node["decimate"]) th.decimate = static_cast<int>(r.integer(node["decimate"], "time_histories.decimate", 1, 1000000));
}

YAML::Node load_sweep_yaml(const std::string& text, const std::string& source) {
  try {
    return io_detail::load_one_document(text, source, "sweep file");
  } catch (const YAML::Exception& e) {
    throw InputError(source + " line " + std::to_string(e.mark.line + 1) + ": not valid YAML (" + e.msg + ")");
  }
}

}  // namespace

SweepSpec parse_sweep_file(const std::string& text, const std::string& source, const std::string& directory) {
  SweepSpec spec;
  spec.source = source;
  spec.text = text;
  const SweepReader r(source, directory);
  const YAML::Node root = load_sweep_yaml(text, source);
  if (!root.IsMap()) r.fail(root, "top level", "expected a mapping of sections (base, records, intensity, …), got " + describe(root));
  r.keys(root, "", {"name", "base", "records", "intensity", "initial_conditions", "parameters", "latin_hypercube",
                    "set", "statistics", "time_histories"});
  spec.name = root["name"] ? r.text(root["name"], "name", "a name") : fs::path(source).stem().string();
  if (!root["base"]) r.fail(root, "base", "missing: the run file every run of the sweep starts from");
  spec.base = r.path(r.text(root["base"], "base", "a run file"));
  {
    std::ifstream in(spec.base, std::ios::binary);
    if (!in) r.fail(root["base"], "base", "cannot read the run file '" + spec.base + "'");
    std::ostringstream all;
    all << in.rdbuf();
    spec.base_text = all.str();
  }
  if (const YAML::Node rec = root["records"]) {
    if (!rec.IsSequence() || rec.size() == 0) r.fail(rec, "records", "expected a list of record entries, got " + describe(rec));
    for (size_t k = 0; k < rec.size(); ++k) spec.records.push_back(read_record_group(r, rec[k], "records[" + std::to_string(k) + "]"));
  }
  if (const YAML::Node in = root["intensity"]) {
    if (spec.records.empty()) r.fail(in, "intensity", "scales recorded motions, but the sweep has no 'records'");
    read_intensity(r, in, spec);
  }
  if (const YAML::Node ic = root["initial_conditions"]) read_initial_conditions(r, ic, spec.initial_conditions);
  if (const YAML::Node params = root["parameters"]) {
    if (!params.IsMap()) r.fail(params, "parameters", "expected a mapping name: values, got " + describe(params));
    for (auto it = params.begin(); it != params.end(); ++it) {
      SweepAxis axis;
      axis.name = it->first.Scalar();
      axis.line = line_of(it->first);
      axis.values = r.values(it->second, "parameters." + axis.name);
      spec.parameters.push_back(axis);
    }
  }
  if (const YAML::Node lhs = root["latin_hypercube"]) read_latin_hypercube(r, lhs, spec.latin_hypercube);
  if (const YAML::Node set = root["set"]) {
    if (!set.IsMap()) r.fail(set, "set", "expected a mapping of run-file keys to values, got " + describe(set));
    for (auto it = set.begin(); it != set.end(); ++it) {
      YAML::Emitter e;
      e << YAML::Flow << it->second;
      spec.overrides.push_back(it->first.Scalar() + "=" + e.c_str());
    }
  }
  if (const YAML::Node st = root["statistics"]) read_statistics(r, st, spec.statistics);
  if (const YAML::Node th = root["time_histories"]) read_time_histories(r, th, spec.time_histories);
  return spec;
}

SweepStatisticsSpec parse_sweep_statistics(const std::string& text, const std::string& source,
                                           const std::string& directory) {
  SweepStatisticsSpec st;
  const SweepReader r(source, directory);
  const YAML::Node root = load_sweep_yaml(text, source);
  if (root.IsMap() && root["statistics"]) read_statistics(r, root["statistics"], st);
  return st;
}

SweepSpec load_sweep_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("sweep file '" + path + "': cannot be read (" + (fs::exists(path) ? "permission denied" : "no such file") + ")");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string dir = fs::absolute(fs::path(path)).parent_path().string();
  return parse_sweep_file(text.str(), path, dir);
}

}  // namespace gmbd
