// End-to-end tests of the gmbd executable: runs, drift tables, info, and every kind of bad
// input giving exit code 1 with a message naming the field and the expected/actual value.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <hdf5.h>

namespace {
namespace fs = std::filesystem;

struct Result {
  int code;
  std::string output;  // stdout and stderr together
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gmbd_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result gmbd(const std::string& args) const {
    const std::string cmd = "cd '" + dir_.string() + "' && '" GMBD_EXE "' " + args + " 2>&1";
    Result r{0, ""};
    FILE* pipe = popen(cmd.c_str(), "r");
    std::array<char, 4096> buf{};
    while (fgets(buf.data(), buf.size(), pipe) != nullptr) r.output += buf.data();
    const int status = pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

  static std::string example(const std::string& name) {
    return std::string(GMBD_SOURCE_DIR) + "/examples/" + name;
  }

  fs::path dir_;
};

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

long h5_rows(const std::string& path, std::string* status) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return -1;
  hid_t d = H5Dopen2(f, "time", H5P_DEFAULT);
  hid_t s = H5Dget_space(d);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(s, &n, nullptr);
  if (status != nullptr && H5Aexists(f, "status") > 0) {
    hid_t a = H5Aopen(f, "status", H5P_DEFAULT);
    hid_t t = H5Aget_type(a);
    if (H5Tis_variable_str(t) > 0) {
      char* value = nullptr;
      hid_t mem = H5Tcopy(H5T_C_S1);
      H5Tset_size(mem, H5T_VARIABLE);
      H5Tset_cset(mem, H5Tget_cset(t));
      H5Aread(a, mem, &value);
      *status = value ? value : "";
      H5free_memory(value);
      H5Tclose(mem);
    } else {
      std::string value(H5Tget_size(t), '\0');
      H5Aread(a, t, value.data());
      *status = value.c_str();
    }
    H5Tclose(t);
    H5Aclose(a);
  }
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return static_cast<long>(n);
}

TEST_F(Cli, RunWritesHdf5AndSummary) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set time.end=1 -o out.h5 --csv out.csv");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "completed");
  EXPECT_CONTAINS(r.output, "max |g|");
  std::string status;
  EXPECT_EQ(h5_rows((dir_ / "out.h5").string(), &status), 101);
  EXPECT_EQ(status, "completed");
  EXPECT_TRUE(fs::exists(dir_ / "out.csv"));
}

TEST_F(Cli, InfoListsCoordinatesConstraintsAndDof) {
  const Result r = gmbd("info " + example("triple_pendulum_cartesian.yaml"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "x3");
  EXPECT_CONTAINS(r.output, "link3");
  EXPECT_CONTAINS(r.output, "velocity degrees of freedom 3");
  EXPECT_EQ(gmbd("models").code, 0);
}

TEST_F(Cli, DriftStudyTableCsvAndFailuresReported) {
  const Result r = gmbd("drift " + example("slider_crank.yaml") +
                        " --set time.end=2 --dt 0.02,0.01 --integrator rk4,rk45 --no-plot --csv d.csv");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(dir_ / "d.csv");
  std::string line;
  int rows = -1;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 2 * 4 * 2);
  EXPECT_CONTAINS(r.output, "dsc+baumgarte");
}

TEST_F(Cli, MalformedYamlNamesFileAndLine) {
  const std::string f = write("bad.yaml", "model:\n  type: slider_crank\n  parameters: {d: [1, 2\n");
  const Result r = gmbd("run " + f);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "bad.yaml");
  EXPECT_CONTAINS(r.output, "line");
}

TEST_F(Cli, UnknownModelListsKnownModels) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set model.type=slider_crunk");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "slider_crunk");
  EXPECT_CONTAINS(r.output, "nlink_pendulum_cartesian");
}

TEST_F(Cli, UnknownParameterIsNamed) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set model.parameters.radius=1");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "radius");
  EXPECT_CONTAINS(r.output, "expected one of");
}

TEST_F(Cli, NegativeLengthAndMassAreRejected) {
  Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") + " --set length=-1");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "length");
  EXPECT_CONTAINS(r.output, "-1");
  r = gmbd("run " + example("triple_pendulum_cartesian.yaml") + " --set mass=[1,0,1]");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "mass");
}

TEST_F(Cli, NonFiniteNumbersAreRejected) {
  Result r = gmbd("run " + example("slider_crank.yaml") + " --set torque=.nan");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "torque");
  r = gmbd("run " + example("slider_crank.yaml") + " --set integrator.dt=.inf");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "dt");
  r = gmbd("run " + example("slider_crank.yaml") + " --set initial.v.w=.nan");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "initial.v.w");
}

TEST_F(Cli, WrongLengthListParameterIsRejected) {
  const Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") + " --set length=[1,1]");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "length");
  EXPECT_CONTAINS(r.output, "3");
  EXPECT_CONTAINS(r.output, "2");
}

TEST_F(Cli, UnknownCoordinateInInitialStateIsNamed) {
  const Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") + " --set initial.q.x9=1");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "x9");
  EXPECT_CONTAINS(r.output, "x1");
}

