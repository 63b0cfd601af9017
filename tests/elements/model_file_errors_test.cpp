// Bad model files: each error names the file, line, field, the expected and the found value,
// and is raised when the model is built (not as a singular KKT during the run).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "builder/model_builder.hpp"

namespace gmbd {
namespace {

// Builds the model of `yaml` and returns the error message ("" when it builds).
std::string build_error(const std::string& yaml) {
  try {
    build_assembled_model(parse_model_file(yaml, "bad.yaml"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& yaml, const std::vector<std::string>& parts) {
  const std::string message = build_error(yaml);
  ASSERT_FALSE(message.empty()) << "built without error:\n" << yaml;
  for (const auto& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "message: " << message << "\n  lacks: " << part;
}

const char* kPendulum =
    "dimension: 2\n"
    "parameters: {L: 1}\n"
    "bodies:\n"
    "  bob: {type: point, mass: 1}\n";

TEST(ModelFileErrors, UnknownElementTypeListsTheValidOnes) {
  expect_error(std::string(kPendulum) + "elements:\n  rod: {type: rope, a: ground, b: bob, length: L}\n",
               {"bad.yaml:6", "elements.rod.type", "'rope'", "distance", "coincident", "spring_damper"});
}

TEST(ModelFileErrors, UnknownBodyTypeListsTheValidOnes) {
  expect_error("dimension: 2\nbodies:\n  bob: {type: particle, mass: 1}\n",
               {"bad.yaml:3", "bodies.bob.type", "'particle'", "point, planar, spatial"});
}

TEST(ModelFileErrors, MissingPointNamesTheKnownOnes) {
  expect_error(std::string(kPendulum) + "elements:\n  rod: {type: distance, a: ground, b: bobb, length: L}\n",
               {"bad.yaml:6", "elements.rod.b", "'bobb'", "ground", "bob"});
}

TEST(ModelFileErrors, PointOnAMissingBody) {
  expect_error(std::string(kPendulum) + "points:\n  tip: {body: arm, at: [1, 0]}\n",
               {"bad.yaml:6", "points.tip.body", "'arm'", "bob"});
}

TEST(ModelFileErrors, WrongVectorSize) {
  expect_error(std::string(kPendulum) + "points:\n  tip: {body: bob, at: [1, 0, 0]}\n",
               {"bad.yaml:6", "points.tip.at", "2", "3"});
}

TEST(ModelFileErrors, NegativeMassAndLength) {
  expect_error("dimension: 2\nbodies:\n  bob: {type: point, mass: -1}\n",
               {"bad.yaml:3", "bodies.bob.mass", "non-negative", "-1"});
  expect_error(std::string(kPendulum) + "elements:\n  rod: {type: distance, a: ground, b: bob, length: -L}\n",
               {"bad.yaml:6", "elements.rod.length", "positive", "-1"});
}

TEST(ModelFileErrors, InertiaThatIsNotPositiveSemiDefinite) {
  expect_error("dimension: 3\nbodies:\n  b: {type: spatial, mass: 1, inertia: [1, 1, 1, 2, 0, 0]}\n",
               {"bad.yaml:3", "bodies.b.inertia", "positive semi-definite", "principal moments"});
  expect_error("dimension: 3\nbodies:\n  b: {type: spatial, mass: 1, inertia: [1, 1, 3]}\n",
               {"bodies.b.inertia", "I1 + I2 ≥ I3"});
  expect_error("dimension: 3\nbodies:\n  b: {type: spatial, mass: 1, inertia: [1, 2]}\n",
               {"bodies.b.inertia", "3 (principal", "2 numbers"});
}

TEST(ModelFileErrors, MasslessCoordinateThatNothingHoldsIsFoundAtBuild) {
  // The crank's angle has no inertia and no element touches it.
  expect_error("dimension: 2\nbodies:\n  crank: {type: planar, mass: 1, inertia: 0}\n",
               {"bad.yaml", "crank.theta", "no mass", "holds it"});
  // A massless point with nothing attached.
  expect_error("dimension: 2\nbodies:\n  float: {type: point}\n", {"float.x", "no mass", "undetermined"});
}

TEST(ModelFileErrors, BodyTypeThatDoesNotFitTheDimension) {
  expect_error("dimension: 2\nbodies:\n  b: {type: spatial, mass: 1, inertia: [1, 1, 1]}\n",
               {"bodies.b.type", "dimension: 3"});
  expect_error("dimension: 3\nbodies:\n  b: {type: planar, mass: 1, inertia: 1}\n",
               {"bodies.b.type", "dimension: 2"});
}

TEST(ModelFileErrors, UnknownFieldOfAnElementListsTheAllowedOnes) {
  expect_error(std::string(kPendulum) + "elements:\n  rod: {type: distance, a: ground, b: bob, lenght: L}\n",
               {"elements.rod", "lenght", "length"});
}

TEST(ModelFileErrors, UnknownSymbolInAnElementField) {
  expect_error(std::string(kPendulum) + "elements:\n  rod: {type: distance, a: ground, b: bob, length: 2*LL}\n",
               {"bad.yaml:6", "elements.rod.length", "LL"});
}

TEST(ModelFileErrors, UnknownIndependentCoordinate) {
  expect_error(std::string(kPendulum) +
                   "elements:\n  rod: {type: distance, a: ground, b: bob, length: L}\nindependent: [bob.theta]\n",
               {"bad.yaml:7", "independent", "bob.theta", "bob.x, bob.y"});
}

TEST(ModelFileErrors, ARunFileInputTheModelFileDoesNotNameIsAnError) {
  // Covered through the run driver in tests/apps; here: the model file's own input list.
  const ModelFileSpec spec = parse_model_file(
      std::string(kPendulum) +
          "ground: {type: accelerated, acceleration: [floor_x, 0]}\n"
          "elements:\n  rod: {type: distance, a: ground, b: bob, length: L}\n"
          "  push: {type: coordinate_force, coordinate: bob.y, value: 1, input: lift}\n",
      "in.yaml");
  EXPECT_EQ(model_file_inputs(spec), (std::vector<std::string>{"floor_x", "lift"}));
}

TEST(ModelFileErrors, AValidFileBuilds) {
  EXPECT_EQ(build_error(std::string(kPendulum) +
                        "elements:\n  gravity: {type: gravity, g: [0, -9.81]}\n"
                        "  rod: {type: distance, a: ground, b: bob, length: L}\n"),
            "");
}

}  // namespace
}  // namespace gmbd
