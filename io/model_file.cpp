// Model files: the expression evaluator with named symbols, parameter resolution (dependency
// order, cycles, run-file and --set changes), the YAML reader and typed access to entry fields.
#include "io/model_file.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <optional>
#include <sstream>

#include "core/errors.hpp"
#include "io/suggest.hpp"
#include "io/text_checks.hpp"
#include "io/yaml_document.hpp"

namespace gmbd {
using io_detail::load_one_document;

namespace {

using SymbolMap = std::map<std::string, double, std::less<>>;

// ============================================================================================
// Text helpers
// ============================================================================================
std::string join(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// Shortest text that reads back as exactly x ("inf", "nan" for the non-finite ones).
std::string format_number(double x) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, x);
  return std::string(text, result.ptr);
}

/// "where: " or "" so that messages read well when the caller gives no place.
std::string prefix(const std::string& where) { return where.empty() ? "" : where + ": "; }

/// "m.yaml:12" or "m.yaml" when the line is unknown (0).
std::string location(const std::string& source, int line) {
  return line > 0 ? source + ":" + std::to_string(line) : source;
}

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// [A-Za-z_][A-Za-z0-9_]*, with '.' allowed after the first character when `dots` (coordinate
/// names such as crank.theta).
bool is_identifier(std::string_view s, bool dots) {
  if (s.empty() || !is_alpha(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(),
                     [&](char c) { return is_alpha(c) || is_digit(c) || (dots && c == '.'); });
}

using io_detail::suggestion;

// ============================================================================================
// Expressions (recursive descent)
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := ('+' | '-') unary | power
//   power   := primary (('^' | '**') unary)?          (right-associative: 2^3^2 = 2^9)
//   primary := number | name | function '(' expr (',' expr)* ')' | '(' expr ')'
// so -2^2 = -4 and 2^-1 = 0.5, as in the run-file evaluator (simulation/run_config.cpp).
// ============================================================================================
struct Function {
  std::string_view name;
  std::string_view signature;  // shown when the argument count is wrong
  size_t min_args;
  size_t max_args;  // 0: no upper bound
  double (*apply)(const double* args, size_t count);  // args[0 .. count-1]; must not allocate
  /// ∂f/∂args[k] (forward-mode derivatives of compiled expressions, CompiledExpression::derivative).
  double (*partial)(const double* args, size_t count, size_t k);
};

double fold_min(const double* a, size_t n) { return *std::min_element(a, a + n); }
double fold_max(const double* a, size_t n) { return *std::max_element(a, a + n); }

// ∂min/∂a_k and ∂max/∂a_k: 1 for the (first) extreme argument, 0 for the others.
double partial_min(const double* a, size_t n, size_t k) {
  return static_cast<size_t>(std::min_element(a, a + n) - a) == k ? 1.0 : 0.0;
}
double partial_max(const double* a, size_t n, size_t k) {
  return static_cast<size_t>(std::max_element(a, a + n) - a) == k ? 1.0 : 0.0;
}

using Args = const double*;
const Function kFunctions[] = {
    {"sqrt", "sqrt(x)", 1, 1, [](Args a, size_t) { return std::sqrt(a[0]); },
     [](Args a, size_t, size_t) { return 0.5 / std::sqrt(a[0]); }},
    {"sin", "sin(x)", 1, 1, [](Args a, size_t) { return std::sin(a[0]); },
     [](Args a, size_t, size_t) { return std::cos(a[0]); }},
    {"cos", "cos(x)", 1, 1, [](Args a, size_t) { return std::cos(a[0]); },
     [](Args a, size_t, size_t) { return -std::sin(a[0]); }},
    {"tan", "tan(x)", 1, 1, [](Args a, size_t) { return std::tan(a[0]); },
     [](Args a, size_t, size_t) { const double c = std::cos(a[0]); return 1.0 / (c * c); }},
    {"asin", "asin(x)", 1, 1, [](Args a, size_t) { return std::asin(a[0]); },
     [](Args a, size_t, size_t) { return 1.0 / std::sqrt(1.0 - a[0] * a[0]); }},
    {"acos", "acos(x)", 1, 1, [](Args a, size_t) { return std::acos(a[0]); },
     [](Args a, size_t, size_t) { return -1.0 / std::sqrt(1.0 - a[0] * a[0]); }},
    {"atan", "atan(x)", 1, 1, [](Args a, size_t) { return std::atan(a[0]); },
     [](Args a, size_t, size_t) { return 1.0 / (1.0 + a[0] * a[0]); }},
    {"atan2", "atan2(y, x)", 2, 2, [](Args a, size_t) { return std::atan2(a[0], a[1]); },
     [](Args a, size_t, size_t k) {
       const double r2 = a[0] * a[0] + a[1] * a[1];
       return k == 0 ? a[1] / r2 : -a[0] / r2;
     }},
    {"hypot", "hypot(x, y)", 2, 2, [](Args a, size_t) { return std::hypot(a[0], a[1]); },
     [](Args a, size_t, size_t k) { return a[k] / std::hypot(a[0], a[1]); }},
    {"exp", "exp(x)", 1, 1, [](Args a, size_t) { return std::exp(a[0]); },
     [](Args a, size_t, size_t) { return std::exp(a[0]); }},
    {"log", "log(x)", 1, 1, [](Args a, size_t) { return std::log(a[0]); },
     [](Args a, size_t, size_t) { return 1.0 / a[0]; }},
    {"log10", "log10(x)", 1, 1, [](Args a, size_t) { return std::log10(a[0]); },
     [](Args a, size_t, size_t) { return 1.0 / (a[0] * std::numbers::ln10); }},
    {"abs", "abs(x)", 1, 1, [](Args a, size_t) { return std::fabs(a[0]); },
     [](Args a, size_t, size_t) { return a[0] > 0.0 ? 1.0 : a[0] < 0.0 ? -1.0 : 0.0; }},
    {"min", "min(a, b, ...)", 2, 0, fold_min, partial_min},
    {"max", "max(a, b, ...)", 2, 0, fold_max, partial_max},
};

const Function* find_function(std::string_view name) {
  for (const auto& f : kFunctions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string argument_count(size_t n) {
  return std::to_string(n) + (n == 1 ? " argument" : " arguments");
}

using Instruction = detail::ExpressionInstruction;
using Op = Instruction::Op;

/// Executes one postfix instruction on the stack whose next free entry is `top` and returns the
/// new top. The one place where expression arithmetic happens: constant folding at parse time
/// (evaluate_expression) and CompiledExpression::value both call it, so they agree bit for bit.
/// Does not allocate.
inline double* execute(const Instruction& in, double* top, const double* x) {
  switch (in.op) {
    case Op::kConstant: *top = in.constant; return top + 1;
    case Op::kVariable: *top = x[in.argc]; return top + 1;
    case Op::kAdd: top[-2] = top[-2] + top[-1]; return top - 1;
    case Op::kSubtract: top[-2] = top[-2] - top[-1]; return top - 1;
    case Op::kMultiply: top[-2] = top[-2] * top[-1]; return top - 1;
    case Op::kDivide: top[-2] = top[-2] / top[-1]; return top - 1;
    case Op::kNegate: top[-1] = -top[-1]; return top;
    case Op::kPower: top[-2] = std::pow(top[-2], top[-1]); return top - 1;
    case Op::kCall: {
      double* args = top - in.argc;
      *args = kFunctions[in.function].apply(args, in.argc);
      return args + 1;
    }
  }
  return top;
}

/// Stack entries the postfix program `code` needs.
size_t required_stack(const std::vector<Instruction>& code) {
  size_t depth = 0, deepest = 0;
  for (const Instruction& in : code) {
    switch (in.op) {
      case Op::kConstant:
      case Op::kVariable: ++depth; break;
      case Op::kNegate: break;
      case Op::kCall: depth = depth + 1 - in.argc; break;
      default: --depth; break;
    }
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

/// One parser for three uses, so that they agree on the grammar, on what is a symbol and on
/// every message. It translates the text to a postfix program, folding each operation whose
/// operands are all constants as soon as it is parsed:
///  - evaluate (symbols != nullptr, no variable): everything folds; the program is one constant;
///  - collect names (symbols == nullptr): `names` receives each name once; names read as 0;
///  - compile (symbols != nullptr, `variable` not empty): the variable is left as an instruction,
///    the rest folds; CompiledExpression runs the program.
class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, const std::string& where, const SymbolMap* symbols,
                   std::vector<std::string>* names, const std::vector<std::string>* variables = nullptr)
      : text_(text), where_(where), symbols_(symbols), names_(names), variables_(variables) {}

  std::vector<Instruction> parse() {
    skip_space();
    if (at_end()) syntax_error("a number or an expression");
    expr();
    skip_space();
    if (!at_end()) syntax_error("an operator or the end of the expression");
    return std::move(code_);
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }

  [[noreturn]] void syntax_error(const std::string& expected) const {
    const std::string got = at_end() ? "the end of the expression"
                                     : "'" + std::string(1, text_[pos_]) + "'";
    throw InputError(prefix(where_) + "syntax error at character " + std::to_string(pos_ + 1) +
                     " of '" + shown_text() + "': expected " + expected + ", got " + got);
  }

  void skip_space() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c, const std::string& expected) {
    if (!accept(c)) syntax_error(expected);
  }
  bool accept_power() {
    skip_space();
    if (text_.substr(pos_, 2) == "**") {
      pos_ += 2;
      return true;
    }
    return accept('^');
  }

  // ---- code generation ------------------------------------------------------------------
  void emit_constant(double value) { code_.push_back({Op::kConstant, 0, 0, value}); }

  /// Appends an operation taking `operands` stack entries, or folds it when they are all
  /// constants. Each operand of a postfix operation is a complete sub-program; one that is a
  /// constant is exactly one kConstant instruction (any other ends with an operation or the
  /// variable), so "the last `operands` instructions are constants" means "all operands are".
  void emit(Instruction in, size_t operands) {
    const size_t n = code_.size();
    const bool foldable =
        n >= operands && std::all_of(code_.end() - static_cast<std::ptrdiff_t>(operands),
                                     code_.end(), [](const Instruction& c) {
                                       return c.op == Op::kConstant;
                                     });
    if (!foldable) {
      code_.push_back(in);
      return;
    }
    std::vector<double> stack(operands + 1);
    for (size_t k = 0; k < operands; ++k) stack[k] = code_[n - operands + k].constant;
    execute(in, stack.data() + operands, nullptr);
    code_.resize(n - operands);
    emit_constant(stack[0]);
  }
  void emit(Op op) { emit({op, 0, 0, 0.0}, op == Op::kNegate ? 1 : 2); }

  // ---- grammar --------------------------------------------------------------------------
  /// Deepest nesting of parentheses, calls and exponents: recursion is bounded, so absurd input
  /// gets a message instead of a stack overflow.
  static constexpr int kMaxNesting = 500;
  class Nesting {
   public:
    explicit Nesting(ExpressionParser& parser) : parser_(parser) {
      if (++parser_.depth_ > kMaxNesting) {
        throw InputError(prefix(parser_.where_) + "the expression '" + parser_.shown_text() +
                         "' is nested more than " + std::to_string(kMaxNesting) +
                         " levels deep (parentheses, calls, exponents) at character " +
                         std::to_string(parser_.pos_ + 1));
      }
    }
    ~Nesting() { --parser_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    ExpressionParser& parser_;
  };

  /// The expression as messages show it: long ones shortened around nothing in particular.
  std::string shown_text() const {
    if (text_.size() <= 160) return std::string(text_);
    return std::string(text_.substr(0, 100)) + " … " + std::string(text_.substr(text_.size() - 40)) +
           " (" + std::to_string(text_.size()) + " characters)";
  }

  void expr() {
    const Nesting nesting(*this);
    term();
    for (;;) {
      if (accept('+')) {
        term();
        emit(Op::kAdd);
      } else if (accept('-')) {
        term();
        emit(Op::kSubtract);
      } else {
        return;
      }
    }
  }

  void term() {
    unary();
    for (;;) {
      skip_space();
      // '*' but not the power operator '**'
      if (!at_end() && text_[pos_] == '*' && text_.substr(pos_, 2) != "**") {
        ++pos_;
        unary();
        emit(Op::kMultiply);
      } else if (accept('/')) {
        unary();
        emit(Op::kDivide);
      } else {
        return;
      }
    }
  }

  // Signs are counted in a loop, not by recursion: a million of them cannot overflow the stack.
  void unary() {
    bool negative = false;
    for (;;) {
      if (accept('-')) {
        negative = !negative;
      } else if (!accept('+')) {
        break;
      }
    }
    power();
    if (negative) emit(Op::kNegate);
  }

  void power() {
    primary();
    if (accept_power()) {
      const Nesting nesting(*this);  // an exponent nests: 2^2^2^… recurses
      unary();
      emit(Op::kPower);
    }
  }

  void primary() {
    skip_space();
    if (at_end()) syntax_error("a number, a name or '('");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      expr();
      expect(')', "')'");
      return;
    }
    if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
      emit_constant(number());
      return;
    }
    if (is_alpha(c)) return name();
    syntax_error("a number, a name or '('");
  }

  // digits [. digits] [(e|E) [+|-] digits]
  double number() {
    const size_t start = pos_;
    skip_digits();
    if (!at_end() && text_[pos_] == '.') {
      ++pos_;
      skip_digits();
    }
    if (!at_end() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      if (p < text_.size() && is_digit(text_[p])) {
        pos_ = p;
        skip_digits();
      }
    }
    return literal(text_.substr(start, pos_ - start));
  }
  void skip_digits() {
    while (!at_end() && is_digit(text_[pos_])) ++pos_;
  }

  // from_chars: locale-independent, unlike strtod. Overflow gives ±inf and underflow 0, as
  // strtod would; callers reject non-finite values with their own message.
  static double literal(std::string_view digits) {
    double value = 0.0;
    const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (result.ec == std::errc::result_out_of_range) {
      const bool tiny = lower(std::string(digits)).find("e-") != std::string::npos;
      value = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    }
    return value;
  }

  void name() {
    const size_t start = pos_;
    while (!at_end() && (is_alpha(text_[pos_]) || is_digit(text_[pos_]) || text_[pos_] == '.')) {
      ++pos_;
    }
    const std::string id(text_.substr(start, pos_ - start));
    const size_t after = pos_;
    skip_space();
    const bool call = !at_end() && text_[pos_] == '(';
    // Function names are reserved: a parameter cannot be called sin (resolve_model_parameters
    // rejects such names), so "sin" without '(' is a mistake worth a precise message.
    if (const Function* f = find_function(id)) {
      if (!call) syntax_error("'(' after function '" + id + "'");
      return call_function(*f, start);
    }
    if (call) {
      pos_ = start;
      throw InputError(prefix(where_) + "unknown function '" + id + "' at character " +
                       std::to_string(start + 1) + " of '" + shown_text() +
                       "' (functions: " + function_names() + ")");
    }
    pos_ = after;
    symbol(id);
  }

  static std::string function_names() {
    std::vector<std::string> names;
    for (const auto& f : kFunctions) names.emplace_back(f.name);
    return join(names);
  }

  void call_function(const Function& f, size_t start) {
    expect('(', "'('");
    size_t count = 0;
    skip_space();
    if (!accept(')')) {
      do {
        expr();
        ++count;
      } while (accept(','));
      expect(')', "',' or ')'");
    }
    const bool too_few = count < f.min_args;
    const bool too_many = f.max_args > 0 && count > f.max_args;
    if (too_few || too_many) {
      const std::string takes = f.max_args == 0 ? "at least " + argument_count(f.min_args)
                                                : argument_count(f.min_args);
      throw InputError(prefix(where_) + "function '" + std::string(f.name) + "' takes " + takes +
                       " (" + std::string(f.signature) + "), got " + std::to_string(count) +
                       " at character " + std::to_string(start + 1) + " of '" +
                       shown_text() + "'");
    }
    const auto index = static_cast<std::uint8_t>(&f - kFunctions);
    emit({Op::kCall, index, static_cast<std::uint32_t>(count), 0.0}, count);
  }

  // The variable comes first (it shadows a parameter of the same name), then user symbols, so
  // a parameter named e or pi shadows the constant.
  void symbol(const std::string& id) {
    if (symbols_ == nullptr) {
      if (std::find(names_->begin(), names_->end(), id) == names_->end()) names_->push_back(id);
      return emit_constant(0.0);
    }
    if (variables_ != nullptr) {
      const auto it = std::find(variables_->begin(), variables_->end(), id);
      if (it != variables_->end()) {
        code_.push_back({Op::kVariable, 0, static_cast<std::uint32_t>(it - variables_->begin()), 0.0});
        return;
      }
    }
    if (const auto it = symbols_->find(id); it != symbols_->end()) return emit_constant(it->second);
    if (id == "pi") return emit_constant(std::numbers::pi);
    if (id == "e") return emit_constant(std::numbers::e);
    throw InputError(prefix(where_) + "unknown symbol '" + id + "' in '" + shown_text() +
                     "'" + known_symbols(id));
  }

  /// All known names when there are few, otherwise the closest one. The variable, if any,
  /// follows the symbols.
  std::string known_symbols(const std::string& id) const {
    std::vector<std::string> names;
    for (const auto& [symbol_name, value] : *symbols_) names.push_back(symbol_name);
    if (variables_ != nullptr)
      for (const auto& v : *variables_)
        if (!symbols_->contains(v)) names.push_back(v);
    if (names.size() <= 8) {
      names.insert(names.end(), {"pi", "e"});
      return " (known: " + join(names) + ")";
    }
    return suggestion(id, names);
  }

  std::string_view text_;
  const std::string& where_;
  const SymbolMap* symbols_;
  std::vector<std::string>* names_;
  const std::vector<std::string>* variables_;
  std::vector<Instruction> code_;
  size_t pos_ = 0;
  int depth_ = 0;
};

/// The YAML spellings of infinity and NaN (.inf, -.inf, .nan, any case), so that `mass: .inf`
/// is reported as a non-finite number rather than as a syntax error.
std::optional<double> yaml_special(std::string_view text) {
  const std::string t = lower(trim(text));
  if (t == ".inf" || t == "+.inf") return std::numeric_limits<double>::infinity();
  if (t == "-.inf") return -std::numeric_limits<double>::infinity();
  if (t == ".nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

/// As evaluate_expression, plus the YAML spellings of yaml_special.
double evaluate_number(std::string_view text, const SymbolMap& symbols, const std::string& where) {
  if (const auto special = yaml_special(text)) return *special;
  return evaluate_expression(text, symbols, where);
}

/// The names an expression uses; none for the YAML spellings.
std::vector<std::string> symbols_of(std::string_view text, const std::string& where) {
  if (yaml_special(text)) return {};
  return expression_symbols(text, where);
}

/// "'1/0' = inf" for an expression, "'.inf'" when the text already shows the value.
std::string describe_value(std::string_view text, double value) {
  const std::string shown = "'" + std::string(text) + "'";
  const std::string t = trim(text);
  if (!t.empty() && t.find_first_not_of("+-.0123456789eE") == std::string::npos) {
    double literal = 0.0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), literal);
    if (r.ec == std::errc() && r.ptr == t.data() + t.size() && literal == value) return shown;
  }
  if (yaml_special(t)) return shown;
  return shown + " = " + format_number(value);
}

}  // namespace

double evaluate_expression(std::string_view text, const SymbolMap& symbols,
                           const std::string& where) {
  // Without a variable every operation folds: the program is the value.
  return ExpressionParser(text, where, &symbols, nullptr).parse().front().constant;
}

// pi and e are listed too when used: a parameter may be named so, and then it is a dependency.
std::vector<std::string> expression_symbols(std::string_view text, const std::string& where) {
  std::vector<std::string> names;
  ExpressionParser(text, where, nullptr, &names).parse();
  return names;
}

// ============================================================================================
// Compiled expressions
// ============================================================================================
CompiledExpression::CompiledExpression(std::string_view text, const SymbolMap& symbols,
                                       const std::string& where, std::string variable)
    : CompiledExpression(text, symbols, where, std::vector<std::string>{std::move(variable)}) {}

CompiledExpression::CompiledExpression(std::string_view text, const SymbolMap& symbols,
                                       const std::string& where, std::vector<std::string> variables)
    : text_(text), variables_(std::move(variables)) {
  if (variables_.empty()) variables_.emplace_back("t");
  variable_ = variables_.front();
  code_ = ExpressionParser(text_, where, &symbols, nullptr, &variables_).parse();
  depth_ = required_stack(code_);
  if (depth_ > kMaxStackDepth) {
    throw InputError(prefix(where) + "expression '" + text_ + "' is too deeply nested: it needs " +
                     std::to_string(depth_) + " intermediate values, at most " +
                     std::to_string(kMaxStackDepth) + " are supported (simplify it or split it " +
                     "into parameters)");
  }
  constant_ = code_.size() == 1 && code_.front().op == Op::kConstant;
}

double CompiledExpression::value(double x) const { return value_at(&x); }

double CompiledExpression::value_at(const double* x) const {
  if (constant_) return code_.front().constant;
  double stack[kMaxStackDepth];
  double* top = stack;
  const Instruction* in = code_.data();
  const Instruction* const end = in + code_.size();
  for (; in != end; ++in) top = execute(*in, top, x);
  return stack[0];
}

// Forward mode: a value stack and, beside it, the derivative of every entry with respect to
// variable k. The rules of each operation mirror execute().
double CompiledExpression::derivative(const double* x, int k) const {
  if (constant_) return 0.0;
  double value[kMaxStackDepth], slope[kMaxStackDepth];
  int top = 0;
  for (const Instruction& in : code_) {
    switch (in.op) {
      case Op::kConstant:
        value[top] = in.constant;
        slope[top++] = 0.0;
        break;
      case Op::kVariable:
        value[top] = x[in.argc];
        slope[top++] = static_cast<int>(in.argc) == k ? 1.0 : 0.0;
        break;
      case Op::kAdd: --top; value[top - 1] += value[top]; slope[top - 1] += slope[top]; break;
      case Op::kSubtract: --top; value[top - 1] -= value[top]; slope[top - 1] -= slope[top]; break;
      case Op::kMultiply:
        --top;
        slope[top - 1] = slope[top - 1] * value[top] + value[top - 1] * slope[top];
        value[top - 1] *= value[top];
        break;
      case Op::kDivide:
        --top;
        slope[top - 1] = (slope[top - 1] - value[top - 1] / value[top] * slope[top]) / value[top];
        value[top - 1] /= value[top];
        break;
      case Op::kNegate: value[top - 1] = -value[top - 1]; slope[top - 1] = -slope[top - 1]; break;
      case Op::kPower: {
        --top;
        const double a = value[top - 1], b = value[top];
        const double p = std::pow(a, b);
        double d = slope[top - 1] != 0.0 ? b * std::pow(a, b - 1.0) * slope[top - 1] : 0.0;
        if (slope[top] != 0.0) d += p * std::log(a) * slope[top];
        value[top - 1] = p;
        slope[top - 1] = d;
        break;
      }
      case Op::kCall: {
        const int first = top - static_cast<int>(in.argc);
        const Function& f = kFunctions[in.function];
        double d = 0.0;
        for (size_t a = 0; a < in.argc; ++a)
          if (slope[first + static_cast<int>(a)] != 0.0)
            d += f.partial(value + first, in.argc, a) * slope[first + static_cast<int>(a)];
        value[first] = f.apply(value + first, in.argc);
        slope[first] = d;
        top = first + 1;
        break;
      }
    }
  }
  return slope[0];
}

// ============================================================================================
// Parameter table
// ============================================================================================
const char* to_string(ParameterOrigin origin) {
  switch (origin) {
    case ParameterOrigin::kDefault: return "default";
    case ParameterOrigin::kOverride: return "override";
    case ParameterOrigin::kScale: return "scale";
    case ParameterOrigin::kIncrement: return "increment";
  }
  return "unknown";
}

bool ParameterTable::contains(std::string_view name) const { return index_.contains(name); }

const ResolvedParameter* ParameterTable::find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

double ParameterTable::value(std::string_view name) const {
  if (const ResolvedParameter* p = find(name)) return p->value;
  std::vector<std::string> names;
  for (const auto& e : entries_) names.push_back(e.name);
  throw InputError("unknown parameter '" + std::string(name) + "'" + suggestion(name, names) +
                   "; parameters: " + (names.empty() ? "none" : join(names)));
}

std::map<std::string, double, std::less<>> ParameterTable::symbols() const {
  SymbolMap out;
  for (const auto& e : entries_) out.emplace(e.name, e.value);
  return out;
}

void ParameterTable::add(ResolvedParameter parameter) {
  if (contains(parameter.name)) {
    throw InputError("parameter '" + parameter.name + "' is defined twice");
  }
  index_.emplace(parameter.name, entries_.size());
  entries_.push_back(std::move(parameter));
}

// ============================================================================================
// Parameter resolution
// ============================================================================================
namespace {

/// Resolves definitions by depth-first search (white/grey/black marking: meeting a grey
/// parameter again means a cycle), then applies scales and increments in order.
//
// Choice of semantics: a kValue change replaces the *defining expression*, so dependants follow
// it (overriding den1 changes m1 = den1*V1), because that is what "set den1" means to a user.
// kScale and kIncrement act on the named parameter's final value only; dependants keep the
// unscaled value (dependence is one-way, as in Barton's Mathematica toolkit). Changes apply in order,
// so a kValue after a scale of the same parameter discards that earlier scale.
class ParameterResolver {
 public:
  ParameterResolver(const std::vector<ParameterDefinition>& definitions, const std::string& source)
      : source_(source) {
    for (const auto& d : definitions) add_definition(d);
  }

