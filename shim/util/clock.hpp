#pragma once
// The two clocks a run is measured by: the monotonic one for durations (wall_s), the real one for
// when it started (start_unix).
#include <time.h>

namespace util {

inline long long monotonic_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

inline double epoch_seconds() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

}  // namespace util
