// gmbd linearize end to end: the mode table and files, the MATLAB exports read by real GNU
// Octave and scipy (same eigenvalues of A), the Python example, plots, the run file's linear:
// section, and bad inputs (exit 1 with names) and numerical trouble (exit 3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

class LinearizeCli : public gmbd::test::GmbdCliTest {
 protected:
  LinearizeCli() : GmbdCliTest("gmbd_linearize_cli_") {}
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  Result in_dir(const std::string& cmd) const {
    return gmbd::test::run_command("cd '" + dir_.string() + "' && " + cmd);
  }
  /// Numbers printed one per line after a marker line.
  static std::vector<double> numbers_after(const std::string& text, const std::string& marker) {
    std::vector<double> out;
    const auto pos = text.find(marker);
    if (pos == std::string::npos) return out;
    std::istringstream in(text.substr(pos + marker.size()));
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      if (line.rfind("END", 0) == 0) break;
      out.push_back(std::stod(line));
    }
    return out;
  }
};

TEST_F(LinearizeCli, PrintsTheModeTableAndWritesTheFiles) {
  const Result r = gmbd("linearize " + example("linear/toy_float.yaml") +
                        " --inputs support.x,force:mass.x --outputs mass.x,support_force.x --freq 0.1:10:50"
                        " -o toy.h5 --matlab toy.m --mat toy.mat");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "0.974621");  // f0 = √(K_eff/m)/2π
  EXPECT_CONTAINS(r.output, "mass.x (100 %)");
  EXPECT_CONTAINS(r.output, "1 floats");
  EXPECT_CONTAINS(r.output, "50 points");
  for (const char* f : {"toy.h5", "toy.m", "toy.mat"}) EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  const hid_t h5 = H5Fopen((dir_ / "toy.h5").string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(h5, 0);
  EXPECT_EQ(gmbd::test::h5_string_attribute(h5, "format"), "gaussmbd-linear");
  EXPECT_CONTAINS(gmbd::test::h5_string_attribute(h5, "model_file_text"), "name: toy_float");
  H5Fclose(h5);
}

TEST_F(LinearizeCli, OctaveAndScipyReadTheExportsWithTheSameEigenvaluesOfA) {
  // The mirror under voltage control (F0 = 0): 9 states, poles −14.74, −289.6, −3196 1/s twice.
  const Result r = gmbd("linearize " + example("models/mirror_voltage.yaml") +
                        " --set V1=0 --set F0=0 --inputs actuator1.voltage,actuator2.voltage"
                        " --outputs mirror.rx,mirror.ry -o m.h5 --matlab m.m --mat m.mat");
  ASSERT_EQ(r.code, 0) << r.output;
  write("check.m",
        "run('m.m'); e1 = sort(real(eig(A))); clear A; S = load('m.mat'); e2 = sort(real(eig(S.A)));\n"
        "printf('M\\n'); printf('%.17g\\n', e1); printf('END\\nMAT\\n'); printf('%.17g\\n', e2); printf('END\\n');\n"
        "printf('NAMES %s|%s\\n', input_names{1}, S.output_names{2});\n");
  const Result oct = in_dir("octave-cli --no-gui --norc -q check.m");
  ASSERT_EQ(oct.code, 0) << "GNU Octave is needed (run scripts/install_deps.sh):\n" << oct.output;
  const auto e1 = numbers_after(oct.output, "M\n");
  const auto e2 = numbers_after(oct.output, "MAT\n");
  ASSERT_EQ(e1.size(), 9u) << oct.output;
  ASSERT_EQ(e2.size(), 9u) << oct.output;
  for (size_t k = 0; k < 9; ++k) EXPECT_EQ(e1[k], e2[k]);  // same matrix, bit for bit
  // Ascending: −3196 twice, −R/L = −3500, −289.6 twice, −14.74 twice, 0 twice (twist).
  auto near = [&](double x) {
    return std::count_if(e1.begin(), e1.end(), [&](double e) { return std::abs(e - x) < 5e-3 * std::abs(x) + 1e-6; });
  };
  EXPECT_EQ(near(-14.74), 2);
  EXPECT_EQ(near(-289.6), 2);
  EXPECT_EQ(near(-3196.0), 2);
  EXPECT_CONTAINS(oct.output, "NAMES actuator1.voltage|mirror.ry");
  // The documented Octave lines (docs/results-format.md): the control package's descriptor
  // system has the poles of A, and Octave's own HDF5 reader gives A transposed, bit for bit.
  write("descriptor_check.m",  // not dss.m: it would shadow dss()
        "run('m.m'); pkg load control\n"
        "sys = dss(A, B, C, D, E); sys.StateName = state_names; sys.InputName = input_names;\n"
        "sys.OutputName = output_names;\n"
        "printf('POLE_DIFF %.3g\\n', max(abs(sort(real(pole(sys))) - sort(real(eig(A))))));\n"
        "h = load('m.h5'); printf('H5_DIFF %.17g\\n', max(max(abs(h.state_space.A.' - A))));\n");
  const Result dss = in_dir("octave-cli --no-gui --norc -q descriptor_check.m");
  ASSERT_EQ(dss.code, 0) << "Octave's control package is needed (octave-control, scripts/install_deps.sh):\n"
                         << dss.output;
  const auto at = dss.output.find("POLE_DIFF ");
  ASSERT_NE(at, std::string::npos) << dss.output;
  EXPECT_LT(std::stod(dss.output.substr(at + 10)), 1e-6 * 3500.0) << dss.output;  // pencil vs A
  EXPECT_CONTAINS(dss.output, "H5_DIFF 0\n");
  const Result py = in_dir("/usr/bin/python3 -c \"import numpy, scipy.io; S = scipy.io.loadmat('m.mat'); "
                           "print(' '.join('%.17g' % x for x in sorted(numpy.linalg.eigvals(S['A']).real)))\"");
  ASSERT_EQ(py.code, 0) << py.output;
  std::istringstream in(py.output);
  for (size_t k = 0; k < 9; ++k) {
    double x = 0;
    in >> x;
    EXPECT_NEAR(x, e1[k], 1e-9 * std::max(1.0, std::abs(e1[k])));
  }
}

