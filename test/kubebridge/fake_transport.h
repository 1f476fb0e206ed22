// Test doubles for KubeClient unit tests:
//   - FakeTransport: an HttpTransport that records requests and answers from a script.
//   - StepClock: a Clock whose sleeps return at once after jumping to their deadline, and
//     which records each requested sleep, so retry and backoff schedules are exact and no
//     test thread ever waits on time.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kubebridge/client/http_transport.h"
#include "kubebridge/client/kube_client.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// One scripted answer.
struct FakeReply {
  // A transport failure to return instead of a response (when not OK).
  absl::Status error;
  int status_code = 200;
  std::string body;
  std::optional<absl::Duration> retry_after;
  // Lines fed to the LineHandler of a streamed 2xx reply.
  std::vector<std::string> lines;
  // After the lines, wait until the request is cancelled and return kCancelled.
  bool block_until_cancelled = false;

  static FakeReply Json(int status_code, const nlohmann::json& body) {
    FakeReply reply;
    reply.status_code = status_code;
    reply.body = body.dump();
    return reply;
  }
  static FakeReply Status(int code, const std::string& reason, const std::string& message) {
    return Json(code, {{"kind", "Status"},
                       {"apiVersion", "v1"},
                       {"status", "Failure"},
                       {"code", code},
                       {"reason", reason},
                       {"message", message}});
  }
  static FakeReply Stream(std::vector<std::string> lines, bool block = false) {
    FakeReply reply;
    reply.lines = std::move(lines);
    reply.block_until_cancelled = block;
    return reply;
  }
  static FakeReply Blocking() { return Stream({}, true); }
  static FakeReply Error(absl::Status error) {
    FakeReply reply;
    reply.error = std::move(error);
    return reply;
  }
};

class FakeTransport final : public HttpTransport {
 public:
  void Push(FakeReply reply) {
    absl::MutexLock lock(&mu_);
    replies_.push_back(std::move(reply));
  }

  // The requests seen so far, in order.
  std::vector<HttpRequest> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

  // Waits (up to `limit` of real time) until at least `n` requests arrived.
  bool AwaitRequests(size_t n, absl::Duration limit = absl::Seconds(30)) const {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return requests_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), limit);
  }

  absl::StatusOr<HttpResponse> RoundTrip(const HttpRequest& request, Cancellation& cancel,
                                         const LineHandler* on_line) override {
    FakeReply reply;
    {
      absl::MutexLock lock(&mu_);
      requests_.push_back(request);
      if (replies_.empty()) {
        return absl::InternalError("fake transport: unexpected " + RequestLabel(request));
      }
      reply = std::move(replies_.front());
      replies_.pop_front();
    }
    if (!reply.error.ok()) return reply.error;
    HttpResponse response;
    response.status_code = reply.status_code;
    response.retry_after = reply.retry_after;
    bool streamed = on_line != nullptr && reply.status_code / 100 == 2;
    if (streamed) {
      for (const std::string& line : reply.lines) {
        absl::Status status = (*on_line)(line);
        if (!status.ok()) return status;
      }
    } else {
      response.body = reply.body;
    }
    if (reply.block_until_cancelled) {
      cancel.SleepUntil(*common::RealClock::Default(), absl::InfiniteFuture());
      return absl::CancelledError(RequestLabel(request) + ": cancelled");
    }
    return response;
  }

 private:
  mutable absl::Mutex mu_;
  std::deque<FakeReply> replies_ ABSL_GUARDED_BY(mu_);
  std::vector<HttpRequest> requests_ ABSL_GUARDED_BY(mu_);
};

class StepClock final : public common::Clock {
 public:
  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  bool SleepUntil(absl::Time deadline, absl::Mutex&, absl::CondVar&,
                  const bool& cancelled) override {
    if (cancelled) return false;
    absl::MutexLock lock(&mu_);
    sleeps_.push_back(deadline - now_);
    if (deadline > now_) now_ = deadline;
    return true;
  }
  std::vector<absl::Duration> sleeps() const {
    absl::MutexLock lock(&mu_);
    return sleeps_;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_) = absl::FromUnixSeconds(1767225600);
  std::vector<absl::Duration> sleeps_ ABSL_GUARDED_BY(mu_);
};

// A KubeClient over a FakeTransport (owned by the client) using `clock`.
struct FakeClient {
  FakeTransport* transport;
  std::unique_ptr<KubeClient> client;
};
inline FakeClient MakeFakeClient(common::Clock* clock, KubeClientOptions options = {}) {
  auto transport = std::make_unique<FakeTransport>();
  FakeTransport* raw = transport.get();
  options.clock = clock;
  return {raw, std::make_unique<KubeClient>(std::move(transport), options)};
}

}  // namespace credledger::kubebridge
