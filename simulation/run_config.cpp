// Parsing and validation of YAML run files, "--set key=value" overrides, typed settings of a
// RunTemplate and the arithmetic evaluator of number fields; every error names file, line and field.
#include "simulation/run_config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <numbers>
#include <sstream>

#include "analysis/frequency_limits.hpp"
#include "core/errors.hpp"
#include "io/model_file.hpp"
#include "io/motion.hpp"
#include "io/suggest.hpp"
#include "io/text_checks.hpp"
#include "io/yaml_document.hpp"

namespace gmbd {
using io_detail::load_one_document;

namespace {


// ============================================================================================
// Helpers
// ============================================================================================
bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string join(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

/// Shortest text that reads back as exactly x.
std::string format_number(double x) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, x);
  return std::string(text, result.ptr);
}

using io_detail::suggestion;

YAML::Mark mark_of(const YAML::Node& node) {
  if (!node.IsDefined()) return YAML::Mark::null_mark();
  return node.Mark();
}

using io_detail::describe;  // how a node is shown as "got …" in messages

const std::vector<std::string> kSections = {"name",          "description", "model",
                                            "initial",       "integrator",  "stabilization",
                                            "time",          "output",      "inputs",
                                            "linear",        "outputs"};
const std::vector<std::string> kStabilizationMethods = {"none", "baumgarte", "dsc",
                                                        "dsc+baumgarte"};
const std::vector<std::string> kDscModes = {"dependent", "all"};
const std::vector<std::string> kDscMetrics = {"mass", "euclidean"};

// ============================================================================================
// The reader: typed access to the tree with messages "<path>: <problem> (<file> line <n>)"
// ============================================================================================
class Reader {
 public:
  struct Override {
    std::string path;  // dotted path that was set
    std::string text;  // the "key=value" as given
  };

  Reader(std::string source, std::vector<Override> overrides)
      : source_(std::move(source)), overrides_(std::move(overrides)) {}

  /// "(run.yaml line 7)", "(run.yaml, --set integrator.dt=fast)" or "(run.yaml)".
  std::string where(const YAML::Node& node, const std::string& path) const {
    const YAML::Mark mark = mark_of(node);
    for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
      const std::string& op = it->path;
      const bool inside = path == op || starts_with(path, op + ".") || starts_with(path, op + "[");
      const bool created = mark.is_null() && starts_with(op, path + ".");
      if (inside || created) return "(" + source_ + ", --set " + it->text + ")";
    }
    if (!mark.is_null()) return "(" + source_ + " line " + std::to_string(mark.line + 1) + ")";
    return "(" + source_ + ")";
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& path,
                         const std::string& problem) const {
    throw InputError((path.empty() ? std::string("top level") : path) + ": " + problem + " " +
                     where(node, path));
  }

  // ---- sections ----------------------------------------------------------------------------
  /// A mapping whose keys must come from `valid`; duplicate and unknown keys are errors.
  class Section {
   public:
    const YAML::Node* get(const std::string& key) const {
      for (const auto& e : entries_)
        if (e.key == key) return &e.value;
      return nullptr;
    }
    std::string child(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
    const YAML::Node& node() const { return node_; }
    const std::string& path() const { return path_; }

   private:
    friend class Reader;
    struct Entry {
      std::string key;
      YAML::Node key_node, value;
    };
    YAML::Node node_;
    std::string path_;
    std::vector<Entry> entries_;
  };

  /// Entries of a mapping in file order (null → none); duplicates are errors.
  std::vector<std::pair<YAML::Node, YAML::Node>> mapping(const YAML::Node& node,
                                                         const std::string& path,
                                                         const std::string& expected) const {
    std::vector<std::pair<YAML::Node, YAML::Node>> out;
    if (node.IsNull()) return out;
    if (!node.IsMap()) fail(node, path, "expected " + expected + ", got " + describe(node));
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;
      const std::string key_path = path.empty() ? "" : path + ".";
      if (!key.IsScalar()) fail(key, path, "expected a key name, got " + describe(key));
      for (const auto& [previous, value] : out) {
        if (previous.Scalar() == key.Scalar()) {
          const YAML::Mark first = mark_of(previous);
          fail(key, key_path + key.Scalar(),
               "duplicate key '" + key.Scalar() + "'" +
                   (first.is_null() ? "" : " (first given at line " +
                                               std::to_string(first.line + 1) + ")"));
        }
      }
      out.emplace_back(key, it->second);
    }
    return out;
  }

