// Tests of model files (io/model_file.hpp): the expression evaluator, parameter resolution and
// changes, the YAML reader with every error's file:line, and typed field access (SpecReader).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/model_file.hpp"
#include "support/temp_dir.hpp"

using gmbd::InputError;
using gmbd::ParameterChange;
using gmbd::ParameterDefinition;
using gmbd::ParameterOrigin;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

using Symbols = std::map<std::string, double, std::less<>>;

/// The message of the InputError `f` throws ("" and a failure if it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected InputError, nothing was thrown";
  return "";
}

double eval(const std::string& text, const Symbols& symbols = {}) {
  return gmbd::evaluate_expression(text, symbols, "test");
}
std::string eval_error(const std::string& text, const Symbols& symbols = {}) {
  return error_of([&] { eval(text, symbols); });
}

gmbd::ParameterTable resolve(const std::vector<ParameterDefinition>& definitions,
                             const std::vector<ParameterChange>& changes = {}) {
  return gmbd::resolve_model_parameters(definitions, changes, "m.yaml");
}
std::string resolve_error(const std::vector<ParameterDefinition>& definitions,
                          const std::vector<ParameterChange>& changes = {}) {
  return error_of([&] { resolve(definitions, changes); });
}

gmbd::ModelFileSpec parse(const std::string& yaml, const std::vector<ParameterChange>& changes = {}) {
  return gmbd::parse_model_file(yaml, "m.yaml", changes);
}
std::string parse_error(const std::string& yaml, const std::vector<ParameterChange>& changes = {}) {
  return error_of([&] { parse(yaml, changes); });
}

// The format example of the model-file documentation (line numbers are asserted below).
const char* const kFourBar = R"yaml(name: four_bar              # optional
description: a crank drives a slider
dimension: 2
parameters:
  a: 0.5
  l: 2*a
  J1: m1*a^2/12
  m1: 3
ground:
  type: accelerated
  acceleration: [0, 0, "-2*cos(3*t)"]
bodies:
  crank: {type: planar, mass: 0, inertia: J1}
  slider: {type: planar, mass: m1}
points:
  tip: {body: crank, at: [a, 0]}
  pin:
    body: slider
    at:
      - l
      - 0
elements:
  rod: {type: distance, a: tip, b: pin, length: l}
initial:
  crank.theta: pi/2
initial_velocity:
  crank.theta: 0
independent: [crank.theta]
)yaml";

// ============================================================================================
// Expressions
// ============================================================================================
TEST(ModelExpression, Numbers) {
  EXPECT_EQ(eval("1"), 1.0);
  EXPECT_EQ(eval("1e-9"), 1e-9);
  EXPECT_EQ(eval(".5"), 0.5);
  EXPECT_EQ(eval("5."), 5.0);
  EXPECT_EQ(eval("2.5E+2"), 250.0);
  EXPECT_EQ(eval("  7 "), 7.0);
  EXPECT_EQ(eval("0.1"), 0.1);
}

TEST(ModelExpression, PrecedenceAndAssociativity) {
  EXPECT_EQ(eval("1+2*3"), 7.0);
  EXPECT_EQ(eval("(1+2)*3"), 9.0);
  EXPECT_EQ(eval("8/4/2"), 1.0);
  EXPECT_EQ(eval("10-4-3"), 3.0);
  EXPECT_EQ(eval("2^3^2"), 512.0);
  EXPECT_EQ(eval("2**3**2"), 512.0);
  EXPECT_EQ(eval("-2^2"), -4.0);
  EXPECT_EQ(eval("-2**2"), -4.0);
  EXPECT_EQ(eval("2^-1"), 0.5);
  EXPECT_EQ(eval("--2"), 2.0);
  EXPECT_EQ(eval("+3"), 3.0);
  EXPECT_EQ(eval("2*-3"), -6.0);
  EXPECT_EQ(eval("3*2^2"), 12.0);
  EXPECT_EQ(eval("2 * 3 ** 2"), 18.0);
}

TEST(ModelExpression, ConstantsAndSymbols) {
  EXPECT_EQ(eval("pi"), std::numbers::pi);
  EXPECT_EQ(eval("e"), std::numbers::e);
  EXPECT_EQ(eval("2*a + b", {{"a", 1.5}, {"b", 4}}), 7.0);
  EXPECT_EQ(eval("crank.theta*2", {{"crank.theta", 0.25}}), 0.5);
  EXPECT_EQ(eval("x_1 + _y", {{"x_1", 1}, {"_y", 2}}), 3.0);
  // User names come before the constants.
  EXPECT_EQ(eval("e*pi", {{"e", 2}, {"pi", 3}}), 6.0);
}