TEST_F(LinearizeCli, PythonExampleBuildsAScipySystemFromTheFile) {
  ASSERT_EQ(gmbd("linearize " + example("models/blade_wire.yaml") + " -o bw.h5").code, 0);
  const Result py = in_dir("/usr/bin/python3 '" + example("linear/scipy_state_space.py") + "' bw.h5");
  ASSERT_EQ(py.code, 0) << py.output;
  EXPECT_CONTAINS(py.output, "6.48");  // the payload mode (Hz)
}

TEST_F(LinearizeCli, PlotWritesBodeAndModeShapePngs) {
  const Result r = gmbd("linearize " + example("models/blade_wire.yaml") + " -o bw.h5 --plot");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "bw.png")) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "bw_modes.png")) << r.output;
  EXPECT_GT(fs::file_size(dir_ / "bw.png"), 10000u);
}

TEST_F(LinearizeCli, RunFileLinearSectionSetsTheOptions) {
  const std::string run = write("lin_run.yaml",
                                "model: {file: " + example("linear/toy_float.yaml") + ", parameters: {m: 8}}\n"
                                "linear:\n"
                                "  inputs: [force:mass.x]\n"
                                "  outputs: [mass.x, vel:mass.x]\n"
                                "  frequencies: {from: 0.1, to: 5, points: 20}\n"
                                "  hdf5: toy_run.h5\n");
  const Result r = gmbd("linearize " + run);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "0.4873105");  // m = 8: f0 halves
  EXPECT_CONTAINS(r.output, "20 points");
  EXPECT_TRUE(fs::exists(dir_ / "toy_run.h5"));
  const Result bad = gmbd("linearize " + write("bad.yaml", "model: {file: " + example("linear/toy_float.yaml") +
                                                             "}\nlinear:\n  balance: auto\n"));
  EXPECT_EQ(bad.code, 1);
  EXPECT_CONTAINS(bad.output, "unknown key 'balance' in 'linear'");
  EXPECT_CONTAINS(bad.output, "balancing");
}

