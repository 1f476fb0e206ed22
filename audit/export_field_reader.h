// FieldReader: reads the typed fields of one JSON object of a verifiable export line in the
// exact spellings the export writes (docs/audit.md, "Export"): integers as numbers or decimal
// strings, lowercase hex, canonical base64, RFC 3339 UTC times with 6 fractional digits.
// Internal to the export format's files (export_parse.cc).
//
// Thread-safety: not thread-safe; one reader per object, on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "audit/export_format_internal.h"

namespace credledger::audit {

// Reads the typed fields of one JSON object. The first missing or malformed field becomes
// status() (kInvalidArgument naming the field as `prefix` + key, and the rule); every read
// after it returns an empty value.
class FieldReader {
 public:
  // `object` must outlive the reader.
  FieldReader(const Json& object, std::string prefix);

  const absl::Status& status() const { return status_; }

  // Each read returns the field's value, or an empty one (and status() says why) when the
  // field is missing or malformed.
  std::string String(const char* key);
  // An integer number or a decimal string (the protobuf JSON mapping prints int64 as one).
  int64_t Int64(const char* key);
  // An Int64 from 0 to 2^32 - 1.
  uint32_t Uint32(const char* key);
  // Lowercase hex of `bytes` bytes; any even number of characters when `bytes` is 0.
  std::string Hex(const char* key, size_t bytes);
  // Standard base64 with padding, in its one canonical spelling.
  std::string Base64(const char* key);
  // A time as FormatTime writes it, in unix microseconds.
  int64_t TimeMicros(const char* key);

  // The object or array at `key`; nullptr when missing, of another type, or after a failure.
  const Json* Object(const char* key);
  const Json* Array(const char* key);

  // The string at `key` must be `expected`.
  void Expect(const char* key, absl::string_view expected);

  // Records the failure of field `key` with `rule`, unless a field failed before.
  void Fail(absl::string_view key, absl::string_view rule);

 private:
  const Json* Find(const char* key);
  const Json* Typed(const char* key, Json::value_t type, const char* expected);

  const Json& object_;
  const std::string prefix_;
  absl::Status status_;
};

}  // namespace credledger::audit
