#include "audit/export_format.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "common/sha256.h"
#include "common/status_macros.h"

namespace credledger::audit {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr char kTrailerType[] = "credledger.v1.ExportTrailer";
constexpr char kSource[] = "/credledger";
constexpr char kSpecVersion[] = "1.0";
constexpr char kContentType[] = "application/json";
// RFC 3339 in UTC with exactly 6 fractional digits: "2026-12-01T10:02:03.000450Z".
constexpr char kTimeFormat[] = "%Y-%m-%dT%H:%M:%E6SZ";

// The keys of an event's stored and derived fields in one format.
struct EventKeys {
  const char* seq;
  const char* stream;
  const char* stream_version;
  const char* event_id;
  const char* type;
  const char* schema_version;
  const char* recorded_at;
  const char* actor;
  const char* request_id;
  const char* metadata;
  const char* payload;
  const char* digest;
  const char* prev_chain_hash;
  const char* chain_hash;
  const char* stream_hash;
};

constexpr EventKeys kJsonLinesKeys = {
    "seq", "stream", "stream_version", "event_id", "type", "schema_version", "recorded_at",
    "actor", "request_id", "metadata_b64", "payload_b64", "digest", "prev_chain_hash",
    "chain_hash", "stream_hash"};
// CloudEvents: the core attributes id, type, time and subject where they fit, otherwise
// extension attributes (lowercase letters and digits, at most 20 characters).
constexpr EventKeys kCloudEventKeys = {
    "seq", "subject", "streamversion", "id", "type", "schemaversion", "time",
    "actor", "requestid", "metadatab64", "payloadb64", "digest", "prevchainhash",
    "chainhash", "streamhash"};

std::string FormatTime(int64_t unix_micros) {
  return absl::FormatTime(kTimeFormat, absl::FromUnixMicros(unix_micros), absl::UTCTimeZone());
}

// Accepts exactly the shape FormatTime writes.
bool ParseTime(absl::string_view text, int64_t* unix_micros) {
  absl::Time t;
  std::string error;
  if (!absl::ParseTime("%Y-%m-%dT%H:%M:%E*SZ", text, absl::UTCTimeZone(), &t, &error)) {
    return false;
  }
  *unix_micros = absl::ToUnixMicros(t);
  return FormatTime(*unix_micros) == text;
}

bool IsLowerHex(absl::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
  });
}

// Standard base64 with padding, in its one canonical spelling (no whitespace, no missing
// padding, zero spare bits).
bool DecodeBase64(absl::string_view text, std::string* out) {
  return absl::Base64Unescape(text, out) && absl::Base64Escape(*out) == text;
}

// An optional '-' and 1 to 19 decimal digits within the int64 range.
bool ParseDecimal(absl::string_view text, int64_t* out) {
  absl::string_view digits = text;
  if (!digits.empty() && digits.front() == '-') digits.remove_prefix(1);
  return !digits.empty() && digits.size() <= 19 &&
         std::all_of(digits.begin(), digits.end(),
                     [](char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); }) &&
         absl::SimpleAtoi(text, out);
}

// Reads the typed fields of one JSON object. The first missing or malformed field becomes
// status() (kInvalidArgument naming the field as `prefix` + key, and the rule); every read
// after it returns an empty value.
class FieldReader {
 public:
  FieldReader(const Json& object, std::string prefix)
      : object_(object), prefix_(std::move(prefix)) {}

  const absl::Status& status() const { return status_; }

  std::string String(const char* key) {
    const Json* value = Find(key);
    if (value == nullptr) return "";
    if (value->is_string()) return value->get<std::string>();
    Fail(key, "expected a string");
    return "";
  }

  // An integer number or a decimal string (the protobuf JSON mapping prints int64 as one).
  int64_t Int64(const char* key) {
    const Json* value = Find(key);
    if (value == nullptr) return 0;
    int64_t out = 0;
    if (value->is_number_unsigned()) {
      if (value->get<uint64_t>() <= uint64_t{std::numeric_limits<int64_t>::max()}) {
        return value->get<int64_t>();
      }
    } else if (value->is_number_integer()) {
      return value->get<int64_t>();
    } else if (value->is_string() && ParseDecimal(value->get<std::string>(), &out)) {
      return out;
    }
    Fail(key, "expected a 64-bit integer (a number or a decimal string)");
    return 0;
  }

