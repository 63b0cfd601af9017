// Model files (YAML): named parameters as expressions, bodies, points, elements, ground and
// initial positions, read into a ModelFileSpec whose fields are evaluated on demand; see docs/model-files.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace YAML {
class Node;
}  // namespace YAML

namespace gmbd {

// ---- parameters -------------------------------------------------------------------------------

/// Where a parameter's final value came from (shown by `gmbd info`).
enum class ParameterOrigin { kDefault, kOverride, kScale, kIncrement };
const char* to_string(ParameterOrigin origin);

/// One named model-file parameter after resolution.
struct ResolvedParameter {
  std::string name;
  std::string expression;  ///< the defining expression as written in the model file
  double value = 0.0;      ///< final value (after any override, scale or increment)
  ParameterOrigin origin = ParameterOrigin::kDefault;
  std::string origin_detail;  ///< e.g. "scale 2 (run file)", "override 0.3 (--set)"
  int line = 0;               ///< 1-based line of the definition in the model file
};

/// A change a run file (`model.parameters`) or `--set` makes to a model-file parameter.
struct ParameterChange {
  enum class Kind { kValue, kScale, kIncrement };
  std::string name;
  Kind kind = Kind::kValue;
  std::string expression;  ///< value/factor/increment; may use other parameters' names
  std::string source;      ///< where the change was written, for messages and provenance
};

/// Resolved parameters, in model-file order, plus a lookup by name.
class ParameterTable {
 public:
  const std::vector<ResolvedParameter>& entries() const { return entries_; }
  bool contains(std::string_view name) const;
  /// Value by name; throws InputError naming the parameter if it does not exist.
  double value(std::string_view name) const;
  const ResolvedParameter* find(std::string_view name) const;
  /// Symbol lookup for expression evaluation.
  std::map<std::string, double, std::less<>> symbols() const;

  /// Adds a resolved entry (used by resolve_parameters below).
  void add(ResolvedParameter parameter);

 private:
  std::vector<ResolvedParameter> entries_;
  std::map<std::string, size_t, std::less<>> index_;
};

/// Evaluates `text` (numbers, + − * / ^, unary ±, parentheses, pi, e, parameters by name,
/// sqrt sin cos tan asin acos atan atan2 hypot exp log log10 abs min max) with `symbols`.
/// Throws InputError "<where>: unknown symbol 'x' in 'expr'" or naming the 1-based character
/// position of a syntax error. `where` prefixes the message (e.g. "m.yaml:12: bodies.crank.mass").
double evaluate_expression(std::string_view text,
                           const std::map<std::string, double, std::less<>>& symbols,
                           const std::string& where);
/// Names of the symbols an expression refers to (function names excluded), in order of first
/// appearance. Throws InputError as evaluate_expression for syntax errors.
std::vector<std::string> expression_symbols(std::string_view text, const std::string& where);

namespace detail {
/// One postfix instruction of a CompiledExpression (io/model_file.cpp builds and runs them).
struct ExpressionInstruction {
  enum class Op : std::uint8_t {
    kConstant, kVariable, kAdd, kSubtract, kMultiply, kDivide, kNegate, kPower, kCall
  };
  Op op = Op::kConstant;
  std::uint8_t function = 0;  ///< kCall: index into the function table
  std::uint32_t argc = 0;     ///< kCall: number of arguments taken from the stack
  double constant = 0.0;      ///< kConstant: the value pushed
};
}  // namespace detail

/// An expression compiled once against fixed symbol values, with one free variable (by default
/// `t`) or several (declared outputs: the other outputs' columns), evaluated without allocation:
/// value(x), value(x[]), and its exact derivative with respect to one variable by forward-mode
/// differentiation. Thread-safe (immutable after construction).
///
/// The grammar, functions and messages are those of evaluate_expression (one parser builds
/// both). Sub-expressions that do not involve the variable are folded to constants at
/// construction with the very operations evaluate_expression uses, so value(x) equals
/// evaluate_expression(text, symbols ∪ {variable: x}) bit for bit.
/// The variable shadows a symbol of the same name (and pi/e if it is so named): in
/// `F0*sin(omega*t)` compiled with a parameter `t` in `symbols`, `t` is the argument of value().
/// The variable is listed among the known names in an unknown-symbol message.
class CompiledExpression {
 public:
  /// Largest evaluation stack value() supports; deeper expressions are rejected at construction.
  static constexpr std::size_t kMaxStackDepth = 64;

  /// Throws InputError exactly as evaluate_expression does (unknown symbol, syntax), with
  /// `where`, and for an expression needing more than kMaxStackDepth stack entries.
  CompiledExpression(std::string_view text, const std::map<std::string, double, std::less<>>& symbols,
                     const std::string& where, std::string variable = "t");
  /// Several variables: value(x) reads x[i] for variables[i] (the first shadows … as above).
  CompiledExpression(std::string_view text, const std::map<std::string, double, std::less<>>& symbols,
                     const std::string& where, std::vector<std::string> variables);
  /// The expression's value with the variable set to x. Does not allocate.
  double value(double x) const;
  /// The value with variable i set to x[i]. Does not allocate.
  double value_at(const double* x) const;
  /// ∂/∂x_k at x (forward mode through every operation and function; min/max take the
  /// derivative of the argument they pick). Does not allocate.
  double derivative(const double* x, int k) const;
  const std::vector<std::string>& variables() const { return variables_; }
  /// True when the expression does not use the variable (then value() is that constant).
  bool is_constant() const { return constant_; }
  const std::string& text() const { return text_; }
  const std::string& variable() const { return variable_; }
  /// Entries of the evaluation stack value() uses (≤ kMaxStackDepth).
  std::size_t stack_depth() const { return depth_; }