  Section section(const YAML::Node& node, const std::string& path,
                  const std::vector<std::string>& valid) const {
    Section s;
    s.node_ = node;
    s.path_ = path;
    for (auto& [key, value] :
         mapping(node, path, "a mapping with keys " + join(valid))) {
      const std::string& name = key.Scalar();
      if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
        const std::string what = path.empty() ? "unknown top-level section '" + name + "'"
                                              : "unknown key '" + name + "' in '" + path + "'";
        // A model file given where a run file is expected: say so rather than list run-file keys.
        const bool model_file_section = path.empty() && (name == "dimension" || name == "bodies" ||
                                                         name == "elements" || name == "points" || name == "ground");
        const std::string hint = model_file_section
            ? " (this looks like a model file: a run file names it with model: {file: …}; gmbd linearize "
              "also takes a model file directly)"
            : suggestion(name, valid);
        fail(key, s.child(name), what + "; expected one of: " + join(valid) + hint);
      }
      s.entries_.push_back({name, key, value});
    }
    return s;
  }

  // ---- scalars -----------------------------------------------------------------------------
  /// A number: a YAML number, .inf/.nan, or an arithmetic expression ("pi/2"). Non-finite
  /// values are errors unless allow_infinity (then only +∞ is accepted).
  double number(const YAML::Node& node, const std::string& path, bool allow_infinity = false) const {
    if (!node.IsScalar()) fail(node, path, "expected a number, got " + describe(node));
    const std::string text = trim(node.Scalar());
    double value = 0.0;
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == ".inf" || lower == "+.inf") {
      value = std::numeric_limits<double>::infinity();
    } else if (lower == "-.inf") {
      value = -std::numeric_limits<double>::infinity();
    } else if (lower == ".nan") {
      value = std::numeric_limits<double>::quiet_NaN();
    } else {
      try {
        value = evaluate_expression(text);
      } catch (const InputError& e) {
        const bool looks_like_expression = text.find_first_of("+-*/^()") != std::string::npos;
        fail(node, path,
             "expected a number, got " + describe(node) +
                 (looks_like_expression ? std::string(" (not a valid expression: ") + e.what() + ")"
                                        : std::string()));
      }
    }
    if (std::isfinite(value)) return value;
    if (allow_infinity && value > 0) return value;
    fail(node, path,
         std::string(allow_infinity ? "expected a positive number or .inf" : "expected a finite number") +
             ", got " + actual(node, value));
  }

  /// "'x'" or "'1-2' = -1" when the text was an expression.
  static std::string actual(const YAML::Node& node, double value) {
    const std::string shown = describe(node);
    const std::string text = trim(node.Scalar());
    double literal = 0.0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), literal);
    const bool plain_literal = result.ec == std::errc() && result.ptr == text.data() + text.size();
    if (plain_literal && literal == value) return shown;
    if (!text.empty() && text[0] == '.') return shown;  // .inf, .nan
    return shown + " = " + format_number(value);
  }

  double positive(const YAML::Node& node, const std::string& path, bool allow_infinity = false) const {
    const double x = number(node, path, allow_infinity);
    if (!(x > 0.0)) fail(node, path, "expected a positive number, got " + actual(node, x));
    return x;
  }

  long integer(const YAML::Node& node, const std::string& path, long minimum, long maximum) const {
    const double x = number(node, path);
    if (std::floor(x) != x || x < static_cast<double>(minimum) || x > static_cast<double>(maximum)) {
      std::string range = "an integer >= " + std::to_string(minimum);
      // The upper bound is news only when it is small or was exceeded.
      if (maximum <= std::numeric_limits<int>::max() || x > static_cast<double>(maximum)) {
        range += " and <= " + std::to_string(maximum);
      }
      fail(node, path, "expected " + range + ", got " + actual(node, x));
    }
    return static_cast<long>(x);
  }

  bool boolean(const YAML::Node& node, const std::string& path) const {
    if (node.IsScalar()) {
      std::string s = trim(node.Scalar());
      std::transform(s.begin(), s.end(), s.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (s == "true" || s == "yes" || s == "on") return true;
      if (s == "false" || s == "no" || s == "off") return false;
    }
    fail(node, path, "expected true or false, got " + describe(node));
  }

  /// A string; an empty value (null) gives "" when allow_empty, an error otherwise.
  std::string string(const YAML::Node& node, const std::string& path, const std::string& expected,
                     bool allow_empty) const {
    if (node.IsNull() && allow_empty) return "";
    if (!node.IsScalar() || (!allow_empty && trim(node.Scalar()).empty())) {
      fail(node, path, "expected " + expected + ", got " + describe(node));
    }
    return node.Scalar();
  }

  std::string choice(const YAML::Node& node, const std::string& path,
                     const std::vector<std::string>& valid) const {
    const std::string expected = "one of " + join(valid);
    const std::string s = trim(string(node, path, expected, false));
    if (std::find(valid.begin(), valid.end(), s) == valid.end()) {
      fail(node, path, "expected " + expected + ", got " + describe(node) + suggestion(s, valid));
    }
    return s;
  }

 private:
  std::string source_;
  std::vector<Override> overrides_;
};