TEST(ModelExpression, Functions) {
  EXPECT_EQ(eval("sqrt(16)"), 4.0);
  EXPECT_DOUBLE_EQ(eval("sin(pi/2)"), 1.0);
  EXPECT_DOUBLE_EQ(eval("cos(0)"), 1.0);
  EXPECT_DOUBLE_EQ(eval("tan(pi/4)"), 1.0);
  EXPECT_DOUBLE_EQ(eval("asin(1)"), std::numbers::pi / 2);
  EXPECT_DOUBLE_EQ(eval("acos(-1)"), std::numbers::pi);
  EXPECT_DOUBLE_EQ(eval("atan(1)"), std::numbers::pi / 4);
  EXPECT_DOUBLE_EQ(eval("atan2(1, -1)"), 3 * std::numbers::pi / 4);
  EXPECT_DOUBLE_EQ(eval("atan2(-1, 0)"), -std::numbers::pi / 2);
  EXPECT_EQ(eval("hypot(3, 4)"), 5.0);
  EXPECT_DOUBLE_EQ(eval("exp(log(2))"), 2.0);
  EXPECT_DOUBLE_EQ(eval("log10(1000)"), 3.0);
  EXPECT_EQ(eval("abs(-2.5)"), 2.5);
  EXPECT_EQ(eval("min(3, 1, 2)"), 1.0);
  EXPECT_EQ(eval("max(3, 1, 2, -7)"), 3.0);
  EXPECT_EQ(eval("max(1,2)^2"), 4.0);
  EXPECT_EQ(eval("-sqrt( 4 )"), -2.0);
  EXPECT_EQ(eval("min(a, 2*a)", {{"a", -1}}), -2.0);
}

TEST(ModelExpression, NonFiniteResultsAreReturned) {
  EXPECT_TRUE(std::isinf(eval("1/0")));
  EXPECT_TRUE(std::isnan(eval("sqrt(-1)")));
  EXPECT_TRUE(std::isinf(eval("1e999")));
}

TEST(ModelExpression, SyntaxErrorsNameThePosition) {
  EXPECT_THAT(eval_error("1 +"), AllOf(HasSubstr("test: syntax error at character 4 of '1 +'"),
                                       HasSubstr("expected a number, a name or '('"),
                                       HasSubstr("got the end of the expression")));
  EXPECT_THAT(eval_error("2*(3"), AllOf(HasSubstr("character 5"), HasSubstr("expected ')'")));
  EXPECT_THAT(eval_error("1 2"), AllOf(HasSubstr("character 3"), HasSubstr("got '2'")));
  EXPECT_THAT(eval_error("2 $ 3"), AllOf(HasSubstr("character 3"), HasSubstr("got '$'")));
  EXPECT_THAT(eval_error(""), HasSubstr("character 1"));
  EXPECT_THAT(eval_error("sin 2"), AllOf(HasSubstr("character 5"),
                                         HasSubstr("expected '(' after function 'sin'")));
  EXPECT_THAT(eval_error("max(1, 2"), AllOf(HasSubstr("character 9"), HasSubstr("',' or ')'")));
  EXPECT_THAT(eval_error("foo(1)"), AllOf(HasSubstr("unknown function 'foo' at character 1"),
                                          HasSubstr("atan2")));
}

TEST(ModelExpression, WrongArgumentCountNamesTheFunction) {
  EXPECT_THAT(eval_error("1 + atan2(1)"),
              AllOf(HasSubstr("function 'atan2' takes 2 arguments (atan2(y, x)), got 1"),
                    HasSubstr("character 5")));
  EXPECT_THAT(eval_error("sqrt(1, 2)"), HasSubstr("'sqrt' takes 1 argument (sqrt(x)), got 2"));
  EXPECT_THAT(eval_error("hypot()"), HasSubstr("'hypot' takes 2 arguments (hypot(x, y)), got 0"));
  EXPECT_THAT(eval_error("min(1)"), HasSubstr("'min' takes at least 2 arguments"));
}

TEST(ModelExpression, UnknownSymbol) {
  EXPECT_THAT(eval_error("2*a + x", {{"a", 1}}),
              AllOf(HasSubstr("test: unknown symbol 'x' in '2*a + x'"),
                    HasSubstr("known: a, pi, e")));
  Symbols many;
  for (const char* n : {"alpha", "beta", "gamma", "delta", "omega", "theta", "kappa", "sigma",
                        "lambda"}) {
    many[n] = 1.0;
  }
  EXPECT_THAT(eval_error("gama", many),
              AllOf(HasSubstr("unknown symbol 'gama'"), HasSubstr("did you mean 'gamma'?")));
  // No prefix when no place is given.
  const std::string msg = error_of([] { gmbd::evaluate_expression("q", {}, ""); });
  EXPECT_EQ(msg.rfind("unknown symbol 'q'", 0), 0u) << msg;
}

TEST(ModelExpression, SymbolsInOrderOfFirstAppearance) {
  EXPECT_EQ(gmbd::expression_symbols("a*sin(b) + a - crank.theta^2 + 2*pi", "w"),
            (std::vector<std::string>{"a", "b", "crank.theta", "pi"}));
  EXPECT_TRUE(gmbd::expression_symbols("atan2(1, 2) + max(3, 4, 5)", "w").empty());
  EXPECT_THAT(error_of([] { gmbd::expression_symbols("a +* b", "w"); }),
              AllOf(HasSubstr("w: syntax error at character 4"), HasSubstr("got '*'")));
  EXPECT_THAT(error_of([] { gmbd::expression_symbols("atan2(a)", "w"); }),
              HasSubstr("'atan2' takes 2 arguments"));
}

