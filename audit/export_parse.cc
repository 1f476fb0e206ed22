// Parsing of the lines of a verifiable export (export_format.h: DetectFormat, ParseLine),
// exactly inverting the rendering (docs/audit.md, "Verifying an export, step by step").
#include <string>

#include "absl/strings/str_cat.h"
#include "audit/checkpoint_json.h"
#include "audit/export_field_reader.h"
#include "audit/export_format.h"
#include "audit/export_format_internal.h"
#include "audit/signed_records.h"
#include "common/status_macros.h"

namespace credledger::audit {
namespace {

absl::StatusOr<Json> ParseObject(absl::string_view line) {
  Json json = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError("the line is not a JSON object");
  }
  return json;
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

// `path` names the trailer object in errors ("trailer", "data"). A version above
// kTrailerVersion is returned with no other field read: the verifier refuses it by its
// version, whatever its other fields.
absl::StatusOr<v1::ExportTrailer> ParseTrailer(const Json& json, const std::string& path) {
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("field \"", path, "\": expected an object"));
  }
  const std::string prefix = path + ".";
  FieldReader in(json, prefix);
  v1::ExportTrailer t;
  if (json.contains("version")) {
    t.set_version(in.Uint32("version"));
    if (in.status().ok() && t.version() == 0) {
      in.Fail("version", "must be 1 or more (a version 1 trailer may leave it out)");
    }
    RETURN_IF_ERROR(in.status());
    if (t.version() > kTrailerVersion) return t;
  }
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
          CheckpointFromJson(*checkpoint, prefix + "checkpoint.", *t.mutable_checkpoint()));
    }
  }
  if (TrailerVersion(t) >= 2) {
    t.set_lines_hash(in.Hex("lines_hash", 32));
  } else if (json.contains("lines_hash")) {
    in.Fail("lines_hash", "not part of a version 1 trailer (one without \"version\")");
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
