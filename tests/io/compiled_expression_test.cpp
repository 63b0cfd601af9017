// Tests of CompiledExpression (io/model_file.hpp) and ExpressionSignal (io/expression_signal.hpp):
// agreement with evaluate_expression bit for bit, constant folding and detection, errors with
// their place, the variable shadowing a parameter, the stack-depth limit, and the signal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include "core/errors.hpp"
#include "core/signal.hpp"
#include "io/expression_signal.hpp"
#include "io/model_file.hpp"

using gmbd::CompiledExpression;
using gmbd::InputError;
using ::testing::AllOf;
using ::testing::HasSubstr;

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

/// evaluate_expression with the variable added to the symbols as a constant.
double reference(const std::string& text, Symbols symbols, double t,
                 const std::string& variable = "t") {
  symbols[variable] = t;
  return gmbd::evaluate_expression(text, symbols, "ref");
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

const Symbols kParameters = {{"eta0", 0.012},  {"omega", 7.5}, {"F0", 120.0},
                             {"f", 2.25},      {"a", -1.5},    {"b", 0.3},
                             {"crank.theta", 0.7}, {"m", 3.0}};

const std::vector<double> kTimes = {0.0,  -0.0,  1e-9,  0.1,   0.5,    1.0,  -1.0,      2.5,
                                    -3.75, 10.0, 1e6,   100.123, 1e-300, 0.3, std::numbers::pi,
                                    -1e6};

}  // namespace

// ============================================================================================
// Agreement with evaluate_expression
// ============================================================================================
TEST(CompiledExpression, AgreesBitwiseWithEvaluateExpression) {
  const std::vector<std::string> expressions = {
      "-eta0*omega^2*cos(omega*t)",
      "F0*sin(2*pi*f*t)",
      "t", "-t", "+t", "--t", "- -t", "t^2", "t**3", "2^t", "t^-1", "-t^2", "2^t^2",
      "abs(t)^0.5^2", "1/t", "t/3/7", "10-t-3", "(1+t)*(2-t)", "sqrt(abs(t))",
      "sqrt(t)",  // NaN for t < 0: the same NaN
      "exp(-t)*sin(t)", "log(1+t*t)", "log10(hypot(t, 3))", "log(t)", "1/(t-t)",
      "atan2(t, -1)", "atan2(1, t)", "atan2(t, t)", "hypot(t, t)", "hypot(a, t)",
      "min(t, 0.5)", "max(t, -t, 0.25)", "min(1, 2, t)", "max(min(t, 1), -1)",
      "min(t, a, b, 2*t, -t)", "max(t, 0)^0 + max(1, 2)*t",
      "tan(t)", "asin(t/1e7)", "acos(t/1e7)", "atan(t)", "a*t + b", "e^t", "pi*t",
      "0.1*t + 0.2*t + 0.3", "2*3*t", "t*2*3", "1e-3*t", "crank.theta*t + m*t",
      "m*(1 + 2*b)*t^2/2 - a*t", "sin(t)^2 + cos(t)^2", "((((t))))", "  t * 2  ",
      "eta0 * omega ** 2 * cos( omega * t + pi/3 )", "2*t^3 - 3*t^2 + 1",
      "exp(t/1e6)", "1 + 2 + 3 + t", "t + 1 + 2 + 3", "(1 + 2 + 3) * (t + 1) / (2 + 2)"};
  int compared = 0;
  for (const auto& text : expressions) {
    const CompiledExpression compiled(text, kParameters, "test");
    EXPECT_FALSE(compiled.is_constant()) << text;
    EXPECT_LE(compiled.stack_depth(), CompiledExpression::kMaxStackDepth);
    for (const double t : kTimes) {
      const double expected = reference(text, kParameters, t);
      const double got = compiled.value(t);
      EXPECT_EQ(bits(got), bits(expected))
          << text << " at t = " << t << ": compiled " << got << ", evaluated " << expected;
      ++compared;
    }
  }
  EXPECT_GT(compared, 800);
}

TEST(CompiledExpression, FoldsConstantSubexpressionsExactly) {
  // Folded parts use the same operations in the same order as evaluate_expression.
  const CompiledExpression c("2*pi*f*t + F0/m^2", kParameters, "test");
  const double t = 0.37;
  EXPECT_EQ(c.value(t), 2 * std::numbers::pi * 2.25 * t + 120.0 / std::pow(3.0, 2.0));
  // (t*2)*3 is not refolded as t*6 (that could differ in the last bit).
  const CompiledExpression left("t*2*3", {}, "test");
  EXPECT_EQ(left.value(0.1), (0.1 * 2) * 3);
  // Folding shrinks the stack: a deeply nested constant part needs one entry.
  std::string nested = "1";
  for (int k = 0; k < 200; ++k) nested = "(1 + " + nested + ")";
  const CompiledExpression deep(nested + " * t", {}, "test");
  EXPECT_EQ(deep.stack_depth(), 2u);
  EXPECT_EQ(deep.value(0.5), 201 * 0.5);
}

