// The model catalogue: contents and documentation of every entry, build with initial state, and
// bad input (unknown names, out-of-range values, wrong list lengths) with messages naming the field;
// models a user's program adds with register_model (visible everywhere, bad entries rejected).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "core/errors.hpp"
#include "models/nlink_pendulum.hpp"
#include "models/registry.hpp"

namespace gmbd {
namespace {

TEST(Registry, CatalogueListsTheVerificationModels) {
  std::vector<std::string> names;
  for (const auto& info : model_catalogue()) names.push_back(info.name);
  // The foundation's verification models come first, in documentation order; later issues
  // append their models after them.
  const std::vector<std::string> foundation{"nlink_pendulum_angle", "nlink_pendulum_cartesian",
                                            "simple_pendulum", "slider_crank", "two_blocks"};
  ASSERT_GE(names.size(), foundation.size());
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 5), foundation);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "duplicate names";
}

TEST(Registry, EveryEntryIsDocumentedAndBuildsWithDefaults) {
  for (const auto& info : model_catalogue()) {
    EXPECT_FALSE(info.description.empty()) << info.name;
    std::set<std::string> seen;
    for (const auto& spec : info.parameters) {
      EXPECT_TRUE(seen.insert(spec.name).second) << info.name << ": duplicate " << spec.name;
      EXPECT_FALSE(spec.description.empty()) << info.name << "." << spec.name;
      EXPECT_FALSE(spec.default_value.empty()) << info.name << "." << spec.name;
    }
    ASSERT_TRUE(info.build) << info.name;
    ASSERT_TRUE(info.initial_state) << info.name;
    const BuiltModel built = build_model(info.name, {}, "test");
    ASSERT_NE(built.model, nullptr);
    EXPECT_EQ(built.model->type(), info.name);
    EXPECT_EQ(built.q0.size(), built.model->nq());
    EXPECT_EQ(built.v0.size(), built.model->nq());
    EXPECT_TRUE(built.model->has_energy());
    EXPECT_FALSE(built.model->parameter_record().empty());
    // the default initial state is consistent
    const int nh = built.model->n_holonomic();
    if (nh > 0) {
      Vec g = Vec::Zero(nh);
      Mat G = Mat::Zero(nh, built.model->nq());
      built.model->holonomic(0.0, built.q0, g);
      built.model->holonomic_jacobian(0.0, built.q0, G);
      EXPECT_LE(g.cwiseAbs().maxCoeff(), 1e-14) << info.name;
      EXPECT_LE((G * built.v0).cwiseAbs().maxCoeff(), 1e-14) << info.name;
    }
  }
}

TEST(Registry, RangesAreDeclared) {
  const auto range_of = [](const std::string& model, const std::string& param) {
    for (const auto& spec : find_model(model).parameters)
      if (spec.name == param) return spec.range;
    ADD_FAILURE() << model << " has no parameter " << param;
    return ParameterSpec::Range::kAny;
  };
  using R = ParameterSpec::Range;
  EXPECT_EQ(range_of("nlink_pendulum_angle", "n"), R::kPositiveInteger);
  EXPECT_EQ(range_of("nlink_pendulum_angle", "mass"), R::kPositive);
  EXPECT_EQ(range_of("nlink_pendulum_cartesian", "length"), R::kPositive);
  EXPECT_EQ(range_of("nlink_pendulum_cartesian", "friction"), R::kNonNegative);
  EXPECT_EQ(range_of("slider_crank", "inertia"), R::kPositive);
  EXPECT_EQ(range_of("two_blocks", "mass2"), R::kPositive);
  EXPECT_EQ(range_of("simple_pendulum", "length"), R::kPositive);
  // both pendulum forms take the same parameters (run files can switch type)
  std::vector<std::string> a, c;
  for (const auto& s : find_model("nlink_pendulum_angle").parameters) a.push_back(s.name);
  for (const auto& s : find_model("nlink_pendulum_cartesian").parameters) c.push_back(s.name);
  EXPECT_EQ(a, c);
}

// Runs `fn`, expects an InputError whose message contains every one of `parts`.
template <class Fn>
void expect_input_error(Fn&& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected InputError containing '" << parts.front() << "'";
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const auto& part : parts) {
      EXPECT_NE(what.find(part), std::string::npos) << "message: " << what << "\nmissing: " << part;
    }
  }
}

