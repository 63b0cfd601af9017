// gmbd with model files end to end: run (HDF5 with the model file's text and parameter
// provenance), info (values, expressions, origins), drift, overrides that replace, scale and
// increment a parameter, and bad model files giving exit code 1 with file:line.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;

class ModelFileCli : public gmbd::test::GmbdCliTest {
 protected:
  ModelFileCli() : GmbdCliTest("gmbd_model_file_cli_") {}
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string attribute(const std::string& file, const char* name) const {
    const hid_t f = H5Fopen((dir_ / file).string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    std::string value = gmbd::test::h5_string_attribute(f, name);
    H5Fclose(f);
    return value;
  }
};

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

TEST_F(ModelFileCli, RunRecordsTheModelFileAndParameterProvenance) {
  const Result r = gmbd("run " + example("four_bar.yaml") +
                        " --set time.end=0.2 --set 'spin={scale: 2}' --set 'th={increment: 0.1}' -o fb.h5");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "completed");
  EXPECT_EQ(gmbd::test::h5_rows((dir_ / "fb.h5").string()), 21);
  EXPECT_CONTAINS(attribute("fb.h5", "model_file_text"), "type: coincident");
  EXPECT_CONTAINS(attribute("fb.h5", "model_file"), "four_bar.yaml");
  EXPECT_CONTAINS(attribute("fb.h5", "parameter_origin.spin"), "scale");
  EXPECT_CONTAINS(attribute("fb.h5", "parameter_origin.th"), "increment");
}

TEST_F(ModelFileCli, InfoShowsValueExpressionAndOrigin) {
  const Result r = gmbd("info " + example("four_bar.yaml") + " --set a=1.1 --set 'm={scale: 3}'");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "crank.theta");
  EXPECT_CONTAINS(r.output, "pin_b.x");
  EXPECT_CONTAINS(r.output, "velocity degrees of freedom 1");
  EXPECT_CONTAINS(r.output, "a*cos(th)");  // bx's expression
  EXPECT_CONTAINS(r.output, "override");
  EXPECT_CONTAINS(r.output, "scale");
  EXPECT_CONTAINS(r.output, "default");
}

TEST_F(ModelFileCli, DriftRunsOnAModelFile) {
  const Result r = gmbd("drift " + example("slider_crank_file.yaml") +
                        " --set time.end=1 --dt 0.02,0.01 --stabilization none,dsc --no-plot --csv d.csv");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "d.csv"));
}

TEST_F(ModelFileCli, BadModelFileExitsWithFileLineAndField) {
  const std::string model = write("bad_model.yaml",
                                  "dimension: 2\n"
                                  "bodies:\n"
                                  "  bob: {type: point, mass: 1}\n"
                                  "elements:\n"
                                  "  rod: {type: distance, a: ground, b: bobb, length: 1}\n");
  const std::string run = write("run.yaml", "model: {file: bad_model.yaml}\ntime: {end: 1}\n");
  const Result r = gmbd("run " + run);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "bad_model.yaml:5");
  EXPECT_CONTAINS(r.output, "elements.rod.b");
  EXPECT_CONTAINS(r.output, "'bobb'");
}

TEST_F(ModelFileCli, MissingModelFileAndCycleAreClearErrors) {
  const Result missing = gmbd("run " + write("run.yaml", "model: {file: nowhere.yaml}\n"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_CONTAINS(missing.output, "nowhere.yaml");
  write("cycle.yaml", "dimension: 2\nparameters: {a: b + 1, b: 2*a}\nbodies: {p: {type: point, mass: 1}}\n");
  const Result cycle = gmbd("info " + write("run2.yaml", "model: {file: cycle.yaml}\n"));
  EXPECT_EQ(cycle.code, 1);
  EXPECT_CONTAINS(cycle.output, "cycle");
  EXPECT_CONTAINS(cycle.output, "a → b → a");
}

}  // namespace