  void apply_changes(const std::vector<ParameterChange>& changes) {
    for (const auto& change : changes) apply_change(change);
  }

  ParameterTable resolve() {
    colour_.assign(params_.size(), Colour::kWhite);
    for (size_t i = 0; i < params_.size(); ++i) {
      if (colour_[i] == Colour::kWhite) visit(i);
    }
    for (const auto& [i, change] : adjustments_) adjust(i, *change);
    ParameterTable table;
    for (const auto& p : params_) table.add(p.result);
    return table;
  }

 private:
  enum class Colour { kWhite, kGrey, kBlack };
  struct Parameter {
    ResolvedParameter result;  // expression as written; value, origin and detail filled in
    std::string expression;    // the effective defining expression (after kValue changes)
    const ParameterChange* override_change = nullptr;
  };

  void add_definition(const ParameterDefinition& d) {
    const std::string where = location(source_, d.line) + ": parameters." + d.name;
    if (!is_identifier(d.name, false)) {
      throw InputError(where + ": expected a parameter name ([A-Za-z_][A-Za-z0-9_]*), got '" +
                       d.name + "'");
    }
    if (find_function(d.name) != nullptr) {
      throw InputError(where + ": '" + d.name + "' is the name of a function; choose another name");
    }
    if (const auto it = index_.find(d.name); it != index_.end()) {
      throw InputError(where + ": parameter '" + d.name + "' is defined twice (first at line " +
                       std::to_string(params_[it->second].result.line) + ")");
    }
    index_.emplace(d.name, params_.size());
    Parameter p;
    p.result = {d.name, d.expression, 0.0, ParameterOrigin::kDefault, "", d.line};
    p.expression = d.expression;
    params_.push_back(std::move(p));
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& p : params_) out.push_back(p.result.name);
    return out;
  }