// ============================================================================================
// Sections
// ============================================================================================
/// `model.parameters` of a model-file run: each entry replaces a parameter's expression
/// (`L: 2*a`), scales it (`L: {scale: 2}`) or increments it (`L: {increment: 0.1}`).
void read_model_file_changes(const Reader& r, const YAML::Node& parameters, RunConfig& config) {
  const std::string path = "model.parameters";
  for (const auto& [key, value] : r.mapping(parameters, path,
                                            "a mapping of parameter names to values, {scale: …} or {increment: …}")) {
    const std::string name = key.Scalar();
    const std::string param_path = path + "." + name;
    ParameterChange change;
    change.name = name;
    change.source = r.where(value, param_path);  // "(run.yaml line 5)"; drop the brackets
    if (change.source.size() >= 2 && change.source.front() == '(' && change.source.back() == ')')
      change.source = change.source.substr(1, change.source.size() - 2);
    if (value.IsScalar()) {
      change.kind = ParameterChange::Kind::kValue;
      change.expression = value.Scalar();
    } else if (value.IsMap() && value.size() == 1) {
      const std::string op = value.begin()->first.Scalar();
      const YAML::Node operand = value.begin()->second;
      if (!operand.IsScalar())
        r.fail(operand, param_path + "." + op, "expected a number or expression, got " + describe(operand));
      if (op == "scale") change.kind = ParameterChange::Kind::kScale;
      else if (op == "increment") change.kind = ParameterChange::Kind::kIncrement;
      else if (op == "value") change.kind = ParameterChange::Kind::kValue;
      else r.fail(value, param_path, "expected {value: …}, {scale: …} or {increment: …}, got '" + op + "'");
      change.expression = operand.Scalar();
    } else {
      r.fail(value, param_path,
             "expected a number/expression, {scale: …} or {increment: …}, got " + describe(value));
    }
    config.model_changes.push_back(std::move(change));
  }
}

void read_model(const Reader& r, const YAML::Node* node, RunConfig& config) {
  if (node == nullptr) {
    throw InputError(
        "model: missing required section (expected a mapping with 'type' naming a catalogue "
        "model or 'file' naming a model file, and optional 'parameters') (" + config.source + ")");
  }
  const auto s = r.section(*node, "model", {"type", "file", "parameters"});
  const YAML::Node* type = s.get("type");
  const YAML::Node* file = s.get("file");
  if (type != nullptr && file != nullptr)
    r.fail(*node, "model", "give either 'type' (a catalogue model) or 'file' (a model file), not both");
  if (type == nullptr && file == nullptr) {
    r.fail(*node, "model.type",
           "missing (expected the catalogue name of a model, e.g. 'nlink_pendulum_cartesian', "
           "or model.file naming a model file)");
  }
  if (file != nullptr) {
    const std::string name = trim(r.string(*file, "model.file", "the path of a model file", false));
    config.model_file = name;  // load_run_config resolves it against the run file's folder
    if (const YAML::Node* parameters = s.get("parameters")) read_model_file_changes(r, *parameters, config);
    return;
  }
  config.model = trim(r.string(*type, "model.type", "the catalogue name of a model", false));

  if (const YAML::Node* parameters = s.get("parameters")) {
    const std::string path = "model.parameters";
    for (const auto& [key, value] :
         r.mapping(*parameters, path, "a mapping of parameter names to numbers or lists")) {
      const std::string name = key.Scalar();
      const std::string param_path = path + "." + name;
      std::vector<double> values;
      if (value.IsSequence()) {
        for (size_t k = 0; k < value.size(); ++k) {
          values.push_back(r.number(value[k], param_path + "[" + std::to_string(k) + "]"));
        }
      } else if (value.IsScalar()) {
        values.push_back(r.number(value, param_path));
      } else {
        r.fail(value, param_path, "expected a number or a list of numbers, got " + describe(value));
      }
      config.parameters[name] = std::move(values);
    }
  }
}

void read_initial(const Reader& r, const YAML::Node& node, InitialConfig& initial) {
  const auto s = r.section(node, "initial", {"q", "v", "project", "tolerance"});
  const auto read_overrides = [&](const char* key, std::vector<std::pair<std::string, double>>& out) {
    const YAML::Node* values = s.get(key);
    if (values == nullptr) return;
    const std::string path = s.child(key);
    for (const auto& [name, value] :
         r.mapping(*values, path, "a mapping of coordinate names to numbers")) {
      out.emplace_back(name.Scalar(), r.number(value, path + "." + name.Scalar()));
    }
  };
  read_overrides("q", initial.q);
  read_overrides("v", initial.v);
  if (const YAML::Node* n = s.get("project")) initial.project = r.boolean(*n, s.child("project"));
  if (const YAML::Node* n = s.get("tolerance")) initial.tolerance = r.positive(*n, s.child("tolerance"));
}

void read_integrator(const Reader& r, const YAML::Node& node, IntegratorOptions& options) {
  const auto s = r.section(node, "integrator",
                           {"method", "dt", "rtol", "atol", "max_step", "min_step", "max_steps",
                            "max_order", "jacobian"});
  if (const YAML::Node* n = s.get("method")) options.method = r.choice(*n, s.child("method"), integrator_names());
  if (const YAML::Node* n = s.get("dt")) {
    if (n->IsScalar() && trim(n->Scalar()) == "auto") {
      options.dt = 0.0;  // automatic initial step (adaptive methods only; make_integrator checks)
    } else {
      const double dt = r.number(*n, s.child("dt"));
      if (!(dt > 0.0)) {
        r.fail(*n, s.child("dt"),
               "expected a positive step size in s (or 'auto' for an adaptive method's initial "
               "step), got " + Reader::actual(*n, dt));
      }
      options.dt = dt;
    }
  }
  if (const YAML::Node* n = s.get("rtol")) options.rtol = r.positive(*n, s.child("rtol"));
  if (const YAML::Node* n = s.get("atol")) options.atol = r.positive(*n, s.child("atol"));
  if (const YAML::Node* n = s.get("max_step")) options.max_step = r.positive(*n, s.child("max_step"), true);
  if (const YAML::Node* n = s.get("min_step")) options.min_step = r.positive(*n, s.child("min_step"));
  if (const YAML::Node* n = s.get("max_steps")) {
    // 2^62: any realistic step count, and exactly representable as a double.
    options.max_steps = r.integer(*n, s.child("max_steps"), 1, 4'611'686'018'427'387'904L);
  }
  if (const YAML::Node* n = s.get("max_order")) {
    options.max_order = static_cast<int>(r.integer(*n, s.child("max_order"), 0, 12));
  }
  if (const YAML::Node* n = s.get("jacobian")) options.jacobian = r.choice(*n, s.child("jacobian"), {"exact", "dq"});
  if (options.min_step > options.max_step) {
    const YAML::Node* n = s.get("min_step");
    r.fail(n != nullptr ? *n : node, s.child("min_step"),
           "expected at most integrator.max_step = " + format_number(options.max_step) + ", got " +
               format_number(options.min_step));
  }
}

