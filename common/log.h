// Structured logs: one JSON object per line on stderr, for example
//   {"time":"2026-11-29T12:00:00.123456Z","level":"error","msg":"reconcile failed",
//    "target":"demo/edge-1","error":"..."}
// Callers never pass secret material (tokens, keys, Secret data) as a field.
//
// Thread-safety: lines from concurrent callers never interleave.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace credledger::common {

enum class LogLevel { kInfo, kWarning, kError };

using LogField = std::pair<absl::string_view, std::string>;

// Writes one line with level, `message` and `fields` (values as JSON strings).
void Log(LogLevel level, absl::string_view message, std::initializer_list<LogField> fields = {});

// `text` as a JSON string literal, quotes included (control characters, quotes and
// backslashes escaped; other bytes as given).
std::string JsonQuote(absl::string_view text);

}  // namespace credledger::common