// ============================================================================================
// Parameters
// ============================================================================================
TEST(ModelParameters, ResolvedInAnyOrderKeepingDefinitionOrder) {
  const auto t = resolve({{"m1", "den1*V", 3}, {"V", "a*b", 4}, {"den1", "1000", 5},
                          {"a", "0.5", 6}, {"b", "2", 7}});
  ASSERT_EQ(t.entries().size(), 5u);
  EXPECT_EQ(t.entries()[0].name, "m1");
  EXPECT_EQ(t.entries()[4].name, "b");
  EXPECT_EQ(t.value("V"), 1.0);
  EXPECT_EQ(t.value("m1"), 1000.0);
  EXPECT_EQ(t.entries()[0].expression, "den1*V");
  EXPECT_EQ(t.entries()[0].line, 3);
  EXPECT_EQ(t.entries()[0].origin, ParameterOrigin::kDefault);
  EXPECT_EQ(t.entries()[0].origin_detail, "");
}

TEST(ModelParameters, ChainedDependencies) {
  const auto t = resolve({{"d", "c+1", 1}, {"c", "b*2", 2}, {"b", "a^2", 3}, {"a", "3", 4},
                          {"f", "d + e", 5}});
  EXPECT_EQ(t.value("b"), 9.0);
  EXPECT_EQ(t.value("c"), 18.0);
  EXPECT_EQ(t.value("d"), 19.0);
  EXPECT_DOUBLE_EQ(t.value("f"), 19.0 + std::numbers::e);
}

TEST(ModelParameters, ParameterNamedLikeAConstantShadowsIt) {
  const auto t = resolve({{"x", "3*e", 1}, {"e", "2", 2}, {"y", "pi", 3}});
  EXPECT_EQ(t.value("x"), 6.0);
  EXPECT_EQ(t.value("y"), std::numbers::pi);
}

TEST(ModelParameters, CycleIsNamed) {
  const std::string msg = resolve_error({{"x", "1", 2}, {"a", "b+1", 3}, {"b", "2*c", 4},
                                         {"c", "a", 5}});
  EXPECT_THAT(msg, AllOf(HasSubstr("m.yaml:3: parameters.a"),
                         HasSubstr("cycle in parameter definitions: a \u2192 b \u2192 c \u2192 a")));
  EXPECT_THAT(resolve_error({{"a", "a+1", 7}}), HasSubstr("m.yaml:7: parameters.a: cycle in "
                                                          "parameter definitions: a \u2192 a"));
}

TEST(ModelParameters, UnknownSymbolNamesItAndTheUser) {
  const std::string msg = resolve_error({{"den1", "1000", 2}, {"m1", "den1*Vol", 3}, {"vol", "1", 4}});
  EXPECT_THAT(msg, AllOf(HasSubstr("m.yaml:3: parameters.m1: unknown symbol 'Vol' in 'den1*Vol'"),
                         HasSubstr("did you mean 'vol'?"), HasSubstr("den1, m1, vol")));
}

TEST(ModelParameters, SyntaxErrorNamesTheParameter) {
  EXPECT_THAT(resolve_error({{"a", "1 +", 9}}),
              AllOf(HasSubstr("m.yaml:9: parameters.a: syntax error at character 4")));
}

TEST(ModelParameters, NonFiniteValueNamesTheParameter) {
  EXPECT_THAT(resolve_error({{"a", "0", 1}, {"b", "1/a", 2}}),
              HasSubstr("m.yaml:2: parameters.b: expected a finite value, got '1/a' = inf"));
  EXPECT_THAT(resolve_error({{"big", ".inf", 4}}),
              HasSubstr("m.yaml:4: parameters.big: expected a finite value, got '.inf'"));
}

TEST(ModelParameters, BadOrDuplicateNames) {
  EXPECT_THAT(resolve_error({{"a.b", "1", 2}}), HasSubstr("m.yaml:2: parameters.a.b: expected a "
                                                          "parameter name"));
  EXPECT_THAT(resolve_error({{"sin", "1", 3}}), HasSubstr("m.yaml:3: parameters.sin: 'sin' is the "
                                                          "name of a function"));
  EXPECT_THAT(resolve_error({{"a", "1", 3}, {"a", "2", 5}}),
              HasSubstr("m.yaml:5: parameters.a: parameter 'a' is defined twice (first at line 3)"));
}

const std::vector<ParameterDefinition> kDensity = {
    {"den1", "1000", 2}, {"V", "0.5", 3}, {"m1", "den1*V", 4}, {"w", "m1*10", 5}};

TEST(ModelParameters, OverrideReplacesTheExpressionAndDependantsFollow) {
  const auto t = resolve(kDensity, {{"den1", ParameterChange::Kind::kValue, "2*V*4000", "run.yaml"}});
  EXPECT_EQ(t.value("den1"), 4000.0);
  EXPECT_EQ(t.value("m1"), 2000.0);
  EXPECT_EQ(t.value("w"), 20000.0);
  const auto* den1 = t.find("den1");
  ASSERT_NE(den1, nullptr);
  EXPECT_EQ(den1->origin, ParameterOrigin::kOverride);
  EXPECT_EQ(den1->expression, "1000");  // as written in the model file
  EXPECT_EQ(den1->origin_detail, "override 2*V*4000 (run.yaml)");
  EXPECT_EQ(t.find("m1")->origin, ParameterOrigin::kDefault);
}

