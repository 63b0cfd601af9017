// Tests of a run file's recorded inputs (inputs.<name> through prepare_run): dt and units, paths from
// the file and from --set resolved alike, the missing-dt error, and the channel-orientation warning.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

template <class F>
std::string input_error(F&& f) {
  try {
    f();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string fortuna() { return std::string(GMBD_DATA_DIR) + "/motions/CE89486_Fortuna_Ferndale2022_3ch.v2"; }

// Log lines written while it lives (the default logger is replaced and restored).
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text_);
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_pattern("[%l] %v");
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST(RunConfigInputs, DtUnitsAndTheFormatsOfPlainRecords) {
  const RunConfig c = parse_run_config(
      "model: ris_xytheta\n"
      "inputs:\n"
      "  floor_x: {file: a.txt, format: values, dt: 0.01, units: cm/s^2}\n"
      "  floor_y: {file: b.txt, format: text-npts-dt}\n",
      "run.yaml");
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(c.inputs[0].format, "values");
  EXPECT_DOUBLE_EQ(c.inputs[0].record_dt, 0.01);
  EXPECT_EQ(c.inputs[0].units, "cm/s^2");
  EXPECT_EQ(c.inputs[1].format, "text-npts-dt");
  EXPECT_EQ(c.inputs[1].record_dt, 0.0);
  EXPECT_TRUE(c.inputs[1].units.empty());
}

TEST(RunConfigInputs, BadDtUnitsAndFormatNameTheField) {
  const auto error = [](const std::string& entry) {
    return input_error([&] { parse_run_config("model: ris_xytheta\ninputs:\n  floor_x: " + entry + "\n", "run.yaml"); });
  };
  EXPECT_CONTAINS(error("{file: a.txt, units: furlongs}"),
                  "inputs.floor_x.units: expected one of g, mg, m/s^2, cm/s^2, gal, mm/s^2, in/s^2, got 'furlongs'");
  EXPECT_CONTAINS(error("{file: a.txt, dt: -0.01}"), "inputs.floor_x.dt: expected a positive number, got '-0.01' (run.yaml line 3)");
  EXPECT_CONTAINS(error("{file: a.txt, format: opensees}"),
                  "expected one of auto, peer-at2, csmip-v2, cosmos-v1.20, usgs-smc, text-npts-dt, values, csv, got 'opensees'");
  EXPECT_CONTAINS(error("{synthetic: {seed: 1}, dt: 0.01}"),
                  "inputs.floor_x.dt: expected no dt with 'synthetic' (dt and units describe a recorded file");
  EXPECT_CONTAINS(error("{synthetic: {seed: 1}, units: g}"), "inputs.floor_x.units: expected no units with 'synthetic'");
}

// A path given by --set resolves like one written in the file: against the run file's folder.
TEST(RunConfigInputs, PathsFromTheFileAndFromSetResolveAlike) {
  const TempDir dir("gmbd_run_inputs_");
  fs::create_directories(dir.path() / "runs" / "data");
  const std::string run = dir.write("runs/run.yaml", "model: ris_xytheta\ninputs:\n  floor_x: {file: data/a.txt}\n");
  const RunConfig written = load_run_config(run);
  const RunConfig set = load_run_config(run, {"inputs.floor_x.file=data/b.txt", "inputs.floor_y.file=../c.txt"});
  const std::string base = (dir.path() / "runs").string();
  EXPECT_EQ(resolve_run_path(written, written.inputs[0].file), base + "/data/a.txt");
  EXPECT_EQ(resolve_run_path(set, set.inputs[0].file), base + "/data/b.txt");
  EXPECT_EQ(resolve_run_path(set, set.inputs[1].file), dir.file("c.txt"));  // ".." normalised
  EXPECT_EQ(resolve_run_path(set, "/abs/x.txt"), "/abs/x.txt");
  // The model file likewise.
  const RunConfig model = load_run_config(run, {"model={file: models/m.yaml}"});
  EXPECT_EQ(model.model_file, base + "/models/m.yaml");
  // A run file given as text has no folder: paths stay as written (relative to the working directory).
  const RunConfig text = parse_run_config("model: ris_xytheta\n", "<string>", {"inputs.floor_x.file=data/a.txt"});
  EXPECT_EQ(resolve_run_path(text, text.inputs[0].file), "data/a.txt");
}

// The whole route: a --set path relative to the run file, read from a working directory
// elsewhere, and plain values whose dt the run file must give.
TEST(RunConfigInputs, PlainValuesNeedInputsDtNamedInTheError) {
  const TempDir dir("gmbd_run_inputs_");
  fs::create_directories(dir.path() / "runs" / "data");
  dir.write("runs/data/floor.txt", "0.01\n-0.02\n0.03\n0.0\n");
  const std::string run = dir.write("runs/run.yaml", "model: ris_xytheta\ntime: {end: 0.1}\n");
  const std::vector<std::string> set = {"inputs.floor_x.file=data/floor.txt"};
  const std::string e = input_error([&] { prepare_run(load_run_config(run, set)); });
  EXPECT_CONTAINS(e, (dir.path() / "runs" / "data" / "floor.txt").string() +
                         ": sample interval: expected inputs.floor_x.dt (" + run + ") (s, 1e-5 <= dt <= 1) to be given, found none");
  std::vector<std::string> with_dt = set;
  with_dt.push_back("inputs.floor_x.dt=0.01");
  const PreparedRun p = prepare_run(load_run_config(run, with_dt));
  ASSERT_EQ(p.input_descriptions.size(), 1u);
  EXPECT_CONTAINS(p.input_descriptions[0].second, "floor.txt [values] channel 0, 4 points at dt 0.01 s, g converted to m/s^2");
  EXPECT_DOUBLE_EQ(p.input_sample_interval, 0.01);
}

// A vertical channel on floor_x and a horizontal one on floor_z: prepared, with a warning each
// naming the input and the channel.
TEST(RunConfigInputs, ChannelOrientationAgainstTheInputIsWarned) {
  const TempDir dir("gmbd_run_inputs_");
  const std::string run = dir.write("run.yaml",
                                    "model: ris_xyztheta\ntime: {end: 0.1}\ninputs:\n"
                                    "  floor_x: {file: " + fortuna() + ", component: Up}\n"
                                    "  floor_y: {file: " + fortuna() + ", component: \"90\"}\n"
                                    "  floor_z: {file: " + fortuna() + ", component: \"180\"}\n");
  std::string log;
  {
    const LogCapture capture;
    prepare_run(load_run_config(run));
    log = capture.text();
  }
  EXPECT_CONTAINS(log, "[warning] " + run + ": inputs.floor_x is a horizontal floor acceleration, but it is assigned "
                       "channel 2 'Up' of " + fortuna() + ", a vertical channel");
  EXPECT_CONTAINS(log, "[warning] " + run + ": inputs.floor_z is the vertical floor acceleration, but it is assigned "
                       "channel 0 '180' of " + fortuna() + ", a horizontal channel (horizontal, azimuth 180 deg)");
  EXPECT_EQ(log.find("inputs.floor_y is"), std::string::npos) << log;
}

}  // namespace
}  // namespace gmbd