 private:
  std::string text_, variable_;
  std::vector<std::string> variables_;
  std::vector<detail::ExpressionInstruction> code_;  ///< postfix, constants folded
  std::size_t depth_ = 0;
  bool constant_ = false;
};

/// Resolves `definitions` (name → (expression, line)) in any order, then applies `changes` in
/// order: a kValue change replaces the defining expression (so dependants follow it: overriding
/// `den1` changes `m1 = den1*V1`), a kScale multiplies the final value of that parameter only, a
/// kIncrement adds to it. Throws InputError for a cycle (naming it: "a → b → a"), an unknown
/// symbol (naming it and the parameter using it), a change to an unknown parameter (listing the
/// valid ones) or a non-finite result. `source` names the model file in messages.
struct ParameterDefinition {
  std::string name, expression;
  int line = 0;
};
ParameterTable resolve_model_parameters(const std::vector<ParameterDefinition>& definitions,
                                        const std::vector<ParameterChange>& changes,
                                        const std::string& source);

// ---- model-file entries ----------------------------------------------------------------------

/// One field of a body/point/element entry as written: a scalar or a list of scalars, each kept
/// as text and evaluated on demand against the resolved parameters.
struct SpecField {
  std::vector<std::string> items;  ///< one entry for a scalar, n for a list
  bool is_list = false;
  int line = 0, column = 0;  ///< 1-based position in the model file
};

/// A body, point, element or the ground: its name, type and fields in file order.
struct SpecEntry {
  std::string section;  ///< "bodies", "points", "elements", "ground"
  std::string name;
  std::string type;     ///< the entry's `type` field ("" when the section has none)
  int line = 0;
  std::vector<std::pair<std::string, SpecField>> fields;  ///< file order, without `type`
};

/// A parsed model file. Fields are evaluated with SpecReader (below).
struct ModelFileSpec {
  std::string source;  ///< path as given (messages)
  std::string text;    ///< the whole file (recorded in result files)
  std::string name, description;
  int dimension = 3;   ///< 2: planar model (x, y, rotation about z); 3: spatial
  std::vector<ParameterDefinition> parameter_definitions;
  ParameterTable parameters;  ///< resolved (after changes)
  SpecEntry ground;           ///< section `ground` (type fixed if absent)
  std::vector<SpecEntry> bodies, points, elements;
  /// `losses:` damping tag → loss function entries (type loss_angle, viscous or complex).
  std::vector<SpecEntry> losses;
  /// `outputs:` declared outputs (type position, velocity, acceleration, angle, distance,
  /// orientation, element_force, multiplier, expression), in file order.
  std::vector<SpecEntry> outputs;
  /// `initial:` coordinate name → expression (positions) and `initial_velocity:` likewise.
  std::vector<std::pair<std::string, SpecField>> initial_position, initial_velocity;
  /// `independent:` coordinate names (DSC keeps them; the rest are corrected).
  std::vector<std::string> independent;
  int independent_line = 0;
};

/// Reads a model file, resolves its parameters with `changes` and returns the spec. Throws
/// InputError naming the file and line for malformed YAML, an unknown section or field
/// structure, duplicate names, and every parameter error of resolve_model_parameters.
ModelFileSpec load_model_file(const std::string& path,
                              const std::vector<ParameterChange>& changes = {});
/// As load_model_file for text; `source` names it in messages.
ModelFileSpec parse_model_file(const std::string& yaml_text, const std::string& source,
                               const std::vector<ParameterChange>& changes = {});

/// Reads an `outputs:` section (a model file's or a run file's) into entries: a mapping of
/// names ([A-Za-z_][A-Za-z0-9_]*) to {type: …, fields}. Throws InputError naming `source`, the
/// line and the field for a malformed entry or a duplicate name.
std::vector<SpecEntry> parse_output_entries(const YAML::Node& node, const std::string& source);

/// Typed access to the fields of one entry, with messages of the form
/// "<file>:<line>: <section>.<name>.<field>: expected …, got …".
class SpecReader {
 public:
  SpecReader(const ModelFileSpec& file, const SpecEntry& entry);

  bool has(std::string_view field) const;
  /// A finite number (expression allowed). Throws if missing, a list, or not finite.
  double number(std::string_view field) const;
  double number_or(std::string_view field, double fallback) const;
  /// A list of exactly `size` numbers (size < 0: any length ≥ 1).
  std::vector<double> numbers(std::string_view field, int size) const;
  /// A plain name (body, point, signal); not evaluated.
  std::string name(std::string_view field) const;
  std::string name_or(std::string_view field, std::string fallback) const;
  /// Raw text of a scalar field (e.g. an expression of t kept for later evaluation).
  std::string text(std::string_view field) const;
  /// Throws if the entry has a field not in `allowed` (listing the allowed ones).
  void allow_only(const std::vector<std::string>& allowed) const;
  /// "<file>:<line>: <section>.<name>.<field>" (the entry's line when the field is absent).
  std::string where(std::string_view field) const;
  /// Throws InputError "<where(field)>: expected <expected>, got <got>".
  [[noreturn]] void fail(std::string_view field, const std::string& expected,
                         const std::string& got) const;
  const SpecEntry& entry() const { return entry_; }

 private:
  const SpecField* find(std::string_view field) const;
  const ModelFileSpec& file_;
  const SpecEntry& entry_;
  std::map<std::string, double, std::less<>> symbols_;
};

}  // namespace gmbd
