// The model catalogue: contents and documentation of every entry, build with initial state, and
// bad input (unknown names, out-of-range values, wrong list lengths) with messages naming the field.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

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

}  // namespace
}  // namespace gmbd
