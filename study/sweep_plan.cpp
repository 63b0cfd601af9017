// Expanding a sweep file into runs: record channels read once (peaks, provenance, content hash),
// design points (grid × Latin hypercube), seeded initial conditions, per-run configurations and keys.
#include "study/sweep_plan.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/errors.hpp"
#include "io/motion.hpp"
#include "study/initial_conditions.hpp"

namespace gmbd {
namespace fs = std::filesystem;
namespace {


std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::uint64_t file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return fnv1a(bytes.str());
}

std::string where(const SweepSpec& spec, const SweepRecordGroup& group, size_t index) {
  return spec.source + (group.line > 0 ? " line " + std::to_string(group.line) : "") + ", records[" +
         std::to_string(index) + "]";
}

SweepChannel channel_of(const MotionChannel& m, const std::string& input) {
  return SweepChannel{input, m.channel, m.component, m.vertical, m.peak()};
}

std::string channel_list(const std::vector<MotionChannel>& channels) {
  std::string out;
  for (const auto& m : channels) {
    out += fmt::format("{}{} '{}' ({})", out.empty() ? "" : ", ", m.channel, m.component,
                       m.vertical ? "vertical" : "horizontal");
  }
  return out;
}

// The channel a "map" entry names: an index, or a component text (case-insensitive); a quoted
// selector (by_component) is a component text even when it is a number ("90", "180").
const MotionChannel& select_channel(const std::vector<MotionChannel>& channels, const std::string& selector,
                                    bool by_component, const std::string& context) {
  char* end = nullptr;
  const long index = std::strtol(selector.c_str(), &end, 10);
  if (!by_component && end != selector.c_str() && *end == '\0') {
    if (index < 0 || index >= static_cast<long>(channels.size())) {
      throw InputError(context + ": channel " + selector + " does not exist; the file has " +
                       std::to_string(channels.size()) + " channels: " + channel_list(channels));
    }
    return channels[static_cast<size_t>(index)];
  }
  for (const auto& m : channels) {
    if (lower(trim(m.component)) == lower(trim(selector))) return m;
  }
  throw InputError(context + ": no channel with component '" + selector + "'; the file has: " + channel_list(channels));
}

SweepRecord make_record(const std::vector<MotionChannel>& channels, const std::string& file, std::uint64_t hash) {
  SweepRecord r;
  r.file = file;
  r.format = channels.front().format;
  r.station = channels.front().station;
  r.event = channels.front().event;
  r.content_hash = hash;
  return r;
}

void finish_record(SweepRecord& r, const std::vector<MotionChannel>& read, const std::string& label) {
  r.label = label;
  double horizontal = 0.0, any = 0.0;
  for (const auto& c : r.channels) {
    any = std::max(any, c.peak);
    if (!c.vertical) horizontal = std::max(horizontal, c.peak);
    const auto& m = read[static_cast<size_t>(c.channel)];
    r.dt = m.dt;
    r.points = std::max(r.points, static_cast<long>(m.acceleration.size()));
  }
  r.intensity_measure = horizontal > 0.0 ? horizontal : any;
}

// The records one `records:` entry makes from one file.
std::vector<SweepRecord> records_of_file(const SweepSpec& spec, const SweepRecordGroup& group, size_t group_index,
                                         const std::string& file) {
  const std::string context = where(spec, group, group_index) + ", " + file;
  std::vector<MotionChannel> read;
  try {
    read = read_motion_file(file);
  } catch (const InputError& e) {
    throw InputError(where(spec, group, group_index) + ": " + e.what());
  }
  const std::uint64_t hash = file_hash(file);
  const std::string name = fs::path(file).filename().string();
  std::vector<SweepRecord> out;
  if (group.mode == "each_horizontal" || group.mode == "each") {
    for (const auto& m : read) {
      if (group.mode == "each_horizontal" && m.vertical) continue;
      SweepRecord r = make_record(read, file, hash);
      r.channels.push_back(channel_of(m, group.input));
      finish_record(r, read, fmt::format("{} ch {} ({})", name, m.channel, m.component));
      out.push_back(r);
    }
    return out;  // a vertical-only file of a glob contributes nothing (checked per entry)
  }
  SweepRecord r = make_record(read, file, hash);
  if (group.mode == "triaxial") {
    std::vector<const MotionChannel*> horizontal, vertical;
    for (const auto& m : read) (m.vertical ? vertical : horizontal).push_back(&m);
    if (horizontal.size() != 2 || vertical.size() > 1) {
      throw InputError(context + ": channels: triaxial needs 2 horizontal channels and at most 1 vertical, the file has " +
                       channel_list(read) + "; map them explicitly: channels: {floor_x: K, floor_y: K, floor_z: K}");
    }
    r.channels.push_back(channel_of(*horizontal[0], "floor_x"));
    r.channels.push_back(channel_of(*horizontal[1], "floor_y"));
    if (!vertical.empty()) r.channels.push_back(channel_of(*vertical[0], "floor_z"));
    finish_record(r, read, name + " (triaxial)");
    out.push_back(r);
    return out;
  }
  std::string label = name;
  for (size_t a = 0; a < group.assignments.size(); ++a) {
    const auto& [input, selector] = group.assignments[a];
    const bool by_component = a < group.by_component.size() && group.by_component[a] != 0;
    const MotionChannel& m = select_channel(read, selector, by_component, context + ", channels." + input);
    r.channels.push_back(channel_of(m, input));
    label += fmt::format("{} {}=ch {}", label == name ? "" : ",", input, m.channel);
  }
  finish_record(r, read, label);
  out.push_back(r);
  return out;
}

std::string value_text(double x) { return fmt::format("{:.17g}", x); }

}  // namespace