TEST(ModelParameters, ScaleAndIncrementActOnTheNamedParameterOnly) {
  const auto t = resolve(kDensity, {{"m1", ParameterChange::Kind::kScale, "1.5", "--set"},
                                    {"V", ParameterChange::Kind::kIncrement, "V", "run.yaml"}});
  EXPECT_EQ(t.value("m1"), 750.0);
  EXPECT_EQ(t.value("w"), 5000.0);  // dependants keep the unscaled m1
  EXPECT_EQ(t.value("V"), 1.0);
  EXPECT_EQ(t.find("m1")->origin, ParameterOrigin::kScale);
  EXPECT_EQ(t.find("m1")->origin_detail, "scale 1.5 (--set)");
  EXPECT_EQ(t.find("V")->origin, ParameterOrigin::kIncrement);
  EXPECT_EQ(t.find("V")->origin_detail, "increment V (run.yaml)");
}

TEST(ModelParameters, ChangesApplyInOrder) {
  // override then scale: the scale applies to the overridden value; the label is the last change.
  const auto t1 = resolve(kDensity, {{"den1", ParameterChange::Kind::kValue, "2", "run.yaml"},
                                     {"den1", ParameterChange::Kind::kScale, "1.5", "--set"}});
  EXPECT_EQ(t1.value("den1"), 3.0);
  EXPECT_EQ(t1.value("m1"), 1.0);  // follows the override, not the scale
  EXPECT_EQ(t1.find("den1")->origin, ParameterOrigin::kScale);
  EXPECT_EQ(t1.find("den1")->origin_detail, "override 2 (run.yaml); scale 1.5 (--set)");
  // scale then override: the later value replaces the scaled one.
  const auto t2 = resolve(kDensity, {{"den1", ParameterChange::Kind::kScale, "1.5", "run.yaml"},
                                     {"den1", ParameterChange::Kind::kValue, "2", "--set"}});
  EXPECT_EQ(t2.value("den1"), 2.0);
  EXPECT_EQ(t2.find("den1")->origin, ParameterOrigin::kOverride);
  EXPECT_EQ(t2.find("den1")->origin_detail, "scale 1.5 (run.yaml); override 2 (--set)");
  // Later changes see earlier adjustments.
  const auto t3 = resolve(kDensity, {{"V", ParameterChange::Kind::kScale, "2", "a"},
                                     {"den1", ParameterChange::Kind::kIncrement, "V", "b"}});
  EXPECT_EQ(t3.value("den1"), 1001.0);
}

TEST(ModelParameters, ChangeErrors) {
  EXPECT_THAT(resolve_error(kDensity, {{"mass", ParameterChange::Kind::kScale, "2", "run.yaml"}}),
              AllOf(HasSubstr("run.yaml: unknown parameter 'mass' of model file m.yaml"),
                    HasSubstr("valid parameters: den1, V, m1, w")));
  EXPECT_THAT(resolve_error(kDensity, {{"V", ParameterChange::Kind::kValue, "m1", "--set"}}),
              AllOf(HasSubstr("cycle in parameter definitions: V \u2192 m1 \u2192 V"),
                    HasSubstr("V = 'm1' from --set")));
  EXPECT_THAT(resolve_error(kDensity, {{"V", ParameterChange::Kind::kValue, "q", "--set"}}),
              AllOf(HasSubstr("--set: override of parameter 'V' (defined at m.yaml:3)"),
                    HasSubstr("unknown symbol 'q'")));
  EXPECT_THAT(resolve_error(kDensity, {{"V", ParameterChange::Kind::kScale, "z", "--set"}}),
              AllOf(HasSubstr("--set: scale of parameter 'V'"), HasSubstr("unknown symbol 'z'")));
  EXPECT_THAT(resolve_error(kDensity, {{"V", ParameterChange::Kind::kScale, "1/0", "--set"}}),
              HasSubstr("--set: scale of parameter 'V': expected a finite number, got '1/0' = inf"));
  EXPECT_THAT(resolve_error(kDensity, {{"den1", ParameterChange::Kind::kScale, "1e308", "x"}}),
              HasSubstr("x: scale of parameter 'den1': the result is not finite"));
}

TEST(ModelParameters, Table) {
  const auto t = resolve({{"a", "1", 1}, {"b", "a+1", 2}});
  EXPECT_TRUE(t.contains("a"));
  EXPECT_FALSE(t.contains("c"));
  EXPECT_EQ(t.find("c"), nullptr);
  EXPECT_EQ(t.symbols(), (Symbols{{"a", 1.0}, {"b", 2.0}}));
  EXPECT_THAT(error_of([&] { t.value("bb"); }),
              AllOf(HasSubstr("unknown parameter 'bb'"), HasSubstr("parameters: a, b")));
  gmbd::ParameterTable copy = t;
  EXPECT_THROW(copy.add({"a", "2", 2.0, ParameterOrigin::kDefault, "", 3}), InputError);
  EXPECT_STREQ(gmbd::to_string(ParameterOrigin::kDefault), "default");
  EXPECT_STREQ(gmbd::to_string(ParameterOrigin::kOverride), "override");
  EXPECT_STREQ(gmbd::to_string(ParameterOrigin::kScale), "scale");
  EXPECT_STREQ(gmbd::to_string(ParameterOrigin::kIncrement), "increment");
  EXPECT_TRUE(resolve({}).entries().empty());
}

