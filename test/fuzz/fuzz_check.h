// Property checks for the fuzz targets: a broken property prints what was expected and
// aborts, which libFuzzer reports as a crash and saves the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::fuzz {

// Aborts with `what` (and `status` when not OK) unless `condition` holds.
inline void FuzzCheck(bool condition, absl::string_view what,
                      const absl::Status& status = absl::OkStatus()) {
  if (condition) return;
  std::fprintf(stderr, "fuzz property broken: %s %s\n", std::string(what).c_str(),
               status.ok() ? "" : status.ToString().c_str());
  std::abort();
}

// Aborts unless `status` is OK or has one of the codes `allowed` (what the function under
// test documents).
inline void CheckDocumentedError(const absl::Status& status,
                                 std::initializer_list<absl::StatusCode> allowed,
                                 absl::string_view function) {
  if (status.ok()) return;
  for (absl::StatusCode code : allowed) {
    if (status.code() == code) {
      FuzzCheck(!status.message().empty(), std::string(function) + ": error without a message");
      return;
    }
  }
  FuzzCheck(false, std::string(function) + ": undocumented error code", status);
}

}  // namespace credledger::fuzz
