// Names in messages: non-ASCII and control characters shown escaped, so that a look-alike
// (Cyrillic 'ѕ' for 's') in a model, key or coordinate name is visible; "did you mean" for a
// misspelt name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gmbd {

/// Shows a name with every non-ASCII or control character escaped (\u0455, \x01), so that a
/// look-alike (Cyrillic 'ѕ' for 's') is visible in a message.
std::string escaped_name(std::string_view name);

/// " (written '\u0455imple': it contains the non-ASCII character U+0455 at character 1; a
/// look-alike of an ASCII letter?)" when `name` has a non-ASCII character, else "".
std::string non_ascii_note(std::string_view name);

/// Levenshtein distance between two short names.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// " (did you mean 'x'?)" for the closest valid name within a small edit distance (or of which
/// `given` is an abbreviation: "params" for "parameters"), else "".
std::string did_you_mean(std::string_view given, const std::vector<std::string>& valid);

/// Up to `count` names of `valid`, closest to `given` first (abbreviations, then by edit
/// distance; ties in the order of `valid`): the part of a long list worth printing.
std::vector<std::string> closest_names(std::string_view given, const std::vector<std::string>& valid,
                                       std::size_t count);

}  // namespace gmbd
