// What the command bus does first and last with a request id (docs/design.md, "Idempotency";
// docs/api.md, "Request ids and idempotency"): find the events an earlier request with the same
// id appended, refuse the id when that request was a different one, and stamp new events with
// the command's metadata.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "google/protobuf/message.h"
#include "store/event_store.h"

namespace credledger::service {

// Lowercase hex SHA-256 (64 characters) of `request` in deterministic protobuf encoding (map
// entries sorted by key). Two requests of one type have the same digest exactly when every
// field is equal, request_id included. Stored as EventMetadata.request_digest.
std::string RequestDigest(const google::protobuf::Message& request);

// A mutating call's idempotency key: the request id and the RequestDigest of the request.
struct RequestKey {
  std::string id;
  std::string digest;  // empty for the service's own commands: not compared
};

// {request.request_id(), RequestDigest(request)}; `Request` is an API request message with a
// request_id field.
template <typename Request>
RequestKey KeyOf(const Request& request) {
  return {request.request_id(), RequestDigest(request)};
}

// The events an earlier request with `request_id` appended, read inside `tx`; nullopt when
// none. `stream` is the stream the command addresses first, `command` its name
// (CommandName, IdentityCommandName, ...), `request_digest` the RequestDigest of the client's
// request (empty for the service's own commands).
// Errors: kFailedPrecondition when that request was another command, addressed another
// stream, or, when both digests are known, was a different request (a retry must repeat its
// request exactly); kDataLoss when its metadata does not decode; store read errors.
absl::StatusOr<std::optional<std::vector<store::RecordedEvent>>> FindPriorRequest(
    store::WriteTransaction& tx, absl::string_view request_id, absl::string_view request_digest,
    absl::string_view stream, absl::string_view command);

// The metadata of events appended by `command` on behalf of `actor` under `request_id`, whose
// request has digest `request_digest` (empty for the service's own commands): no correlation
// id or causation seq.
v1::EventMetadata CommandMetadata(absl::string_view actor, absl::string_view request_id,
                                  absl::string_view request_digest, absl::string_view command);

// The correlation id of `event` in its metadata: the attempt id of a credential mint step
// (CredentialMintRequested through CredentialMintAbandoned; docs/credentials.md); empty for
// every other event.
std::string CorrelationIdOf(const v1::Event& event);

}  // namespace credledger::service