  size_t target(const ParameterChange& change) const {
    if (const auto it = index_.find(change.name); it != index_.end()) return it->second;
    const std::vector<std::string> valid = names();
    throw InputError(prefix(change.source) + "unknown parameter '" + change.name +
                     "' of model file " + source_ + suggestion(change.name, valid) +
                     "; valid parameters: " + (valid.empty() ? "none" : join(valid)));
  }

  void apply_change(const ParameterChange& change) {
    const size_t i = target(change);
    Parameter& p = params_[i];
    const std::string detail = change_word(change.kind) + " " + trim(change.expression) +
                               (change.source.empty() ? "" : " (" + change.source + ")");
    p.result.origin_detail += (p.result.origin_detail.empty() ? "" : "; ") + detail;
    if (change.kind == ParameterChange::Kind::kValue) {
      p.expression = change.expression;
      p.override_change = &change;
      p.result.origin = ParameterOrigin::kOverride;
      // A later value replaces the earlier scales and increments of this parameter.
      std::erase_if(adjustments_, [&](const auto& a) { return a.first == i; });
      return;
    }
    p.result.origin = change.kind == ParameterChange::Kind::kScale ? ParameterOrigin::kScale
                                                                   : ParameterOrigin::kIncrement;
    adjustments_.emplace_back(i, &change);
  }

