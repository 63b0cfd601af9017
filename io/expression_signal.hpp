// A time signal given by an expression of t from a model file, e.g. a support acceleration
// `-eta0*omega^2*cos(omega*t)` or a force `F0*sin(2*pi*f*t)`, compiled once against the
// model's parameters and evaluated without allocation at every integrator stage.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "core/signal.hpp"
#include "io/model_file.hpp"

namespace gmbd {

/// u(t) = the expression's value at t. Immutable, thread-safe, value() does not allocate.
class ExpressionSignal final : public Signal {
 public:
  explicit ExpressionSignal(CompiledExpression expression) : expression_(std::move(expression)) {}
  /// Compiles `text` with variable `t`; throws InputError (prefixed by `where`) as
  /// CompiledExpression does.
  ExpressionSignal(std::string_view text, const std::map<std::string, double, std::less<>>& symbols,
                   const std::string& where)
      : expression_(text, symbols, where, "t") {}

  double value(double t) const override { return expression_.value(t); }
  double sample_interval() const override { return 0.0; }
  std::string description() const override { return "expression: " + expression_.text(); }
  const CompiledExpression& expression() const { return expression_; }

 private:
  CompiledExpression expression_;
};

}  // namespace gmbd
