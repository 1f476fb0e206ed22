#include "service/bus/prior_request.h"

#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "store/event_codec.h"

namespace credledger::service {

std::string RequestDigest(const google::protobuf::Message& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&coded);
  }
  return common::HexEncode(common::Sha256Of(bytes));
}

absl::StatusOr<std::optional<std::vector<store::RecordedEvent>>> FindPriorRequest(
    store::WriteTransaction& tx, absl::string_view request_id, absl::string_view request_digest,
    absl::string_view stream, absl::string_view command) {
  using Events = std::vector<store::RecordedEvent>;
  ASSIGN_OR_RETURN(Events prior, tx.FindRequest(request_id));
  if (prior.empty()) return std::optional<Events>();
  ASSIGN_OR_RETURN(v1::EventMetadata first, store::EventCodec::DecodeMetadata(prior.front()));
  if (prior.front().stream != stream || first.command() != command) {
    return absl::FailedPreconditionError(
        absl::StrCat("request_id \"", request_id, "\" was already used for ", first.command(),
                     " on ", prior.front().stream, "; use a new request id"));
  }
  if (!request_digest.empty() && !first.request_digest().empty() &&
      first.request_digest() != request_digest) {
    return absl::FailedPreconditionError(absl::StrCat(
        "request_id \"", request_id, "\" was already used for a ", first.command(), " on ",
        prior.front().stream,
        " whose other fields differ; a retry must repeat its request exactly, and a new "
        "request needs a new request id"));
  }
  return std::optional<Events>(std::move(prior));
}

v1::EventMetadata CommandMetadata(absl::string_view actor, absl::string_view request_id,
                                  absl::string_view request_digest, absl::string_view command) {
  v1::EventMetadata metadata;
  metadata.set_actor(std::string(actor));
  metadata.set_request_id(std::string(request_id));
  metadata.set_command(std::string(command));
  metadata.set_request_digest(std::string(request_digest));
  return metadata;
}

std::string CorrelationIdOf(const v1::Event& event) {
  switch (event.kind_case()) {
    case v1::Event::kCredentialMintRequested:
      return event.credential_mint_requested().attempt_id();
    case v1::Event::kStaleCredentialsDeleted:
      return event.stale_credentials_deleted().attempt_id();
    case v1::Event::kCredentialSecretCreated:
      return event.credential_secret_created().attempt_id();
    case v1::Event::kCredentialIssued:
      return event.credential_issued().attempt_id();
    case v1::Event::kCredentialMintFailed:
      return event.credential_mint_failed().attempt_id();
    case v1::Event::kCredentialMintAbandoned:
      return event.credential_mint_abandoned().attempt_id();
    default:
      return "";
  }
}

}  // namespace credledger::service