TEST_F(Cli, InconsistentInitialStateReportsResidualAndOffersProjection) {
  Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") +
                  " --set initial.q.x1=0.5 --set time.end=0.1 -o p.h5");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "inconsistent");
  EXPECT_CONTAINS(r.output, "link");
  EXPECT_CONTAINS(r.output, "initial.project");
  r = gmbd("run " + example("triple_pendulum_cartesian.yaml") +
           " --set initial.q.x1=0.5 --set initial.project=true --set time.end=0.1 -o p.h5");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "max |g|");
}

TEST_F(Cli, NumericalFailureKeepsResultsAndExitsWith3) {
  // An adaptive run allowed too few steps fails part-way: rows so far stay in the file.
  const Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") +
                        " --set integrator.method=rk45 --set integrator.max_steps=300 -o f.h5");
  EXPECT_EQ(r.code, 3) << r.output;
  std::string status;
  const long rows = h5_rows((dir_ / "f.h5").string(), &status);
  EXPECT_GT(rows, 1);
  EXPECT_LT(rows, 2001);
  EXPECT_CONTAINS(status, "failed");
}

TEST_F(Cli, BadOverrideSyntax) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set time.end");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "time.end");
}

}  // namespace


namespace {

TEST_F(Cli, InputTheModelDoesNotTakeIsAnError) {
  const Result r = gmbd("run " + example("slider_crank.yaml") +
                        " --set inputs.floor_x.synthetic.seed=3");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "floor_x");
  EXPECT_CONTAINS(r.output, "slider_crank");
}

TEST_F(Cli, InputNeedsExactlyOneSource) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set inputs.floor_x.scale=2");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "inputs.floor_x");
  EXPECT_CONTAINS(r.output, "synthetic");
}

}  // namespace

namespace {

// An HDF5 dataset's column names (attribute `attr` of dataset `path`), for checking layouts.
std::vector<std::string> h5_column_names(const std::string& file, const char* path, const char* attr) {
  std::vector<std::string> names;
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return names;
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  hid_t a = H5Aopen(d, attr, H5P_DEFAULT);
  hid_t space = H5Aget_space(a);
  std::vector<char*> raw(static_cast<size_t>(H5Sget_simple_extent_npoints(space)), nullptr);
  hid_t mem = H5Tcopy(H5T_C_S1);
  H5Tset_size(mem, H5T_VARIABLE);
  H5Tset_cset(mem, H5T_CSET_UTF8);
  H5Aread(a, mem, raw.data());
  for (char* s : raw) {
    names.emplace_back(s ? s : "");
    H5free_memory(s);
  }
  H5Tclose(mem);
  H5Sclose(space);
  H5Aclose(a);
  H5Dclose(d);
  H5Fclose(f);
  return names;
}

TEST_F(Cli, DemoRunsTheIsolatedRisAndPointsToItsResults) {
  const Result r = gmbd("demo --out demo --no-plot");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "rolling isolation system");
  EXPECT_CONTAINS(r.output, "completed");
  EXPECT_CONTAINS(r.output, "peaks");
  EXPECT_CONTAINS(r.output, "floor_accel_x");
  EXPECT_CONTAINS(r.output, "accel_horizontal");
  EXPECT_CONTAINS(r.output, (dir_ / "demo" / "demo.h5").string());
  std::string status;
  EXPECT_EQ(h5_rows((dir_ / "demo" / "demo.h5").string(), &status), 3001);
  EXPECT_EQ(status, "completed");
  const auto outputs = h5_column_names((dir_ / "demo" / "demo.h5").string(), "outputs", "outputs");
  for (const char* name : {"floor_accel_x", "floor_accel_y", "accel_x_total", "accel_y_total", "drift"}) {
    EXPECT_NE(std::find(outputs.begin(), outputs.end(), name), outputs.end()) << name;
  }
}

TEST_F(Cli, RisRunPlotsFloorVersusPlatform) {
  // `--plot` picks scripts/plot_ris.py for RIS models; python3-matplotlib comes with
  // scripts/install_deps.sh, so a missing plot is a failure here.
  const Result r = gmbd("run " + example("ris_xytheta_building.yaml") +
                        " --set time.end=3 -o ris.h5 --plot");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "floor_accel_x");
  EXPECT_CONTAINS(r.output, (dir_ / "ris.png").string());
  ASSERT_TRUE(fs::exists(dir_ / "ris.png")) << r.output;
  EXPECT_GT(fs::file_size(dir_ / "ris.png"), 20000u);
}

TEST_F(Cli, RisPlotScriptRejectsANonRisResult) {
  const Result run = gmbd("-q run " + example("slider_crank.yaml") + " --set time.end=0.1 -o sc.h5");
  ASSERT_EQ(run.code, 0) << run.output;
  const std::string cmd = "/usr/bin/python3 '" + std::string(GMBD_SOURCE_DIR) + "/scripts/plot_ris.py' '" +
                          (dir_ / "sc.h5").string() + "' '" + (dir_ / "sc.png").string() + "' 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr) out += buf.data();
  const int status = pclose(pipe);
  EXPECT_NE(WEXITSTATUS(status), 0);
  EXPECT_CONTAINS(out, "no /outputs dataset");
  EXPECT_FALSE(fs::exists(dir_ / "sc.png"));
}

}  // namespace
