// Names in messages: non-ASCII and control characters shown escaped, so that a look-alike
// (Cyrillic 'ѕ' for 's') in a model, key or coordinate name is visible.
#pragma once

#include <string>
#include <string_view>

namespace gmbd {

/// Shows a name with every non-ASCII or control character escaped (\u0455, \x01), so that a
/// look-alike (Cyrillic 'ѕ' for 's') is visible in a message.
std::string escaped_name(std::string_view name);

/// " (written '\u0455imple': it contains the non-ASCII character U+0455 at character 1; a
/// look-alike of an ASCII letter?)" when `name` has a non-ASCII character, else "".
std::string non_ascii_note(std::string_view name);

}  // namespace gmbd