std::uint64_t fnv1a(const std::string& bytes, std::uint64_t h) {
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

SweepPlan::SweepPlan(SweepSpec spec) : spec_(std::move(spec)) {
  template_.emplace(spec_.base_text, spec_.base, spec_.overrides);
  const RunConfig& base = template_->base();
  for (size_t g = 0; g < spec_.records.size(); ++g) {
    const size_t before = records_.size();
    for (const auto& file : spec_.records[g].files) {
      for (auto& r : records_of_file(spec_, spec_.records[g], g, file)) records_.push_back(std::move(r));
    }
    if (records_.size() == before) {
      throw InputError(where(spec_, spec_.records[g], g) + ": no horizontal channel in " +
                       std::to_string(spec_.records[g].files.size()) +
                       " matched file(s); use channels: each, or a mapping {input: channel}");
    }
  }
  for (const auto& r : records_) {
    if (spec_.intensity_kind != "none" && spec_.intensity_kind != "scale" && !(r.intensity_measure > 0.0)) {
      throw InputError(spec_.source + ": record '" + r.label + "' is all zeros: it cannot be scaled to a target peak");
    }
  }
  intensities_ = spec_.intensity_kind == "none" ? std::vector<double>{1.0} : spec_.intensities;

  // The number of runs before anything is expanded: each grid axis is capped at 100,000 values,
  // but two of them would make 10¹⁰ design vectors (found by fuzzing the sweep file).
  {
    double runs = static_cast<double>(records_.size()) * static_cast<double>(intensities_.size());
    for (const auto& axis : spec_.parameters) runs *= static_cast<double>(axis.values.size());
    if (spec_.latin_hypercube.count > 0) runs *= static_cast<double>(spec_.latin_hypercube.count);
    if (spec_.initial_conditions.count > 0) runs *= static_cast<double>(spec_.initial_conditions.count);
    if (runs > 1e8) {
      throw InputError(spec_.source + fmt::format(": the sweep would have {:.4g} runs (records × intensity levels × "
                                                  "grid points × Latin-hypercube samples × initial conditions; at "
                                                  "most 100,000,000)",
                                                  runs));
    }
  }
  // Designs: every grid point, times every Latin hypercube sample.
  std::vector<std::vector<double>> grid{{}};
  for (const auto& axis : spec_.parameters) {
    parameter_names_.push_back(axis.name);
    std::vector<std::vector<double>> next;
    for (const auto& point : grid) {
      for (double v : axis.values) {
        next.push_back(point);
        next.back().push_back(v);
      }
    }
    grid = std::move(next);
  }
  std::vector<std::vector<double>> samples{{}};
  if (spec_.latin_hypercube.count > 0) {
    std::vector<std::pair<double, double>> ranges;
    for (const auto& [name, range] : spec_.latin_hypercube.ranges) {
      if (std::find(parameter_names_.begin(), parameter_names_.end(), name) != parameter_names_.end()) {
        throw InputError(spec_.source + ": latin_hypercube.ranges." + name + ": '" + name +
                         "' is also a grid axis under 'parameters'; give it in one place");
      }
      parameter_names_.push_back(name);
      ranges.push_back(range);
    }
    samples = latin_hypercube(ranges, spec_.latin_hypercube.count, spec_.latin_hypercube.seed);
  }
  for (const auto& point : grid) {
    for (const auto& sample : samples) {
      designs_.push_back(point);
      designs_.back().insert(designs_.back().end(), sample.begin(), sample.end());
    }
  }

  // Initial conditions: the base file's state, or seeded draws.
  if (spec_.initial_conditions.count > 0) {
    std::vector<VariedValue> varied;
    try {
      if (spec_.initial_conditions.vary.empty()) {
        varied = default_varied_values(base);
      } else {
        for (const auto& text : spec_.initial_conditions.vary) varied.push_back(parse_varied_value(base, text));
      }
    } catch (const InputError& e) {
      throw InputError(spec_.source + ": initial_conditions.vary: " + e.what());
    }
    for (const auto& v : varied) varied_keys_.push_back(v.key);
    for (auto& ic : draw_initial_conditions(varied, spec_.initial_conditions.count, spec_.initial_conditions.seed)) {
      ic_values_.push_back(std::move(ic.values));
      ic_settings_.push_back(std::move(ic.settings));
    }
  } else {
    ic_values_.emplace_back();
    ic_settings_.emplace_back();
  }
  // Everything every run depends on besides its own axes: the base text and overrides, and the
  // bytes of the files the base names that the sweep does not replace (a model file, inputs the
  // records do not drive).
  std::string base_identity = spec_.base_text;
  for (const auto& o : spec_.overrides) base_identity += "\n" + o;
  // The model file's bytes as the template read them: the bytes every run builds from.
  if (base.model_file_text) base_identity += fmt::format("\nmodel {:016x}", fnv1a(*base.model_file_text));
  for (const auto& in : base.inputs) {
    const bool replaced = std::any_of(records_.begin(), records_.end(), [&](const SweepRecord& r) {
      return std::any_of(r.channels.begin(), r.channels.end(), [&](const SweepChannel& c) { return c.input == in.name; });
    });
    if (!replaced && !in.file.empty()) {
      base_identity += fmt::format("\ninput {} {:016x}", in.name, file_hash(resolve_run_path(base, in.file)));
    }
  }
  base_hash_ = fnv1a(base_identity);
  if (size() == 0) throw InputError(spec_.source + ": the sweep has no runs");
  if (size() > 100000000L) {
    throw InputError(spec_.source + ": the sweep has " + std::to_string(size()) + " runs (at most 100,000,000)");
  }
}

long SweepPlan::size() const {
  const long records = records_.empty() ? 1 : static_cast<long>(records_.size());
  return records * static_cast<long>(intensities_.size()) * static_cast<long>(designs_.size()) *
         static_cast<long>(ic_settings_.size());
}

SweepRunIndex SweepPlan::index(long run) const {
  SweepRunIndex ix;
  const long nic = static_cast<long>(ic_settings_.size()), nd = static_cast<long>(designs_.size()),
             ni = static_cast<long>(intensities_.size());
  ix.initial_condition = static_cast<int>(run % nic);
  run /= nic;
  ix.design = static_cast<int>(run % nd);
  run /= nd;
  ix.intensity = static_cast<int>(run % ni);
  ix.record = static_cast<int>(run / ni);
  return ix;
}

double SweepPlan::scale(long run) const {
  const SweepRunIndex ix = index(run);
  const double level = intensities_[static_cast<size_t>(ix.intensity)];
  if (records_.empty() || spec_.intensity_kind == "none") return 1.0;
  const double measure = records_[static_cast<size_t>(ix.record)].intensity_measure;
  if (spec_.intensity_kind == "scale") return level;
  if (spec_.intensity_kind == "peak_g") return level * kStandardGravity / measure;
  return level / measure;  // peak, m/s²
}

double SweepPlan::intensity_value(long run) const {
  if (records_.empty()) return std::numeric_limits<double>::quiet_NaN();
  const SweepRunIndex ix = index(run);
  if (spec_.intensity_kind == "peak_g" || spec_.intensity_kind == "peak") return intensities_[static_cast<size_t>(ix.intensity)];
  return records_[static_cast<size_t>(ix.record)].intensity_measure * scale(run);
}

std::vector<std::string> SweepPlan::overrides(long run) const {
  // The settings' texts ({:.17g}; "initial.project=true"): the keys of earlier versions, which
  // wrote these overrides as text, stay the same.
  std::vector<std::string> out = spec_.overrides;
  for (const RunSetting& setting : settings(run)) out.push_back(setting.text());
  return out;
}

std::vector<RunSetting> SweepPlan::settings(long run) const {
  const SweepRunIndex ix = index(run);
  std::vector<RunSetting> out;
  const auto& design = designs_[static_cast<size_t>(ix.design)];
  for (size_t k = 0; k < design.size(); ++k) out.push_back({full_run_key(parameter_names_[k]), design[k]});
  const auto& ic = ic_settings_[static_cast<size_t>(ix.initial_condition)];
  out.insert(out.end(), ic.begin(), ic.end());
  return out;
}

RunConfig SweepPlan::config(long run) const {
  RunConfig cfg = template_->config(settings(run));
  if (records_.empty()) return cfg;
  const SweepRecord& record = records_[static_cast<size_t>(index(run).record)];
  const double factor = scale(run);
  for (const auto& c : record.channels) {
    auto it = std::find_if(cfg.inputs.begin(), cfg.inputs.end(), [&](const InputConfig& in) { return in.name == c.input; });
    if (it == cfg.inputs.end()) {
      cfg.inputs.emplace_back();
      it = cfg.inputs.end() - 1;
      it->name = c.input;
    }
    InputConfig& in = *it;
    in.file = record.file;
    in.format = "auto";
    in.channel = c.channel;
    in.component.clear();
    in.scale = factor;
    in.peak = 0.0;
    in.synthetic = false;
    // The record is read as the plan read it (its own header's dt and units), not with what the
    // base run file says about the record it named.
    in.record_dt = 0.0;
    in.units.clear();
  }
  return cfg;
}

std::string SweepPlan::key(long run) const {
  std::string identity = fmt::format("{:016x}", base_hash_);
  for (const auto& o : overrides(run)) identity += "\n" + o;
  if (!records_.empty()) {
    const SweepRecord& record = records_[static_cast<size_t>(index(run).record)];
    identity += fmt::format("\n{}#{:016x}", record.file, record.content_hash);
    for (const auto& c : record.channels) identity += fmt::format("|{}={}", c.input, c.channel);
    identity += "\nscale=" + value_text(scale(run));
  }
  return fmt::format("{:016x}", fnv1a(identity));
}

std::string SweepPlan::describe(long run) const {
  const SweepRunIndex ix = index(run);
  std::string text;
  if (!records_.empty()) {
    text = fmt::format("record {}/{} '{}'", ix.record + 1, records_.size(), records_[static_cast<size_t>(ix.record)].label);
    if (spec_.intensity_kind == "peak_g") text += fmt::format(", {:.4g} g", intensities_[static_cast<size_t>(ix.intensity)]);
    if (spec_.intensity_kind == "peak") text += fmt::format(", {:.4g} m/s²", intensities_[static_cast<size_t>(ix.intensity)]);
    if (spec_.intensity_kind == "scale") text += fmt::format(", scale {:.4g}", intensities_[static_cast<size_t>(ix.intensity)]);
  }
  const auto& design = designs_[static_cast<size_t>(ix.design)];
  for (size_t k = 0; k < design.size(); ++k) {
    text += fmt::format("{}{}={:.6g}", text.empty() ? "" : ", ", parameter_names_[k], design[k]);
  }
  if (!varied_keys_.empty()) text += fmt::format("{}ic {}", text.empty() ? "" : ", ", ix.initial_condition + 1);
  return text.empty() ? "the base run" : text;
}

}  // namespace gmbd
