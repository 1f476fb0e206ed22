// A wait with a deadline on a TlsFileGuard's counters (service/server/tls_file_guard.h), for tests
// that change the TLS files and need the guard's next checks to have run.
#pragma once

#include <cstdint>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "service/server/tls_file_guard.h"

namespace credledger::testing {

// Waits until `counter` of `guard` (TlsFileGuard::refused or ::published) reaches `goal`,
// polling every 20 ms. Returns false when it has not after 20 s.
inline bool AwaitTlsFileGuardCount(const service::TlsFileGuard& guard,
                                   int64_t (service::TlsFileGuard::*counter)() const,
                                   int64_t goal) {
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while ((guard.*counter)() < goal) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

}  // namespace credledger::testing