  static std::string change_word(ParameterChange::Kind kind) {
    switch (kind) {
      case ParameterChange::Kind::kValue: return "override";
      case ParameterChange::Kind::kScale: return "scale";
      case ParameterChange::Kind::kIncrement: return "increment";
    }
    return "change";
  }

  /// Message prefix for parameter i: its definition, or the change that replaced it.
  std::string where(size_t i) const {
    const Parameter& p = params_[i];
    if (p.override_change == nullptr) {
      return location(source_, p.result.line) + ": parameters." + p.result.name;
    }
    return prefix(p.override_change->source) + "override of parameter '" + p.result.name +
           "' (defined at " + location(source_, p.result.line) + ")";
  }

  void visit(size_t i) {
    // Dependency chains are resolved recursively: bounded, so an absurd chain is a message.
    if (stack_.size() >= kMaxDependencyDepth) {
      throw InputError(where(i) + ": parameters depend on each other " + std::to_string(kMaxDependencyDepth) +
                       " levels deep (p0 uses p1, which uses p2, …); at most " +
                       std::to_string(kMaxDependencyDepth) + " are accepted");
    }
    colour_[i] = Colour::kGrey;
    stack_.push_back(i);
    visit_dependencies(i);
    evaluate(i);
    colour_[i] = Colour::kBlack;
    stack_.pop_back();
  }