const std::string kCtx = "run.yaml: model.parameters";

TEST(Registry, UnknownModelNameListsTheKnownOnes) {
  expect_input_error([] { find_model("tripple_pendulum"); },
                     {"unknown model 'tripple_pendulum'", "nlink_pendulum_angle", "slider_crank",
                      "two_blocks"});
  expect_input_error([] { build_model("nope", {}, kCtx); }, {"unknown model 'nope'"});
  expect_input_error([] { find_model("examples/models/blade_wire.yaml"); },
                     {"unknown model 'examples/models/blade_wire.yaml'", "looks like a file: a model file is named by "
                                                                         "model: {file: …}"});
}

TEST(Registry, UnknownParameterListsTheValidOnes) {
  expect_input_error([] { build_model("nlink_pendulum_angle", {{"masses", {1.0}}}, kCtx); },
                     {kCtx, "unknown parameter 'masses'", "mass", "length", "friction"});
}

TEST(Registry, NegativeOrZeroLengthAndMass) {
  expect_input_error([] { build_model("nlink_pendulum_cartesian", {{"length", {-1.0}}}, kCtx); },
                     {kCtx + ".length", "positive", "got -1"});
  expect_input_error(
      [] { build_model("nlink_pendulum_angle", {{"mass", {1.0, 0.0, 1.0}}}, kCtx); },
      {kCtx + ".mass[1]", "positive", "got 0"});
  expect_input_error([] { build_model("two_blocks", {{"mass1", {-2.0}}}, kCtx); },
                     {kCtx + ".mass1", "positive", "got -2"});
  expect_input_error([] { build_model("slider_crank", {{"l", {0.2}}}, kCtx); },
                     {kCtx + ".l", "greater than the crank radius", "got 0.2"});
  expect_input_error([] { build_model("nlink_pendulum_angle", {{"friction", {-0.1}}}, kCtx); },
                     {kCtx + ".friction", "non-negative", "got -0.1"});
}

TEST(Registry, WrongListLength) {
  expect_input_error([] { build_model("nlink_pendulum_angle", {{"mass", {1.0, 2.0}}}, kCtx); },
                     {kCtx + ".mass: expected 1 or 3 values, got 2"});
  expect_input_error(
      [] {
        build_model("nlink_pendulum_cartesian", {{"n", {4}}, {"length", {1.0, 1.0, 1.0}}}, kCtx);
      },
      {kCtx + ".length: expected 1 or 4 values, got 3"});
  expect_input_error(
      [] { build_model("nlink_pendulum_cartesian", {{"n", {2}}, {"theta0", {0.1, 0.2, 0.3}}}, kCtx); },
      {kCtx + ".theta0: expected 1 or 2 values, got 3"});
  expect_input_error([] { build_model("simple_pendulum", {{"theta0", {0.1, 0.2}}}, kCtx); },
                     {kCtx + ".theta0", "expected a single number", "got a list of 2"});
}

TEST(Registry, BadLinkCount) {
  expect_input_error([] { build_model("nlink_pendulum_angle", {{"n", {0}}}, kCtx); },
                     {kCtx + ".n", "positive integer", "got 0"});
  expect_input_error([] { build_model("nlink_pendulum_angle", {{"n", {2.5}}}, kCtx); },
                     {kCtx + ".n", "positive integer", "got 2.5"});
  expect_input_error([] { build_model("nlink_pendulum_angle", {{"n", {1e6}}}, kCtx); },
                     {kCtx + ".n: expected an integer in [1, 1000]", "got 1e+06"});
}

TEST(Registry, NonFiniteParameter) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expect_input_error([&] { build_model("slider_crank", {{"torque", {nan}}}, kCtx); },
                     {kCtx + ".torque", "finite", "got nan"});
  expect_input_error([&] { build_model("nlink_pendulum_angle", {{"gravity", {inf}}}, kCtx); },
                     {kCtx + ".gravity", "got inf"});
  expect_input_error(
      [&] { build_model("nlink_pendulum_cartesian", {{"theta0", {0.1, nan, 0.2}}}, kCtx); },
      {kCtx + ".theta0[1]", "got nan"});
}