void read_stabilization(const Reader& r, const YAML::Node& node, StabilizationConfig& stab) {
  const auto s = r.section(node, "stabilization",
                           {"method", "baumgarte", "dsc", "max_residual", "verify_structure",
                            "singular_tolerance"});
  if (const YAML::Node* n = s.get("method")) {
    // "baumgarte+dsc" is accepted as a spelling of "dsc+baumgarte".
    const bool alias = n->IsScalar() && trim(n->Scalar()) == "baumgarte+dsc";
    stab.method = alias ? "dsc+baumgarte" : r.choice(*n, s.child("method"), kStabilizationMethods);
  }
  if (const YAML::Node* n = s.get("max_residual")) {
    stab.max_residual = r.positive(*n, s.child("max_residual"), true);
  }
  if (const YAML::Node* n = s.get("verify_structure")) {
    stab.verify_structure = r.boolean(*n, s.child("verify_structure"));
  }
  if (const YAML::Node* n = s.get("singular_tolerance")) {
    stab.singular_tolerance = r.number(*n, s.child("singular_tolerance"));
    if (!(stab.singular_tolerance > 0.0 && stab.singular_tolerance < 1.0)) {
      r.fail(*n, "stabilization.singular_tolerance",
             "expected a number between 0 and 1 (exclusive; default 1.2e-4), got " +
                 Reader::actual(*n, stab.singular_tolerance));
    }
  }
  if (const YAML::Node* b = s.get("baumgarte")) {
    const auto bs = r.section(*b, "stabilization.baumgarte", {"alpha", "beta", "gamma"});
    if (const YAML::Node* n = bs.get("alpha")) stab.alpha = r.positive(*n, bs.child("alpha"));
    if (const YAML::Node* n = bs.get("beta")) stab.beta = r.positive(*n, bs.child("beta"));
    if (const YAML::Node* n = bs.get("gamma")) stab.gamma = r.positive(*n, bs.child("gamma"));
  }
  if (const YAML::Node* d = s.get("dsc")) {
    const auto ds = r.section(*d, "stabilization.dsc", {"tolerance", "max_iterations", "mode", "explicit", "metric"});
    if (const YAML::Node* n = ds.get("tolerance")) stab.dsc_tolerance = r.positive(*n, ds.child("tolerance"));
    if (const YAML::Node* n = ds.get("max_iterations")) {
      stab.dsc_max_iterations = static_cast<int>(
          r.integer(*n, ds.child("max_iterations"), 1, std::numeric_limits<int>::max()));
    }
    if (const YAML::Node* n = ds.get("mode")) stab.dsc_mode = r.choice(*n, ds.child("mode"), kDscModes);
    if (const YAML::Node* n = ds.get("explicit")) stab.dsc_explicit = r.boolean(*n, ds.child("explicit"));
    if (const YAML::Node* n = ds.get("metric")) stab.dsc_metric = r.choice(*n, ds.child("metric"), kDscMetrics);
  }
}

void read_time(const Reader& r, const YAML::Node& node, TimeConfig& time) {
  const auto s = r.section(node, "time", {"start", "end", "output_interval"});
  if (const YAML::Node* n = s.get("start")) time.start = r.number(*n, s.child("start"));
  if (const YAML::Node* n = s.get("end")) time.end = r.number(*n, s.child("end"));
  if (const YAML::Node* n = s.get("output_interval")) {
    time.output_interval = r.positive(*n, s.child("output_interval"));
  }
  if (!(time.end > time.start)) {
    const YAML::Node* n = s.get("end");
    r.fail(n != nullptr ? *n : node, "time.end",
           "expected a time greater than time.start = " + format_number(time.start) + " s, got " +
               (n != nullptr ? Reader::actual(*n, time.end) : format_number(time.end) + " (default)"));
  }
}

