// Shared SUNDIALS plumbing: SUNContext and serial-vector ownership, option validation and the
// text of failures (time, step size, return code, its meaning and the last callback failure).
#include "integrators/sundials_common.hpp"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace gmbd::sundials_support {

Context::Context() {
  if (SUNContext_Create(nullptr, &context_) != 0 || context_ == nullptr) {
    throw std::runtime_error("SUNContext_Create failed");
  }
}

Context::~Context() {
  if (context_ != nullptr) SUNContext_Free(&context_);
}

VectorView::VectorView(Vec& storage, SUNContext context)
    : vector_(N_VMake_Serial(static_cast<sunindextype>(storage.size()), storage.data(),
                             context)) {
  if (vector_ == nullptr) throw std::runtime_error("N_VMake_Serial failed");
}

VectorView::~VectorView() {
  if (vector_ != nullptr) N_VDestroy(vector_);
}

VectorView::VectorView(VectorView&& other) noexcept : vector_(other.vector_) {
  other.vector_ = nullptr;
}

VectorView& VectorView::operator=(VectorView&& other) noexcept {
  if (this != &other) {
    if (vector_ != nullptr) N_VDestroy(vector_);
    vector_ = other.vector_;
    other.vector_ = nullptr;
  }
  return *this;
}

std::string CallbackStatus::cause() const {
  if (last_non_finite_) {
    return "; last callback failure: the right-hand side / residual returned non-finite "
           "values (NaN/Inf)";
  }
  if (!last_) return "";
  try {
    std::rethrow_exception(last_);
  } catch (const std::exception& e) {
    return std::string("; last callback failure: ") + e.what();
  } catch (...) {
    return "; last callback failure: unknown exception";
  }
}

void MessageBuffer::store(int error_code, const char* message) {
  code = error_code;
  if (message == nullptr) {
    text[0] = '\0';
    return;
  }
  std::strncpy(text.data(), message, text.size() - 1);
  text[text.size() - 1] = '\0';
}

std::string format_number(double x) {
  std::ostringstream s;
  s << std::setprecision(12) << x;
  return s.str();
}

void validate_options(const IntegratorOptions& o, const std::string& who, int max_order_limit) {
  auto bad = [&](const std::string& what) { throw InputError(who + what); };
  if (o.max_steps <= 0) bad("max_steps = " + std::to_string(o.max_steps) + " must be > 0");
  if (!(std::isfinite(o.rtol) && o.rtol >= 0.0)) {
    bad("rtol = " + format_number(o.rtol) + " must be finite and >= 0");
  }
  if (!(std::isfinite(o.atol) && o.atol >= 0.0)) {
    bad("atol = " + format_number(o.atol) + " must be finite and >= 0");
  }
  if (o.rtol + o.atol <= 0.0) bad("rtol and atol are both 0; one must be > 0");
  if (!std::isfinite(o.dt)) {
    bad("dt = " + format_number(o.dt) +
        " must be finite (it is the initial step; <= 0 selects it automatically)");
  }
  if (!(o.max_step > 0.0)) bad("max_step = " + format_number(o.max_step) + " must be > 0");
  if (!(std::isfinite(o.min_step) && o.min_step >= 0.0)) {
    bad("min_step = " + format_number(o.min_step) + " must be finite and >= 0");
  }
  if (o.min_step > o.max_step) {
    bad("min_step = " + format_number(o.min_step) + " exceeds max_step = " +
        format_number(o.max_step));
  }
  if (o.dt > 0.0 && o.dt < o.min_step) {
    bad("dt = " + format_number(o.dt) + " is below min_step = " + format_number(o.min_step));
  }
  if (o.max_order < 0 || o.max_order > max_order_limit) {
    bad("max_order = " + std::to_string(o.max_order) + " must be in 1.." +
        std::to_string(max_order_limit) + " (0 = " + std::to_string(max_order_limit) + ")");
  }
  if (o.jacobian != "exact" && o.jacobian != "dq") {
    bad("jacobian = \"" + o.jacobian + "\"; expected one of: exact dq");
  }
  if (std::isnan(o.stop_time)) bad("stop_time is NaN; expected a time or +inf");
}

std::string failure_message(const std::string& name, double t, double h, const char* flag,
                            const std::string& meaning, const CallbackStatus& status,
                            const MessageBuffer& sundials_message) {
  std::string msg = "integrator " + name + " failed at t = " + format_number(t) +
                    " s (step size h = " + format_number(h) + " s): " + flag + ": " + meaning +
                    status.cause();
  if (sundials_message.text[0] != '\0') {
    msg += " [SUNDIALS: ";
    msg += sundials_message.text.data();
    msg += "]";
  }
  return msg;
}

void check_setup(int flag, const char* call) {
  if (flag < 0) {
    throw std::runtime_error(std::string(call) + " failed with return code " +
                             std::to_string(flag));
  }
}


void check_output_request(const std::string& name, double tout, long out_size, long expected_size,
                          double stop_time, double t_start, double tn) {
  if (out_size != expected_size) {
    throw InputError("integrator " + name + ": advance_to: wrong output size: expected " +
                     std::to_string(expected_size) + ", got " + std::to_string(out_size));
  }
  if (!std::isfinite(tout)) {
    throw InputError("integrator " + name + ": advance_to: tout = " + format_number(tout) +
                     " must be finite");
  }
  if (tout > stop_time) {
    throw InputError("integrator " + name + ": advance_to: tout = " + format_number(tout) +
                     " s lies after stop_time = " + format_number(stop_time) + " s");
  }
  if (tout < t_start) {
    throw InputError("integrator " + name + ": tout = " + format_number(tout) +
                     " s lies before the last accepted step [" + format_number(t_start) +
                     ", " + format_number(tn) + "] s; output times must not decrease");
  }
}

void check_initial_request(const std::string& name, double t0, long z0_size, long expected_size,
                           double stop_time) {
  const std::string who = "integrator " + name + ": ";
  if (z0_size != expected_size) {
    throw InputError(who + "initialize: wrong state size: expected " +
                     std::to_string(expected_size) + " (system dimension), got " +
                     std::to_string(z0_size));
  }
  if (!std::isfinite(t0)) throw InputError(who + "t0 = " + format_number(t0) + " must be finite");
  if (t0 > stop_time) {
    throw InputError(who + "t0 = " + format_number(t0) + " lies after stop_time = " +
                     format_number(stop_time));
  }
}

void check_finite_output(const std::string& name, double t, double h, double tout, CVec z_out) {
  if (z_out.allFinite()) return;
  throw IntegrationError(t, "integrator " + name + " failed at t = " + format_number(t) +
                                " s (step size h = " + format_number(h) +
                                " s): non-finite state at the output time " + format_number(tout) +
                                " s");
}

double next_stop_time(const OdeSystem& system, double tn, double stop_time, bool& breakpoint) {
  const double next = system.next_breakpoint(tn);
  breakpoint = next < stop_time;
  return breakpoint ? next : stop_time;
}

}  // namespace gmbd::sundials_support
