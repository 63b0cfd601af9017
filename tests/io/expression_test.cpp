// Tests of the arithmetic-expression evaluator used by run files (simulation/run_config.hpp):
// operators, precedence, constants, functions, and error positions.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/errors.hpp"
#include "simulation/run_config.hpp"

namespace gmbd {
namespace {

TEST(Expression, NumbersInEveryYamlSpelling) {
  EXPECT_EQ(evaluate_expression("1"), 1.0);
  EXPECT_EQ(evaluate_expression("2.5"), 2.5);
  EXPECT_EQ(evaluate_expression(".5"), 0.5);
  EXPECT_EQ(evaluate_expression("5."), 5.0);
  EXPECT_EQ(evaluate_expression("1e-9"), 1e-9);
  EXPECT_EQ(evaluate_expression("1E+08"), 1e8);
  EXPECT_EQ(evaluate_expression("-3"), -3.0);
  EXPECT_EQ(evaluate_expression("+3"), 3.0);
  EXPECT_EQ(evaluate_expression("  7  "), 7.0);
  // Round trip of the shortest representation of a double.
  EXPECT_EQ(evaluate_expression("0.1"), 0.1);
  EXPECT_EQ(evaluate_expression("1.7976931348623157e308"), 1.7976931348623157e308);
}

TEST(Expression, PrecedenceAndAssociativity) {
  EXPECT_EQ(evaluate_expression("2*0.5"), 1.0);
  EXPECT_EQ(evaluate_expression("1+2*3"), 7.0);
  EXPECT_EQ(evaluate_expression("(1+2)*3"), 9.0);
  EXPECT_EQ(evaluate_expression("8/4/2"), 1.0);      // left-associative
  EXPECT_EQ(evaluate_expression("10-4-3"), 3.0);     // left-associative
  EXPECT_EQ(evaluate_expression("2^3^2"), 512.0);    // right-associative
  EXPECT_EQ(evaluate_expression("2**3"), 8.0);
  EXPECT_EQ(evaluate_expression("-2^2"), -4.0);      // unary minus binds looser than ^
  EXPECT_EQ(evaluate_expression("2^-1"), 0.5);
  EXPECT_EQ(evaluate_expression("--2"), 2.0);
  EXPECT_EQ(evaluate_expression("2*-3"), -6.0);
}

TEST(Expression, ConstantsAndFunctions) {
  EXPECT_DOUBLE_EQ(evaluate_expression("pi/2"), std::numbers::pi / 2);
  EXPECT_DOUBLE_EQ(evaluate_expression("e"), std::numbers::e);
  EXPECT_DOUBLE_EQ(evaluate_expression("2*e"), 2 * std::numbers::e);
  EXPECT_EQ(evaluate_expression("sqrt(4)"), 2.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("sin(pi/6)"), 0.5);
  EXPECT_DOUBLE_EQ(evaluate_expression("cos(0)"), 1.0);
  EXPECT_NEAR(evaluate_expression("sqrt(2)/2 - sin(pi/4)"), 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(evaluate_expression("exp(log(3))"), 3.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("abs(-2) + log10(100)"), 4.0);
  EXPECT_DOUBLE_EQ(evaluate_expression("atan(1)*4"), std::numbers::pi);
}

TEST(Expression, NonFiniteResultsAreReturnedForTheCallerToReject) {
  EXPECT_TRUE(std::isinf(evaluate_expression("1/0")));
  EXPECT_TRUE(std::isnan(evaluate_expression("sqrt(-1)")));
  EXPECT_TRUE(std::isinf(evaluate_expression("1e999")));
  EXPECT_EQ(evaluate_expression("1e-999"), 0.0);
}

void expect_error(const std::string& text, const std::vector<std::string>& parts) {
  try {
    evaluate_expression(text);
    ADD_FAILURE() << "no error for '" << text << "'";
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << what << "\n  lacks: " << p;
  }
}

TEST(Expression, ErrorsNamePositionAndProblem) {
  expect_error("", {"character 1", "got the end of the expression"});
  expect_error("2*", {"got the end of the expression", "character 3", "'2*'"});
  expect_error("(1+2", {"expected ')'", "character 5"});
  expect_error("1+2)", {"got ')'", "character 4"});
  expect_error("fast", {"unknown symbol 'fast'", "pi, e"});
  expect_error("2x", {"got 'x'", "character 2"});
  expect_error("sqrt 4", {"expected '(' after function 'sqrt'"});
  expect_error("inf", {"write .inf"});
  expect_error("1,5", {"got ','", "character 2"});
  expect_error("0x10", {"got 'x'"});
}

}  // namespace
}  // namespace gmbd