TEST(CompiledExpression, OtherVariableName) {
  const CompiledExpression c("a*sin(x) + hypot(x, b)", kParameters, "test", "x");
  EXPECT_EQ(c.variable(), "x");
  for (const double x : kTimes) {
    EXPECT_EQ(bits(c.value(x)), bits(reference(c.text(), kParameters, x, "x"))) << x;
  }
  // With variable x, t is an ordinary (unknown) symbol.
  EXPECT_THAT(error_of([] { CompiledExpression("t*x", {}, "w", "x"); }),
              HasSubstr("unknown symbol 't'"));
}

TEST(CompiledExpression, MinMaxAtan2HypotWithTheVariable) {
  const CompiledExpression clamp("max(-1, min(t, 1))", {}, "test");
  EXPECT_EQ(clamp.value(-5), -1.0);
  EXPECT_EQ(clamp.value(0.25), 0.25);
  EXPECT_EQ(clamp.value(7), 1.0);
  const CompiledExpression many("min(3, t, 2*t, 5)", {}, "test");
  EXPECT_EQ(many.value(1), 1.0);
  EXPECT_EQ(many.value(-1), -2.0);
  EXPECT_EQ(many.value(10), 3.0);
  const CompiledExpression biggest("max(t, 2, -t)", {}, "test");
  EXPECT_EQ(biggest.value(-4), 4.0);
  EXPECT_EQ(biggest.value(0), 2.0);
  const CompiledExpression angle("atan2(t, -1)", {}, "test");
  EXPECT_DOUBLE_EQ(angle.value(1), 3 * std::numbers::pi / 4);
  EXPECT_DOUBLE_EQ(angle.value(-1), -3 * std::numbers::pi / 4);
  const CompiledExpression angle2("atan2(1, t)", {}, "test");
  EXPECT_DOUBLE_EQ(angle2.value(0), std::numbers::pi / 2);
  const CompiledExpression length("hypot(3, t)", {}, "test");
  EXPECT_EQ(length.value(4), 5.0);
  EXPECT_EQ(length.value(-4), 5.0);
}

// ============================================================================================
// Constants, shadowing
// ============================================================================================
TEST(CompiledExpression, ConstantDetection) {
  for (const std::string text : {"2*pi*f", "F0", "1", "-eta0*omega^2", "max(a, b, 1)", "e"}) {
    const CompiledExpression c(text, kParameters, "test");
    EXPECT_TRUE(c.is_constant()) << text;
    EXPECT_EQ(c.stack_depth(), 1u) << text;
    const double expected = gmbd::evaluate_expression(text, kParameters, "test");
    EXPECT_EQ(bits(c.value(0.0)), bits(expected)) << text;
    EXPECT_EQ(bits(c.value(123.0)), bits(expected)) << text;
  }
  // Any use of the variable makes it non-constant, even when it cancels.
  for (const std::string text : {"t", "0*t", "t - t", "F0 + min(t, -1e308*1e308)"}) {
    EXPECT_FALSE(CompiledExpression(text, kParameters, "test").is_constant()) << text;
  }
  // The variable is named by the constructor: with variable "tau", t is a parameter.
  const CompiledExpression c("sin(t)", {{"t", 0.5}}, "test", "tau");
  EXPECT_TRUE(c.is_constant());
  EXPECT_EQ(c.value(9.0), std::sin(0.5));
  EXPECT_EQ(c.text(), "sin(t)");
}

// Choice: the variable shadows a parameter of the same name (as a parameter shadows pi or e):
// in a time expression `t` is time, even when a model defines a parameter t. The alternative —
// the parameter winning — would silently turn a time signal into a constant.
TEST(CompiledExpression, VariableShadowsAParameterOfTheSameName) {
  const Symbols symbols = {{"t", 100.0}, {"a", 2.0}};
  const CompiledExpression c("a*t + 1", symbols, "test");
  EXPECT_FALSE(c.is_constant());
  EXPECT_EQ(c.value(3.0), 7.0);
  EXPECT_EQ(c.value(0.0), 1.0);
  // A variable named like a constant shadows it too.
  const CompiledExpression e("2*e", {}, "test", "e");
  EXPECT_EQ(e.value(5.0), 10.0);
}