  uint32_t Uint32(const char* key) {
    const int64_t value = Int64(key);
    if (value < 0 || value > int64_t{std::numeric_limits<uint32_t>::max()}) {
      Fail(key, "expected an unsigned 32-bit integer");
      return 0;
    }
    return static_cast<uint32_t>(value);
  }

  // Lowercase hex of `bytes` bytes; any even number of characters when `bytes` is 0.
  std::string Hex(const char* key, size_t bytes) {
    const std::string text = String(key);
    std::string out;
    const bool length_ok = bytes == 0 ? text.size() % 2 == 0 : text.size() == 2 * bytes;
    if (length_ok && IsLowerHex(text) && common::HexDecode(text, &out)) return out;
    Fail(key, bytes == 0 ? std::string("expected lowercase hex")
                         : absl::StrCat("expected ", 2 * bytes, " lowercase hex characters"));
    return "";
  }

  std::string Base64(const char* key) {
    const std::string text = String(key);
    std::string out;
    if (DecodeBase64(text, &out)) return out;
    Fail(key, "expected standard base64 with padding");
    return "";
  }

  int64_t TimeMicros(const char* key) {
    const std::string text = String(key);
    int64_t out = 0;
    if (ParseTime(text, &out)) return out;
    Fail(key, "expected an RFC 3339 UTC time with 6 fractional digits");
    return 0;
  }

  // The object or array at `key`; nullptr when missing, of another type, or after a failure.
  const Json* Object(const char* key) { return Typed(key, Json::value_t::object, "an object"); }
  const Json* Array(const char* key) { return Typed(key, Json::value_t::array, "an array"); }

  // The string at `key` must be `expected`.
  void Expect(const char* key, absl::string_view expected) {
    if (String(key) != expected && status_.ok()) {
      Fail(key, absl::StrCat("expected \"", expected, "\""));
    }
  }

  void Fail(absl::string_view key, absl::string_view rule) {
    if (!status_.ok()) return;
    status_ = absl::InvalidArgumentError(absl::StrCat("field \"", prefix_, key, "\": ", rule));
  }

 private:
  const Json* Find(const char* key) {
    if (!status_.ok()) return nullptr;
    auto it = object_.find(key);
    if (it != object_.end()) return &*it;
    Fail(key, "missing");
    return nullptr;
  }

  const Json* Typed(const char* key, Json::value_t type, const char* expected) {
    const Json* value = Find(key);
    if (value == nullptr || value->type() == type) return value;
    Fail(key, absl::StrCat("expected ", expected));
    return nullptr;
  }

  const Json& object_;
  const std::string prefix_;
  absl::Status status_;
};

absl::StatusOr<Json> ParseObject(absl::string_view line) {
  Json json = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError("the line is not a JSON object");
  }
  return json;
}

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

absl::StatusOr<ExportRecord> ParseEvent(const Json& json, const EventKeys& keys) {
  FieldReader in(json, "");
  ExportRecord out;
  store::RecordedEvent& e = out.event;
  e.seq = in.Int64(keys.seq);
  e.stream = in.String(keys.stream);
  e.stream_version = in.Int64(keys.stream_version);
  e.event_id = in.Hex(keys.event_id, 16);
  e.type = in.String(keys.type);
  e.schema_version = in.Uint32(keys.schema_version);
  e.recorded_at_us = in.TimeMicros(keys.recorded_at);
  out.actor = in.String(keys.actor);
  out.request_id = in.String(keys.request_id);
  if (const Json* data = in.Object("data")) out.data = *data;
  e.metadata = in.Base64(keys.metadata);
  e.payload = in.Base64(keys.payload);
  e.digest = in.Hex(keys.digest, 32);
  e.prev_chain_hash = in.Hex(keys.prev_chain_hash, 32);
  e.chain_hash = in.Hex(keys.chain_hash, 32);
  e.stream_hash = in.Hex(keys.stream_hash, 32);
  RETURN_IF_ERROR(in.status());
  return out;
}

// ---- Trailer: the protobuf JSON mapping (proto field names, primitive fields always
// printed, int64 as decimal strings, message fields only when set) with bytes as lowercase
// hex. ----

std::string Int64Text(int64_t value) { return absl::StrCat(value); }

