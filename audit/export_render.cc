// Rendering of exported events and trailers as lines of the export formats (export_format.h;
// docs/audit.md, "Export").
#include <google/protobuf/util/json_util.h>

#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "audit/checkpoint_json.h"
#include "audit/export_format.h"
#include "audit/export_format_internal.h"
#include "common/sha256.h"
#include "common/status_macros.h"

namespace credledger::audit {
namespace {

// Compact JSON; kDataLoss when a text field is not valid UTF-8 (only the stream can be: the
// type is a known name and decoded protobuf strings are checked UTF-8).
absl::StatusOr<std::string> DumpEvent(const OrderedJson& json, int64_t seq) {
  try {
    return json.dump();
  } catch (const OrderedJson::type_error&) {
    return absl::DataLossError(absl::StrCat("event seq ", seq, ": stream is not valid UTF-8"));
  }
}

// ---- Events ----

// What the stored bytes decode to: the payload's protobuf JSON mapping (proto field names,
// primitive fields always printed), and the metadata's actor and request id.
struct Decoded {
  OrderedJson data;
  v1::EventMetadata metadata;
};

absl::StatusOr<Decoded> DecodeStored(const store::RecordedEvent& event,
                                     const store::EventCodec& codec) {
  ASSIGN_OR_RETURN(v1::Event decoded, codec.Decode(event));
  Decoded out;
  ASSIGN_OR_RETURN(out.metadata, store::EventCodec::DecodeMetadata(event));
  const google::protobuf::FieldDescriptor* field = decoded.GetReflection()->GetOneofFieldDescriptor(
      decoded, v1::Event::descriptor()->FindOneofByName("kind"));
  if (field == nullptr) {
    return absl::DataLossError(absl::StrCat("event seq ", event.seq, ": no event kind decoded"));
  }
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(
      decoded.GetReflection()->GetMessage(decoded, field), &json, options);
  if (!status.ok()) {
    return absl::DataLossError(absl::StrCat("event seq ", event.seq, ": ", event.type,
                                            " has no JSON form: ", status.message().as_string()));
  }
  out.data = OrderedJson::parse(json, nullptr, /*allow_exceptions=*/false);
  if (out.data.is_discarded()) {
    return absl::DataLossError(
        absl::StrCat("event seq ", event.seq, ": ", event.type, " JSON does not parse"));
  }
  return out;
}

// Writes the stored and derived fields under `keys`, in the kJsonLines order; integers as
// numbers or, when `int_strings`, as decimal strings.
void PutEventFields(const EventKeys& keys, bool int_strings, const store::RecordedEvent& event,
                    const Decoded& decoded, OrderedJson& out) {
  auto integer = [int_strings](int64_t value) {
    return int_strings ? OrderedJson(absl::StrCat(value)) : OrderedJson(value);
  };
  out[keys.seq] = integer(event.seq);
  out[keys.stream] = event.stream;
  out[keys.stream_version] = integer(event.stream_version);
  out[keys.event_id] = common::HexEncode(event.event_id);
  out[keys.type] = event.type;
  out[keys.schema_version] = integer(event.schema_version);
  out[keys.recorded_at] = FormatTime(event.recorded_at_us);
  out[keys.actor] = decoded.metadata.actor();
  out[keys.request_id] = decoded.metadata.request_id();
  out["data"] = decoded.data;
  out[keys.metadata] = absl::Base64Escape(event.metadata);
  out[keys.payload] = absl::Base64Escape(event.payload);
  out[keys.digest] = common::HexEncode(event.digest);
  out[keys.prev_chain_hash] = common::HexEncode(event.prev_chain_hash);
  out[keys.chain_hash] = common::HexEncode(event.chain_hash);
  out[keys.stream_hash] = common::HexEncode(event.stream_hash);
}

std::string CsvField(absl::string_view value) {
  if (value.find_first_of(",\"\r\n") == absl::string_view::npos) return std::string(value);
  return absl::StrCat("\"", absl::StrReplaceAll(value, {{"\"", "\"\""}}), "\"");
}

absl::StatusOr<std::string> RenderCsvRow(const store::RecordedEvent& event,
                                         const Decoded& decoded) {
  ASSIGN_OR_RETURN(std::string data, DumpEvent(decoded.data, event.seq));
  return absl::StrCat(event.seq, ",", FormatTime(event.recorded_at_us), ",", CsvField(event.stream),
                      ",", event.stream_version, ",", CsvField(event.type), ",",
                      CsvField(decoded.metadata.actor()), ",",
                      CsvField(decoded.metadata.request_id()), ",", CsvField(data), ",",
                      common::HexEncode(event.chain_hash), "\r\n");
}

// ---- Trailer: the protobuf JSON mapping (proto field names, primitive fields always
// printed, int64 as decimal strings, message fields only when set) with bytes as lowercase
// hex; version and lines_hash only when set, as in export_format.h. ----

std::string Int64Text(int64_t value) { return absl::StrCat(value); }

OrderedJson TrailerJson(const v1::ExportTrailer& t) {
  OrderedJson out = OrderedJson::object();
  // Left out when unset: a version 1 trailer has neither field.
  if (t.version() != 0) out["version"] = t.version();
  if (t.has_filter()) {
    const v1::ExportFilter& f = t.filter();
    OrderedJson& filter = out["filter"];
    filter["after_seq"] = Int64Text(f.after_seq());
    filter["until_seq"] = Int64Text(f.until_seq());
    filter["from_time_us"] = Int64Text(f.from_time_us());
    filter["to_time_us"] = Int64Text(f.to_time_us());
    filter["stream"] = f.stream();
    filter["stream_prefix"] = f.stream_prefix();
    filter["types"] = OrderedJson::array();
    for (const std::string& type : f.types()) filter["types"].push_back(type);
  }
  out["first_seq"] = Int64Text(t.first_seq());
  out["last_seq"] = Int64Text(t.last_seq());
  out["event_count"] = Int64Text(t.event_count());
  out["head_seq"] = Int64Text(t.head_seq());
  out["head_chain_hash"] = common::HexEncode(t.head_chain_hash());
  out["streams"] = OrderedJson::array();
  for (const v1::StreamHead& head : t.streams()) {
    OrderedJson stream = OrderedJson::object();
    stream["stream"] = head.stream();
    stream["stream_version"] = Int64Text(head.stream_version());
    stream["stream_hash"] = common::HexEncode(head.stream_hash());
    out["streams"].push_back(std::move(stream));
  }
  out["exported_at_us"] = Int64Text(t.exported_at_us());
  if (t.has_checkpoint()) out["checkpoint"] = CheckpointToJson(t.checkpoint());
  if (!t.lines_hash().empty()) out["lines_hash"] = common::HexEncode(t.lines_hash());
  out["key_id"] = t.key_id();
  out["signature"] = common::HexEncode(t.signature());
  return out;
}

// Invalid UTF-8 in a string field is replaced (U+FFFD), so such a trailer no longer verifies
// instead of failing to render.
std::string DumpTrailer(const OrderedJson& json) {
  return json.dump(-1, ' ', /*ensure_ascii=*/false, OrderedJson::error_handler_t::replace);
}

}  // namespace

std::string RenderHeader(ExportFormat format) {
  if (format != ExportFormat::kCsv) return "";
  return "seq,recorded_at,stream,stream_version,type,actor,request_id,data,chain_hash\r\n";
}

absl::StatusOr<std::string> RenderEvent(ExportFormat format, const store::RecordedEvent& event,
                                        const store::EventCodec& codec) {
  ASSIGN_OR_RETURN(Decoded decoded, DecodeStored(event, codec));
  OrderedJson line = OrderedJson::object();
  switch (format) {
    case ExportFormat::kJsonLines:
      PutEventFields(kJsonLinesKeys, /*int_strings=*/false, event, decoded, line);
      break;
    case ExportFormat::kCloudEvents:
      line["specversion"] = kSpecVersion;
      line["id"] = common::HexEncode(event.event_id);
      line["source"] = kSource;
      line["type"] = event.type;
      line["time"] = FormatTime(event.recorded_at_us);
      line["subject"] = event.stream;
      line["datacontenttype"] = kContentType;
      PutEventFields(kCloudEventKeys, /*int_strings=*/true, event, decoded, line);
      break;
    case ExportFormat::kCsv:
      return RenderCsvRow(event, decoded);
  }
  return DumpEvent(line, event.seq);
}

std::string RenderTrailer(ExportFormat format, const v1::ExportTrailer& trailer) {
  switch (format) {
    case ExportFormat::kJsonLines: {
      OrderedJson line = OrderedJson::object();
      line["trailer"] = TrailerJson(trailer);
      return DumpTrailer(line);
    }
    case ExportFormat::kCloudEvents: {
      const OrderedJson data = TrailerJson(trailer);
      OrderedJson line = OrderedJson::object();
      line["specversion"] = kSpecVersion;
      line["id"] = absl::StrCat("trailer-", common::Sha256HexPrefix(DumpTrailer(data), 32));
      line["source"] = kSource;
      line["type"] = kTrailerType;
      line["time"] = FormatTime(trailer.exported_at_us());
      line["datacontenttype"] = kContentType;
      line["data"] = data;
      return DumpTrailer(line);
    }
    case ExportFormat::kCsv:
      return "";
  }
  return "";
}

}  // namespace credledger::audit
