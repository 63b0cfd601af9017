// The error channels of GaussMBD: InputError for bad user input (files, parameters, states),
// NumericalError for trouble during integration (singular KKT, step-size underflow, DSC failure).
#pragma once

#include <stdexcept>
#include <string>

namespace gmbd {

/// Bad input: a file, field, parameter or coordinate that is malformed or out of range.
/// The message names the place (file:line or field) and the expected and actual value.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Numerical trouble while integrating. Carries the simulation time at which it happened;
/// the message names the constraint rows / coordinates involved and the state.
class NumericalError : public std::runtime_error {
 public:
  NumericalError(double time, const std::string& what) : std::runtime_error(what), time_(time) {}
  double time() const { return time_; }

 private:
  double time_;
};

/// The KKT matrix [M Aᵀ; A 0] is singular: redundant constraints or under-determined motion.
class SingularKktError : public NumericalError {
 public:
  using NumericalError::NumericalError;
};

/// Direct State Correction failed to bring the constraints to tolerance.
class CorrectionError : public NumericalError {
 public:
  using NumericalError::NumericalError;
};

/// The integrator could not continue (step size underflow, too many steps, non-finite state).
class IntegrationError : public NumericalError {
 public:
  using NumericalError::NumericalError;
};

/// The state left the constraint manifold (max |g| above stabilization.max_residual, or not
/// finite): detected by the run driver at an output row; the message is complete as it is.
class ManifoldLossError : public NumericalError {
 public:
  using NumericalError::NumericalError;
};

/// A stop was requested (Ctrl-C, SIGTERM, SIGHUP, or a caller's flag) while integrating: not a
/// failure; the driver records the run as interrupted at `time` and keeps every row written.
class StopRequested : public std::runtime_error {
 public:
  explicit StopRequested(double time)
      : std::runtime_error("stop requested"), time_(time) {}
  double time() const { return time_; }

 private:
  double time_;
};

}  // namespace gmbd
