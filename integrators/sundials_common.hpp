// Shared SUNDIALS plumbing of the IDA and CVODE integrators: context and vector ownership,
// option checks, exception capture in C callbacks and the text of failures.
#pragma once

#include <array>
#include <exception>
#include <string>

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>

#include "core/errors.hpp"
#include "core/types.hpp"
#include "integrators/integrator.hpp"

namespace gmbd::sundials_support {

/// Owns one SUNContext (SUNDIALS 6 requires one per solver object family).
class Context {
 public:
  /// Throws std::runtime_error when SUNContext_Create fails.
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  SUNContext get() const { return context_; }

 private:
  SUNContext context_ = nullptr;
};

/// An N_Vector that views the storage of a Vec (N_VMake_Serial: the data is not owned, the
/// Vec must outlive the view and must not be resized).
class VectorView {
 public:
  VectorView() = default;
  VectorView(Vec& storage, SUNContext context);
  ~VectorView();
  VectorView(VectorView&& other) noexcept;
  VectorView& operator=(VectorView&& other) noexcept;
  VectorView(const VectorView&) = delete;
  VectorView& operator=(const VectorView&) = delete;
  N_Vector get() const { return vector_; }

 private:
  N_Vector vector_ = nullptr;
};

/// Eigen views of serial N_Vector data (no copy).
inline Eigen::Map<Vec> map(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<Eigen::Index>(N_VGetLength(v))};
}
inline Eigen::Map<const Vec> cmap(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<Eigen::Index>(N_VGetLength(v))};
}

/// What C callbacks report back to the C++ side. No exception may cross a SUNDIALS
/// callback: run() catches everything, stores it and returns the SUNDIALS status
///   0  success,
///   1  recoverable (a NumericalError such as SingularKktError or CorrectionError at a
///      trial point, or a non-finite result): SUNDIALS retries with a smaller step,
///  −1  fatal (any other exception: InputError, std::logic_error, std::bad_alloc, …).
/// After the SUNDIALS call returns, the integrator rethrows a fatal exception unchanged and
/// names the last recoverable one in its IntegrationError.
class CallbackStatus {
 public:
  template <class Body>
  int run(Body&& body) noexcept {
    try {
      return body() ? 0 : non_finite();
    } catch (const NumericalError&) {
      last_ = std::current_exception();
      last_non_finite_ = false;
      return 1;
    } catch (...) {
      fatal_ = std::current_exception();
      return -1;
    }
  }
  /// Forgets everything (call before each SUNDIALS solve).
  void clear() {
    last_ = nullptr;
    fatal_ = nullptr;
    last_non_finite_ = false;
  }
  /// Rethrows a stored fatal exception, if any.
  void rethrow_fatal() const {
    if (fatal_) std::rethrow_exception(fatal_);
  }
  /// "; last callback failure: …" describing the last recoverable failure, or "".
  std::string cause() const;
  bool last_was_non_finite() const { return last_non_finite_; }

 private:
  int non_finite() {
    last_ = nullptr;
    last_non_finite_ = true;
    return 1;
  }
  std::exception_ptr last_, fatal_;
  bool last_non_finite_ = false;
};

/// Throws StopRequested at time t when the options' stop flag is set (called at the top of the
/// residual / right-hand side: CallbackStatus passes it through SUNDIALS as a fatal error).
inline void check_stop(const IntegratorOptions& options, double t) {
  if (options.stop_flag != nullptr && options.stop_flag->load(std::memory_order_relaxed)) {
    throw StopRequested(t);
  }
}

/// Fixed-size copy of the last message SUNDIALS' error handler produced (no allocation in
/// the handler).
struct MessageBuffer {
  std::array<char, 512> text{};
  int code = 0;
  void store(int error_code, const char* message);
  void clear() {
    text[0] = '\0';
    code = 0;
  }
};

/// Checks the options every SUNDIALS integrator accepts; throws InputError naming the option
/// and its value (`who` prefixes the message). `max_order_limit`: 5 (BDF) or 12 (Adams).
void validate_options(const IntegratorOptions& options, const std::string& who,
                      int max_order_limit);

/// 12 significant digits.
std::string format_number(double x);

/// Checks an advance_to request before calling SUNDIALS; throws InputError naming the
/// integrator for a wrong output size, a non-finite tout, a tout after stop_time, or a tout
/// before the last accepted step [t_start, tn] (output times must not decrease).
void check_output_request(const std::string& name, double tout, long out_size, long expected_size,
                          double stop_time, double t_start, double tn);

/// Checks an initialize request: throws InputError naming the integrator for a state of the
/// wrong size, a non-finite t0 or a t0 after stop_time.
void check_initial_request(const std::string& name, double t0, long z0_size, long expected_size,
                           double stop_time);

/// Throws IntegrationError when the state returned for output time tout is not finite
/// (t: the solver's time, h: its last step).
void check_finite_output(const std::string& name, double t, double h, double tout, CVec z_out);

/// "integrator <name> failed at t = <t> s (step size h = <h> s): <flag>: <meaning><cause>"
/// followed by the SUNDIALS message when there is one.
std::string failure_message(const std::string& name, double t, double h, const char* flag,
                            const std::string& meaning, const CallbackStatus& status,
                            const MessageBuffer& sundials_message);

/// Throws std::runtime_error "<call> failed with <flag>" when flag < 0 (setup calls, which
/// fail only on programming errors or exhausted memory).
void check_setup(int flag, const char* call);

/// The stop time of the next solver call from the solver's time tn: the run's stop_time or,
/// when earlier, the system's next breakpoint (OdeSystem::next_breakpoint, a sample instant
/// of a recorded input), so that no step straddles a kink of an input; +∞ when neither.
/// `breakpoint` (out) tells whether the breakpoint is the one returned.
double next_stop_time(const OdeSystem& system, double tn, double stop_time, bool& breakpoint);

}  // namespace gmbd::sundials_support
