// CredentialLifetimes: which tokens could authenticate when (docs/forensics.md, "Which tokens
// could have been used at 10:02?"). Pure: events in, no I/O.
//
// Folds the `target/<ns>/<name>` streams: CredentialIssued starts a credential's lifetime
// (keyed by the Secret's uid); CredentialSecretDeleted (recorded time),
// CredentialSecretDeletedExternally (the observed deletion time) and StaleCredentialsDeleted
// (recorded time) end the lifetimes of the Secrets they name, in any incarnation of the
// stream; TargetFinalized (recorded time) ends every lifetime of its incarnation still alive:
// the finalization pass deleted every labelled Secret of the Target (the ones it lists as
// "Secret/<name>"; any other was already gone) and the ServiceAccount the tokens belong to.
// A deletion of a Secret whose lifetime already ended changes nothing. Events of other
// streams and other types are ignored.
//
// A credential was valid at T when issued_at <= T < expires_at and its Secret was not deleted
// at or before T: a token bound to a Secret stops authenticating when the Secret is deleted.
// Fold the log up to its head, not only up to T: a deletion observed after T may have
// happened before it. The recorded time of credledger's own deletion is an upper bound of
// when the Secret went away, so the answer errs towards "still valid".
//
// Thread-safety: not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/state.pb.h"
#include "store/event_store.h"

namespace credledger::projections {

class CredentialLifetimes {
 public:
  // Folds `event` (any stream; events must come in seq order).
  // Errors: kDataLoss when a target-stream event does not decode.
  absl::Status Apply(const store::RecordedEvent& event);

  // The credentials valid at `at`, ordered by namespace, name, then issue seq; only the
  // Target `target_namespace`/`name` when both are non-empty, only the namespace when just
  // `target_namespace` is.
  std::vector<v1::CredentialLifetime> ValidAt(absl::Time at, absl::string_view target_namespace,
                                              absl::string_view name) const;
  // Every credential issued so far, in issue order.
  std::vector<v1::CredentialLifetime> All() const;

 private:
  // Ends the lifetimes at `alive` (an entry of alive_by_secret_uid_) and forgets them.
  void End(std::map<std::string, std::vector<size_t>>::iterator alive, absl::Time at,
           absl::string_view reason, int64_t seq);

  std::vector<v1::CredentialLifetime> lifetimes_;  // in issue order
  // Lifetimes whose Secret the log knows no deletion of, by Secret uid: indexes into
  // lifetimes_ (more than one only if a Secret was issued into twice).
  std::map<std::string, std::vector<size_t>> alive_by_secret_uid_;
};

// The words CredentialLifetime.deleted_reason uses for a credledger deletion: "superseded",
// "expired", "revoked", "target deleted", "mint abandoned"; "unspecified" for any other value.
std::string DeletionReasonWords(v1::SecretDeletionReason reason);

// (namespace, name) of a Target stream "target/<namespace>/<name>"; nullopt for any other
// stream.
std::optional<std::pair<std::string, std::string>> TargetOfTargetStream(absl::string_view stream);

}  // namespace credledger::projections