TEST_F(LinearizeCli, AtATimeOfARunLinearisesTheMovingState) {
  const std::string run = write("swing.yaml",
                                "model: {file: " + example("linear/triple_pendulum_friction.yaml") +
                                ", parameters: {theta1: 0.5, R: 0.2}}\n"
                                "integrator: {method: rk45, rtol: 1.0e-9, atol: 1.0e-11}\n"
                                "time: {end: 10, output_interval: 0.01}\n"
                                "linear: {at: t=0.75, inputs: [ground_accel.x], outputs: [m3.x, acc:m3.x]}\n");
  const Result r = gmbd("linearize " + run + " -o swing.h5");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "state of a transient at t = 0.75");
  EXPECT_CONTAINS(r.output, "6 states, 1 inputs, 2 outputs");
  const hid_t h5 = H5Fopen((dir_ / "swing.h5").string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(h5, 0);
  const hid_t g = H5Gopen2(h5, "operating_point", H5P_DEFAULT);
  EXPECT_CONTAINS(gmbd::test::h5_string_attribute(g, "kind"), "transient");
  H5Gclose(g);
  H5Fclose(h5);
}

// A model with hundreds of names (the quad: 319 outputs, 151 inputs) does not print them all in
// an error (4,791 characters before): the closest few, with a suggestion when one is near, and
// `--outputs list` / `--inputs list` prints every name.
TEST_F(LinearizeCli, AMisspeltNameOfALargeModelShowsTheClosestAndTheListPrintsAll) {
  const std::string quad = std::string(GMBD_SOURCE_DIR) + "/examples/suspensions/quad.yaml";
  Result r = gmbd("linearize " + quad + " --outputs tm.ptch");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "output 'tm.ptch': unknown output (did you mean 'tm.pitch'?); 8 of the ");
  EXPECT_CONTAINS(r.output, "valid outputs, closest first: tm.pitch");
  EXPECT_CONTAINS(r.output, "(all of them: --outputs list)");
  EXPECT_LT(r.output.size(), 1000u) << r.output;
  r = gmbd("linearize " + quad + " --outputs list");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "outputs of ");
  EXPECT_CONTAINS(r.output, "\n  tm.pitch\n");
  EXPECT_CONTAINS(r.output, "\n  vel:tm.x\n");
  r = gmbd("linearize " + quad + " --inputs list");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "\n  support.x\n");
}

TEST_F(LinearizeCli, BadNamesListTheValidOnes) {
  Result r = gmbd("linearize " + example("linear/toy_float.yaml") + " --inputs force:mass.q");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "input 'force:mass.q'");
  EXPECT_CONTAINS(r.output, "valid inputs: support.x");
  EXPECT_CONTAINS(r.output, "force:mass.x");
  r = gmbd("linearize " + example("linear/toy_float.yaml") + " --outputs mass.z");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "output 'mass.z'");
  EXPECT_CONTAINS(r.output, "(did you mean 'mass.x'?); 8 of the 26 valid outputs, closest first: mass.x");
  r = gmbd("linearize " + example("linear/toy_float.yaml") + " --freq 10:1:5");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "FROM");
  // Absurd grids: bounded, and no 309-digit numbers in the message.
  r = gmbd("linearize " + example("linear/toy_float.yaml") + " --freq 1:10:2000000000");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "freq: expected 1 to 1000000 points, got 2000000000");
  r = gmbd("linearize " + example("linear/toy_float.yaml") + " --freq 0:1e300:5");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "freq: expected 0 ≤ FROM ≤ TO ≤ 1e+12 (Hz), got 0:1e+300");
  r = gmbd("linearize " + example("linear/toy_float.yaml") + " --at t=2");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "needs a run file");
  r = gmbd("linearize " + example("linear/toy_float.yaml") + " --at later");
  EXPECT_EQ(r.code, 2);  // a malformed option value: a command-line error
  EXPECT_CONTAINS(r.output, "expected equilibrium, initial or t=T");
}

TEST_F(LinearizeCli, CatalogueModelsHaveNoExactTangents) {
  const Result r = gmbd("linearize " + example("triple_pendulum_cartesian.yaml"));
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "without exact tangents");
  EXPECT_CONTAINS(r.output, "model file");
}

TEST_F(LinearizeCli, InitialPositionThatIsNoEquilibriumIsRefusedWhenAskedToUseIt) {
  const Result r = gmbd("linearize " + example("linear/toy_float.yaml") + " --at initial");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "not an equilibrium");
  EXPECT_CONTAINS(r.output, "coordinate '");
}

