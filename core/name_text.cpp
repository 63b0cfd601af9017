// Escaping of names for messages: UTF-8 decoding of the first non-ASCII character and
// \uXXXX / \xXX forms; edit distances for "did you mean".
#include "core/name_text.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

namespace gmbd {
namespace {

// The code point starting at text[i] (UTF-8) and its length; U+FFFD for a malformed sequence.
std::pair<unsigned, std::size_t> decode(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned c = byte(i);
  std::size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  if (length == 1 || i + length > text.size()) return {0xFFFD, 1};
  unsigned code = c & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {0xFFFD, 1};
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  return {code, length};
}

std::string code_point(unsigned code) {
  char text[16];
  std::snprintf(text, sizeof text, "U+%04X", code);
  return text;
}

}  // namespace

std::string escaped_name(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    const auto u = static_cast<unsigned char>(name[i]);
    if (u >= 0x20 && u < 0x7F) {
      out += name[i++];
      continue;
    }
    if (u < 0x80) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", u);
      out += hex;
      ++i;
      continue;
    }
    const auto [code, length] = decode(name, i);
    char text[16];
    std::snprintf(text, sizeof text, code > 0xFFFF ? "\\U%08X" : "\\u%04X", code);
    out += text;
    i += length;
  }
  return out;
}

std::string non_ascii_note(std::string_view name) {
  std::size_t character = 1;
  for (std::size_t i = 0; i < name.size(); ++character) {
    const auto u = static_cast<unsigned char>(name[i]);
    if (u < 0x80) {
      ++i;
      continue;
    }
    const unsigned code = decode(name, i).first;
    return " (written '" + escaped_name(name) + "': it contains the non-ASCII character " + code_point(code) +
           " at character " + std::to_string(character) + "; a look-alike of an ASCII letter?)";
  }
  return "";
}

namespace {

/// 1 for an abbreviation of `v` ("params" of "parameters"), else the edit distance.
std::size_t closeness(std::string_view given, std::string_view v) {
  std::size_t shared = 0;
  while (shared < given.size() && shared < v.size() && given[shared] == v[shared]) ++shared;
  const bool abbreviation = shared >= std::max<std::size_t>(3, (2 * given.size() + 2) / 3);
  return abbreviation ? 1 : edit_distance(given, v);
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& valid) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, given.size() / 3) + 1;
  for (const auto& v : valid) {
    if (v == given) continue;
    const std::size_t d = closeness(given, v);
    if (d < best_distance) {
      best_distance = d;
      best = v;
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

std::vector<std::string> closest_names(std::string_view given, const std::vector<std::string>& valid,
                                       std::size_t count) {
  std::vector<std::size_t> order(valid.size()), distance(valid.size());
  std::iota(order.begin(), order.end(), 0);
  for (std::size_t k = 0; k < valid.size(); ++k) distance[k] = closeness(given, valid[k]);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return distance[a] < distance[b]; });
  std::vector<std::string> out;
  for (std::size_t k = 0; k < order.size() && k < count; ++k) out.push_back(valid[order[k]]);
  return out;
}

}  // namespace gmbd
