#include "common/log.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace credledger::common {

std::string JsonQuote(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<unsigned char>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

void Log(LogLevel level, absl::string_view message, std::initializer_list<LogField> fields) {
  static absl::Mutex* mu = new absl::Mutex();
  const char* name = level == LogLevel::kInfo ? "info" : level == LogLevel::kWarning ? "warning"
                                                                                      : "error";
  std::string line = absl::StrCat(
      "{\"time\":",
      JsonQuote(absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::Now(), absl::UTCTimeZone())),
      ",\"level\":\"", name, "\",\"msg\":", JsonQuote(message));
  for (const LogField& f : fields) absl::StrAppend(&line, ",", JsonQuote(f.first), ":", JsonQuote(f.second));
  line += "}\n";
  absl::MutexLock lock(mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace credledger::common