// ============================================================================================
// Model files
// ============================================================================================
TEST(ModelFile, ParsesTheFormatExample) {
  const auto s = parse(kFourBar);
  EXPECT_EQ(s.source, "m.yaml");
  EXPECT_EQ(s.text, kFourBar);
  EXPECT_EQ(s.name, "four_bar");
  EXPECT_EQ(s.description, "a crank drives a slider");
  EXPECT_EQ(s.dimension, 2);
  ASSERT_EQ(s.parameter_definitions.size(), 4u);
  EXPECT_EQ(s.parameter_definitions[2].name, "J1");
  EXPECT_EQ(s.parameter_definitions[2].expression, "m1*a^2/12");
  EXPECT_EQ(s.parameter_definitions[2].line, 7);
  EXPECT_DOUBLE_EQ(s.parameters.value("J1"), 3 * 0.25 / 12);
  EXPECT_EQ(s.parameters.value("l"), 1.0);

  EXPECT_EQ(s.ground.section, "ground");
  EXPECT_EQ(s.ground.type, "accelerated");
  EXPECT_EQ(s.ground.line, 9);
  ASSERT_EQ(s.ground.fields.size(), 1u);
  EXPECT_EQ(s.ground.fields[0].first, "acceleration");
  EXPECT_EQ(s.ground.fields[0].second.items, (std::vector<std::string>{"0", "0", "-2*cos(3*t)"}));
  EXPECT_TRUE(s.ground.fields[0].second.is_list);

  ASSERT_EQ(s.bodies.size(), 2u);
  const gmbd::SpecEntry& crank = s.bodies[0];
  EXPECT_EQ(crank.section, "bodies");
  EXPECT_EQ(crank.name, "crank");
  EXPECT_EQ(crank.type, "planar");
  EXPECT_EQ(crank.line, 13);
  ASSERT_EQ(crank.fields.size(), 2u);  // `type` is not a field
  EXPECT_EQ(crank.fields[0].first, "mass");
  EXPECT_EQ(crank.fields[1].first, "inertia");
  EXPECT_EQ(crank.fields[1].second.items, std::vector<std::string>{"J1"});
  EXPECT_FALSE(crank.fields[1].second.is_list);
  EXPECT_EQ(crank.fields[1].second.line, 13);
  EXPECT_EQ(crank.fields[1].second.column, 34);

  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[0].type, "");
  const gmbd::SpecEntry& pin = s.points[1];
  EXPECT_EQ(pin.line, 17);
  ASSERT_EQ(pin.fields.size(), 2u);
  EXPECT_EQ(pin.fields[1].first, "at");
  EXPECT_EQ(pin.fields[1].second.items, (std::vector<std::string>{"l", "0"}));
  EXPECT_EQ(pin.fields[1].second.line, 19);
  EXPECT_EQ(pin.fields[1].second.column, 5);

  ASSERT_EQ(s.elements.size(), 1u);
  EXPECT_EQ(s.elements[0].type, "distance");
  ASSERT_EQ(s.initial_position.size(), 1u);
  EXPECT_EQ(s.initial_position[0].first, "crank.theta");
  EXPECT_EQ(s.initial_position[0].second.items, std::vector<std::string>{"pi/2"});
  EXPECT_EQ(s.initial_position[0].second.line, 25);
  ASSERT_EQ(s.initial_velocity.size(), 1u);
  EXPECT_EQ(s.initial_velocity[0].second.items, std::vector<std::string>{"0"});
  EXPECT_EQ(s.independent, std::vector<std::string>{"crank.theta"});
  EXPECT_EQ(s.independent_line, 28);
}

TEST(ModelFile, DefaultsAndChanges) {
  const auto s = gmbd::parse_model_file("parameters: {a: 2}\n", "dir/pendulum.yaml",
                                        {{"a", ParameterChange::Kind::kScale, "3", "--set"}});
  EXPECT_EQ(s.name, "pendulum");
  EXPECT_EQ(s.dimension, 3);
  EXPECT_EQ(s.ground.type, "fixed");
  EXPECT_EQ(s.ground.section, "ground");
  EXPECT_EQ(s.parameters.value("a"), 6.0);
  EXPECT_EQ(s.parameter_definitions[0].expression, "2");
  EXPECT_EQ(gmbd::parse_model_file("bodies: {}\n", "").name, "model");
  // An empty ground section is a fixed ground too.
  EXPECT_EQ(parse("ground:\n").ground.type, "fixed");
}

TEST(ModelFile, NestedListsAreFlattenedRowMajor) {
  const auto s = parse(
      "elements:\n"
      "  spring:\n"
      "    type: bushing\n"
      "    stiffness: [[1, 2, 3], [4, 5, 6]]\n"
      "    empty: []\n");
  const auto& f = s.elements[0].fields;
  ASSERT_EQ(f.size(), 2u);
  EXPECT_TRUE(f[0].second.is_list);
  EXPECT_EQ(f[0].second.items, (std::vector<std::string>{"1", "2", "3", "4", "5", "6"}));
  EXPECT_EQ(f[0].second.line, 4);
  EXPECT_TRUE(f[1].second.is_list);
  EXPECT_TRUE(f[1].second.items.empty());
}