  /// Resolves the parameters that i's expression names; pi and e are constants unless defined.
  static constexpr size_t kMaxDependencyDepth = 1000;

  void visit_dependencies(size_t i) {
    for (const auto& symbol : symbols_of(params_[i].expression, where(i))) {
      const auto it = index_.find(symbol);
      if (it == index_.end()) {
        if (symbol == "pi" || symbol == "e") continue;
        unknown_symbol(i, symbol);
      }
      if (colour_[it->second] == Colour::kGrey) cycle(it->second);
      if (colour_[it->second] == Colour::kWhite) visit(it->second);
    }
  }

  void evaluate(size_t i) {
    Parameter& p = params_[i];
    const double value = evaluate_number(p.expression, values_, where(i));
    if (!std::isfinite(value)) {
      throw InputError(where(i) + ": expected a finite value, got " +
                       describe_value(p.expression, value));
    }
    values_[p.result.name] = value;
    p.result.value = value;
  }

  [[noreturn]] void unknown_symbol(size_t i, const std::string& symbol) const {
    const std::vector<std::string> valid = names();
    throw InputError(where(i) + ": unknown symbol '" + symbol + "' in '" + params_[i].expression +
                     "'" + suggestion(symbol, valid) +
                     "; parameters: " + join(valid) + ", and the constants pi, e");
  }

  /// The grey path from `first` to the top of the stack, closed: "a → b → c → a".
  [[noreturn]] void cycle(size_t first) const {
    const auto start = std::find(stack_.begin(), stack_.end(), first);
    std::vector<std::string> chain;
    std::vector<std::string> overrides;
    for (auto it = start; it != stack_.end(); ++it) {
      const Parameter& p = params_[*it];
      chain.push_back(p.result.name);
      if (p.override_change != nullptr) {
        overrides.push_back(p.result.name + " = '" + p.expression + "' from " +
                            (p.override_change->source.empty() ? "a change"
                                                               : p.override_change->source));
      }
    }
    chain.push_back(params_[first].result.name);
    const Parameter& p = params_[first];
    throw InputError(location(source_, p.result.line) + ": parameters." + p.result.name +
                     ": cycle in parameter definitions: " + join(chain, " \u2192 ") +
                     (overrides.empty() ? "" : " (overridden: " + join(overrides, "; ") + ")"));
  }

