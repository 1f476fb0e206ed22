#include "service/server/service_configuration.h"

#include <google/protobuf/util/message_differencer.h>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kubebridge/model/outcomes.h"
#include "store/event_codec.h"

namespace credledger::service {

std::optional<v1::ServiceConfigured> DecideServiceConfigured(
    const std::optional<v1::ServiceConfigured>& last, const v1::ServiceConfigured& current) {
  if (last.has_value() && google::protobuf::util::MessageDifferencer::Equals(*last, current)) {
    return std::nullopt;
  }
  return current;
}

absl::StatusOr<bool> RecordServiceConfiguration(store::EventStore& store,
                                                const v1::ServiceConfigured& current,
                                                absl::string_view actor) {
  const store::EventCodec& codec = store::EventCodec::Default();
  bool appended = false;
  RETURN_IF_ERROR(store.Execute([&](store::WriteTransaction& tx) -> absl::Status {
    ASSIGN_OR_RETURN(int64_t version, tx.StreamVersion(kServiceStream));
    std::optional<v1::ServiceConfigured> last;
    if (version >= 0) {
      ASSIGN_OR_RETURN(auto events, tx.ReadStream(kServiceStream, version));
      ASSIGN_OR_RETURN(v1::Event event, codec.Decode(events.back()));
      if (event.has_service_configured()) last = event.service_configured();
    }
    std::optional<v1::ServiceConfigured> decided = DecideServiceConfigured(last, current);
    if (!decided.has_value()) return absl::OkStatus();

    v1::Event event;
    *event.mutable_service_configured() = *decided;
    // The request id names the stream position, so a start-up retried after a crash finds
    // its own event instead of appending a second one.
    std::string request_id =
        absl::StrCat(kubebridge::kServiceRequestIdPrefix, "service-configured/", version + 1);
    v1::EventMetadata metadata;
    metadata.set_actor(std::string(actor));
    metadata.set_request_id(request_id);
    ASSIGN_OR_RETURN(store::NewEvent encoded, codec.Encode(event, metadata));
    ASSIGN_OR_RETURN(store::AppendResult result,
                     tx.Append({request_id, {{std::string(kServiceStream),
                                              store::ExpectedVersion::Exactly(version),
                                              {std::move(encoded)}}}}));
    appended = !result.replayed;
    return absl::OkStatus();
  }));
  return appended;
}

}  // namespace credledger::service
