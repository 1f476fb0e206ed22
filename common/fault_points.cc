#include "common/fault_points.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/log.h"

namespace credledger::common {
namespace {

// Per armed point, the arrivals left until the one that kills (1: the next).
using ArmedPointMap = std::map<std::string, std::atomic<int64_t>, std::less<>>;

// Built once, at the first arrival at any point; only the counters change after that (find
// may run concurrently with them).
ArmedPointMap& ArmedPoints() {
  static ArmedPointMap* armed = [] {
    auto* points = new ArmedPointMap();
    const char* env = std::getenv("CREDLEDGER_FAULT_POINTS");
    if (env == nullptr) return points;
    for (absl::string_view listed : absl::StrSplit(env, ',', absl::SkipWhitespace())) {
      const absl::string_view entry = absl::StripAsciiWhitespace(listed);
      std::pair<absl::string_view, absl::string_view> name_count =
          absl::StrSplit(entry, absl::MaxSplits(':', 1));
      int64_t arrival = 1;
      if (entry.find(':') != absl::string_view::npos &&
          (!absl::SimpleAtoi(name_count.second, &arrival) || arrival < 1)) {
        Log(LogLevel::kError,
            "CREDLEDGER_FAULT_POINTS: the arrival after ':' must be a whole number >= 1; "
            "entry ignored",
            {{"entry", std::string(entry)}});
        continue;
      }
      points->try_emplace(std::string(name_count.first), arrival);
    }
    return points;
  }();
  return *armed;
}

}  // namespace

void FaultPoint(absl::string_view point) {
  ArmedPointMap& armed = ArmedPoints();
  if (armed.empty()) return;
  auto it = armed.find(point);
  // Only the arrival that takes the counter from 1 to 0 kills.
  if (it == armed.end() || it->second.fetch_sub(1) != 1) return;
  Log(LogLevel::kError, "fault point reached", {{"point", std::string(point)}});
  kill(getpid(), SIGKILL);
}

}  // namespace credledger::common
