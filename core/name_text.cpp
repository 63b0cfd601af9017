// Escaping of names for messages: UTF-8 decoding of the first non-ASCII character and
// \uXXXX / \xXX forms.
#include "core/name_text.hpp"

#include <cstdio>
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

}  // namespace gmbd