// ============================================================================================
// Errors
// ============================================================================================
TEST(CompiledExpression, UnknownSymbolNamesThePlaceAndTheVariable) {
  const std::string where = "m.yaml:12: elements.shaker.force";
  const std::string msg =
      error_of([&] { CompiledExpression("F0*sin(2*pi*fq*t)", {{"F0", 1}, {"f", 2}}, where); });
  EXPECT_THAT(msg, AllOf(HasSubstr(where + ": unknown symbol 'fq' in 'F0*sin(2*pi*fq*t)'"),
                         HasSubstr("(known: F0, f, t, pi, e)")));
  // The same message as evaluate_expression gives when t is a symbol.
  const std::string evaluated = error_of([&] {
    gmbd::evaluate_expression("F0*sin(2*pi*fq*t)", {{"F0", 1}, {"f", 2}, {"t", 0}}, where);
  });
  EXPECT_EQ(msg, evaluated);
  // Many symbols: the closest name is suggested, the variable included.
  Symbols many;
  for (const char* n : {"alpha", "beta", "gamma", "delta", "omega", "theta", "kappa", "sigma",
                        "lambda"}) {
    many[n] = 1.0;
  }
  EXPECT_THAT(error_of([&] { CompiledExpression("omegaa*t", many, "w"); }),
              HasSubstr("did you mean 'omega'?"));
  EXPECT_THAT(error_of([&] { CompiledExpression("sin(tt)", many, "w", "tt2"); }),
              AllOf(HasSubstr("unknown symbol 'tt'"), HasSubstr("did you mean 'tt2'?")));
}

TEST(CompiledExpression, ErrorsAreThoseOfEvaluateExpression) {
  const std::string where = "m.yaml:3: ground.acceleration[1]";
  for (const std::string text : {"1 +", "2*(t", "t t", "t $ 3", "", "sin t", "max(1, t",
                                 "foo(t)", "1 + atan2(t)", "sqrt(t, 2)", "hypot()", "max(t)",
                                 "t +* 2", "cos(omega*t) + g0(t)"}) {
    const std::string compiled = error_of([&] { CompiledExpression(text, kParameters, where); });
    Symbols with_t = kParameters;
    with_t["t"] = 0.0;
    const std::string evaluated =
        error_of([&] { gmbd::evaluate_expression(text, with_t, where); });
    EXPECT_EQ(compiled, evaluated) << text;
    EXPECT_EQ(compiled.rfind(where + ": ", 0), 0u) << compiled;
  }
  EXPECT_THAT(error_of([&] { CompiledExpression("2*(t", {}, where); }),
              AllOf(HasSubstr(where + ": syntax error at character 5 of '2*(t'"),
                    HasSubstr("expected ')'")));
  // No prefix when no place is given.
  EXPECT_EQ(error_of([] { CompiledExpression("q*t", {}, ""); }).rfind("unknown symbol 'q'", 0),
            0u);
}

TEST(CompiledExpression, StackDepthLimit) {
  const size_t limit = CompiledExpression::kMaxStackDepth;
  // t + (t + (t + …)) with n terms needs n stack entries.
  const auto nested = [](size_t n) {
    std::string s = "t";
    for (size_t k = 1; k < n; ++k) s = "t + (" + s + ")";
    return s;
  };
  const CompiledExpression at_limit(nested(limit), {}, "test");
  EXPECT_EQ(at_limit.stack_depth(), limit);
  EXPECT_EQ(at_limit.value(0.5), 0.5 * static_cast<double>(limit));
  EXPECT_EQ(bits(at_limit.value(0.1)), bits(reference(nested(limit), {}, 0.1)));
  EXPECT_THAT(error_of([&] { CompiledExpression(nested(limit + 1), {}, "m.yaml:4: f"); }),
              AllOf(HasSubstr("m.yaml:4: f: expression 't + (t + ("), HasSubstr("too deeply nested"),
                    HasSubstr("needs 65 intermediate values, at most 64")));
  // A long flat sum needs two entries whatever its length.
  std::string flat = "t";
  for (int k = 0; k < 500; ++k) flat += " + t";
  EXPECT_EQ(CompiledExpression(flat, {}, "test").stack_depth(), 2u);
  // Many arguments of min count too.
  std::string args = "min(t";
  for (size_t k = 0; k < limit; ++k) args += ", t";
  EXPECT_THAT(error_of([&] { CompiledExpression(args + ")", {}, "w"); }),
              HasSubstr("too deeply nested"));
  // evaluate_expression has no such limit (everything folds).
  EXPECT_EQ(gmbd::evaluate_expression(nested(200), {{"t", 1.0}}, "w"), 200.0);
}

