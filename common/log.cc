#include "common/log.h"

#include <cstdio>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "nlohmann/json.hpp"

namespace credledger::common {
namespace {

// Serializes lines and guards the sink. Never destroyed, so logging stays safe while the
// process exits.
absl::Mutex& LogMutex() {
  static absl::Mutex* mu = new absl::Mutex();
  return *mu;
}

LogSink* installed_log_sink ABSL_GUARDED_BY(LogMutex()) = nullptr;

}  // namespace

void SetLogSinkForTesting(LogSink* sink) {
  absl::MutexLock lock(&LogMutex());
  installed_log_sink = sink;
}

std::string JsonQuote(absl::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(/*indent=*/-1, /*indent_char=*/' ', /*ensure_ascii=*/false,
            nlohmann::json::error_handler_t::replace);
}

void Log(LogLevel level, absl::string_view message, std::initializer_list<LogField> fields) {
  LogFields(level, message, absl::MakeConstSpan(fields.begin(), fields.size()));
}

void LogFields(LogLevel level, absl::string_view message, absl::Span<const LogField> fields) {
  const char* name = level == LogLevel::kInfo ? "info" : level == LogLevel::kWarning ? "warning"
                                                                                      : "error";
  std::string line = absl::StrCat(
      "{\"time\":",
      JsonQuote(absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::Now(), absl::UTCTimeZone())),
      ",\"level\":\"", name, "\",\"msg\":", JsonQuote(message));
  for (const LogField& f : fields) absl::StrAppend(&line, ",", JsonQuote(f.first), ":", JsonQuote(f.second));
  line += "}\n";
  absl::MutexLock lock(&LogMutex());
  if (installed_log_sink != nullptr) {
    installed_log_sink->Write(line);
    return;
  }
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace credledger::common
