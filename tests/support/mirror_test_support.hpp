// Test helper: mirror model parameters with no actuator steps, shared by the mirror model tests.
#pragma once

#include "models/mirror.hpp"

namespace gmbd::test {

/// The default mirror with the given control and preload F0 (N) and all current and voltage
/// steps zero.
inline MirrorParameters mirror_parameters(MirrorControl control, double F0 = 0.5) {
  MirrorParameters p;
  p.control = control;
  p.F0 = F0;
  p.current_step = {0.0, 0.0, 0.0};
  p.voltage_step = {0.0, 0.0, 0.0};
  return p;
}

}  // namespace gmbd::test
