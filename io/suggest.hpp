// "Did you mean …?" for misspelt names in input files: the closest valid name by edit distance
// or as an abbreviation. Internal to io/ (run files, model files).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "io/text_checks.hpp"

namespace gmbd::io_detail {

using gmbd::non_ascii_note;

/// Levenshtein distance between two short names.
inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

/// " (did you mean 'x'?)" for the closest valid name within a small edit distance (or of which
/// `given` is an abbreviation: "params" for "parameters"), else "".
inline std::string suggestion(std::string_view given, const std::vector<std::string>& valid) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, given.size() / 3) + 1;
  for (const auto& v : valid) {
    if (v == given) continue;
    size_t shared = 0;
    while (shared < given.size() && shared < v.size() && given[shared] == v[shared]) ++shared;
    const bool abbreviation = shared >= std::max<size_t>(3, (2 * given.size() + 2) / 3);
    const size_t d = abbreviation ? 1 : edit_distance(given, v);
    if (d < best_distance) {
      best_distance = d;
      best = v;
    }
  }
  return non_ascii_note(given) + (best.empty() ? "" : " (did you mean '" + best + "'?)");
}

}  // namespace gmbd::io_detail