OrderedJson TrailerJson(const v1::ExportTrailer& t) {
  OrderedJson out = OrderedJson::object();
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
  if (t.has_checkpoint()) {
    const v1::Checkpoint& c = t.checkpoint();
    OrderedJson& checkpoint = out["checkpoint"];
    checkpoint["seq"] = Int64Text(c.seq());
    checkpoint["chain_hash"] = common::HexEncode(c.chain_hash());
    checkpoint["signed_at_us"] = Int64Text(c.signed_at_us());
    checkpoint["key_id"] = c.key_id();
    checkpoint["signature"] = common::HexEncode(c.signature());
  }
  out["key_id"] = t.key_id();
  out["signature"] = common::HexEncode(t.signature());
  return out;
}

// Invalid UTF-8 in a string field is replaced (U+FFFD), so such a trailer no longer verifies
// instead of failing to render.
std::string DumpTrailer(const OrderedJson& json) {
  return json.dump(-1, ' ', /*ensure_ascii=*/false, OrderedJson::error_handler_t::replace);
}

absl::Status ParseFilter(const Json& json, const std::string& path, v1::ExportFilter& f) {
  FieldReader in(json, path);
  f.set_after_seq(in.Int64("after_seq"));
  f.set_until_seq(in.Int64("until_seq"));
  f.set_from_time_us(in.Int64("from_time_us"));
  f.set_to_time_us(in.Int64("to_time_us"));
  f.set_stream(in.String("stream"));
  f.set_stream_prefix(in.String("stream_prefix"));
  if (const Json* types = in.Array("types")) {
    for (size_t i = 0; i < types->size(); ++i) {
      if (!(*types)[i].is_string()) in.Fail(absl::StrCat("types[", i, "]"), "expected a string");
      if (!in.status().ok()) break;
      f.add_types((*types)[i].get<std::string>());
    }
  }
  return in.status();
}

absl::Status ParseStreamHead(const Json& json, const std::string& path, v1::StreamHead& head) {
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("field \"", path, "\": expected an object"));
  }
  FieldReader in(json, path + ".");
  head.set_stream(in.String("stream"));
  head.set_stream_version(in.Int64("stream_version"));
  head.set_stream_hash(in.Hex("stream_hash", 0));
  return in.status();
}

absl::Status ParseCheckpoint(const Json& json, const std::string& path, v1::Checkpoint& c) {
  FieldReader in(json, path);
  c.set_seq(in.Int64("seq"));
  c.set_chain_hash(in.Hex("chain_hash", 0));
  c.set_signed_at_us(in.Int64("signed_at_us"));
  c.set_key_id(in.String("key_id"));
  c.set_signature(in.Hex("signature", 0));
  return in.status();
}

// `path` names the trailer object in errors ("trailer", "data").
absl::StatusOr<v1::ExportTrailer> ParseTrailer(const Json& json, const std::string& path) {
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("field \"", path, "\": expected an object"));
  }
  const std::string prefix = path + ".";
  FieldReader in(json, prefix);
  v1::ExportTrailer t;
  if (json.contains("filter")) {
    if (const Json* filter = in.Object("filter")) {
      RETURN_IF_ERROR(ParseFilter(*filter, prefix + "filter.", *t.mutable_filter()));
    }
  }
  t.set_first_seq(in.Int64("first_seq"));
  t.set_last_seq(in.Int64("last_seq"));
  t.set_event_count(in.Int64("event_count"));
  t.set_head_seq(in.Int64("head_seq"));
  t.set_head_chain_hash(in.Hex("head_chain_hash", 0));
  if (const Json* streams = in.Array("streams")) {
    for (size_t i = 0; i < streams->size(); ++i) {
      RETURN_IF_ERROR(ParseStreamHead((*streams)[i], absl::StrCat(prefix, "streams[", i, "]"),
                                      *t.add_streams()));
    }
  }
  t.set_exported_at_us(in.Int64("exported_at_us"));
  if (json.contains("checkpoint")) {
    if (const Json* checkpoint = in.Object("checkpoint")) {
      RETURN_IF_ERROR(
          ParseCheckpoint(*checkpoint, prefix + "checkpoint.", *t.mutable_checkpoint()));
    }
  }
  t.set_key_id(in.String("key_id"));
  t.set_signature(in.Hex("signature", 0));
  RETURN_IF_ERROR(in.status());
  return t;
}