void read_inputs(const Reader& r, const YAML::Node& node, std::vector<InputConfig>& inputs) {
  for (const auto& [key, value] : r.mapping(node, "inputs", "a mapping of input names to signals")) {
    InputConfig in;
    in.name = key.Scalar();
    const std::string path = "inputs." + in.name;
    const auto s = r.section(value, path, {"file", "format", "dt", "units", "channel", "component",
                                           "scale", "peak", "peak_g", "synthetic"});
    if (const YAML::Node* n = s.get("file")) in.file = r.string(*n, s.child("file"), "a file path", false);
    if (const YAML::Node* n = s.get("format")) {
      std::vector<std::string> formats = {"auto"};
      for (const auto& f : motion_format_names()) formats.push_back(f);
      in.format = r.choice(*n, s.child("format"), formats);
    }
    // What the file may not state: the sample interval of plain values, the units of plain files.
    if (const YAML::Node* n = s.get("dt")) in.record_dt = r.positive(*n, s.child("dt"));
    if (const YAML::Node* n = s.get("units")) in.units = r.choice(*n, s.child("units"), motion_unit_names());
    if (const YAML::Node* n = s.get("channel")) in.channel = static_cast<int>(r.integer(*n, s.child("channel"), 0, 999));
    if (const YAML::Node* n = s.get("component")) in.component = r.string(*n, s.child("component"), "a component name", false);
    if (const YAML::Node* n = s.get("scale")) in.scale = r.number(*n, s.child("scale"));
    if (const YAML::Node* n = s.get("peak")) in.peak = r.positive(*n, s.child("peak"));
    if (const YAML::Node* n = s.get("peak_g")) {
      if (const YAML::Node* both = s.get("peak")) {
        r.fail(*n, s.child("peak_g"), "either peak (m/s²) or peak_g (g), got both (peak: " +
                                          describe(*both) + ", peak_g: " + describe(*n) + ")");
      }
      in.peak = kStandardGravity * r.positive(*n, s.child("peak_g"));
    }
    if (const YAML::Node* n = s.get("synthetic")) {
      in.synthetic = true;
      const auto syn = r.section(*n, s.child("synthetic"), {"seed", "tau", "dt", "duration"});
      if (const YAML::Node* m = syn.get("seed")) in.seed = r.integer(*m, syn.child("seed"), 0, 2147483647L);
      if (const YAML::Node* m = syn.get("tau")) in.tau = r.positive(*m, syn.child("tau"));
      if (const YAML::Node* m = syn.get("dt")) in.dt = r.positive(*m, syn.child("dt"));
      if (const YAML::Node* m = syn.get("duration")) in.duration = r.positive(*m, syn.child("duration"));
    }
    if (in.synthetic == !in.file.empty()) {
      r.fail(value, path, "expected exactly one of 'file' (a recorded motion) or 'synthetic'");
    }
    for (const char* field : {"dt", "units"}) {
      if (const YAML::Node* n = s.get(field); n != nullptr && in.synthetic)
        r.fail(*n, s.child(field), std::string("expected no ") + field + " with 'synthetic' (dt and units "
                                     "describe a recorded file that does not state them; a synthetic record "
                                     "has synthetic.dt and m/s^2), got " + describe(*n));
    }
    inputs.push_back(in);
  }
}

void read_output(const Reader& r, const YAML::Node& node, OutputConfig& output) {
  const auto s = r.section(node, "output", {"hdf5", "csv", "flush_rows", "flush_seconds", "compression"});
  if (const YAML::Node* n = s.get("hdf5")) {
    output.hdf5 = trim(r.string(*n, s.child("hdf5"), "a file name (the HDF5 results file is always written)", false));
  }
  if (const YAML::Node* n = s.get("csv")) output.csv = trim(r.string(*n, s.child("csv"), "a file name", true));
  if (const YAML::Node* n = s.get("flush_rows")) {
    output.flush_rows = static_cast<int>(
        r.integer(*n, s.child("flush_rows"), 1, std::numeric_limits<int>::max()));
  }
  if (const YAML::Node* n = s.get("flush_seconds")) {
    output.flush_seconds = r.number(*n, s.child("flush_seconds"));
    if (output.flush_seconds < 0.0) {
      r.fail(*n, s.child("flush_seconds"),
             "expected a number of seconds >= 0 (0: flush by rows only), got " + Reader::actual(*n, output.flush_seconds));
    }
  }
  if (const YAML::Node* n = s.get("compression")) {
    output.compression = static_cast<int>(r.integer(*n, s.child("compression"), 0, 9));
  }
}

