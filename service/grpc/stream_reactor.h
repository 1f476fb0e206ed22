// StreamReactor: one server-streaming call (WatchTargets, WatchFleet, ExportEvents) on gRPC's
// callback API, so that a stream costs no thread (docs/api.md, "Threads and streams").
//
// Its messages come from a StreamSource. A step that reads the log runs on the WorkPool, never
// on a gRPC callback thread; a watch's steps render from memory and run on the pool when a
// change wakes them, or on the gRPC thread that reported the last write done. At most one
// write is outstanding, and the next message is produced only once the client has taken
// the last (gRPC's flow control), so a slow client holds at most one message here plus what
// its source queues. A source with nothing ready calls the wake function it was given, which
// schedules the next step.
//
// The call ends with the source's error, OK after a finite source's last message, CANCELLED
// when the client cancels or a write fails, or the status of OpenStreams::StopAll.
//
// Lifetime: created with `new` by StartStream (grpc_handlers.h); deleted once gRPC has called
// OnDone and no scheduled step or StopAll holds a reference.
//
// Thread-safety: thread-safe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/work_pool.h"
#include "service/grpc/open_streams.h"
#include "service/wire/grpc_status.h"

namespace credledger::service {

// What a stream writes. Next answers at once.
template <typename Response>
class StreamSource {
 public:
  virtual ~StreamSource() = default;
  // The next message; nullopt when there is none now: a watch then calls its wake function
  // once there is, a finite source (ends_when_empty) has sent its last.
  // Errors: end the stream with that status (ToGrpcStatus).
  virtual absl::StatusOr<std::optional<Response>> Next() = 0;
  // True for a source whose nullopt means the end (an export), false for a watch.
  virtual bool ends_when_empty() const = 0;
  // True for a source whose Next reads the log (an export): it runs on the WorkPool only.
  // False for one that reads memory (a watch): its next message after a write is made on the
  // gRPC thread that reports the write done, which saves a hand-off per message.
  virtual bool reads_log() const = 0;
};

template <typename Response>
class StreamReactor final : public grpc::ServerWriteReactor<Response>, public OpenStream {
 public:
  // `pool` (not owned) runs the steps and must outlive the reactor.
  explicit StreamReactor(common::WorkPool* pool) : pool_(pool) {}

  // Keeps the stream's place in OpenStreams until the call is done.
  void Keep(std::unique_ptr<OpenStreams::Ticket> ticket) {
    absl::MutexLock lock(&mu_);
    ticket_ = std::move(ticket);
  }

  // Starts writing what `source` produces (dropped when the call has ended meanwhile).
  void Begin(std::unique_ptr<StreamSource<Response>> source) {
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return;
      source_ = std::move(source);
    }
    Wake();
  }

  // Schedules the next step (the source has something, or the client took the last write).
  void Wake() {
    Ref();
    if (!pool_->Schedule([this] {
          Step();
          Unref();
        })) {
      Unref();  // the pool has stopped: the server is gone, and so is the call
    }
  }

  // Ends the call with `status` unless it has ended already.
  void Stop(absl::Status status) override {
    absl::MutexLock lock(&mu_);
    FinishLocked(ToGrpcStatus(status));
  }

  void Ref() override { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() override {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  void OnWriteDone(bool ok) override {
    bool reads_log = true;
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      if (!ok) {
        FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "stream: the client went away"));
        return;
      }
      if (source_ != nullptr) reads_log = source_->reads_log();
    }
    if (reads_log) {
      Wake();
    } else {
      Step();
    }
  }

  void OnCancel() override {
    absl::MutexLock lock(&mu_);
    FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "stream: the client cancelled"));
  }

  void OnDone() override {
    std::unique_ptr<StreamSource<Response>> source;
    std::unique_ptr<OpenStreams::Ticket> ticket;
    {
      absl::MutexLock lock(&mu_);
      done_ = true;
      // A step still reading from the source drops it when it returns.
      if (!stepping_) source = std::move(source_);
      ticket = std::move(ticket_);
    }
    source.reset();  // a watch stops listening: no wake after this
    ticket.reset();
    Unref();  // gRPC's reference
  }

 private:
  ~StreamReactor() override = default;

  // Writes the source's next message, or ends the call. The source is read without mu_
  // held, so that OnCancel never waits for a read of the log.
  void Step() {
    StreamSource<Response>* source = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (finished_ || writing_ || source_ == nullptr) return;
      if (stepping_) {
        again_ = true;  // a wake during a read must not be lost
        return;
      }
      stepping_ = true;
      again_ = false;
      source = source_.get();
    }
    absl::StatusOr<std::optional<Response>> next = source->Next();
    std::unique_ptr<StreamSource<Response>> dropped;
    absl::MutexLock lock(&mu_);
    stepping_ = false;
    if (done_) {
      dropped = std::move(source_);  // destroyed after mu_ is released
    } else if (!next.ok()) {
      FinishLocked(ToGrpcStatus(next.status()));
    } else if (next->has_value()) {
      if (finished_) return;
      message_ = **std::move(next);
      writing_ = true;
      this->StartWrite(&message_);
    } else if (source->ends_when_empty()) {
      FinishLocked(grpc::Status::OK);
    } else if (again_) {
      Wake();
    }
  }

  // gRPC never runs a write reactor's reactions inline, so these calls are safe under mu_.
  void FinishLocked(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    this->Finish(std::move(status));
  }

  common::WorkPool* const pool_;
  std::atomic<int> refs_{1};  // gRPC's, until OnDone
  absl::Mutex mu_;
  std::unique_ptr<StreamSource<Response>> source_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<OpenStreams::Ticket> ticket_ ABSL_GUARDED_BY(mu_);
  Response message_ ABSL_GUARDED_BY(mu_);  // the write outstanding
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool stepping_ ABSL_GUARDED_BY(mu_) = false;  // a Step is reading from source_
  bool again_ ABSL_GUARDED_BY(mu_) = false;     // a wake came during that read
  bool finished_ ABSL_GUARDED_BY(mu_) = false;  // Finish was called
  bool done_ ABSL_GUARDED_BY(mu_) = false;      // OnDone was called
};

}  // namespace credledger::service