TEST(Registry, DirectConstructionValidatesToo) {
  NLinkPendulumParameters p;
  p.mass = {1.0, 1.0};  // n = 3
  expect_input_error([&] { NLinkPendulumAngle model(p); },
                     {"mass: expected 3 values (one per link), got 2"});
  p = NLinkPendulumParameters{};
  p.length[2] = -0.5;
  expect_input_error([&] { NLinkPendulumCartesian model(p); },
                     {"length[2]: expected a positive number (m), got -0.5"});
  expect_input_error([] { SimplePendulum model(1.0, 0.0, 9.81); },
                     {"length: expected a positive number (m), got 0"});
}

// ---- register_model ------------------------------------------------------------------------------

// A user-defined model: a point mass on a rod in Cartesian coordinates. It satisfies everything
// the catalogue-wide tests ask of an entry (documented, consistent default state, conservative
// energy, exact derivatives), since those tests may run after the registrations below.
class UserRodPendulum final : public Model {
 public:
  UserRodPendulum(std::string type, double m, double L, double g)
      : type_(std::move(type)), m_(m), L_(L), g_(g) {
    add_coordinate("x", "m");
    add_coordinate("y", "m");
    add_holonomic("rod");
    record_parameter("mass", m);
    record_parameter("length", L);
  }
  std::string type() const override { return type_; }
  void mass_matrix(double, CVec, MatRef M) const override { M.diagonal().setConstant(m_); }
  void forces(double, CVec, CVec, CVec, VecRef f) const override { f(1) = -m_ * g_; }
  void holonomic(double, CVec q, VecRef g) const override { g(0) = q.squaredNorm() - L_ * L_; }
  void holonomic_jacobian(double, CVec q, MatRef G) const override { G.row(0) = 2 * q.transpose(); }
  void holonomic_bias(double, CVec, CVec v, VecRef b) const override { b(0) = -2 * v.squaredNorm(); }
  bool has_energy() const override { return true; }
  bool conserves_energy() const override { return true; }
  double energy(double, CVec q, CVec v) const override { return 0.5 * m_ * v.squaredNorm() + m_ * g_ * q(1); }
  double length() const { return L_; }

 private:
  std::string type_;
  double m_, L_, g_;
};

ModelInfo user_pendulum_info(const std::string& name) {
  ModelInfo info;
  info.name = name;
  info.description = "test: user-registered rod pendulum";
  info.parameters = {
      {"mass", {1.0}, "kg", "bob mass", ParameterSpec::Range::kPositive},
      {"length", {1.0}, "m", "rod length", ParameterSpec::Range::kPositive},
      {"theta0", {0.3}, "rad", "initial angle", ParameterSpec::Range::kAny, false, true},
  };
  info.build = [name](const ParameterValues& p) -> std::unique_ptr<Model> {
    return std::make_unique<UserRodPendulum>(name, scalar_parameter(p, "mass"),
                                             scalar_parameter(p, "length"), 9.81);
  };
  info.initial_state = [](const Model& model, const ParameterValues& p, VecRef q0, VecRef v0) {
    const double L = dynamic_cast<const UserRodPendulum&>(model).length();
    q0(0) = L * std::sin(scalar_parameter(p, "theta0"));
    q0(1) = -L * std::cos(scalar_parameter(p, "theta0"));
    v0.setZero();
  };
  return info;
}

// Registers the two test models once per process (gtest may repeat tests).
void register_user_models() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_model(user_pendulum_info("test_user_pendulum"));
    register_model(user_pendulum_info("test_user_pendulum_b"));
  });
}

std::ptrdiff_t catalogue_index(const std::string& name) {
  const auto catalogue = model_catalogue();
  const auto it = std::find_if(catalogue.begin(), catalogue.end(),
                               [&](const ModelInfo& info) { return info.name == name; });
  return it == catalogue.end() ? -1 : it - catalogue.begin();
}

