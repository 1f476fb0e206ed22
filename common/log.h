// Structured logs: one JSON object per line on stderr, for example
//   {"time":"2026-11-29T12:00:00.123456Z","level":"error","msg":"reconcile failed",
//    "target":"demo/edge-1","error":"..."}
// Callers never pass secret material (tokens, keys, Secret data) as a field.
//
// Thread-safety: lines from concurrent callers never interleave; SetLogSinkForTesting may be
// called from any thread.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace credledger::common {

enum class LogLevel { kInfo, kWarning, kError };

using LogField = std::pair<absl::string_view, std::string>;

// Writes one line with level, `message` and `fields` (values as JSON strings).
void Log(LogLevel level, absl::string_view message, std::initializer_list<LogField> fields = {});
// The same for a list of fields built at run time (some fields only sometimes present).
void LogFields(LogLevel level, absl::string_view message, absl::Span<const LogField> fields);

// Where lines go instead of stderr: a seam for tests that read what a component logs.
class LogSink {
 public:
  virtual ~LogSink() = default;
  // Receives one whole line, its newline included. Called under Log's lock: one line at a
  // time, in the order the lines are written; must not call Log.
  virtual void Write(absl::string_view line) = 0;
};

// Sends every later line to `sink` instead of stderr; nullptr sends them to stderr again.
// For tests only: production code always logs to stderr. `sink` is not owned and must stay
// alive until it is replaced.
void SetLogSinkForTesting(LogSink* sink);

// `text` as a JSON string literal, quotes included, as nlohmann-json writes it (quotes,
// backslashes and control characters escaped; invalid UTF-8 replaced by U+FFFD).
std::string JsonQuote(absl::string_view text);

}  // namespace credledger::common