  void adjust(size_t i, const ParameterChange& change) {
    Parameter& p = params_[i];
    const std::string what = prefix(change.source) + change_word(change.kind) + " of parameter '" +
                             p.result.name + "'";
    const double amount = evaluate_number(change.expression, values_, what);
    if (!std::isfinite(amount)) {
      throw InputError(what + ": expected a finite number, got " +
                       describe_value(change.expression, amount));
    }
    const bool scale = change.kind == ParameterChange::Kind::kScale;
    const double value = scale ? p.result.value * amount : p.result.value + amount;
    if (!std::isfinite(value)) {
      throw InputError(what + ": the result is not finite (" + format_number(p.result.value) +
                       (scale ? " * " : " + ") + format_number(amount) + ")");
    }
    p.result.value = value;
    values_[p.result.name] = value;  // later changes' expressions see the adjusted value
  }

  const std::string& source_;
  std::vector<Parameter> params_;
  std::map<std::string, size_t, std::less<>> index_;
  std::vector<std::pair<size_t, const ParameterChange*>> adjustments_;  // scales, increments
  std::vector<Colour> colour_;
  std::vector<size_t> stack_;
  SymbolMap values_;
};

}  // namespace

ParameterTable resolve_model_parameters(const std::vector<ParameterDefinition>& definitions,
                                        const std::vector<ParameterChange>& changes,
                                        const std::string& source) {
  ParameterResolver resolver(definitions, source);
  resolver.apply_changes(changes);
  return resolver.resolve();
}

// ============================================================================================
// The YAML reader
// ============================================================================================
namespace {

const std::vector<std::string> kSections = {
    "name",   "description", "dimension", "parameters", "ground",     "bodies",
    "points", "elements",    "initial",   "initial_velocity", "independent", "losses",
    "outputs"};

int line_of(const YAML::Node& node) { return node.Mark().is_null() ? 0 : node.Mark().line + 1; }
int column_of(const YAML::Node& node) {
  return node.Mark().is_null() ? 0 : node.Mark().column + 1;
}

using io_detail::describe;  // how a node is shown as "got …" in messages

using Pairs = std::vector<std::pair<YAML::Node, YAML::Node>>;

/// Messages "<file>:<line>: <path>: <problem>" (path "" is the top level); the tree walk
/// shared by the sections.
class ModelReader {
 public:
  explicit ModelReader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& path,
                         const std::string& problem) const {
    throw InputError(location(source_, line_of(at)) + ": " + (path.empty() ? "top level" : path) +
                     ": " + problem);
  }

  /// Entries of a mapping in file order (null: none). yaml-cpp keeps duplicate keys, so they
  /// are found here, naming both lines.
  Pairs mapping(const YAML::Node& node, const std::string& path,
                const std::string& expected) const {
    Pairs out;
    if (node.IsNull()) return out;
    if (!node.IsMap()) fail(node, path, "expected " + expected + ", got " + describe(node));
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;
      if (!key.IsScalar()) fail(key, path, "expected a key name, got " + describe(key));
      for (const auto& previous : out) {
        if (previous.first.Scalar() == key.Scalar()) {
          fail(key, path.empty() ? key.Scalar() : path + "." + key.Scalar(),
               "duplicate key '" + key.Scalar() + "' (first given at line " +
                   std::to_string(line_of(previous.first)) + ")");
        }
      }
      out.emplace_back(key, it->second);
    }
    return out;
  }

  /// A non-empty scalar, as written.
  std::string scalar(const YAML::Node& key, const YAML::Node& value, const std::string& path,
                     const std::string& expected) const {
    if (!value.IsScalar() || trim(value.Scalar()).empty()) {
      fail(place(key, value), path, "expected " + expected + ", got " + describe(value));
    }
    return value.Scalar();
  }

  /// Where a value's problem is reported: an empty value has the position of whatever follows
  /// it (often the next line), so its key's position is the one to show.
  static const YAML::Node& place(const YAML::Node& key, const YAML::Node& value) {
    return value.IsNull() ? key : value;
  }

  /// A scalar or a (nested) list of scalars; nested lists are flattened row-major.
  SpecField field(const YAML::Node& key, const YAML::Node& value, const std::string& path) const {
    SpecField f;
    f.line = line_of(key);
    f.column = column_of(key);
    f.is_list = value.IsSequence();
    flatten(key, value, path, f.items);
    return f;
  }


 private:
  void flatten(const YAML::Node& key, const YAML::Node& node, const std::string& path,
               std::vector<std::string>& items) const {
    if (node.IsScalar()) {
      items.push_back(node.Scalar());
      return;
    }
    if (!node.IsSequence()) {
      fail(place(key, node), path, "expected a scalar or a list of scalars, got " + describe(node));
    }
    for (size_t k = 0; k < node.size(); ++k) {
      flatten(node[k], node[k], path + "[" + std::to_string(k) + "]", items);
    }
  }

  const std::string& source_;
};

/// Which section first used a name, for duplicate messages across bodies, points, elements.
struct NameUse {
  std::string section;
  int line = 0;
};

class ModelFileParser {
 public:
  explicit ModelFileParser(ModelFileSpec& spec) : spec_(spec), reader_(spec.source) {}

  void parse(const YAML::Node& root) {
    if (root.IsNull()) {
      throw InputError(spec_.source + ": empty model file (expected a mapping with sections " +
                       join(kSections) + ")");
    }
    for (const auto& [key, value] :
         reader_.mapping(root, "", "a mapping with sections " + join(kSections))) {
      section(key, value);
    }
    if (spec_.ground.section.empty()) spec_.ground = {"ground", "ground", "fixed", 0, {}};
  }

