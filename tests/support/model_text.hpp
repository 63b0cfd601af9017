// Test helper: numbers written into model-file text so that they read back exactly.
#pragma once

#include <iomanip>
#include <sstream>
#include <string>

namespace gmbd::test {

/// A double as model-file text that reads back to the same value (std::to_string rounds to 6
/// decimals: a flexure offset of 8.9477e-4 m would become 0.000895).
inline std::string exact(double x) {
  std::ostringstream s;
  s << std::setprecision(17) << x;
  return s.str();
}

}  // namespace gmbd::test
