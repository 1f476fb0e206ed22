#include "store/event_codec.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "absl/strings/str_cat.h"

namespace credledger::store {

namespace pb = google::protobuf;

std::string SerializeDeterministic(const pb::Message& message) {
  // Sized first, so that the string holds the bytes and no spare capacity (the projections
  // keep states in this form).
  std::string out(message.ByteSizeLong(), '\0');
  {
    pb::io::ArrayOutputStream array(out.data(), static_cast<int>(out.size()));
    pb::io::CodedOutputStream coded(&array);
    coded.SetSerializationDeterministic(true);
    message.SerializeWithCachedSizes(&coded);
  }
  return out;
}

EventCodec::EventCodec() {
  const pb::OneofDescriptor* kind = v1::Event::descriptor()->FindOneofByName("kind");
  for (int i = 0; i < kind->field_count(); ++i) {
    const pb::Descriptor* type = kind->field(i)->message_type();
    known_[type->full_name()] = type->options().GetExtension(v1::event_schema_version);
    cases_[type->full_name()] = kind->field(i);
  }
}

EventCodec::EventCodec(const std::map<std::string, uint32_t>& current_versions) : EventCodec() {
  for (const auto& [type, version] : current_versions) known_[type] = version;
}

const EventCodec& EventCodec::Default() {
  static const EventCodec* codec = [] {
    auto* c = new EventCodec();
    // Version 2 of these adds source_fingerprint beside the plain source_hash of version 1,
    // which stays readable: a version 1 payload is a version 2 payload as it is
    // (docs/mirrors.md, "Logs with plain source hashes").
    for (const char* type : {"credledger.v1.SourceSecretObserved", "credledger.v1.MirrorWritten"}) {
      c->RegisterUpcaster(type, 1, [](absl::string_view payload) -> absl::StatusOr<std::string> {
        return std::string(payload);
      });
    }
    return c;
  }();
  return *codec;
}

void EventCodec::RegisterUpcaster(std::string type, uint32_t from_version, Upcaster upcaster) {
  upcasters_[{std::move(type), from_version}] = std::move(upcaster);
}

absl::StatusOr<NewEvent> EventCodec::Encode(const v1::Event& event,
                                            const v1::EventMetadata& metadata) const {
  const pb::Reflection* reflection = event.GetReflection();
  const pb::FieldDescriptor* field = reflection->GetOneofFieldDescriptor(
      event, v1::Event::descriptor()->FindOneofByName("kind"));
  if (field == nullptr) return absl::InvalidArgumentError("event: no event kind is set");
  const pb::Message& payload = reflection->GetMessage(event, field);
  NewEvent out;
  out.type = payload.GetDescriptor()->full_name();
  out.schema_version = known_.at(out.type);
  out.metadata = SerializeDeterministic(metadata);
  out.payload = SerializeDeterministic(payload);
  return out;
}

absl::StatusOr<v1::Event> EventCodec::Decode(const RecordedEvent& event) const {
  v1::Event out;
  absl::Status decoded = DecodeInto(event, out);
  if (!decoded.ok()) return decoded;
  return out;
}

absl::Status EventCodec::DecodeInto(const RecordedEvent& event, v1::Event& out) const {
  auto known = known_.find(event.type);
  if (known == known_.end()) {
    return absl::DataLossError(
        absl::StrCat("event seq ", event.seq, ": unknown event type \"", event.type, "\""));
  }
  if (event.schema_version > known->second) {
    return absl::DataLossError(absl::StrCat("event seq ", event.seq, ": ", event.type,
                                            " schema version ", event.schema_version,
                                            " is newer than this binary's ", known->second));
  }
  absl::string_view payload = event.payload;
  std::string upcast;  // the payload after the last upcasting step, when there was one
  for (uint32_t v = event.schema_version; v < known->second; ++v) {
    auto upcaster = upcasters_.find({event.type, v});
    if (upcaster == upcasters_.end()) {
      return absl::DataLossError(absl::StrCat("event seq ", event.seq, ": no upcaster for ",
                                              event.type, " from schema version ", v));
    }
    absl::StatusOr<std::string> next = upcaster->second(payload);
    if (!next.ok()) {
      return absl::DataLossError(absl::StrCat("event seq ", event.seq, ": upcasting ",
                                              event.type, " from version ", v, ": ",
                                              next.status().message()));
    }
    upcast = *std::move(next);
    payload = upcast;
  }
  auto field = cases_.find(event.type);
  if (field == cases_.end()) {
    out.Clear();
    return absl::OkStatus();
  }
  pb::Message* message = out.GetReflection()->MutableMessage(&out, field->second);
  if (!message->ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    return absl::DataLossError(
        absl::StrCat("event seq ", event.seq, ": payload of ", event.type, " does not parse"));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::EventMetadata> EventCodec::DecodeMetadata(const RecordedEvent& event) {
  v1::EventMetadata metadata;
  if (!metadata.ParseFromString(event.metadata)) {
    return absl::DataLossError(
        absl::StrCat("event seq ", event.seq, ": metadata does not parse"));
  }
  return metadata;
}

absl::Status EventCodec::CheckStoredTypes(const std::map<std::string, int64_t>& stored) const {
  for (const auto& [type, version] : stored) {
    auto known = known_.find(type);
    if (known == known_.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the log holds events of type \"", type,
          "\", which this binary does not know: it was written by a newer credledger; "
          "run that version or newer"));
    }
    if (version > known->second) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the log holds ", type, " events of schema version ", version,
          ", newer than this binary's ", known->second,
          ": it was written by a newer credledger; run that version or newer"));
    }
  }
  return absl::OkStatus();
}

}  // namespace credledger::store
