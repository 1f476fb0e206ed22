// OpenStreams: the server-streaming calls (WatchTargets, WatchFleet, ExportEvents) that are
// open now, counted per caller and in total against the limits of docs/api.md, "Threads and
// streams" (`--max-streams-per-caller`, `--max-streams`), and ended together when the server
// shuts down.
//
// A stream is admitted with Admit, which hands back a Ticket; the stream holds the ticket until
// its call is done, and releasing it frees the stream's place.
//
// Ended streams free their memory, but the allocator keeps it for reuse. So that a burst of
// streams does not keep the process large, `release_memory` is called after every
// kStreamsPerRelease ended streams, and when the last open stream ends.
//
// Thread-safety: thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace credledger::service {

// A stream that OpenStreams can end. Reference-counted, because StopAll reaches a stream from
// another thread than the one that ends its call.
class OpenStream {
 public:
  virtual ~OpenStream() = default;
  // Ends the stream with `status` unless it has ended already.
  virtual void Stop(absl::Status status) = 0;
  // Keeps the stream alive until the matching Unref.
  virtual void Ref() = 0;
  virtual void Unref() = 0;
};

class OpenStreams {
 public:
  // Ended streams between two calls of `release_memory` (besides the last one ending).
  static constexpr int kStreamsPerRelease = 256;

  struct Limits {
    size_t max_streams = 512;            // >= 1: open streams in total
    size_t max_streams_per_caller = 32;  // >= 1: open streams of one caller
  };

  // A stream's place; released when destroyed.
  class Ticket {
   public:
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket();

   private:
    friend class OpenStreams;
    Ticket(OpenStreams* streams, std::string caller, OpenStream* stream)
        : streams_(streams), caller_(std::move(caller)), stream_(stream) {}
    OpenStreams* const streams_;
    const std::string caller_;
    OpenStream* const stream_;
  };

  // `release_memory` (may be empty) hands the allocator's free memory back to the system; it
  // runs on the thread that ends a stream (a gRPC thread), so it must not block: queue the
  // work.
  explicit OpenStreams(Limits limits, std::function<void()> release_memory = {})
      : limits_(limits), release_memory_(std::move(release_memory)) {}

  // Admits `stream` (not owned) of `caller` (the actor its events would record) to `rpc`
  // ("WatchTargets"). Stops it at once when StopAll has run.
  // Errors: kResourceExhausted naming the caller, its count and --max-streams-per-caller, or
  // the total and --max-streams; kUnavailable once StopAll has run.
  absl::StatusOr<std::unique_ptr<Ticket>> Admit(absl::string_view caller, absl::string_view rpc,
                                                OpenStream* stream);

  // Stops every open stream with `status_for(rpc)` (rpc as given to Admit); streams admitted
  // later are refused.
  void StopAll(const std::function<absl::Status(absl::string_view rpc)>& status_for);

  // Streams open now.
  size_t open() const;

 private:
  void Release(const std::string& caller, OpenStream* stream);

  const Limits limits_;
  const std::function<void()> release_memory_;
  mutable absl::Mutex mu_;
  int ended_since_release_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, size_t, std::less<>> per_caller_ ABSL_GUARDED_BY(mu_);
  std::map<OpenStream*, std::string> streams_ ABSL_GUARDED_BY(mu_);  // and their RPCs
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace credledger::service