TEST(ModelFile, EmptyOrMalformedFile) {
  EXPECT_THAT(parse_error(""), HasSubstr("m.yaml: empty model file"));
  EXPECT_THAT(parse_error("# nothing but a comment\n"), HasSubstr("m.yaml: empty model file"));
  EXPECT_THAT(parse_error("name: x\nbodies: {a: [1, 2}\n"),
              AllOf(HasSubstr("m.yaml:2: malformed YAML"), HasSubstr("column")));
  EXPECT_THAT(parse_error("- 1\n- 2\n"),
              AllOf(HasSubstr("m.yaml:1: top level: expected a mapping with sections"),
                    HasSubstr("got a list")));
}

TEST(ModelFile, UnknownOrDuplicateTopLevelKey) {
  EXPECT_THAT(parse_error("name: x\nbodys: {}\n"),
              AllOf(HasSubstr("m.yaml:2: bodys: unknown top-level section 'bodys'"),
                    HasSubstr("did you mean 'bodies'?"),
                    HasSubstr("expected one of: name, description, dimension, parameters")));
  EXPECT_THAT(parse_error("name: x\nbodies: {}\nname: y\n"),
              HasSubstr("m.yaml:3: name: duplicate key 'name' (first given at line 1)"));
}

TEST(ModelFile, NameDescriptionDimension) {
  EXPECT_THAT(parse_error("name: [a, b]\n"), HasSubstr("m.yaml:1: name: expected a model name, got a list"));
  EXPECT_THAT(parse_error("name: x\ndimension: 4\n"),
              HasSubstr("m.yaml:2: dimension: expected 2 (planar) or 3 (spatial), got '4'"));
  EXPECT_THAT(parse_error("dimension: {d: 2}\n"), HasSubstr("m.yaml:1: dimension: expected 2"));
  EXPECT_EQ(parse("dimension: 3\n").dimension, 3);
  EXPECT_THAT(parse_error("description: {a: 1}\n"), HasSubstr("m.yaml:1: description: expected a text"));
}

TEST(ModelFile, ParameterErrors) {
  EXPECT_THAT(parse_error("parameters:\n  a: 1\n  b: [1, 2]\n"),
              HasSubstr("m.yaml:3: parameters.b: expected a number or an expression, got a list"));
  EXPECT_THAT(parse_error("parameters:\n  a:\n"),
              HasSubstr("m.yaml:2: parameters.a: expected a number or an expression, got nothing"));
  EXPECT_THAT(parse_error("parameters:\n  2a: 1\n"), HasSubstr("m.yaml:2: parameters.2a: expected a parameter name"));
  EXPECT_THAT(parse_error("parameters:\n  a: 1\n  a: 2\n"),
              HasSubstr("m.yaml:3: parameters.a: duplicate key 'a' (first given at line 2)"));
  EXPECT_THAT(parse_error("parameters: [a, b]\n"), HasSubstr("m.yaml:1: parameters: expected a mapping"));
  EXPECT_THAT(parse_error("parameters:\n  a: 1\n  b: c*2\n  c: b\n"),
              AllOf(HasSubstr("m.yaml:3: parameters.b: cycle"), HasSubstr("b \u2192 c \u2192 b")));
  EXPECT_THAT(parse_error("parameters:\n  a: 1\n  m: 2*q\n"),
              HasSubstr("m.yaml:3: parameters.m: unknown symbol 'q' in '2*q'"));
  EXPECT_THAT(parse_error("parameters: {a: 1}\n", {{"b", ParameterChange::Kind::kValue, "2", "run.yaml"}}),
              AllOf(HasSubstr("run.yaml: unknown parameter 'b'"), HasSubstr("valid parameters: a")));
}

TEST(ModelFile, FieldStructureErrors) {
  EXPECT_THAT(parse_error("bodies:\n  crank:\n    type: planar\n    inertia: {xx: 1}\n"),
              HasSubstr("m.yaml:4: bodies.crank.inertia: expected a scalar or a list of scalars, "
                        "got a mapping"));
  EXPECT_THAT(parse_error("points:\n  p: {body: b, at: [1, {x: 2}]}\n"),
              HasSubstr("m.yaml:2: points.p.at[1]: expected a scalar or a list of scalars, got a mapping"));
  EXPECT_THAT(parse_error("points:\n  p:\n    body:\n"),
              HasSubstr("m.yaml:3: points.p.body: expected a scalar or a list of scalars, got nothing"));
  EXPECT_THAT(parse_error("bodies:\n  crank: 3\n"),
              HasSubstr("m.yaml:2: bodies.crank: expected a mapping of fields, got '3'"));
  EXPECT_THAT(parse_error("bodies:\n  crank: {type: planar, mass: 1, mass: 2}\n"),
              HasSubstr("m.yaml:2: bodies.crank.mass: duplicate key 'mass'"));
  EXPECT_THAT(parse_error("bodies: [a]\n"), HasSubstr("m.yaml:1: bodies: expected a mapping of names"));
  EXPECT_THAT(parse_error("ground: fixed\n"), HasSubstr("m.yaml:1: ground: expected a mapping of fields"));
}

