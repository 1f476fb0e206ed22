// EventStore: credledger's append-only, hash-chained event log (docs/design.md, "The event
// log").
//
// Every change of state is an event at a gap-free global position `seq` (from 1) and at a
// per-stream position `stream_version` (from 0). Appends go through one writer that
// group-commits whatever commands are queued: each command runs inside its own SAVEPOINT and
// sees the writes of the commands before it in the batch; one durable commit acknowledges
// the batch. Each event carries a digest over its stored bytes, a global chain hash and a
// per-stream hash (docs/log-format.md).
//
// Thread-safety: every method may be called from any thread, except that a Command must not
// call back into the store that runs it (only into the WriteTransaction it is handed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/audit.pb.h"

namespace credledger::store {

// An event to append. `type` is the fully qualified protobuf message name of the payload
// (for example "credledger.v1.ServiceConfigured"); `payload` and `metadata` are serialized
// protobuf bytes (the event message and credledger.v1.EventMetadata) stored as given.
struct NewEvent {
  std::string type;
  uint32_t schema_version = 1;
  std::string metadata;
  std::string payload;
};

// The optimistic-concurrency condition of one stream append.
class ExpectedVersion {
 public:
  // No condition.
  static ExpectedVersion Any() { return ExpectedVersion(kAnyValue); }
  // The stream must have no events.
  static ExpectedVersion NoStream() { return ExpectedVersion(kNoStreamValue); }
  // The stream's last event must be at `stream_version` (>= 0).
  static ExpectedVersion Exactly(int64_t stream_version) { return ExpectedVersion(stream_version); }

  bool is_any() const { return value_ == kAnyValue; }
  // The stream version the last event must have: -1 for NoStream. REQUIRES: !is_any().
  int64_t required_version() const { return value_; }