void read_linear(const Reader& r, const YAML::Node& node, LinearConfig& linear) {
  const auto s = r.section(node, "linear", {"at", "inputs", "outputs", "frequencies", "balancing",
                                            "disable_damping", "hdf5", "matlab", "mat", "energy_modes",
                                            "energy_exclude", "stage", "noise", "temperature", "viscous_at"});
  linear.present = true;
  if (const YAML::Node* n = s.get("at")) {
    linear.at = trim(r.string(*n, s.child("at"), "equilibrium, initial or t=T (s)", false));
    bool ok = linear.at == "equilibrium" || linear.at == "initial";
    if (!ok && linear.at.rfind("t=", 0) == 0) {
      const double t = evaluate_expression(linear.at.substr(2));
      ok = std::isfinite(t);
    }
    if (!ok) r.fail(*n, s.child("at"), "expected equilibrium, initial or t=T (a time in s), got " + describe(*n));
  }
  auto names = [&](const char* key, std::vector<std::string>& out) {
    const YAML::Node* n = s.get(key);
    if (!n) return;
    if (!n->IsSequence()) r.fail(*n, s.child(key), "expected a list of names, got " + describe(*n));
    for (size_t i = 0; i < n->size(); ++i)
      out.push_back(trim(r.string((*n)[i], s.child(key) + "[" + std::to_string(i) + "]", "a name", false)));
  };
  names("inputs", linear.inputs);
  auto modes = [&](const char* key, std::vector<int>& out) {
    const YAML::Node* n = s.get(key);
    if (!n) return;
    if (!n->IsSequence()) r.fail(*n, s.child(key), "expected a list of mode numbers (1 = lowest), got " + describe(*n));
    for (size_t i = 0; i < n->size(); ++i)
      out.push_back(static_cast<int>(r.integer((*n)[i], s.child(key) + "[" + std::to_string(i) + "]", 1, 1000000)));
  };
  modes("energy_modes", linear.energy_modes);
  modes("energy_exclude", linear.energy_exclude);
  names("outputs", linear.outputs);
  names("noise", linear.noise);
  if (const YAML::Node* n = s.get("stage"))
    linear.stage = r.choice(*n, s.child("stage"), {"0A", "0B", "1A", "1B", "2"});
  if (const YAML::Node* n = s.get("temperature")) linear.temperature = r.positive(*n, s.child("temperature"));
  if (const YAML::Node* n = s.get("viscous_at")) linear.viscous_at = r.positive(*n, s.child("viscous_at"));
  if (const YAML::Node* n = s.get("frequencies")) {
    const auto f = r.section(*n, s.child("frequencies"), {"from", "to", "points"});
    const YAML::Node* from = f.get("from");
    const YAML::Node* to = f.get("to");
    if (!from || !to) r.fail(*n, s.child("frequencies"), "expected from, to (Hz) and optionally points");
    linear.f_from = r.number(*from, f.child("from"));
    if (linear.f_from < 0.0) r.fail(*from, f.child("from"), "expected a frequency ≥ 0 Hz, got " + describe(*from));
    linear.f_to = r.positive(*to, f.child("to"));
    if (linear.f_to < linear.f_from)
      r.fail(*to, f.child("to"), "expected to ≥ from (" + describe(*from) + " Hz), got " + describe(*to));
    if (linear.f_to > analysis::kMaxFrequencyHz)
      r.fail(*to, f.child("to"), "expected at most 1e12 Hz, got " + describe(*to));
    linear.f_count = 1000;
    if (const YAML::Node* p = f.get("points"))
      linear.f_count = static_cast<int>(r.integer(*p, f.child("points"), 1, analysis::kMaxFrequencyPoints));
  }
  if (const YAML::Node* n = s.get("balancing")) linear.balancing = r.choice(*n, s.child("balancing"), {"auto", "true", "false"});
  if (const YAML::Node* n = s.get("disable_damping")) linear.disable_damping = r.boolean(*n, s.child("disable_damping"));
  if (const YAML::Node* n = s.get("hdf5")) linear.hdf5 = trim(r.string(*n, s.child("hdf5"), "a file name", false));
  if (const YAML::Node* n = s.get("matlab")) linear.matlab = trim(r.string(*n, s.child("matlab"), "a file name", false));
  if (const YAML::Node* n = s.get("mat")) linear.mat = trim(r.string(*n, s.child("mat"), "a file name", false));
}

/// `model: name` and `stabilization: method` are shorthands for {type: name} / {method: …};
/// rewritten before overrides so that `--set model.parameters.n=3` works on them too.
void expand_shorthands(YAML::Node& root) {
  if (!root.IsMap()) return;
  const auto expand = [&](const char* section, const char* key) {
    YAML::Node value = root[section];
    if (!value.IsScalar()) return;
    YAML::Node map(YAML::NodeType::Map);
    map[key] = value;
    root[section] = map;
  };
  expand("model", "type");
  expand("stabilization", "method");
}

std::vector<std::string> split_path(const std::string& key, const std::string& assignment) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = key.find('.', start);
    std::string part = trim(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (part.empty()) {
      throw InputError("--set '" + assignment + "': expected a dotted key such as integrator.dt, got '" +
                       key + "' (empty component)");
    }
    parts.push_back(std::move(part));
    if (parts.size() > 16) {
      throw InputError("--set '" + assignment.substr(0, 200) + (assignment.size() > 200 ? "…" : "") +
                       "': a key of more than 16 components; run-file keys are at most a few deep "
                       "(e.g. model.parameters.mass)");
    }
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// Sets root[parts[0]][parts[1]]… = value, creating missing mappings. Nodes are passed by value:
// assigning to a yaml-cpp Node variable would re-point the tree, not walk it.
void set_path(YAML::Node node, const std::vector<std::string>& parts, size_t i,
              const YAML::Node& value, const std::string& assignment) {
  const std::string& key = parts[i];
  if (i + 1 == parts.size()) {
    node[key] = value;
    return;
  }
  YAML::Node child = node[key];
  if (!child.IsDefined() || child.IsNull()) {
    node[key] = YAML::Node(YAML::NodeType::Map);
  } else if (!child.IsMap()) {
    std::string prefix = parts[0];
    for (size_t k = 1; k <= i; ++k) prefix += "." + parts[k];
    throw InputError("--set '" + assignment + "': '" + prefix + "' is " + describe(child) +
                     ", not a section with keys, so '" + parts[i + 1] + "' cannot be set in it");
  }
  set_path(node[key], parts, i + 1, value, assignment);
}

}  // namespace