 private:
  void section(const YAML::Node& key, const YAML::Node& value) {
    const std::string& name = key.Scalar();
    if (name == "name") {
      spec_.name = trim(reader_.scalar(key, value, name, "a model name"));
    } else if (name == "description") {
      spec_.description = value.IsNull() ? "" : reader_.scalar(key, value, name, "a text");
    } else if (name == "dimension") {
      dimension(key, value);
    } else if (name == "parameters") {
      parameters(value);
    } else if (name == "ground") {
      spec_.ground = entry(key, value, "ground", "ground");
      if (spec_.ground.type.empty()) spec_.ground.type = "fixed";
    } else if (name == "bodies" || name == "points" || name == "elements") {
      entries(value, name);
    } else if (name == "losses") {
      losses(value);
    } else if (name == "outputs") {
      outputs(value);
    } else if (name == "initial") {
      coordinates(value, name, spec_.initial_position);
    } else if (name == "initial_velocity") {
      coordinates(value, name, spec_.initial_velocity);
    } else if (name == "independent") {
      independent(key, value);
    } else {
      reader_.fail(key, name, "unknown top-level section '" + name + "'" +
                                  suggestion(name, kSections) + "; expected one of: " +
                                  join(kSections));
    }
  }

  void dimension(const YAML::Node& key, const YAML::Node& value) {
    const std::string text = value.IsScalar() ? trim(value.Scalar()) : "";
    if (text != "2" && text != "3") {
      reader_.fail(ModelReader::place(key, value), "dimension",
                   "expected 2 (planar) or 3 (spatial), got " + describe(value));
    }
    spec_.dimension = text == "2" ? 2 : 3;
  }

  void parameters(const YAML::Node& value) {
    const std::string expected = "a mapping of parameter names to numbers or expressions";
    for (const auto& [key, expr] : reader_.mapping(value, "parameters", expected)) {
      const std::string path = "parameters." + key.Scalar();
      const std::string text = trim(reader_.scalar(key, expr, path, "a number or an expression"));
      spec_.parameter_definitions.push_back({key.Scalar(), text, line_of(key)});
    }
  }

  void entries(const YAML::Node& value, const std::string& section) {
    std::vector<SpecEntry>& out = section == "bodies"   ? spec_.bodies
                                  : section == "points" ? spec_.points
                                                        : spec_.elements;
    for (const auto& [key, body] :
         reader_.mapping(value, section, "a mapping of names to entries")) {
      check_name(key, section);
      out.push_back(entry(key, body, section, key.Scalar()));
    }
  }

  /// Damping tags → loss functions: a namespace of their own (tags are not bodies or elements).
  void losses(const YAML::Node& value) {
    for (const auto& [key, body] : reader_.mapping(value, "losses", "a mapping of damping tags to loss functions")) {
      const std::string path = "losses." + key.Scalar();
      if (!is_identifier(key.Scalar(), false))
        reader_.fail(key, path, "expected a tag name ([A-Za-z_][A-Za-z0-9_]*), got '" + key.Scalar() + "'");
      for (const auto& e : spec_.losses)
        if (e.name == key.Scalar())
          reader_.fail(key, path, "duplicate tag '" + key.Scalar() + "' (already at line " + std::to_string(e.line) + ")");
      SpecEntry e = entry(key, body, "losses", key.Scalar());
      if (e.type.empty()) reader_.fail(key, path, "missing required field 'type' (loss_angle, viscous or complex)");
      spec_.losses.push_back(std::move(e));
    }
  }

  /// Declared outputs: a namespace of their own (their columns are named after them).
 public:
  void outputs(const YAML::Node& value) {
    for (const auto& [key, body] : reader_.mapping(value, "outputs", "a mapping of output names to {type: …, …}")) {
      const std::string path = "outputs." + key.Scalar();
      if (!is_identifier(key.Scalar(), false))
        reader_.fail(key, path, "expected an output name ([A-Za-z_][A-Za-z0-9_]*), got '" + key.Scalar() + "'");
      for (const auto& e : spec_.outputs)
        if (e.name == key.Scalar())
          reader_.fail(key, path, "duplicate output '" + key.Scalar() + "' (already at line " + std::to_string(e.line) + ")");
      SpecEntry e = entry(key, body, "outputs", key.Scalar());
      if (e.type.empty())
        reader_.fail(key, path, "missing required field 'type' (position, velocity, acceleration, angle, distance, "
                                "orientation, element_force, multiplier or expression)");
      spec_.outputs.push_back(std::move(e));
    }
  }

 private:
  void check_name(const YAML::Node& key, const std::string& section) {
    const std::string& name = key.Scalar();
    const std::string path = section + "." + name;
    if (!is_identifier(name, false)) {
      reader_.fail(key, path, "expected a name ([A-Za-z_][A-Za-z0-9_]*), got '" + name + "'");
    }
    if (name == "ground" && section != "elements") {
      reader_.fail(key, path, "'ground' is reserved for the fixed frame (section 'ground')");
    }
    const auto [it, inserted] = names_.emplace(name, NameUse{section, line_of(key)});
    if (!inserted) {
      reader_.fail(key, path, "duplicate name '" + name + "' (already used by " +
                                  it->second.section + "." + name + " at line " +
                                  std::to_string(it->second.line) + ")");
    }
  }

  SpecEntry entry(const YAML::Node& key, const YAML::Node& value, const std::string& section,
                  const std::string& name) {
    SpecEntry e;
    e.section = section;
    e.name = name;
    e.line = line_of(key);
    const std::string path = section == "ground" ? section : section + "." + name;
    for (const auto& [field_key, field_value] :
         reader_.mapping(value, path, "a mapping of fields")) {
      const std::string field_path = path + "." + field_key.Scalar();
      if (field_key.Scalar() == "type") {
        e.type = trim(reader_.scalar(field_key, field_value, field_path, "a type name"));
      } else {
        e.fields.emplace_back(field_key.Scalar(),
                              reader_.field(field_key, field_value, field_path));
      }
    }
    if (e.type.empty() && (section == "bodies" || section == "elements")) {
      reader_.fail(key, path, "missing required field 'type'");
    }
    return e;
  }

  void coordinates(const YAML::Node& value, const std::string& section,
                   std::vector<std::pair<std::string, SpecField>>& out) {
    for (const auto& [key, expr] :
         reader_.mapping(value, section, "a mapping of coordinate names to numbers")) {
      const std::string path = section + "." + key.Scalar();
      if (!is_identifier(key.Scalar(), true)) {
        reader_.fail(key, path, "expected a coordinate name such as crank.theta, got '" +
                                    key.Scalar() + "'");
      }
      reader_.scalar(key, expr, path, "a number or an expression");
      out.emplace_back(key.Scalar(), reader_.field(key, expr, path));
    }
  }