 private:
  static constexpr int64_t kAnyValue = -2;
  static constexpr int64_t kNoStreamValue = -1;
  explicit ExpectedVersion(int64_t value) : value_(value) {}
  int64_t value_;
};

// Events to append to one stream, under one expected version.
struct StreamAppend {
  std::string stream;
  ExpectedVersion expected = ExpectedVersion::Any();
  std::vector<NewEvent> events;
};

// One atomic append of one or more streams on behalf of one client request. Event ids are
// derived from `request_id` and the event's index across all streams of the request.
struct AppendRequest {
  std::string request_id;
  std::vector<StreamAppend> streams;
};

// Which fields of RecordedEvent a read fills.
enum class EventFields {
  kAll,
  // What a projection's fold reads: seq, stream, stream_version, type, schema_version,
  // recorded_at_us and payload. A store may leave event_id, metadata and the hashes empty
  // (SqliteEventStore does, and reads that much less of each row).
  kForFolding,
};

// An event as stored. Hash fields and `event_id` are raw bytes (32 and 16).
struct RecordedEvent {
  int64_t seq = 0;
  std::string stream;
  int64_t stream_version = 0;
  std::string event_id;
  std::string type;
  uint32_t schema_version = 0;
  int64_t recorded_at_us = 0;  // unix microseconds, strictly increasing with seq
  std::string metadata;
  std::string payload;
  std::string digest;
  std::string prev_chain_hash;
  std::string chain_hash;
  std::string stream_hash;
};

// The answer to an append: the events of the request in seq order. `replayed` is true when
// the request id had already been appended, in which case `events` are the original ones and
// nothing was written.
struct AppendResult {
  std::vector<RecordedEvent> events;
  bool replayed = false;
};

// What ProbeRequest read of one committed state of the log.
struct RequestProbe {
  bool request_used = false;    // an earlier request with the id appended events
  int64_t stream_version = -1;  // the stream's last stream_version; -1 when it has no events
};

// A projection snapshot: an opaque, deterministically serialized state as of `seq`, and the
// seal that binds it to the log (docs/audit.md, "Snapshots"; store/snapshot_seal.h).
struct Snapshot {
  std::string projection;
  int64_t seq = 0;
  uint32_t schema_version = 1;
  std::string state;
  // The seal, empty until sealed (store/snapshot_seal.h):
  std::string chain_hash = {};    // 32 bytes: the chain_hash of the event at `seq`
  std::string state_sha256 = {};  // 32 bytes: SHA-256 of `state`
  std::string key_id = {};        // the id of the key that signed the seal
  std::string signature = {};     // Ed25519 over the seal's signing bytes
};

// Where a stored snapshot is: its projection and seq.
struct SnapshotId {
  std::string projection;
  int64_t seq = 0;
};

// Which events ReadFiltered returns beside its seq bound. Unset (zero or empty) fields do
// not filter; `stream` and `stream_prefix` are not both set.
struct EventFilter {
  int64_t until_seq = 0;           // seq <= until_seq
  std::string stream;              // exactly this stream
  std::string stream_prefix;       // streams starting with this
  std::vector<std::string> types;  // any of these types
};

// The view of the log a command decides against, inside the writer's open transaction. Reads
// include everything earlier commands of the same batch wrote.
class WriteTransaction {
 public:
  virtual ~WriteTransaction() = default;
  // Events of `stream` from `from_version` on, in order. Empty when none.
  virtual absl::StatusOr<std::vector<RecordedEvent>> ReadStream(absl::string_view stream,
                                                                int64_t from_version) = 0;
  // The stream's last stream_version, or -1 when the stream has no events.
  virtual absl::StatusOr<int64_t> StreamVersion(absl::string_view stream) = 0;
  // The events an earlier request with `request_id` appended; empty when none.
  virtual absl::StatusOr<std::vector<RecordedEvent>> FindRequest(absl::string_view request_id) = 0;
  // Appends `request` (idempotent by request id, checked before any version check).
  // Errors: kInvalidArgument for an empty request id, stream or type, or no events;
  // kAborted when a stream's version differs from its ExpectedVersion (nothing written).
  virtual absl::StatusOr<AppendResult> Append(const AppendRequest& request) = 0;
  // Stores a projection snapshot (replacing one at the same projection and seq). The store
  // checks only its position, not its seal's signature or state hash.
  // Errors: kInvalidArgument when the projection is empty, the key id or signature is empty,
  // or `snapshot.chain_hash` is not the chain_hash of the event at `snapshot.seq` (or there is
  // no such event).
  virtual absl::Status PutSnapshot(const Snapshot& snapshot) = 0;
  // Stores a signed checkpoint (docs/audit.md, "Checkpoints"). The store checks only
  // positions, not the signature. Errors: kInvalidArgument when `checkpoint.chain_hash` is
  // not the chain_hash of the event at `checkpoint.seq` (or there is no such event), when
  // seq is not above the newest stored checkpoint's, or when key_id or signature is empty.
  virtual absl::Status PutCheckpoint(const v1::Checkpoint& checkpoint) = 0;
};

// The checks every store makes of an append before anything else: kInvalidArgument naming
// the field for an empty request id, stream or event type, a schema_version below 1, or a
// request without events.
absl::Status ValidateAppendRequest(const AppendRequest& request);

// Whether `append`'s expectation holds for its stream at version `found` (-1 for no stream):
// OK, or kAborted naming the stream, the expected and the found version.
absl::Status CheckExpectedVersion(const StreamAppend& append, int64_t found);

// The chain_hash of the event at a seq, as a store's writer finds it; kInvalidArgument when
// there is no such event.
using ChainHashLookup = absl::FunctionRef<absl::StatusOr<std::string>(int64_t seq)>;

// The checks every store makes before it stores `snapshot` (WriteTransaction::PutSnapshot's
// errors).
absl::Status ValidateSnapshot(const Snapshot& snapshot, ChainHashLookup chain_hash_at);

// The checks every store makes before it stores `checkpoint`, given the seq of the newest
// stored checkpoint (0 when none) (WriteTransaction::PutCheckpoint's errors).
absl::Status ValidateCheckpoint(const v1::Checkpoint& checkpoint, ChainHashLookup chain_hash_at,
                                int64_t newest_checkpoint_seq);

// A unit of work for the single writer. Returning an error rolls back everything the command
// wrote (its SAVEPOINT) and leaves the rest of the batch untouched.
using Command = absl::AnyInvocable<absl::Status(WriteTransaction&)>;

class EventStore {
 public:
  virtual ~EventStore() = default;

  // Runs `command` in the single writer and returns once its batch is durable (or failed).
  // Returns the command's own error, or kUnavailable when the batch could not be committed
  // (disk full, database busy past the busy timeout, I/O error), or kCancelled when the
  // store is shutting down. Nothing the command wrote survives a non-OK return.
  virtual absl::Status Execute(Command command) = 0;