// ============================================================================================
// Public API
// ============================================================================================
bool StabilizationConfig::uses_dsc() const { return method == "dsc" || method == "dsc+baumgarte"; }
bool StabilizationConfig::uses_baumgarte() const {
  return method == "baumgarte" || method == "dsc+baumgarte";
}

const std::vector<std::string>& run_file_sections() { return kSections; }
const std::vector<std::string>& stabilization_methods() { return kStabilizationMethods; }

double evaluate_expression(std::string_view text) {
  // Run-file numbers use the model-file evaluator without symbols; "inf" gets a YAML hint.
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "inf" || lower == "infinity" || lower == "nan")
    throw InputError("unknown name '" + std::string(text) + "' (write .inf for infinity, .nan for not-a-number)");
  return evaluate_expression(text, {}, "");
}

namespace {

/// Puts `value` at the dotted `key` of the run file's tree (a bare name that is not a section is
/// a model parameter, as --set reads it) and returns the full dotted path; `assignment` is the
/// "key=value" text error messages quote. Shared by --set overrides and RunTemplate settings.
std::string set_run_value(YAML::Node& root, const std::string& key, const YAML::Node& value,
                          const std::string& assignment) {
  std::vector<std::string> parts = split_path(key, assignment);
  if (parts.size() == 1 &&
      std::find(kSections.begin(), kSections.end(), parts[0]) == kSections.end()) {
    parts.insert(parts.begin(), {"model", "parameters"});
  }
  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) {
    throw InputError("--set '" + assignment + "': the run file is " + describe(root) +
                     ", not a mapping of sections");
  }
  set_path(root, parts, 0, value, assignment);
  std::string path = parts[0];
  for (size_t k = 1; k < parts.size(); ++k) path += "." + parts[k];
  return path;
}

}  // namespace

std::string apply_override(YAML::Node& root, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos) {
    throw InputError("--set '" + assignment +
                     "': expected key=value (e.g. integrator.dt=0.002), got no '='");
  }
  const std::string key = trim(assignment.substr(0, eq));
  const std::string value_text = assignment.substr(eq + 1);
  if (key.empty()) {
    throw InputError("--set '" + assignment + "': expected a key before '=', got nothing");
  }
  split_path(key, assignment);  // the key's syntax first, before the value's

  YAML::Node value;
  try {
    check_config_text(value_text, "--set '" + assignment + "'", "value");
    value = load_one_document(value_text, "--set '" + assignment + "'", "value");
  } catch (const YAML::Exception& e) {
    throw InputError("--set '" + assignment + "': the value '" + value_text +
                     "' is not valid YAML (column " + std::to_string(e.mark.column + 1) + ": " +
                     e.msg + ")");
  }

  return set_run_value(root, key, value, assignment);
}

namespace {

/// The run file's tree: syntax checked, loaded, shorthands expanded.
YAML::Node load_run_tree(const std::string& yaml_text, const std::string& source) {
  check_config_text(yaml_text, source, "run file");
  YAML::Node root;
  try {
    root = load_one_document(yaml_text, source, "run file");
  } catch (const YAML::Exception& e) {
    std::string where = source;
    if (!e.mark.is_null()) {
      where += " line " + std::to_string(e.mark.line + 1) + ", column " +
               std::to_string(e.mark.column + 1);
    }
    throw InputError(where + ": malformed YAML: " + e.msg);
  }
  expand_shorthands(root);
  return root;
}

/// Overrides, applied to the tree so they are validated like the file's own values.
void apply_overrides(YAML::Node& root, const std::string& source, const std::vector<std::string>& overrides,
                     std::vector<Reader::Override>& applied) {
  for (const auto& assignment : overrides) {
    try {
      applied.push_back({apply_override(root, assignment), assignment});
    } catch (const InputError& e) {
      throw InputError(source + ": " + e.what());
    }
  }
  expand_shorthands(root);
}

RunConfig read_run_tree(const YAML::Node& root, const std::string& source, const std::vector<std::string>& overrides,
                        const std::vector<Reader::Override>& applied);

}  // namespace

RunConfig parse_run_config(const std::string& yaml_text, const std::string& source,
                           const std::vector<std::string>& overrides) {
  YAML::Node root = load_run_tree(yaml_text, source);
  std::vector<Reader::Override> applied;
  apply_overrides(root, source, overrides, applied);
  return read_run_tree(root, source, overrides, applied);
}

