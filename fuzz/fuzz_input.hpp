// Shared by the fuzz targets: the input as text, and the rule that a fuzz input may make the
// library throw InputError or NumericalError (a message for the user) but nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.hpp"

namespace gmbd::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Runs body; the errors a user can be shown are expected, anything else (another exception,
/// a crash, a sanitizer report) is a finding.
template <class Body>
void expect_only_user_errors(Body&& body) {
  try {
    body();
  } catch (const InputError&) {
  } catch (const NumericalError&) {
  }
}

}  // namespace gmbd::fuzz
