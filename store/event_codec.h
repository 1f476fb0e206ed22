// EventCodec: between the typed events of proto/credledger/v1/events.proto and the stored
// bytes of the log.
//
// The known event types are the message cases of `credledger.v1.Event`; each message states
// its current schema version in the `event_schema_version` option. Stored events of an older
// schema version pass through registered upcasters, one version step at a time, when decoded
// (docs/design.md, "Schema evolution").
//
// Thread-safety: const methods are safe from any thread once registration is done.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "store/event_store.h"

namespace credledger::store {

class EventCodec {
 public:
  // Turns a payload stored at schema version `from` into the payload of version `from + 1`.
  using Upcaster = absl::AnyInvocable<absl::StatusOr<std::string>(absl::string_view) const>;

  // Known types and their current schema versions from events.proto.
  EventCodec();
  // Known types from events.proto with some current versions replaced by `current_versions`
  // (type → version); lets tests exercise upcasting before a real version 2 exists.
  explicit EventCodec(const std::map<std::string, uint32_t>& current_versions);

  // The codec with the upcasters of every released schema change: SourceSecretObserved and
  // MirrorWritten from version 1 (a plain source hash) to 2 (a source fingerprint).
  static const EventCodec& Default();

  // Registers the step from `from_version` to `from_version + 1` of `type`.
  void RegisterUpcaster(std::string type, uint32_t from_version, Upcaster upcaster);

  // Fully qualified type name → current schema version, for every known event type.
  const std::map<std::string, uint32_t>& known_types() const { return known_; }

  // Serializes the set case of `event` (deterministically) with `metadata`.
  // Errors: kInvalidArgument when no case is set.
  absl::StatusOr<NewEvent> Encode(const v1::Event& event, const v1::EventMetadata& metadata) const;

  // Parses a stored event into its typed form, upcasting older schema versions.
  // Errors: kDataLoss for an unknown type, a newer schema version than known, a missing
  // upcaster, or bytes that do not parse.
  absl::StatusOr<v1::Event> Decode(const RecordedEvent& event) const;
  // Decode into `out`, whose memory is reused (a fold decoding event after event into one
  // message allocates little). Errors: those of Decode; `out` is then unspecified.
  absl::Status DecodeInto(const RecordedEvent& event, v1::Event& out) const;
  // Parses the stored metadata. Errors: kDataLoss when the bytes do not parse.
  static absl::StatusOr<v1::EventMetadata> DecodeMetadata(const RecordedEvent& event);

  // Checks a log's stored types (type → highest stored schema version) against the known
  // ones. Errors: kFailedPrecondition naming the first unknown type or newer version, so a
  // downgraded binary refuses to run on the log.
  absl::Status CheckStoredTypes(const std::map<std::string, int64_t>& stored) const;

 private:
  std::map<std::string, uint32_t> known_;
  // Fully qualified type name → its case of the `kind` oneof of v1::Event.
  absl::flat_hash_map<std::string, const google::protobuf::FieldDescriptor*> cases_;
  std::map<std::pair<std::string, uint32_t>, Upcaster> upcasters_;
};

// Serializes `message` with deterministic field order, into a string without spare capacity.
std::string SerializeDeterministic(const google::protobuf::Message& message);

}  // namespace credledger::store