TEST(ModelFile, TypeIsRequiredForBodiesAndElements) {
  EXPECT_THAT(parse_error("bodies:\n  a: {type: planar}\n  crank: {mass: 1}\n"),
              HasSubstr("m.yaml:3: bodies.crank: missing required field 'type'"));
  EXPECT_THAT(parse_error("elements:\n\n  rod:\n    a: p\n"),
              HasSubstr("m.yaml:3: elements.rod: missing required field 'type'"));
  EXPECT_THAT(parse_error("bodies:\n  crank:\n"), HasSubstr("m.yaml:2: bodies.crank: missing required field 'type'"));
  EXPECT_THAT(parse_error("bodies:\n  crank: {type: [a, b]}\n"),
              HasSubstr("m.yaml:2: bodies.crank.type: expected a type name, got a list"));
  EXPECT_THAT(parse_error("elements:\n  rod: {type: }\n"),
              HasSubstr("m.yaml:2: elements.rod.type: expected a type name, got nothing"));
}

TEST(ModelFile, EntryNames) {
  EXPECT_THAT(parse_error("bodies:\n  my-body: {type: planar}\n"),
              HasSubstr("m.yaml:2: bodies.my-body: expected a name ([A-Za-z_][A-Za-z0-9_]*), got 'my-body'"));
  EXPECT_THAT(parse_error("points:\n  a.b: {body: x}\n"), HasSubstr("m.yaml:2: points.a.b: expected a name"));
  EXPECT_THAT(parse_error("bodies:\n  ground: {type: planar}\n"),
              HasSubstr("m.yaml:2: bodies.ground: 'ground' is reserved"));
  EXPECT_THAT(parse_error("points:\n  ground: {body: b}\n"),
              HasSubstr("m.yaml:2: points.ground: 'ground' is reserved"));
}

TEST(ModelFile, DuplicateNamesWithinAndAcrossSections) {
  EXPECT_THAT(parse_error("bodies:\n  a: {type: planar}\n  b: {type: planar}\n  a: {type: rigid}\n"),
              HasSubstr("m.yaml:4: bodies.a: duplicate key 'a' (first given at line 2)"));
  EXPECT_THAT(parse_error("bodies:\n  crank: {type: planar}\npoints:\n  p: {body: crank}\n"
                          "  crank: {body: crank}\n"),
              HasSubstr("m.yaml:5: points.crank: duplicate name 'crank' (already used by "
                        "bodies.crank at line 2)"));
  EXPECT_THAT(parse_error("elements:\n  e: {type: spring}\nbodies:\n  e: {type: planar}\n"),
              HasSubstr("m.yaml:4: bodies.e: duplicate name 'e' (already used by elements.e at line 2)"));
}

TEST(ModelFile, InitialAndIndependent) {
  EXPECT_THAT(parse_error("initial:\n  crank.theta: [1, 2]\n"),
              HasSubstr("m.yaml:2: initial.crank.theta: expected a number or an expression, got a list"));
  EXPECT_THAT(parse_error("initial_velocity:\n  x: 1\n  x: 2\n"),
              HasSubstr("m.yaml:3: initial_velocity.x: duplicate key 'x' (first given at line 2)"));
  EXPECT_THAT(parse_error("initial:\n  crank theta: 1\n"),
              HasSubstr("m.yaml:2: initial.crank theta: expected a coordinate name"));
  EXPECT_THAT(parse_error("independent: crank.theta\n"),
              HasSubstr("m.yaml:1: independent: expected a list of coordinate names, got 'crank.theta'"));
  EXPECT_THAT(parse_error("independent:\n  - a.x\n  - [b]\n"),
              HasSubstr("m.yaml:3: independent[1]: expected a coordinate name, got a list"));
  EXPECT_THAT(parse_error("independent: [a.x, a.x]\n"),
              HasSubstr("m.yaml:1: independent[1]: coordinate 'a.x' is listed twice"));
  EXPECT_TRUE(parse("independent:\n").independent.empty());
}

TEST(ModelFile, LoadFromDisk) {
  const gmbd::test::TempDir dir("gmbd_model_file_");
  const std::string path = dir.write("slider.yaml", kFourBar);
  const auto s = gmbd::load_model_file(path);
  EXPECT_EQ(s.source, path);
  EXPECT_EQ(s.text, kFourBar);
  EXPECT_EQ(s.bodies.size(), 2u);
  const auto changed =
      gmbd::load_model_file(path, {{"m1", ParameterChange::Kind::kValue, "4", "run.yaml"}});
  EXPECT_DOUBLE_EQ(changed.parameters.value("J1"), 4 * 0.25 / 12);

  const std::string missing = dir.file("nope.yaml");
  EXPECT_THAT(error_of([&] { gmbd::load_model_file(missing); }),
              AllOf(HasSubstr("model file '" + missing + "'"), HasSubstr("not found")));
  EXPECT_THAT(error_of([&] { gmbd::load_model_file(dir.path().string()); }),
              HasSubstr("is a directory"));
  const std::string bad = dir.write("bad.yaml", "name: x\nbodies:\n  a: {type: planar, mass: {}}\n");
  EXPECT_THAT(error_of([&] { gmbd::load_model_file(bad); }),
              HasSubstr(bad + ":3: bodies.a.mass: expected a scalar or a list of scalars"));
}

// ============================================================================================
// SpecReader
// ============================================================================================
const char* const kReaderModel = R"(parameters:
  a: 0.5
  m: 2
ground:
  acceleration: [0, 0, -9.81]
bodies:
  crank:
    type: planar
    mass: m*3
    list3: [a, 2*a, 3]
    inertia:
      [[1, 0], [0, 1]]
    big: 1/0
    inf: .inf
    ghost: q*2
    body: crank
    empty_list: []
    bad_item: [1, zz, 3]
)";