namespace {

RunConfig read_run_tree(const YAML::Node& root, const std::string& source, const std::vector<std::string>& overrides,
                        const std::vector<Reader::Override>& applied) {
  RunConfig config;
  config.source = source;
  config.overrides = overrides;
  const Reader r(source, applied);

  if (!root.IsDefined() || root.IsNull()) {
    throw InputError("model: missing required section (the run file is empty) (" + source + ")");
  }
  if (!root.IsMap()) {
    r.fail(root, "", "expected a mapping of sections (" + join(kSections) + "), got " + describe(root));
  }
  const auto top = r.section(root, "", kSections);

  // name (default: file stem)
  if (const YAML::Node* n = top.get("name")) config.name = trim(r.string(*n, "name", "a run name", true));
  if (config.name.empty()) {
    const std::string stem = std::filesystem::path(source).stem().string();
    config.name = (stem.empty() || source.front() == '<') ? "run" : stem;
  }
  if (const YAML::Node* n = top.get("description")) {
    config.description = r.string(*n, "description", "a text", true);
  }

  read_model(r, top.get("model"), config);
  if (const YAML::Node* n = top.get("initial")) read_initial(r, *n, config.initial);
  if (const YAML::Node* n = top.get("integrator")) read_integrator(r, *n, config.integrator);
  if (const YAML::Node* n = top.get("stabilization")) read_stabilization(r, *n, config.stabilization);
  if (const YAML::Node* n = top.get("time")) {
    read_time(r, *n, config.time);
  } else {
    read_time(r, YAML::Node(YAML::NodeType::Map), config.time);
  }
  if (const YAML::Node* n = top.get("output")) read_output(r, *n, config.output);
  if (const YAML::Node* n = top.get("inputs")) read_inputs(r, *n, config.inputs);
  if (const YAML::Node* n = top.get("linear")) read_linear(r, *n, config.linear);
  if (const YAML::Node* n = top.get("outputs")) config.outputs = parse_output_entries(*n, config.source);

  YAML::Emitter emitter;
  emitter << root;
  config.effective_yaml = emitter.c_str();
  return config;
}

}  // namespace

std::string resolve_run_path(const RunConfig& config, const std::string& path) {
  const std::filesystem::path p(path);
  if (path.empty() || p.is_absolute() || config.base_directory.empty()) return path;
  return (std::filesystem::path(config.base_directory) / p).lexically_normal().string();
}

RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides) {
  return load_run_config_text(read_config_text(path, "run file"), path, overrides);
}

RunConfig load_run_config_text(const std::string& text, const std::string& path,
                               const std::vector<std::string>& overrides) {
  RunConfig config = parse_run_config(text, path, overrides);
  config.base_directory = std::filesystem::path(path).parent_path().string();
  // The same rule for a path written in the file and one given by --set: the overrides were
  // applied to the tree before it was read, so both arrive here alike.
  config.model_file = resolve_run_path(config, config.model_file);
  return config;
}

std::string RunSetting::text() const {
  std::string out = key + "=";
  if (const double* x = std::get_if<double>(&value)) return out + fmt::format("{:.17g}", *x);
  if (const bool* b = std::get_if<bool>(&value)) return out + (*b ? "true" : "false");
  const auto& list = std::get<std::vector<double>>(value);
  out += "[";
  for (size_t i = 0; i < list.size(); ++i) out += fmt::format("{}{:.17g}", i ? ", " : "", list[i]);
  return out + "]";
}

struct RunTemplate::Tree {
  std::string path;
  std::vector<std::string> overrides;
  YAML::Node root;  ///< shorthands expanded, overrides applied; never modified after construction
  std::vector<Reader::Override> applied;
  std::shared_ptr<const std::string> model_file_text;
  /// Sweep workers make their runs' configs concurrently; yaml-cpp promises nothing about
  /// concurrent reads of one tree (its nodes share reference-counted memory), so the copy is
  /// taken under a lock — microseconds against a run's milliseconds.
  mutable std::mutex clone_mutex;
};

RunTemplate::RunTemplate(const std::string& text, const std::string& path, const std::vector<std::string>& overrides) {
  auto tree = std::make_shared<Tree>();
  tree->path = path;
  tree->overrides = overrides;
  tree->root = load_run_tree(text, path);
  apply_overrides(tree->root, path, overrides, tree->applied);
  tree_ = tree;
  base_ = config();
  if (!base_.model_file.empty()) {
    tree->model_file_text = std::make_shared<const std::string>(read_config_text(base_.model_file, "model file"));
    base_.model_file_text = tree->model_file_text;
  }
}

RunConfig RunTemplate::config(const std::vector<RunSetting>& settings) const {
  const Tree& t = *tree_;
  std::vector<std::string> overrides = t.overrides;
  std::vector<Reader::Override> applied = t.applied;
  YAML::Node root;
  {
    const std::lock_guard<std::mutex> lock(t.clone_mutex);
    root = YAML::Clone(t.root);  // the template's tree stays as it is
  }
  for (const RunSetting& setting : settings) {
    const std::string assignment = setting.text();
    YAML::Node value;
    if (const double* x = std::get_if<double>(&setting.value)) value = *x;
    else if (const bool* flag = std::get_if<bool>(&setting.value)) value = *flag;
    else {
      value = YAML::Node(YAML::NodeType::Sequence);
      for (const double item : std::get<std::vector<double>>(setting.value)) value.push_back(item);
    }
    std::string path;
    try {
      path = set_run_value(root, setting.key, value, assignment);
    } catch (const InputError& e) {
      throw InputError(t.path + ": " + e.what());
    }
    applied.push_back({path, assignment});
    overrides.push_back(assignment);
  }
  expand_shorthands(root);
  RunConfig config = read_run_tree(root, t.path, overrides, applied);
  config.base_directory = std::filesystem::path(t.path).parent_path().string();
  config.model_file = resolve_run_path(config, config.model_file);
  // The model file read once: unless a setting named another one, every run builds from it.
  if (t.model_file_text && config.model_file == base_.model_file) config.model_file_text = t.model_file_text;
  return config;
}

}  // namespace gmbd
