// Checks of a configuration text (run file, model file, --set value) before the YAML parser sees
// it: size, NUL bytes and binary data, tabs in indentation, CR-only line endings, nesting depth.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/name_text.hpp"

namespace gmbd {

/// Largest run or model file accepted (bytes): a configuration, not data; records belong in
/// motion files.
constexpr std::size_t kMaxConfigTextBytes = std::size_t{4} << 20;
/// Deepest nesting of YAML collections ('[' and '{' levels, or indentation levels) accepted.
constexpr int kMaxConfigNesting = 64;

/// Throws InputError naming `source`, the line and column, what was expected and what was found
/// for a text that no configuration file can be: larger than kMaxConfigTextBytes, containing a
/// NUL byte or other binary control characters, a tab in the indentation, CR-only line endings,
/// a double-quoted string never closed, collections nested deeper than kMaxConfigNesting or
/// indentation deeper than 2·kMaxConfigNesting columns. `kind` is "run file", "model file", ….
void check_config_text(std::string_view text, const std::string& source, const std::string& kind);

/// Reads a run or model file after checking that it is a regular file of at most
/// kMaxConfigTextBytes (a device such as /dev/zero or a huge file is never read into memory).
/// `kind` names it in messages ("run file", "model file").
std::string read_config_text(const std::string& path, const std::string& kind);

}  // namespace gmbd
