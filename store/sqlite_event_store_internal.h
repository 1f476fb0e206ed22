// The private parts of SqliteEventStore that its files share (sqlite_event_store.cc: open and
// the writer; sqlite_event_store_reads.cc: the read pool and reads;
// sqlite_write_transaction.cc: the writer's transaction). Not for use outside them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "store/sqlite.h"
#include "store/sqlite_event_store.h"

namespace credledger::store {

// Sets the pragmas every connection of the store gets: busy timeout, foreign keys, recursive
// triggers and `options.synchronous`. Errors: Connection::Exec's.
absl::Status ConfigureConnection(Connection& db, const SqliteEventStoreOptions& options);

// The writer's transaction view, the WriteTransaction a command sees (docs/design.md, "Group
// commit"), with statements prepared once on the write connection. Append hashes each event
// into the chains (docs/log-format.md) and moves the store's head; a failed Append leaves
// neither the log nor the head changed.
//
// Thread-safety: used on the writer thread only (and by Open before the thread starts).
class SqliteEventStore::Transaction final : public WriteTransaction {
 public:
  // Prepares the statements on `store`'s write connection. Errors: Connection::Prepare's.
  static absl::StatusOr<std::unique_ptr<Transaction>> Create(SqliteEventStore* store);

  absl::StatusOr<std::vector<RecordedEvent>> ReadStream(absl::string_view stream,
                                                        int64_t from_version) override;
  absl::StatusOr<int64_t> StreamVersion(absl::string_view stream) override;
  absl::StatusOr<std::vector<RecordedEvent>> FindRequest(absl::string_view request_id) override;
  absl::StatusOr<AppendResult> Append(const AppendRequest& request) override;
  absl::Status PutSnapshot(const Snapshot& snapshot) override;
  absl::Status PutCheckpoint(const v1::Checkpoint& checkpoint) override;

 private:
  explicit Transaction(SqliteEventStore* store) : store_(store) {}

  // The stream's last version (-1 when empty) and its stream hash (zero hash when empty).
  absl::StatusOr<std::pair<int64_t, std::string>> StreamHead(absl::string_view stream);
  // Append without the replay lookup and the savepoint.
  absl::StatusOr<AppendResult> AppendUnchecked(const AppendRequest& request);
  absl::Status Insert(const RecordedEvent& e);
  // The chain_hash of the event at `seq`. Errors: kInvalidArgument "<what>: seq N is not an
  // event of the log".
  absl::StatusOr<std::string> ChainHashAt(int64_t seq, absl::string_view what);

  SqliteEventStore* store_;
  std::optional<Statement> insert_, stream_head_, by_id_, read_stream_, put_snapshot_,
      put_checkpoint_, chain_at_, newest_checkpoint_;
};

}  // namespace credledger::store
