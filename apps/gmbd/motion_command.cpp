// gmbd motion: its options and the report of a recorded motion file (format, channels,
// orientation, samples, units, peaks) and the optional plot; the reading is io/motion*.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include <spdlog/spdlog.h>

#include "apps/gmbd/commands.hpp"
#include "io/motion.hpp"
#include "io/motion_inspect.hpp"
#include "io/staged_file.hpp"

namespace gmbd::cli {
namespace fs = std::filesystem;
namespace {

// "expected a finite number > 0, got '-1'" (CLI11's PositiveNumber prints its 309-digit bound).
CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(x) || !(x > 0.0))
          return "expected a finite number > 0 (s), got '" + text + "'";
        return "";
      },
      "SECONDS > 0");
}

std::vector<std::string> with_auto(const std::vector<std::string>& names) {
  std::vector<std::string> out = {"auto"};
  out.insert(out.end(), names.begin(), names.end());
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// The station and event once for the file when every channel has the same, else per channel.
bool shared(const std::vector<MotionChannelSummary>& s, std::string MotionChannelSummary::*field) {
  for (const auto& c : s)
    if (c.*field != s.front().*field) return false;
  return true;
}

void print_channel(const MotionChannelSummary& c, bool own_station, bool own_event) {
  std::cout << fmt::format("  {:<18}{}\n", fmt::format("channel {}{}", c.channel,
                                                         c.component.empty() ? "" : " '" + c.component + "'"),
                           c.orientation);
  std::cout << fmt::format("    samples         {} at dt = {:g} s, duration {:g} s\n", c.points, c.dt, c.duration);
  if (c.to_si == 1.0)
    std::cout << fmt::format("    units           {} in the file\n", c.units_in_file);
  else
    std::cout << fmt::format("    units           {} in the file, converted to m/s^2 (x {:g})\n", c.units_in_file, c.to_si);
  std::cout << fmt::format("    peak |a|        {:.6g} m/s^2 = {:.4g} g ({:.6g} {} in the file) at t = {:g} s\n",
                           std::abs(c.peak.value), c.peak_g, c.peak_in_file, c.units_in_file, c.peak.time);
  if (own_station && !c.station.empty()) std::cout << "    station         " << c.station << "\n";
  if (own_event && !c.event.empty()) std::cout << "    event           " << c.event << "\n";
}

void print_report(const MotionArgs& args, const std::vector<MotionChannel>& channels) {
  const auto s = summarize_motion(channels);
  const bool one_station = shared(s, &MotionChannelSummary::station);
  const bool one_event = shared(s, &MotionChannelSummary::event);
  std::cout << "motion " << args.file << "\n";
  std::cout << fmt::format("  format            {} ({})\n", channels.front().format,
                           args.format == "auto" ? "detected" : "given");
  if (one_station && !s.front().station.empty()) std::cout << "  station           " << s.front().station << "\n";
  if (one_event && !s.front().event.empty()) std::cout << "  event             " << s.front().event << "\n";
  std::cout << fmt::format("  channels          {}\n", s.size());
  for (const auto& c : s) print_channel(c, !one_station, !one_event);
}

// The PNG `--plot` writes: the one given, else the file's stem + ".png" in the working directory.
std::string plot_path(const MotionArgs& args) {
  return args.plot_path.empty() ? fs::path(args.file).stem().string() + ".png" : args.plot_path;
}

// Hands the channels to scripts/plot_motion.py through a CSV in the temporary directory.
bool plot_motion(const MotionArgs& args, const std::vector<MotionChannel>& channels, const std::string& png) {
  const fs::path csv = fs::temp_directory_path() / fmt::format("gmbd_motion_{}.csv", ::getpid());
  write_motion_csv(channels, csv.string());
  std::string title = fs::path(args.file).filename().string() + " [" + channels.front().format + "]";
  if (!channels.front().station.empty()) title += ", " + channels.front().station;
  if (!channels.front().event.empty()) title += ", " + channels.front().event;
  const bool ok = run_plot_script("plot_motion.py", {csv.string(), png, title});
  std::error_code ec;
  fs::remove(csv, ec);
  return ok;
}

}  // namespace

CLI::App* add_motion_command(CLI::App& app, MotionArgs& args) {
  auto* cmd = app.add_subcommand("motion", "Inspect a recorded motion file: format, channels, orientation, "
                                           "samples, units, peaks; --plot draws the accelerations");
  cmd->add_option("file", args.file, "Motion record (any format of docs/motions.md)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--format", args.format, "Format: auto (default: detected from the content) or one of " +
                                               joined(motion_format_names()))
      ->check(CLI::IsMember(with_auto(motion_format_names())));
  cmd->add_option("--dt", args.dt, "Sample interval (s) of plain values, which do not state it")->check(positive_seconds());
  cmd->add_option("--units", args.units, "Units of plain values, text-npts-dt and csv files (default g; csv m/s^2)")
      ->check(CLI::IsMember(motion_unit_names()));
  auto* plot = cmd->add_option("--plot", args.plot_path, "Draw the channels' accelerations to PNG (default: FILE stem "
                                                         "+ .png in the working directory)")->expected(0, 1);
  cmd->final_callback([&args, plot] { args.plot = plot->count() > 0; });
  return cmd;
}

int motion_command(const MotionArgs& args) {
  const std::string png = args.plot ? plot_path(args) : std::string();
  if (args.plot) {
    // Refused before anything is read or drawn, as every command refuses an output over an input.
    check_output_directory(png, "--plot");
    refuse_same_files({{"--plot", png}}, {{"the motion file", args.file}});
  }
  MotionReadOptions options;
  options.dt = args.dt;
  options.units = args.units;
  options.dt_name = "--dt";
  options.units_name = "--units";
  const std::vector<MotionChannel> channels = read_motion_file(args.file, args.format, options);
  if (channels.empty()) throw InputError(args.file + ": expected at least one acceleration channel, found none");
  for (const auto& note : channels.front().notes) spdlog::warn("{}", note);  // a file's notes, said once
  print_report(args, channels);
  if (args.plot && plot_motion(args, channels, png))
    std::cout << "  plot              " << fs::absolute(png).string() << "\n";
  return kOk;
}

}  // namespace gmbd::cli
