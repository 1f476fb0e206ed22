// ConnectionPool: the read connections of a log (docs/design.md, "Storage"): a few kept open
// and lent out one call at a time, more opened when all are out, and at most `keep` kept when
// they come back.
//
// Thread-safety: thread-safe. A lent connection belongs to its Lease's holder.
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace credledger::store {

template <typename Connection>
class ConnectionPool {
 public:
  using Opener = std::function<absl::StatusOr<std::unique_ptr<Connection>>()>;
  using Check = std::function<bool(const Connection&)>;

  // `open` makes a new connection; `reusable` (optional) tells whether one that comes back is
  // fit to keep (a lost connection is not).
  ConnectionPool(int keep, Opener open, Check reusable = {})
      : keep_(keep), open_(std::move(open)), reusable_(std::move(reusable)) {}

  // A connection lent out; it goes back to the pool when the Lease is destroyed.
  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<Connection> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&& other) noexcept = default;
    ~Lease() {
      if (connection_ != nullptr) pool_->Release(std::move(connection_));
    }
    // Closes the connection instead of giving it back (one found broken).
    void Discard() { connection_.reset(); }
    Connection* operator->() { return connection_.get(); }
    Connection& operator*() { return *connection_; }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<Connection> connection_;
  };

  // Lends a kept connection, or opens a new one. Errors: those of `open`.
  absl::StatusOr<Lease> Acquire() {
    {
      absl::MutexLock lock(&mu_);
      if (!idle_.empty()) {
        std::unique_ptr<Connection> connection = std::move(idle_.back());
        idle_.pop_back();
        return Lease(this, std::move(connection));
      }
    }
    absl::StatusOr<std::unique_ptr<Connection>> opened = open_();
    if (!opened.ok()) return opened.status();
    return Lease(this, *std::move(opened));
  }

  // Keeps `connection` for later, unless `keep` are kept already or it is not reusable.
  void Release(std::unique_ptr<Connection> connection) {
    if (reusable_ && !reusable_(*connection)) return;
    absl::MutexLock lock(&mu_);
    if (static_cast<int>(idle_.size()) < keep_) idle_.push_back(std::move(connection));
  }

 private:
  const int keep_;
  const Opener open_;
  const Check reusable_;
  absl::Mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::store