TEST_F(LinearizeCli, UnstableEquilibriumNamesTheMode) {
  const std::string model = write("inverted.yaml",
                                  "name: inverted\ndimension: 2\n"
                                  "bodies:\n  bob: {type: point, mass: 1}\n"
                                  "elements:\n  gravity: {type: gravity, g: [0, -9.81]}\n"
                                  "  rod: {type: distance, a: ground, b: bob, length: 1, form: squared}\n"
                                  "initial:\n  bob.x: 0.01\n  bob.y: 1.0\n");
  const Result r = gmbd("linearize " + model);
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_CONTAINS(r.output, "unstable equilibrium");
  EXPECT_CONTAINS(r.output, "'bob.x'");
}

TEST_F(LinearizeCli, FloatThatNothingHoldsIsNamed) {
  // The junction is held along x by its springs but free along y: Q is singular.
  const std::string model = write("loose.yaml",
                                  "name: loose\ndimension: 2\n"
                                  "bodies:\n  junction: {type: point, mass: 0}\n  mass: {type: point, mass: 1}\n"
                                  "points:\n  anchor: {body: ground, at: [0, 0]}\n"
                                  "elements:\n"
                                  "  guide: {type: point_on_line, point: mass, direction: [1, 0]}\n"
                                  "  s1: {type: spring_damper, a: anchor, b: junction, direction: [1, 0], stiffness: 10}\n"
                                  "  s2: {type: spring_damper, a: junction, b: mass, direction: [1, 0], stiffness: 10}\n"
                                  "initial:\n  mass.x: 0.0\n");
  const Result r = gmbd("linearize " + model);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "float 'junction.y' is not held");
}

}  // namespace

namespace {

TEST_F(LinearizeCli, LossesGiveQNoiseAndTheirPlots) {
  const Result r = gmbd("linearize " + example("suspensions/toy_lossy.yaml") +
                        " --inputs support.x,force:mass.x --outputs mass.x --noise mass.x --temperature 300"
                        " -o toy.h5 --plot --matlab toy.m");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "losses            stage 2 (dissipation dilution); state space: omitted");
  std::stringstream m;
  m << std::ifstream(dir_ / "toy.m").rdbuf();
  for (const char* v : {"modes.q_losses", "modes.q_naive", "thermal_noise.psd", "thermal_noise.temperature_K = [\n  300"})
    EXPECT_CONTAINS(m.str(), v);
  EXPECT_CONTAINS(r.output, "support_spring: loss angle phi1 = 0.001");
  EXPECT_CONTAINS(r.output, "Q losses");
  EXPECT_CONTAINS(r.output, "994.9");  // closed form Q of the toy (docs/suspensions.md §9)
  EXPECT_CONTAINS(r.output, "direct E(f) with loss functions");
  EXPECT_CONTAINS(r.output, "thermal noise     mass.x:");
  EXPECT_CONTAINS(r.output, " m/√Hz at ");  // the output's unit
  EXPECT_CONTAINS(r.output, "(T = 300 K)");
  for (const char* f : {"toy.png", "toy_modes.png", "toy_noise.png", "toy_q.png"})
    EXPECT_TRUE(fs::exists(dir_ / f)) << f << "\n" << r.output;
  const hid_t h5 = H5Fopen((dir_ / "toy.h5").string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(h5, 0);
  for (const char* g : {"/losses", "/thermal_noise"}) EXPECT_GT(H5Lexists(h5, g, H5P_DEFAULT), 0) << g;
  H5Fclose(h5);
}

TEST_F(LinearizeCli, StagesAndLossErrorsAreClear) {
  // 0A: naive losses (Q losses = Q naive); a stage that does not exist is a usage error.
  const Result naive = gmbd("linearize " + example("suspensions/quad.yaml") + " --stage 0A -o q.h5");
  ASSERT_EQ(naive.code, 0) << naive.output;
  EXPECT_CONTAINS(naive.output, "stage 0A (naive: no dissipation dilution)");
  const Result bad = gmbd("linearize " + example("suspensions/quad.yaml") + " --stage 3 -o q.h5");
  EXPECT_NE(bad.code, 0);
  EXPECT_CONTAINS(bad.output, "--stage");
  // Thermal noise needs loss functions.
  const Result lossless = gmbd("linearize " + example("linear/toy_float.yaml") + " --noise mass.x -o t.h5");
  EXPECT_NE(lossless.code, 0);
  EXPECT_CONTAINS(lossless.output, "thermal noise needs loss functions");
}

}  // namespace
