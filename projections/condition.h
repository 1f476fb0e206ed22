// SetCondition: the one rule by which every projection updates a Kubernetes-style condition
// (metav1.Condition): lastTransitionTime moves only when the status changes.
//
// Thread-safety: a pure function.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/state.pb.h"
#include "projections/proto_time.h"

namespace credledger::projections {

// Sets `c` to `type`, `status`, `reason` and `message`; its last_transition_time moves to
// `at` only when the status changes (or it had none). Returns whether any field changed.
inline bool SetCondition(v1::Condition& c, absl::string_view type, absl::string_view status,
                         absl::string_view reason, absl::string_view message, absl::Time at) {
  if (c.type() == type && c.status() == status && c.reason() == reason &&
      c.message() == message && c.has_last_transition_time()) {
    return false;
  }
  if (c.status() != status || !c.has_last_transition_time()) {
    *c.mutable_last_transition_time() = ToProto(at);
  }
  c.set_type(std::string(type));
  c.set_status(std::string(status));
  c.set_reason(std::string(reason));
  c.set_message(std::string(message));  // `message` may be a view of c.message()
  return true;
}

}  // namespace credledger::projections