absl::StatusOr<ExportLine> ParseJsonLinesLine(const Json& json) {
  if (!json.contains("trailer")) {
    ASSIGN_OR_RETURN(ExportRecord record, ParseEvent(json, kJsonLinesKeys));
    return record;
  }
  if (json.size() != 1) {
    return absl::InvalidArgumentError("a trailer line holds only the field \"trailer\"");
  }
  ASSIGN_OR_RETURN(v1::ExportTrailer trailer, ParseTrailer(json["trailer"], "trailer"));
  return trailer;
}

absl::StatusOr<ExportLine> ParseCloudEventLine(const Json& json) {
  FieldReader in(json, "");
  in.Expect("specversion", kSpecVersion);
  const std::string type = in.String("type");
  RETURN_IF_ERROR(in.status());
  if (type != kTrailerType) {
    ASSIGN_OR_RETURN(ExportRecord record, ParseEvent(json, kCloudEventKeys));
    return record;
  }
  const Json* data = in.Object("data");
  RETURN_IF_ERROR(in.status());
  ASSIGN_OR_RETURN(v1::ExportTrailer trailer, ParseTrailer(*data, "data"));
  return trailer;
}

}  // namespace

absl::StatusOr<ExportFormat> ParseExportFormat(absl::string_view name) {
  for (ExportFormat format :
       {ExportFormat::kJsonLines, ExportFormat::kCloudEvents, ExportFormat::kCsv}) {
    if (name == ExportFormatName(format)) return format;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "export format \"", name, "\" is not one of \"jsonl\", \"cloudevents\", \"csv\""));
}

absl::string_view ExportFormatName(ExportFormat format) {
  switch (format) {
    case ExportFormat::kJsonLines:
      return "jsonl";
    case ExportFormat::kCloudEvents:
      return "cloudevents";
    case ExportFormat::kCsv:
      return "csv";
  }
  return "";
}

bool IsVerifiable(ExportFormat format) { return format != ExportFormat::kCsv; }

store::RecordedEvent FromExported(const v1::ExportedEvent& exported) {
  store::RecordedEvent e;
  e.seq = exported.seq();
  e.stream = exported.stream();
  e.stream_version = exported.stream_version();
  e.event_id = exported.event_id();
  e.type = exported.type();
  e.schema_version = exported.schema_version();
  e.recorded_at_us = exported.recorded_at_us();
  e.metadata = exported.metadata();
  e.payload = exported.payload();
  e.digest = exported.digest();
  e.prev_chain_hash = exported.prev_chain_hash();
  e.chain_hash = exported.chain_hash();
  e.stream_hash = exported.stream_hash();
  return e;
}

v1::ExportedEvent ToExported(const store::RecordedEvent& event) {
  v1::ExportedEvent out;
  out.set_seq(event.seq);
  out.set_stream(event.stream);
  out.set_stream_version(event.stream_version);
  out.set_event_id(event.event_id);
  out.set_type(event.type);
  out.set_schema_version(event.schema_version);
  out.set_recorded_at_us(event.recorded_at_us);
  out.set_metadata(event.metadata);
  out.set_payload(event.payload);
  out.set_digest(event.digest);
  out.set_prev_chain_hash(event.prev_chain_hash);
  out.set_chain_hash(event.chain_hash);
  out.set_stream_hash(event.stream_hash);
  return out;
}

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

absl::StatusOr<ExportFormat> DetectFormat(absl::string_view first_line) {
  absl::StatusOr<Json> json = ParseObject(first_line);
  if (!json.ok()) {
    return absl::InvalidArgumentError(
        "the first line is not a JSON object: only jsonl and cloudevents exports can be "
        "verified");
  }
  return json->contains("specversion") ? ExportFormat::kCloudEvents : ExportFormat::kJsonLines;
}

absl::StatusOr<ExportLine> ParseLine(ExportFormat format, absl::string_view line) {
  switch (format) {
    case ExportFormat::kJsonLines:
    case ExportFormat::kCloudEvents: {
      ASSIGN_OR_RETURN(Json json, ParseObject(line));
      return format == ExportFormat::kJsonLines ? ParseJsonLinesLine(json)
                                                : ParseCloudEventLine(json);
    }
    case ExportFormat::kCsv:
      break;
  }
  return absl::InvalidArgumentError("a csv export cannot be parsed: it is not verifiable");
}

}  // namespace credledger::audit