class SpecReaderTest : public ::testing::Test {
 protected:
  gmbd::ModelFileSpec spec = gmbd::parse_model_file(kReaderModel, "m.yaml");
  gmbd::SpecReader reader{spec, spec.bodies.at(0)};
  std::string error(void (*f)(const gmbd::SpecReader&)) {
    return error_of([&] { f(reader); });
  }
};

TEST_F(SpecReaderTest, Numbers) {
  EXPECT_TRUE(reader.has("mass"));
  EXPECT_FALSE(reader.has("type"));
  EXPECT_EQ(reader.number("mass"), 6.0);
  EXPECT_EQ(reader.number_or("mass", 1.0), 6.0);
  EXPECT_EQ(reader.number_or("damping", 0.25), 0.25);
  EXPECT_EQ(reader.numbers("list3", 3), (std::vector<double>{0.5, 1.0, 3.0}));
  EXPECT_EQ(reader.numbers("list3", -1).size(), 3u);
  EXPECT_EQ(reader.numbers("inertia", 4), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(reader.numbers("mass", 1), std::vector<double>{6.0});
  EXPECT_EQ(reader.numbers("mass", -1), std::vector<double>{6.0});
  EXPECT_EQ(reader.entry().name, "crank");
}

TEST_F(SpecReaderTest, NumberErrors) {
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.number("list3"); }),
              HasSubstr("m.yaml:10: bodies.crank.list3: expected a number, got a list of 3"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.number("damping"); }),
              HasSubstr("m.yaml:7: bodies.crank.damping: expected a number, got nothing"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.number("big"); }),
              HasSubstr("m.yaml:13: bodies.crank.big: expected a finite number, got '1/0' = inf"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.number("inf"); }),
              HasSubstr("m.yaml:14: bodies.crank.inf: expected a finite number, got '.inf'"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.number("ghost"); }),
              AllOf(HasSubstr("m.yaml:15: bodies.crank.ghost: unknown symbol 'q' in 'q*2'"),
                    HasSubstr("known: a, m, pi, e")));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.number("body"); }),
              HasSubstr("m.yaml:16: bodies.crank.body: unknown symbol 'crank'"));
}

TEST_F(SpecReaderTest, ListErrors) {
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.numbers("list3", 2); }),
              HasSubstr("m.yaml:10: bodies.crank.list3: expected a list of 2 numbers, got a list of 3"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.numbers("mass", 3); }),
              HasSubstr("m.yaml:9: bodies.crank.mass: expected a list of 3 numbers, got a single value 'm*3'"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.numbers("empty_list", -1); }),
              HasSubstr("m.yaml:17: bodies.crank.empty_list: expected a list of numbers, got a list of 0"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.numbers("bad_item", 3); }),
              HasSubstr("m.yaml:18: bodies.crank.bad_item[1]: unknown symbol 'zz'"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.numbers("nothing", 3); }),
              HasSubstr("m.yaml:7: bodies.crank.nothing: expected a list of 3 numbers, got nothing"));
}

TEST_F(SpecReaderTest, NamesAndText) {
  EXPECT_EQ(reader.name("body"), "crank");
  EXPECT_EQ(reader.name_or("other", "ground"), "ground");
  EXPECT_EQ(reader.name_or("body", "ground"), "crank");
  EXPECT_EQ(reader.text("mass"), "m*3");
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.name("list3"); }),
              HasSubstr("m.yaml:10: bodies.crank.list3: expected a name, got a list of 3"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.name("other"); }),
              HasSubstr("m.yaml:7: bodies.crank.other: expected a name, got nothing"));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.text("inertia"); }),
              HasSubstr("m.yaml:11: bodies.crank.inertia: expected a single value, got a list of 4"));
}

TEST_F(SpecReaderTest, AllowOnlyWhereAndFail) {
  EXPECT_NO_THROW(reader.allow_only({"mass", "list3", "inertia", "big", "inf", "ghost", "body",
                                     "empty_list", "bad_item"}));
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.allow_only({"mass", "lists", "inertia"}); }),
              AllOf(HasSubstr("m.yaml:10: bodies.crank.list3: unknown field 'list3' for type 'planar'"),
                    HasSubstr("did you mean 'lists'?"),
                    HasSubstr("allowed fields: mass, lists, inertia")));
  EXPECT_EQ(reader.where("inertia"), "m.yaml:11: bodies.crank.inertia");
  EXPECT_EQ(reader.where("absent"), "m.yaml:7: bodies.crank.absent");
  EXPECT_THAT(error([](const gmbd::SpecReader& r) { r.fail("mass", "a positive mass", "-1"); }),
              HasSubstr("m.yaml:9: bodies.crank.mass: expected a positive mass, got -1"));

  const gmbd::SpecReader ground(spec, spec.ground);
  EXPECT_EQ(ground.where("acceleration"), "m.yaml:5: ground.acceleration");
  EXPECT_EQ(ground.numbers("acceleration", 3), (std::vector<double>{0, 0, -9.81}));
  const auto fixed = gmbd::parse_model_file("bodies: {}\n", "f.yaml");
  EXPECT_EQ(gmbd::SpecReader(fixed, fixed.ground).where("acceleration"), "f.yaml: ground.acceleration");
}

}  // namespace
