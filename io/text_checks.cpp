// Configuration-text checks that turn the YAML parser's worst messages ("bad file", "end of map
// not found", a stack overflow) into ones that say where the problem is and what was expected.
#include "io/text_checks.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <cstdio>

#include "core/errors.hpp"

namespace gmbd {
namespace {

// True when only spaces precede text[i] on its line.
bool in_indent_before(std::string_view text, std::size_t i) {
  while (i > 0 && text[i - 1] == ' ') --i;
  return i == 0 || text[i - 1] == '\n';
}

// True when text[from…] completes a block scalar header after '|' or '>': optional indentation
// and chomping indicators (digits, '+', '-'), then only blanks and a comment to the line's end.
bool is_block_scalar_header(std::string_view text, std::size_t from) {
  std::size_t k = from;
  while (k < text.size() && (std::isdigit(static_cast<unsigned char>(text[k])) || text[k] == '+' || text[k] == '-')) ++k;
  const std::size_t indicators_end = k;
  while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r')) ++k;
  if (k >= text.size() || text[k] == '\n') return true;
  return text[k] == '#' && k > indicators_end;  // a comment needs a blank before it
}

std::string at(const std::string& source, std::size_t line, std::size_t column) {
  return source + " line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

void check_config_text(std::string_view text, const std::string& source, const std::string& kind) {
  if (text.size() > kMaxConfigTextBytes) {
    throw InputError(source + ": a " + kind + " of " + std::to_string(text.size()) +
                     " bytes; at most " + std::to_string(kMaxConfigTextBytes) +
                     " are accepted (a configuration, not data: put records in motion files)");
  }
  const bool has_lf = text.find('\n') != std::string_view::npos;
  if (!has_lf && text.find('\r') != std::string_view::npos) {
    throw InputError(source + ": the lines end with CR alone (classic Mac line endings); expected LF "
                     "or CR LF: save the " + kind + " with Unix or Windows line endings");
  }
  std::size_t line = 1, column = 1;
  bool in_indent = true, in_comment = false;
  char quote = 0;
  std::size_t quote_line = 0, quote_column = 0;
  int depth = 0;
  bool document_start = true;   // before the first token of a YAML document
  std::size_t marker_end = 0;    // end of a "---" / "..." marker or of a '%' directive line
  bool root_is_flow = false;     // the document's value is a flow collection or a quoted scalar
  bool plain = false;            // inside a plain (unquoted) scalar of the block context
  int indicators = 0;            // block-sequence / mapping-key indicators ("- ", "? ") on this line
  bool property = false;         // inside a tag, anchor or alias token (!x, &x, *x)
  std::size_t line_indent = 0;   // indentation of the current line
  bool block_pending = false;    // this line ends with a block scalar header ('|' or '>')
  long block_parent = -1;        // indentation of the line that opened a block scalar, or -1
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    const bool line_start = i == 0 || text[i - 1] == '\n';
    if (line_start && block_parent >= 0) {
      // Lines of a literal or folded block scalar are text, quotes and commas included: a line
      // indented deeper than the header's line (or blank) belongs to it.
      const std::size_t end = std::min(text.find('\n', i), text.size());
      const std::size_t first = text.find_first_not_of(' ', i);
      const bool blank = first >= end || text.find_first_not_of(" \r", i) >= end;
      if (blank || static_cast<long>(first - i) > block_parent) {
        if (const auto nul = text.find('\0', i); nul < end) {
          throw InputError(at(source, line, nul - i + 1) + ": a NUL byte; expected text (is this a binary file, not a " +
                           kind + "?)");
        }
        if (end > i) {
          i = end - 1;  // the newline is handled by the next pass
          continue;
        }
      } else {
        block_parent = -1;
      }
    }
    if (line_start && (text.compare(i, 3, "---") == 0 || text.compare(i, 3, "...") == 0)) {
      document_start = true;  // a new document may begin after the marker
      marker_end = i + 3;
    } else if (line_start && c == '%') {
      document_start = true;  // a directive line; the document begins after it
      marker_end = text.find('\n', i) == std::string_view::npos ? text.size() : text.find('\n', i);
    }
    if (document_start && i >= marker_end && !in_comment && c != ' ' && c != '\t' && c != '\r' &&
        c != '\n' && c != '#') {
      if (c == ',') {
        // yaml-cpp 0.7 would report a second empty document here (its LoadAll loop, found by
        // fuzzing; load_one_document is the guard): say what is wrong instead.
        throw InputError(at(source, line, column) + ": ',' cannot start a YAML document; expected a "
                         "key (name: …), a list item (- …) or a value");
      }
      // A flow node, a quoted scalar, or node properties (a tag '!', an anchor '&').
      root_is_flow = c == '[' || c == '{' || c == '"' || c == '\'' || c == '!' || c == '&';
      document_start = false;
    }
    if (c == '\n') {
      ++line;
      column = 1;
      in_indent = true;
      in_comment = false;
      plain = property = false;
      indicators = 0;
      if (block_pending) block_parent = static_cast<long>(line_indent);
      block_pending = false;
      continue;
    }
    if (u == 0) {
      throw InputError(at(source, line, column) + ": a NUL byte; expected text (is this a binary file, not a " +
                       kind + "?)");
    }
    if (u < 0x20 && c != '\t' && c != '\r') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", u);
      throw InputError(at(source, line, column) + ": the control character " + hex +
                       "; expected text (is this a binary file, not a " + kind + "?)");
    }
    if (in_indent && c == '\t') {
      throw InputError(at(source, line, column) + ": a tab in the indentation; YAML indents with "
                       "spaces only: replace the tab by spaces");
    }
    if (c != ' ' && c != '\t') {
      if (in_indent && column - 1 > static_cast<std::size_t>(2 * kMaxConfigNesting) && c != '#') {
        throw InputError(at(source, line, column) + ": indented " + std::to_string(column - 1) +
                         " columns; expected at most " + std::to_string(2 * kMaxConfigNesting) +
                         " (nesting deeper than a " + kind + " needs)");
      }
      if (in_indent) line_indent = column - 1;
      in_indent = false;
    }
    if (in_comment) {
      ++column;
      continue;
    }
    if (quote != 0) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"') ++i, ++column;
    } else if ((c == '"' || c == '\'') && !plain) {
      // A quote starts a scalar only at its beginning (after space, '[', '{', ',', ':'); inside
      // [ ] or { } only where an item begins ("[a 'b]" is the plain text "a 'b").
      const char before = i == 0 ? ' ' : text[i - 1];
      std::size_t k = i;
      while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t')) --k;
      // A node property (a tag or an anchor) may stand between the item's start and the quote.
      std::size_t token = k;
      while (token > 0 && !std::isspace(static_cast<unsigned char>(text[token - 1])) && text[token - 1] != '[' &&
             text[token - 1] != '{' && text[token - 1] != ',') {
        --token;
      }
      if (token < k && (text[token] == '!' || text[token] == '&')) {
        k = token;
        while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t')) --k;
      }
      const char item_before = k == 0 ? '\n' : text[k - 1];
      const bool starts_item = item_before == '[' || item_before == '{' || item_before == ',' ||
                               item_before == ':' || item_before == '\n' || item_before == '\r';
      if ((before == ' ' || before == '[' || before == '{' || before == ',' || before == ':' || before == '\n') &&
          (depth == 0 || starts_item)) {
        quote = c;
        quote_line = line;
        quote_column = column;
      }
    } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n')) {
      in_comment = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxConfigNesting) {
        throw InputError(at(source, line, column) + ": collections nested " + std::to_string(depth) +
                         " levels deep; at most " + std::to_string(kMaxConfigNesting) + " are accepted");
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
      plain = false;  // a flow node ended: what follows is not inside a plain scalar
    } else if (c == ',' && depth == 0 && in_indent_before(text, i)) {
      // In block context such a line is never what was meant (yaml-cpp 0.7 stops consuming
      // tokens there: found by fuzzing).
      throw InputError(at(source, line, column) + ": a line starting with ','; ',' separates items "
                       "inside [ ] or { } (to continue a text on the next line, quote it)");
    } else if (c == ':' && depth == 0) {
      root_is_flow = false;  // the flow node or quoted scalar was a key: the value is a mapping
    } else if (c == ',' && depth == 0 && root_is_flow && !document_start) {
      // "[a], b" or "'a', b": yaml-cpp 0.7 would call the rest a second document (found by fuzzing).
      throw InputError(at(source, line, column) + ": ',' after the document's value; a YAML "
                       "document holds one value (a mapping of sections for a " + kind + ")");
    } else if (c == ',' && depth == 0 && !plain) {
      // Outside [ ] and { } a ',' belongs inside a plain text ("a, b"); anywhere else (after a
      // quoted or flow value, in a tag or anchor, where a value begins) YAML does not allow it;
      // yaml-cpp 0.7's own message for it is misleading (found by fuzzing).
      throw InputError(at(source, line, column) + ": ',' where no plain text precedes it; outside "
                       "[ ] or { } a ',' can only be part of a text (quote the text that holds it)");
    }
    // Plain-scalar tracking of the block context, for the ',' rule above.
    if (quote == 0 && !in_comment && depth == 0 && c != '"' && c != '\'' && c != ']' && c != '}') {
      const char next = i + 1 < text.size() ? text[i + 1] : '\n';
      const bool token_start = i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n';
      if (c == ' ' || c == '\t' || c == '\r') {
        property = false;
      } else if ((c == ':' || ((c == '-' || c == '?') && token_start)) &&
                 (next == ' ' || next == '\n' || next == '\r' || next == '\t')) {
        plain = false;  // an indicator: a value or an entry begins
        if (c != ':' && ++indicators > kMaxConfigNesting) {
          throw InputError(at(source, line, column) + ": " + std::to_string(indicators) +
                           " nested entries ('- ' or '? ') on one line; at most " +
                           std::to_string(kMaxConfigNesting) + " levels are accepted");
        }
      } else if (token_start && !plain && (c == '|' || c == '>') && is_block_scalar_header(text, i + 1)) {
        block_pending = true;  // the lines after this one are the scalar's text
      } else if (token_start && !plain && (c == '&' || c == '!' || c == '*')) {
        property = true;
      } else if (!property && c != ',' && c != '#') {
        plain = true;
      }
    }
    if ((u & 0xC0) != 0x80) ++column;  // count characters, not bytes
  }
  if (quote != 0) {
    // Quoted scalars may span lines, so an unclosed one swallows the rest of the text: yaml-cpp
    // then complains about a later section (or, for a single quote, takes the rest as the value).
    const std::string which = quote == '"' ? "double" : "single";
    throw InputError(at(source, quote_line, quote_column) + ": a " + which + "-quoted string that is never "
                     "closed; expected a closing " + (quote == '"' ? "'\"'" : "\"'\"") + " (the rest of the " + kind +
                     " was read as part of it)");
  }
}

std::string read_config_text(const std::string& path, const std::string& kind) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) throw InputError(kind + " '" + path + "': not found (expected a YAML " + kind + ")");
  if (fs::is_directory(status)) throw InputError(kind + " '" + path + "': is a directory, expected a YAML " + kind);
  if (!fs::is_regular_file(status)) {
    throw InputError(kind + " '" + path + "': not a regular file (a device, FIFO or socket); expected a YAML " + kind);
  }
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxConfigTextBytes) {
    throw InputError(path + ": a " + kind + " of " + std::to_string(size) + " bytes; at most " +
                     std::to_string(kMaxConfigTextBytes) + " are accepted (a configuration, not data: put records in motion files)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(kind + " '" + path + "': cannot open for reading (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(kind + " '" + path + "': read error");
  return text.str();
}

}  // namespace gmbd
