// "Did you mean …?" for misspelt names in input files: the closest valid name by edit distance
// or as an abbreviation. Internal to io/ (run files, model files).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/name_text.hpp"
#include "io/text_checks.hpp"

namespace gmbd::io_detail {

using gmbd::did_you_mean;
using gmbd::non_ascii_note;

/// " (did you mean 'x'?)" for the closest valid name (core/name_text.hpp), after the note on
/// a non-ASCII character in `given`.
inline std::string suggestion(std::string_view given, const std::vector<std::string>& valid) {
  return non_ascii_note(given) + did_you_mean(given, valid);
}

}  // namespace gmbd::io_detail
