// Fuzz target: the expression language (evaluate_expression with symbols, CompiledExpression of
// t and its value at a few points; the two must agree bit for bit where both succeed).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "fuzz/fuzz_input.hpp"
#include "io/model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = gmbd::fuzz::as_text(data, size);
  const std::map<std::string, double, std::less<>> symbols = {{"m1", 2.5}, {"L", 0.6}, {"g", 9.81}};
  gmbd::fuzz::expect_only_user_errors([&] { gmbd::evaluate_expression(text, symbols, "fuzz"); });
  gmbd::fuzz::expect_only_user_errors([&] {
    const gmbd::CompiledExpression compiled(text, symbols, "fuzz", "t");
    for (double t : {0.0, 0.5, -1.0, 1e3}) {
      const double value = compiled.value(t);
      auto with_t = symbols;
      with_t["t"] = t;
      double direct = 0.0;
      try {
        direct = gmbd::evaluate_expression(text, with_t, "fuzz");
      } catch (const gmbd::InputError&) {
        std::abort();  // compiled but not evaluable: the two parsers disagree
      }
      const bool same = value == direct || (std::isnan(value) && std::isnan(direct));
      if (!same) std::abort();
    }
  });
  return 0;
}