  // Appends `request` atomically through Execute. Errors as WriteTransaction::Append and
  // Execute.
  absl::StatusOr<AppendResult> Append(AppendRequest request);

  // Events with seq > `after_seq`, in seq order, at most `limit` (> 0) of them. Each call is
  // one short read transaction; page through long ranges.
  virtual absl::StatusOr<std::vector<RecordedEvent>> ReadAll(int64_t after_seq, int limit) = 0;
  // The event at `seq` (every field, through ReadAll); nullopt for seq < 1 or beyond the
  // head. Errors: those of ReadAll.
  absl::StatusOr<std::optional<RecordedEvent>> ReadEvent(int64_t seq);
  // ReadAll into `page`, replacing what it held, with at least the fields `fields` names set;
  // a store may reuse the memory of the events there (SqliteEventStore does), so that a long
  // fold reading page after page into the same vectors allocates little. This default
  // replaces `page` with ReadAll's answer (every field). Errors: those of ReadAll; `page` is
  // then unspecified.
  virtual absl::Status ReadAllInto(int64_t after_seq, int limit, EventFields fields,
                                   std::vector<RecordedEvent>& page);
  // Events of `stream` with stream_version >= `from_version`, at most `limit`.
  virtual absl::StatusOr<std::vector<RecordedEvent>> ReadStream(absl::string_view stream,
                                                                int64_t from_version,
                                                                int limit) = 0;
  // Whether an earlier request with `request_id` appended events, and the last stream_version
  // of `stream`, read together in one short read transaction (one committed state of the log):
  // what a decision taken outside the writer checks before it answers (a heartbeat,
  // docs/reports.md, "How a heartbeat is decided"). Errors: store read errors.
  virtual absl::StatusOr<RequestProbe> ProbeRequest(absl::string_view request_id,
                                                    absl::string_view stream) = 0;
  // The seq of the last durable event; 0 for an empty log.
  virtual int64_t HeadSeq() const = 0;
  // The seq of the last event with recorded_at_us <= `time_us` (unix microseconds); 0 when
  // none. Basis of as-of queries.
  virtual absl::StatusOr<int64_t> SeqAtTime(int64_t time_us) = 0;
  // Blocks until HeadSeq() > `after_seq`, the store closes, or `timeout` passes; returns
  // HeadSeq() then. Used by subscriptions to go live after catching up.
  virtual int64_t WaitForHead(int64_t after_seq, absl::Duration timeout) const = 0;

  // Writes `snapshot` through the single writer. Errors as Execute.
  absl::Status SaveSnapshot(Snapshot snapshot);
  // The newest snapshot of `projection` with seq <= `max_seq`, as stored (its seal is not
  // checked: see projections/snapshot_guard.h); nullopt when none.
  virtual absl::StatusOr<std::optional<Snapshot>> LoadSnapshot(absl::string_view projection,
                                                               int64_t max_seq) = 0;
  // Every stored snapshot's projection and seq, ordered by seq, then projection (no states).
  virtual absl::StatusOr<std::vector<SnapshotId>> ListSnapshots() = 0;

  // Events with seq > `after_seq` that `filter` selects, in seq order, at most `limit`
  // (> 0). One short read transaction per call, like ReadAll.
  // Errors: kInvalidArgument when limit <= 0 or both stream and stream_prefix are set.
  virtual absl::StatusOr<std::vector<RecordedEvent>> ReadFiltered(const EventFilter& filter,
                                                                  int64_t after_seq, int limit) = 0;

  // Writes `checkpoint` through the single writer. Errors as PutCheckpoint and Execute.
  absl::Status SaveCheckpoint(v1::Checkpoint checkpoint);
  // The checkpoint with the highest seq; nullopt when none.
  virtual absl::StatusOr<std::optional<v1::Checkpoint>> LatestCheckpoint() = 0;
  // Checkpoints with seq > `after_seq` in seq order, at most `limit` (> 0).
  virtual absl::StatusOr<std::vector<v1::Checkpoint>> ReadCheckpoints(int64_t after_seq,
                                                                      int limit) = 0;
};

}  // namespace credledger::store
