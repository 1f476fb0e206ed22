// What rendering (export_render.cc) and parsing (export_parse.cc) of the export formats share
// (docs/audit.md, "Export"): the keys of an event's fields in each format, the CloudEvents
// constants, and the one spelling of times. Internal to the export format's files.
//
// Thread-safety: constants and stateless functions.
#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace credledger::audit {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

inline constexpr char kTrailerType[] = "credledger.v1.ExportTrailer";
inline constexpr char kSource[] = "/credledger";
inline constexpr char kSpecVersion[] = "1.0";
inline constexpr char kContentType[] = "application/json";

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

inline constexpr EventKeys kJsonLinesKeys = {
    "seq", "stream", "stream_version", "event_id", "type", "schema_version", "recorded_at",
    "actor", "request_id", "metadata_b64", "payload_b64", "digest", "prev_chain_hash",
    "chain_hash", "stream_hash"};
// CloudEvents: the core attributes id, type, time and subject where they fit, otherwise
// extension attributes (lowercase letters and digits, at most 20 characters).
inline constexpr EventKeys kCloudEventKeys = {
    "seq", "subject", "streamversion", "id", "type", "schemaversion", "time",
    "actor", "requestid", "metadatab64", "payloadb64", "digest", "prevchainhash",
    "chainhash", "streamhash"};

// RFC 3339 in UTC with exactly 6 fractional digits: "2026-12-01T10:02:03.000450Z".
std::string FormatTime(int64_t unix_micros);
// Accepts exactly the shape FormatTime writes; false for any other text.
bool ParseTime(absl::string_view text, int64_t* unix_micros);

}  // namespace credledger::audit
