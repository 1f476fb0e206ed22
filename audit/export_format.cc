// The export formats' names, the ExportedEvent conversions (export_format.h), and the one
// spelling of times that rendering and parsing share (export_format_internal.h).
#include "audit/export_format.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "audit/export_format_internal.h"

namespace credledger::audit {
namespace {

// RFC 3339 in UTC with exactly 6 fractional digits: "2026-12-01T10:02:03.000450Z".
constexpr char kTimeFormat[] = "%Y-%m-%dT%H:%M:%E6SZ";

}  // namespace

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

}  // namespace credledger::audit