TEST(Registry, RegisteredModelIsVisibleToFindAndBuild) {
  register_user_models();
  const ModelInfo& info = find_model("test_user_pendulum");
  EXPECT_EQ(info.description, "test: user-registered rod pendulum");
  EXPECT_EQ(&find_model("test_user_pendulum"), &info) << "references must stay stable";
  // built-in models first, registered ones after them in registration order
  const auto a = catalogue_index("test_user_pendulum"), b = catalogue_index("test_user_pendulum_b");
  ASSERT_GE(a, 0);
  EXPECT_EQ(b, a + 1);
  EXPECT_GT(a, catalogue_index("two_blocks"));
  EXPECT_GT(a, catalogue_index("mirror_stiff"));
  EXPECT_EQ(catalogue_index("nlink_pendulum_angle"), 0);

  const BuiltModel built = build_model("test_user_pendulum", {{"length", {2.0}}}, kCtx);
  ASSERT_NE(built.model, nullptr);
  EXPECT_EQ(built.model->type(), "test_user_pendulum");
  EXPECT_DOUBLE_EQ(built.parameters.at("length")[0], 2.0);
  EXPECT_DOUBLE_EQ(built.parameters.at("mass")[0], 1.0);  // default filled in
  EXPECT_NEAR(built.q0.norm(), 2.0, 1e-14);
  EXPECT_NEAR(built.q0(0), 2.0 * std::sin(0.3), 1e-14);
  // parameter checks apply to registered models as to built-in ones
  expect_input_error([] { build_model("test_user_pendulum", {{"lenght", {1.0}}}, kCtx); },
                     {kCtx, "unknown parameter 'lenght'", "length"});
  expect_input_error([] { build_model("test_user_pendulum", {{"mass", {-1.0}}}, kCtx); },
                     {kCtx + ".mass", "positive", "got -1"});
  // an unknown name lists the registered models too
  expect_input_error([] { find_model("test_user_pendulm"); },
                     {"unknown model 'test_user_pendulm'", "simple_pendulum", "test_user_pendulum_b"});
}

TEST(Registry, RegisterModelRejectsDuplicateNames) {
  register_user_models();
  expect_input_error([] { register_model(user_pendulum_info("simple_pendulum")); },
                     {"register_model('simple_pendulum')", "a model named 'simple_pendulum' already exists"});
  expect_input_error([] { register_model(user_pendulum_info("test_user_pendulum")); },
                     {"a model named 'test_user_pendulum' already exists"});
  // the rejected entry did not replace the first one
  EXPECT_EQ(find_model("test_user_pendulum").description, "test: user-registered rod pendulum");
}

TEST(Registry, RegisterModelRejectsInvalidEntries) {
  expect_input_error([] { register_model(user_pendulum_info("")); }, {"register_model: the model name is empty"});
  for (const char* bad_name : {"2link", "my pendulum", "pendulum-2", "a.b"}) {
    const std::string bad = bad_name;
    expect_input_error([&] { register_model(user_pendulum_info(bad)); },
                       {"register_model('" + bad + "')", "must be an identifier"});
  }
  expect_input_error(
      [] {
        ModelInfo info = user_pendulum_info("test_no_builder");
        info.build = nullptr;
        register_model(std::move(info));
      },
      {"register_model('test_no_builder')", "neither 'build' nor 'build_with_inputs' is set"});
  expect_input_error(
      [] {
        ModelInfo info = user_pendulum_info("test_no_initial_state");
        info.initial_state = nullptr;
        register_model(std::move(info));
      },
      {"register_model('test_no_initial_state')", "'initial_state' is not set"});
  expect_input_error(
      [] {
        ModelInfo info = user_pendulum_info("test_duplicate_parameter");
        info.parameters.push_back(info.parameters.front());
        register_model(std::move(info));
      },
      {"register_model('test_duplicate_parameter')", "duplicate parameter 'mass'"});
  // nothing was added
  for (const char* name : {"test_no_builder", "test_no_initial_state", "test_duplicate_parameter", "2link"})
    EXPECT_EQ(catalogue_index(name), -1) << name;
}

TEST(Registry, ConcurrentRegistrationAndLookup) {
  register_user_models();
  static std::once_flag once;  // the names can be registered once per process
  std::call_once(once, [] {
    constexpr int kThreads = 4;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int k = 0; k < kThreads; ++k) {
      threads.emplace_back([k, &failures] {
        try {
          register_model(user_pendulum_info("test_thread_pendulum_" + std::to_string(k)));
          for (int i = 0; i < 50; ++i) {
            if (find_model("test_user_pendulum").name != "test_user_pendulum") ++failures;
            if (model_catalogue().empty()) ++failures;
          }
        } catch (...) {
          ++failures;
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0);
  });
  for (int k = 0; k < 4; ++k) {
    const std::string name = "test_thread_pendulum_" + std::to_string(k);
    EXPECT_EQ(build_model(name, {}, kCtx).model->type(), name);
  }
}

}  // namespace
}  // namespace gmbd