TEST(CompiledExpression, ConcurrentEvaluation) {
  const CompiledExpression c("F0*sin(2*pi*f*t) - eta0*omega^2*cos(omega*t)", kParameters, "test");
  constexpr int kPoints = 5000;
  std::vector<double> serial(kPoints);
  for (int k = 0; k < kPoints; ++k) serial[k] = c.value(1e-3 * k);
  std::vector<std::vector<double>> results(4, std::vector<double>(kPoints));
  std::vector<std::thread> threads;
  for (auto& r : results) {
    threads.emplace_back([&c, &r] {
      for (int k = 0; k < kPoints; ++k) r[k] = c.value(1e-3 * k);
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& r : results) EXPECT_EQ(r, serial);
}

// ============================================================================================
// ExpressionSignal
// ============================================================================================
TEST(ExpressionSignal, EvaluatesTheExpressionOfTime) {
  const Symbols symbols = {{"eta0", 0.01}, {"omega", 5.0}};
  const std::string text = "-eta0*omega^2*cos(omega*t)";
  const std::shared_ptr<const gmbd::Signal> signal =
      std::make_shared<gmbd::ExpressionSignal>(text, symbols, "m.yaml:7: ground.acceleration");
  for (const double t : kTimes) {
    EXPECT_EQ(bits(signal->value(t)), bits(reference(text, symbols, t))) << t;
  }
  EXPECT_DOUBLE_EQ(signal->value(0.3), -0.01 * 25.0 * std::cos(5.0 * 0.3));
  EXPECT_EQ(signal->description(), "expression: -eta0*omega^2*cos(omega*t)");
  EXPECT_EQ(signal->sample_interval(), 0.0);

  gmbd::ModelInputs inputs;
  inputs.signals.emplace_back("floor_x", signal);
  ASSERT_NE(inputs.find("floor_x"), nullptr);
  EXPECT_EQ(inputs.find("floor_x")->value(0.0), -0.25);

  // From an already compiled expression (any variable name).
  const gmbd::ExpressionSignal constant(CompiledExpression("2*eta0", symbols, "w"));
  EXPECT_EQ(constant.value(42.0), 0.02);
  EXPECT_TRUE(constant.expression().is_constant());
  EXPECT_EQ(constant.description(), "expression: 2*eta0");
}

TEST(ExpressionSignal, ErrorsNameThePlace) {
  EXPECT_THAT(error_of([] { gmbd::ExpressionSignal("A*sin(w*t)", {{"A", 1}}, "m.yaml:9: f"); }),
              AllOf(HasSubstr("m.yaml:9: f: unknown symbol 'w' in 'A*sin(w*t)'"),
                    HasSubstr("known: A, t, pi, e")));
  EXPECT_THAT(error_of([] { gmbd::ExpressionSignal("sin(t", {}, "m.yaml:9: f"); }),
              HasSubstr("m.yaml:9: f: syntax error at character 6"));
}

namespace gmbd {
namespace {

// Several variables and the forward-mode derivative of every operation and function against
// central differences (h = 1e-6, tolerance 1e-7: the truncation h² f''' and round-off ε/h).
TEST(CompiledExpression, DerivativesOfSeveralVariablesMatchCentralDifferences) {
  const std::map<std::string, double, std::less<>> symbols{{"k", 1.7}};
  const std::vector<std::string> texts{
      "x*y - x/y + k*x^2 - -y", "sqrt(x) + sin(y) * cos(x) + tan(0.3*y)", "asin(0.4*x) + acos(0.3*y) + atan(x*y)",
      "atan2(y, x) + hypot(x, y) + exp(-x) * log(y) + log10(x)", "abs(x - y) + min(x, y, 2) + max(x, 2*y)",
      "x^y + 2^x + y^3"};
  for (const auto& text : texts) {
    const CompiledExpression e(text, symbols, "test", std::vector<std::string>{"x", "y"});
    for (const auto& [x, y] : {std::pair{0.7, 1.3}, std::pair{1.9, 0.6}}) {
      const double at[] = {x, y};
      for (int k = 0; k < 2; ++k) {
        const double h = 1e-6;
        double plus[] = {x, y}, minus[] = {x, y};
        plus[k] += h;
        minus[k] -= h;
        const double fd = (e.value_at(plus) - e.value_at(minus)) / (2 * h);
        EXPECT_NEAR(e.derivative(at, k), fd, 1e-7 * (1.0 + std::abs(fd))) << text << " d/d" << "xy"[k];
      }
    }
  }
  const CompiledExpression c("2*k", symbols, "test", std::vector<std::string>{"x"});
  EXPECT_TRUE(c.is_constant());
  const double x0 = 1.0;
  EXPECT_EQ(c.derivative(&x0, 0), 0.0);
  try {
    CompiledExpression bad("x + z", symbols, "here", std::vector<std::string>{"x", "y"});
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("unknown symbol 'z'"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace gmbd
