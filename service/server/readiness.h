// Readiness: the named checks behind GET /readyz (docs/operations.md, "Metrics and health").
// The service is ready when every check passes, in the order they were added; the first failing
// one gives the reason. A check is a function returning OK or the reason it fails; a gate is a
// check that fails with a fixed reason until it is opened (start-up stages such as
// "the log is open"). Further conditions (a Lease fence) are added as more named checks.
// A notice is a check that never makes the service unready: it names a condition a ready
// service is in, which /readyz shows (reports refused for lack of space).
//
// Thread-safety: all methods are thread-safe. Checks run on the thread that calls Evaluate,
// must be thread-safe and must not block.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace credledger::service {

class Readiness {
 public:
  // Returns OK when ready, otherwise any error whose message is the reason.
  using Check = std::function<absl::Status()>;

  // Adds check `name`, evaluated after those added before.
  void AddCheck(std::string name, Check check);
  // Adds a closed gate `name` that fails with `pending` (the reason) until OpenGate(name).
  void AddGate(std::string name, std::string pending);
  // Opens gate `name`; no effect when there is no such gate.
  void OpenGate(absl::string_view name);

  // Adds notice `name`: `check` returns OK when there is nothing to say, otherwise any error
  // whose message is the notice.
  void AddNotice(std::string name, Check check);

  // "<name>: <message>" of every notice whose check fails, in the order they were added.
  std::vector<std::string> Notices() const;

  // OK when every check passes; otherwise kUnavailable with the message
  // "<name>: <reason>" of the first failing check.
  absl::Status Evaluate() const;

 private:
  struct Gate {
    std::string name;
    std::atomic<bool> open{false};
  };
  struct NamedCheck {
    std::string name;
    Check check;
  };

  mutable absl::Mutex mu_;
  std::vector<NamedCheck> checks_ ABSL_GUARDED_BY(mu_);
  std::vector<NamedCheck> notices_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Gate>> gates_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::service
