// CapturedLog: while it lives, every common::Log line goes to it instead of stderr
// (common::SetLogSinkForTesting), parsed as JSON, so a test can check what a component
// logged and wait, with a deadline, for a line written on another thread. For tests only;
// one at a time per process.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "nlohmann/json.hpp"

namespace credledger::testing {

class CapturedLog final : public common::LogSink {
 public:
  CapturedLog() { common::SetLogSinkForTesting(this); }
  ~CapturedLog() override { common::SetLogSinkForTesting(nullptr); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  // A line that is not a JSON object is kept as a JSON string, so a test sees it fail.
  void Write(absl::string_view line) override {
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    absl::MutexLock lock(&mu_);
    lines_.push_back(parsed.is_object() ? std::move(parsed) : nlohmann::json(std::string(line)));
  }

  // The lines so far whose "msg" is `msg`, in the order they were written.
  std::vector<nlohmann::json> Lines(absl::string_view msg) {
    absl::MutexLock lock(&mu_);
    return LinesLocked(msg);
  }

  // Waits until `done` holds for Lines(`msg`); returns those lines. After `timeout`, returns
  // the lines as they are then (the test's own expectations then fail).
  std::vector<nlohmann::json> WaitFor(
      absl::string_view msg, const std::function<bool(const std::vector<nlohmann::json>&)>& done,
      absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto satisfied = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return done(LinesLocked(msg)); };
    mu_.AwaitWithTimeout(absl::Condition(&satisfied), timeout);
    return LinesLocked(msg);
  }

 private:
  std::vector<nlohmann::json> LinesLocked(absl::string_view msg)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<nlohmann::json> matching;
    for (const nlohmann::json& line : lines_) {
      if (!line.is_object()) {
        matching.push_back(line);  // never a valid line: shown to every test
      } else if (line.value("msg", "") == msg) {
        matching.push_back(line);
      }
    }
    return matching;
  }

  absl::Mutex mu_;
  std::vector<nlohmann::json> lines_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::testing
