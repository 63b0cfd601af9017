// The quad in the time domain (floats condensed by their force balance at every evaluation,
// elements/float_condensation.hpp): a small sine shake of the structure, started on the steady
// state the linear transfer functions predict, stays on it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <numbers>
#include <sstream>

#include "analysis/linear_analysis.hpp"
#include "core/errors.hpp"
#include "elements/float_condensation.hpp"
#include "builder/model_builder.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"
#include "support/model_text.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

using test::exact;

constexpr double kPi = std::numbers::pi;


TEST(QuadTimeDomain, SineShakeFollowsTheLinearTransferFunction) {
  const test::TempDir dir("gmbd_quad_time_");
  const std::string source = std::string(GMBD_SOURCE_DIR) + "/examples/suspensions/quad.yaml";
  const double A = 1e-6, f = 0.7, w = 2.0 * kPi * f;  // 1 µm at 0.7 Hz (between modes 5 and 6)
  // The structure's acceleration −Aω² sin ωt as an expression instead of the input ground_x.
  std::string text;
  {
    std::ifstream in(source);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  const std::string from = "acceleration: [ground_x, ground_y, ground_z]";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               "acceleration: [\"-" + exact(A * w * w) + "*sin(" + exact(w) + "*t)\", 0, 0]");
  const std::string model_path = dir.write("quad_shaken.yaml", text);

  // Linear prediction (lossless, like the run): x_rel = A Im((H − 1) e^{iωt}) for translations
  // along x (the structure moves by A sin ωt), A Im(H e^{iωt}) for everything else.
  const auto spec = load_model_file(model_path);
  const auto model = build_model_for_linear_analysis(spec);
  Vec q0 = Vec::Zero(model->nq()), v0 = q0;
  model_file_initial_state(spec, *model, q0, v0);
  analysis::LinearAnalysisRequest request;
  request.linear.inputs = {"support.x"};
  for (const auto& b : model->bodies())
    for (const char* c : {".x", ".y", ".z", ".yaw", ".pitch", ".roll"}) request.linear.outputs.push_back(b.name + c);
  request.f_from = f;
  request.f_to = f;
  request.f_count = 1;
  const auto lin = analysis::run_linear_analysis(*model, q0, Vec::Zero(0), request);
  const auto& H = lin.response.H[0];
  std::ostringstream initial_q, initial_v;
  std::vector<std::complex<double>> c;
  for (size_t k = 0; k < request.linear.outputs.size(); ++k) {
    const std::string& name = request.linear.outputs[k];
    std::complex<double> h = H(static_cast<Eigen::Index>(k), 0);
    if (name.ends_with(".x")) h -= 1.0;
    c.push_back(A * h);
    const double eq = lin.equilibrium.q(model->coordinate_index(name));
    initial_q << (k ? ", " : "") << name << ": " << exact(eq + c.back().imag());
    initial_v << (k ? ", " : "") << name << ": " << exact(w * c.back().real());
  }
  const std::string run_yaml = "name: quad_shaken\nmodel: {file: " + model_path + "}\n" +
                               "initial:\n  q: {" + initial_q.str() + "}\n  v: {" + initial_v.str() + "}\n" +
                               "integrator: {method: rk4, dt: 0.001}\nstabilization: {method: none}\n"
                               "time: {end: 3, output_interval: 0.05}\noutput: {hdf5: " + dir.file("out.h5") + "}\n";
  const PreparedRun run = prepare_run(parse_run_config(run_yaml, "<quad shaken>"));
  ASSERT_NE(dynamic_cast<const elements::FloatCondensedModel*>(run.built.model.get()), nullptr);
  const int tm_x = run.built.model->coordinate_index("tm.x");
  const double eq_x = lin.equilibrium.q(model->coordinate_index("tm.x"));
  const std::complex<double> c_tm = c[static_cast<size_t>(std::find(request.linear.outputs.begin(),
                                                                     request.linear.outputs.end(), "tm.x") -
                                                           request.linear.outputs.begin())];
  double worst = 0.0, amplitude = std::abs(c_tm);
  int rows = 0;
  const RunSummary s = integrate(run, [&](const OutputSample& o) {
    const double predicted = eq_x + (c_tm * std::exp(std::complex<double>(0.0, w * o.time))).imag();
    worst = std::max(worst, std::abs(o.q(tm_x) - predicted));
    ++rows;
  });
  ASSERT_TRUE(s.completed) << s.failure;
  EXPECT_EQ(rows, 61);
  ASSERT_GT(amplitude, 1e-7);
  // Deviations: second order in the amplitude (1 µm against metres: ~1e-6 relative and smaller
  // still in practice), RK4 at 1 ms and the equilibrium's round-off. Measured 9e-12 of the
  // response amplitude; 1e-8 leaves margin while a wrong float condensation or a sign is O(1).
  EXPECT_LE(worst, 1e-8 * amplitude) << "amplitude " << amplitude;  // measured 9e-12
  RecordProperty("relative_deviation", exact(worst / amplitude));
}

// A float (a massless junction held by springs) with a damper on it would be a first-order
// state, and one that nothing holds has no position: a run refuses both when it prepares, with
// the float's name and the reason (as the linear analysis does), instead of running.
TEST(TimeDomainFloats, ADampedOrUnheldFloatIsRefusedBeforeTheRun) {
  const test::TempDir dir("gmbd_floats_");
  const auto model = [](const std::string& s1_extra, bool held) {
    return std::string("dimension: 2\nbodies:\n  junction: {type: point, mass: 0}\n  mass: {type: point, mass: 2}\n"
                       "points:\n  a: {body: ground, at: [0, 0]}\n  b: {body: ground, at: [0, 1]}\nelements:\n") +
           (held ? "  s1: {type: spring_damper, a: a, b: junction, stiffness: 100, rest_length: 0.5" + s1_extra + "}\n"
                   "  s2: {type: spring_damper, a: b, b: junction, stiffness: 100, rest_length: 0.5}\n"
                   "  s3: {type: spring_damper, a: junction, b: mass, stiffness: 300, rest_length: 0.5}\n"
                 : "  s3: {type: spring_damper, a: a, b: mass, stiffness: 300, rest_length: 0.5}\n") +
           "initial: {junction.x: 0.5, junction.y: 0.5, mass.x: 1.0, mass.y: 0.5}\n";
  };
  const auto prepare_error = [&](const std::string& model_text) {
    const std::string file = dir.file("float.yaml");
    std::ofstream(file) << model_text;
    const std::string run = "name: f\nmodel: {file: " + file + "}\nintegrator: {method: rk4, dt: 0.001}\n"
                            "stabilization: {method: none}\ntime: {end: 0.01, output_interval: 0.01}\n";
    try {
      const PreparedRun prepared = prepare_run(parse_run_config(run, "<floats>"));
      EXPECT_NE(dynamic_cast<const elements::FloatCondensedModel*>(prepared.built.model.get()), nullptr);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(prepare_error(model("", true)), "");  // held, undamped: a float, condensed
  const std::string damped = prepare_error(model(", damping: 2", true));
  EXPECT_NE(damped.find("float 'junction.x' has viscous damping"), std::string::npos) << damped;
  const std::string unheld = prepare_error(model("", false));
  EXPECT_NE(unheld.find("'junction.x' has no mass and no constraint holds it"), std::string::npos) << unheld;
}

}  // namespace
}  // namespace gmbd
