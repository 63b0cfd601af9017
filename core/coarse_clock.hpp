// A monotonic clock read in a few nanoseconds at millisecond resolution, for checks made once per
// output row (progress messages, flush timers) where steady_clock's ≈ 25 ns would show.
#pragma once

#include <time.h>

#include <chrono>

namespace gmbd {

/// std::chrono clock over CLOCK_MONOTONIC_COARSE (Linux: the tick of the last timer interrupt,
/// 1–4 ms resolution, no hardware counter read). Good for "has a second passed?", not for timing.
struct CoarseClock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<CoarseClock>;
  static constexpr bool is_steady = true;

  static time_point now() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
  }
};

}  // namespace gmbd
