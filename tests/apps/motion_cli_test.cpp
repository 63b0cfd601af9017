// End-to-end tests of `gmbd motion` (report, plot, errors, exit codes) and of recorded inputs in
// `gmbd run`: plain values with inputs.<name>.dt, --set paths, the channel-orientation warning.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;

class MotionCli : public gmbd::test::GmbdCliTest {
 protected:
  MotionCli() : GmbdCliTest("gmbd_motion_cli_") {}

  std::string write(const std::string& name, const std::string& text) const {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  static std::string motion(const std::string& name) { return std::string(GMBD_DATA_DIR) + "/motions/" + name; }
};

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

TEST_F(MotionCli, ReportsEveryChannelOfARecord) {
  const Result r = gmbd("motion " + motion("CE89486_Fortuna_Ferndale2022_3ch.v2"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "  format            csmip-v2 (detected)\n");
  EXPECT_CONTAINS(r.output, "  station           89486");
  EXPECT_CONTAINS(r.output, "  channels          3\n");
  EXPECT_CONTAINS(r.output, "  channel 0 '180'   horizontal, azimuth 180 deg\n");
  EXPECT_CONTAINS(r.output, "  channel 2 'Up'    vertical, up-positive\n");
  EXPECT_CONTAINS(r.output, "    samples         10100 at dt = 0.01 s, duration 100.99 s\n");
  EXPECT_CONTAINS(r.output, "    units           cm/s^2 in the file, converted to m/s^2 (x 0.01)\n");
  EXPECT_CONTAINS(r.output, "    peak |a|        3.88166 m/s^2 = 0.3958 g (388.166 cm/s^2 in the file) at t = 35.02 s\n");
  EXPECT_CONTAINS(r.output, "(108.852 cm/s^2 in the file) at t = 32.82 s\n");
  // A down-positive record: the flip is reported; the event from the header.
  const Result dwn = gmbd("motion " + motion("RSN57_SFERN_ORRDWN.AT2") + " --format peer-at2");
  ASSERT_EQ(dwn.code, 0) << dwn.output;
  EXPECT_CONTAINS(dwn.output, "  format            peer-at2 (given)\n");
  EXPECT_CONTAINS(dwn.output, "  event             San Fernando");
  EXPECT_CONTAINS(dwn.output, "  channel 0 'DWN'   vertical, up-positive (sign flipped from down-positive)\n");
  EXPECT_CONTAINS(dwn.output, "    units           g in the file, converted to m/s^2 (x 9.80665)\n");
}

TEST_F(MotionCli, PlotsToTheFileStemInTheWorkingDirectoryOrToAGivenPath) {
  const Result r = gmbd("motion " + motion("CE89486_Fortuna_Ferndale2022_3ch.v2") + " --plot");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "  plot              " + (dir_ / "CE89486_Fortuna_Ferndale2022_3ch.png").string());
  EXPECT_GT(fs::file_size(dir_ / "CE89486_Fortuna_Ferndale2022_3ch.png"), 10000u);
  const Result given = gmbd("motion --plot=one.png " + motion("RSN57_SFERN_ORR021.AT2"));
  ASSERT_EQ(given.code, 0) << given.output;
  EXPECT_TRUE(fs::exists(dir_ / "one.png"));
  // The temporary table handed to the script is gone.
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    EXPECT_EQ(e.path().filename().string().find("gmbd_motion_" + std::to_string(::getpid())), std::string::npos);
  // Outputs that cannot be written, or would destroy the record, are refused before reading.
  const Result missing = gmbd("motion " + motion("RSN57_SFERN_ORR021.AT2") + " --plot no/such/dir/x.png");
  EXPECT_EQ(missing.code, 1) << missing.output;
  EXPECT_CONTAINS(missing.output, "--plot no/such/dir/x.png: directory 'no/such/dir' does not exist");
  write("rec.png", "NPTS= 2 DT= 0.01\n0.1 0.2\n");
  const Result over = gmbd("motion rec.png --plot rec.png");
  EXPECT_EQ(over.code, 1) << over.output;
  EXPECT_CONTAINS(over.output, "--plot");
  EXPECT_CONTAINS(over.output, "the motion file");
}

// The free-format records of OpenSees examples: one with its header, one of plain values.
TEST_F(MotionCli, TextRecordsAndPlainValues) {
  write("el.txt", "NPTS= 4 DT= 0.02\n0.1 -0.2\n0.3 0.05\n");
  const Result t = gmbd("motion el.txt");
  ASSERT_EQ(t.code, 0) << t.output;
  EXPECT_CONTAINS(t.output, "  format            text-npts-dt (detected)\n");
  EXPECT_CONTAINS(t.output, "  channel 0         not stated\n");
  EXPECT_CONTAINS(t.output, "    samples         4 at dt = 0.02 s, duration 0.06 s\n");
  EXPECT_CONTAINS(t.output, " m/s^2 = 0.3 g (0.3 g in the file) at t = 0.04 s\n");
  write("one.txt", "0.1\n-0.2\n0.3\n");
  const Result no_dt = gmbd("motion one.txt");
  EXPECT_EQ(no_dt.code, 1) << no_dt.output;
  EXPECT_CONTAINS(no_dt.output, "error: one.txt: sample interval: expected --dt (s, 1e-5 <= dt <= 1) to be given, found none");
  const Result with_dt = gmbd("motion one.txt --dt 0.005 --units cm/s^2");
  ASSERT_EQ(with_dt.code, 0) << with_dt.output;
  EXPECT_CONTAINS(with_dt.output, "  format            values (detected)\n");
  EXPECT_CONTAINS(with_dt.output, "    samples         3 at dt = 0.005 s, duration 0.01 s\n");
  EXPECT_CONTAINS(with_dt.output, "(0.3 cm/s^2 in the file)");
  // A dt that contradicts the file's own.
  const Result contra = gmbd("motion el.txt --dt 0.01");
  EXPECT_EQ(contra.code, 1) << contra.output;
  EXPECT_CONTAINS(contra.output, "el.txt:1: sample interval: expected --dt = 0.01 s to agree with the file's DT");
}

TEST_F(MotionCli, ErrorsNameTheFileWhatWasExpectedAndFound) {
  const Result none = gmbd("motion no_such.v2");
  EXPECT_EQ(none.code, 2) << none.output;
  EXPECT_CONTAINS(none.output, "File does not exist: no_such.v2");
  const Result format = gmbd("motion " + motion("RSN57_SFERN_ORR021.AT2") + " --format opensees");
  EXPECT_EQ(format.code, 2) << format.output;
  EXPECT_CONTAINS(format.output, "opensees not in {auto,peer-at2,csmip-v2,cosmos-v1.20,usgs-smc,text-npts-dt,values,csv}");
  EXPECT_EQ(gmbd("motion " + motion("RSN57_SFERN_ORR021.AT2") + " --dt -1").code, 2);
  EXPECT_EQ(gmbd("motion " + motion("RSN57_SFERN_ORR021.AT2") + " --units furlongs").code, 2);
  write("notes.txt", "hello\nworld\n");
  const Result text = gmbd("motion notes.txt");
  EXPECT_EQ(text.code, 1) << text.output;
  EXPECT_CONTAINS(text.output, "error: notes.txt:1: unrecognised motion file: expected a PEER AT2");
  EXPECT_CONTAINS(text.output, "found 'hello'");
  // The wrong format given: the reader says what it expected.
  const Result wrong = gmbd("motion " + motion("RSN57_SFERN_ORR021.AT2") + " --format usgs-smc");
  EXPECT_EQ(wrong.code, 1) << wrong.output;
  EXPECT_CONTAINS(wrong.output, "RSN57_SFERN_ORR021.AT2:1:");
  write("empty.txt", "");
  const Result empty = gmbd("motion empty.txt");
  EXPECT_EQ(empty.code, 1) << empty.output;
  EXPECT_CONTAINS(empty.output, "empty.txt:1: read_motion_file: expected a motion record, found an empty file");
  if (::geteuid() != 0) {  // root reads every file
    write("locked.txt", "0.1\n0.2\n");
    fs::permissions(dir_ / "locked.txt", fs::perms::none);
    const Result locked = gmbd("motion locked.txt --dt 0.01");
    EXPECT_EQ(locked.code, 1) << locked.output;
    EXPECT_CONTAINS(locked.output, "locked.txt: cannot open: expected a readable file, found no read permission");
  }
  EXPECT_EQ(gmbd("motion --help").code, 0);
  EXPECT_CONTAINS(gmbd("--help").output, "motion");
}

// gmbd run: plain values need inputs.<name>.dt, and a --set path is relative to the run file
// (runs/), not to the working directory.
TEST_F(MotionCli, RunReadsPlainValuesWithSetPathsRelativeToTheRunFile) {
  write("runs/data/floor.txt", "0.01\n-0.02\n0.03\n-0.01\n0.0\n0.02\n");
  write("data/elsewhere.txt", "0.01\n-0.02\n");
  write("runs/run.yaml", "model: ris_xytheta\nintegrator: {method: rk4, dt: 0.005}\ntime: {end: 0.02, output_interval: 0.005}\n");
  const std::string base = "run runs/run.yaml -o out.h5 --set inputs.floor_x.file=data/floor.txt";
  const Result no_dt = gmbd(base);
  EXPECT_EQ(no_dt.code, 1) << no_dt.output;
  EXPECT_CONTAINS(no_dt.output, "runs/data/floor.txt: sample interval: expected inputs.floor_x.dt (runs/run.yaml)");
  const Result ok = gmbd(base + " --set inputs.floor_x.dt=0.005");
  ASSERT_EQ(ok.code, 0) << ok.output;
  EXPECT_CONTAINS(ok.output, "completed");
  EXPECT_CONTAINS(ok.output, "runs/data/floor.txt [values] channel 0, 6 points at dt 0.005 s, g converted to m/s^2");
  // data/elsewhere.txt exists relative to the working directory only: not found next to the run file.
  const Result cwd = gmbd("run runs/run.yaml -o out2.h5 --set inputs.floor_x.file=data/elsewhere.txt --set inputs.floor_x.dt=0.01");
  EXPECT_EQ(cwd.code, 1) << cwd.output;
  EXPECT_CONTAINS(cwd.output, "runs/data/elsewhere.txt: cannot open: expected an existing file");
}

TEST_F(MotionCli, RunWarnsAboutAVerticalChannelOnAHorizontalInput) {
  const std::string rec = motion("CE89486_Fortuna_Ferndale2022_3ch.v2");
  write("run.yaml", "model: ris_xyztheta\nintegrator: {method: rk4, dt: 0.005}\ntime: {end: 0.02}\ninputs:\n"
                    "  floor_x: {file: " + rec + ", component: Up}\n"
                    "  floor_z: {file: " + rec + ", channel: 0}\n");
  const Result r = gmbd("run run.yaml -o out.h5");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "[warning] run.yaml: inputs.floor_x is a horizontal floor acceleration, but it is assigned "
                            "channel 2 'Up' of " + rec + ", a vertical channel (vertical, up-positive)");
  EXPECT_CONTAINS(r.output, "[warning] run.yaml: inputs.floor_z is the vertical floor acceleration, but it is assigned "
                            "channel 0 '180' of " + rec);
}

}  // namespace