  void independent(const YAML::Node& key, const YAML::Node& value) {
    spec_.independent_line = line_of(key);
    if (value.IsNull()) return;
    if (!value.IsSequence()) {
      reader_.fail(value, "independent",
                   "expected a list of coordinate names, got " + describe(value));
    }
    for (size_t k = 0; k < value.size(); ++k) {
      const std::string path = "independent[" + std::to_string(k) + "]";
      const std::string name = trim(reader_.scalar(value[k], value[k], path, "a coordinate name"));
      if (std::find(spec_.independent.begin(), spec_.independent.end(), name) !=
          spec_.independent.end()) {
        reader_.fail(value[k], path, "coordinate '" + name + "' is listed twice");
      }
      spec_.independent.push_back(name);
    }
  }

  ModelFileSpec& spec_;
  ModelReader reader_;
  std::map<std::string, NameUse> names_;
};

YAML::Node load_yaml(const std::string& text, const std::string& source) {
  check_config_text(text, source, "model file");
  try {
    return load_one_document(text, source, "model file");
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) throw InputError(source + ": malformed YAML: " + e.msg);
    throw InputError(location(source, e.mark.line + 1) + ": malformed YAML: " + e.msg +
                     " (column " + std::to_string(e.mark.column + 1) + ")");
  }
}

std::string default_name(const std::string& source) {
  const std::string stem = std::filesystem::path(source).stem().string();
  return stem.empty() ? "model" : stem;
}

}  // namespace

ModelFileSpec parse_model_file(const std::string& yaml_text, const std::string& source,
                               const std::vector<ParameterChange>& changes) {
  ModelFileSpec spec;
  spec.source = source;
  spec.text = yaml_text;
  spec.name = default_name(source);
  ModelFileParser(spec).parse(load_yaml(yaml_text, source));
  spec.parameters = resolve_model_parameters(spec.parameter_definitions, changes, source);
  return spec;
}

std::vector<SpecEntry> parse_output_entries(const YAML::Node& node, const std::string& source) {
  ModelFileSpec spec;
  spec.source = source;
  ModelFileParser(spec).outputs(node);
  return spec.outputs;
}

ModelFileSpec load_model_file(const std::string& path,
                              const std::vector<ParameterChange>& changes) {
  const std::string text = read_config_text(path, "model file");
  return parse_model_file(text, path, changes);
}

// ============================================================================================
// SpecReader
// ============================================================================================
SpecReader::SpecReader(const ModelFileSpec& file, const SpecEntry& entry)
    : file_(file), entry_(entry), symbols_(file.parameters.symbols()) {}

const SpecField* SpecReader::find(std::string_view field) const {
  for (const auto& [name, value] : entry_.fields) {
    if (name == field) return &value;
  }
  return nullptr;
}

bool SpecReader::has(std::string_view field) const { return find(field) != nullptr; }

std::string SpecReader::where(std::string_view field) const {
  const SpecField* f = find(field);
  const int line = f != nullptr && f->line > 0 ? f->line : entry_.line;
  // The ground is one entry, not a section of named ones: "ground.acceleration".
  std::string path = entry_.section;
  if (entry_.section != "ground") path += "." + entry_.name;
  if (!field.empty()) path += "." + std::string(field);
  return location(file_.source, line) + ": " + path;
}

void SpecReader::fail(std::string_view field, const std::string& expected,
                      const std::string& got) const {
  throw InputError(where(field) + ": expected " + expected + ", got " + got);
}

namespace {
const char* const kMissing = "nothing (the field is missing)";

std::string describe_field(const SpecField& f) {
  if (f.is_list) return "a list of " + std::to_string(f.items.size());
  if (f.items.empty()) return "nothing (an empty value)";
  return "'" + f.items.front() + "'";
}

/// The text of a scalar field; fails with `expected` when the field is missing or a list.
const std::string& scalar_item(const SpecReader& reader, std::string_view field,
                               const SpecField* f, const std::string& expected) {
  if (f == nullptr) reader.fail(field, expected, kMissing);
  if (f->is_list || f->items.size() != 1) reader.fail(field, expected, describe_field(*f));
  return f->items.front();
}
}  // namespace

double SpecReader::number(std::string_view field) const {
  const std::string& text = scalar_item(*this, field, find(field), "a number");
  const double value = evaluate_number(text, symbols_, where(field));
  if (!std::isfinite(value)) fail(field, "a finite number", describe_value(text, value));
  return value;
}

double SpecReader::number_or(std::string_view field, double fallback) const {
  return has(field) ? number(field) : fallback;
}

std::vector<double> SpecReader::numbers(std::string_view field, int size) const {
  const std::string expected = size < 0 ? "a list of numbers"
                               : size == 1 ? "a list of 1 number"
                                           : "a list of " + std::to_string(size) + " numbers";
  const SpecField* f = find(field);
  if (f == nullptr) fail(field, expected, kMissing);
  // A single value is accepted where a list of one (or of any length) is asked for.
  if (!f->is_list && size > 1) fail(field, expected, "a single value " + describe_field(*f));
  const bool wrong_size =
      size >= 0 ? f->items.size() != static_cast<size_t>(size) : f->items.empty();
  if (wrong_size) fail(field, expected, describe_field(*f));
  std::vector<double> out;
  for (size_t k = 0; k < f->items.size(); ++k) {
    const std::string item_where = where(field) + (f->is_list ? "[" + std::to_string(k) + "]" : "");
    const double value = evaluate_number(f->items[k], symbols_, item_where);
    if (!std::isfinite(value)) {
      throw InputError(item_where + ": expected a finite number, got " +
                       describe_value(f->items[k], value));
    }
    out.push_back(value);
  }
  return out;
}

std::string SpecReader::name(std::string_view field) const {
  const std::string& text = scalar_item(*this, field, find(field), "a name");
  if (trim(text).empty()) fail(field, "a name", "an empty value");
  return text;
}

std::string SpecReader::name_or(std::string_view field, std::string fallback) const {
  return has(field) ? name(field) : fallback;
}

std::string SpecReader::text(std::string_view field) const {
  return scalar_item(*this, field, find(field), "a single value");
}

void SpecReader::allow_only(const std::vector<std::string>& allowed) const {
  for (const auto& [field, value] : entry_.fields) {
    if (std::find(allowed.begin(), allowed.end(), field) != allowed.end()) continue;
    const std::string of_type = entry_.type.empty() ? "" : " for type '" + entry_.type + "'";
    throw InputError(where(field) + ": unknown field '" + field + "'" + of_type +
                     suggestion(field, allowed) + "; allowed fields: " +
                     (allowed.empty() ? "none" : join(allowed)));
  }
}

}  // namespace gmbd
