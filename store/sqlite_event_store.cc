#include "store/sqlite_event_store.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/status_macros.h"
#include "store/log_hash.h"
#include "store/migrations.h"

namespace credledger::store {
namespace {

// The columns of EventFields::kForFolding, first in kEventColumns too.
constexpr absl::string_view kFoldColumns =
    "seq, stream, stream_version, type, schema_version, recorded_at_us, payload";
constexpr absl::string_view kEventColumns =
    "seq, stream, stream_version, type, schema_version, recorded_at_us, payload, event_id, "
    "metadata, digest, prev_chain_hash, chain_hash, stream_hash";

void Assign(std::string& to, absl::string_view bytes) { to.assign(bytes.data(), bytes.size()); }

// Reads the row (kFoldColumns, or the first columns of kEventColumns) into `e`, reusing the
// memory of its strings; empties the fields kFoldColumns leaves out.
void ReadFoldRowInto(const Statement& row, RecordedEvent& e) {
  e.seq = row.ColumnInt(0);
  Assign(e.stream, row.ColumnTextView(1));
  e.stream_version = row.ColumnInt(2);
  Assign(e.type, row.ColumnTextView(3));
  e.schema_version = static_cast<uint32_t>(row.ColumnInt(4));
  e.recorded_at_us = row.ColumnInt(5);
  Assign(e.payload, row.ColumnBlobView(6));
  e.event_id.clear();
  e.metadata.clear();
  e.digest.clear();
  e.prev_chain_hash.clear();
  e.chain_hash.clear();
  e.stream_hash.clear();
}

// Reads the row (kEventColumns) into `e`, reusing the memory of its strings.
void ReadEventRowInto(const Statement& row, RecordedEvent& e) {
  ReadFoldRowInto(row, e);
  Assign(e.event_id, row.ColumnBlobView(7));
  Assign(e.metadata, row.ColumnBlobView(8));
  Assign(e.digest, row.ColumnBlobView(9));
  Assign(e.prev_chain_hash, row.ColumnBlobView(10));
  Assign(e.chain_hash, row.ColumnBlobView(11));
  Assign(e.stream_hash, row.ColumnBlobView(12));
}

RecordedEvent ReadEventRow(const Statement& row) {
  RecordedEvent e;
  ReadEventRowInto(row, e);
  return e;
}

v1::Checkpoint ReadCheckpointRow(const Statement& row) {
  v1::Checkpoint c;
  c.set_seq(row.ColumnInt(0));
  c.set_chain_hash(row.ColumnBlob(1));
  c.set_signed_at_us(row.ColumnInt(2));
  c.set_key_id(row.ColumnText(3));
  c.set_signature(row.ColumnBlob(4));
  return c;
}

constexpr absl::string_view kCheckpointColumns =
    "seq, chain_hash, signed_at_us, key_id, signature";

// Reads every row of `stmt` into `events` with `read_row` (ReadEventRowInto for kEventColumns,
// ReadFoldRowInto for kFoldColumns), overwriting its elements (their memory reused) and
// dropping those left over.
absl::Status CollectEventsInto(Statement& stmt, void (*read_row)(const Statement&, RecordedEvent&),
                               std::vector<RecordedEvent>& events) {
  size_t count = 0;
  while (true) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    if (count == events.size()) events.emplace_back();
    read_row(stmt, events[count++]);
  }
  events.resize(count);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RecordedEvent>> CollectEvents(Statement& stmt) {
  std::vector<RecordedEvent> events;
  RETURN_IF_ERROR(CollectEventsInto(stmt, ReadEventRowInto, events));
  return events;
}

absl::Status ConfigureConnection(Connection& db, const SqliteEventStoreOptions& options) {
  RETURN_IF_ERROR(db.Exec(
      absl::StrCat("PRAGMA busy_timeout = ", absl::ToInt64Milliseconds(options.busy_timeout)),
      "pragma busy_timeout"));
  RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys = ON", "pragma foreign_keys"));
  RETURN_IF_ERROR(db.Exec("PRAGMA recursive_triggers = ON", "pragma recursive_triggers"));
  const char* sync =
      options.synchronous == SqliteEventStoreOptions::Synchronous::kFull ? "FULL" : "NORMAL";
  return db.Exec(absl::StrCat("PRAGMA synchronous = ", sync), "pragma synchronous");
}

absl::Status ValidateRequest(const AppendRequest& request) {
  if (request.request_id.empty()) {
    return absl::InvalidArgumentError("request_id: must not be empty");
  }
  bool any = false;
  for (const StreamAppend& s : request.streams) {
    if (s.stream.empty()) return absl::InvalidArgumentError("stream: must not be empty");
    for (const NewEvent& e : s.events) {
      if (e.type.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("stream \"", s.stream, "\": event type must not be empty"));
      }
      if (e.schema_version < 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("stream \"", s.stream, "\": event schema_version must be >= 1"));
      }
      any = true;
    }
  }
  if (!any) return absl::InvalidArgumentError("append: a request needs at least one event");
  return absl::OkStatus();
}

}  // namespace

// A command waiting for the writer. Lives on the caller's stack until `done` is notified.
struct SqliteEventStore::Pending {
  Command command;
  absl::Status result;
  absl::Notification done;
};

// The writer's transaction view, with statements prepared once on the write connection.
class SqliteEventStore::Transaction final : public WriteTransaction {
 public:
  static absl::StatusOr<std::unique_ptr<Transaction>> Create(SqliteEventStore* store) {
    Connection& db = *store->writer_;
    auto tx = std::unique_ptr<Transaction>(new Transaction(store));
    ASSIGN_OR_RETURN(Statement insert,
                     db.Prepare(absl::StrCat("INSERT INTO events (", kEventColumns,
                                             ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")));
    ASSIGN_OR_RETURN(Statement stream_head,
                     db.Prepare("SELECT stream_version, stream_hash FROM events WHERE stream = ? "
                                "ORDER BY stream_version DESC LIMIT 1"));
    ASSIGN_OR_RETURN(Statement by_id,
                     db.Prepare(absl::StrCat("SELECT ", kEventColumns,
                                             " FROM events WHERE event_id = ?")));
    ASSIGN_OR_RETURN(Statement read_stream,
                     db.Prepare(absl::StrCat("SELECT ", kEventColumns,
                                             " FROM events WHERE stream = ? AND "
                                             "stream_version >= ? ORDER BY stream_version")));
    ASSIGN_OR_RETURN(Statement put_snapshot,
                     db.Prepare("INSERT INTO projection_snapshots (projection, seq, "
                                "schema_version, state) VALUES (?,?,?,?) ON CONFLICT "
                                "(projection, seq) DO UPDATE SET schema_version = "
                                "excluded.schema_version, state = excluded.state"));
    tx->insert_.emplace(std::move(insert));
    tx->stream_head_.emplace(std::move(stream_head));
    tx->by_id_.emplace(std::move(by_id));
    tx->read_stream_.emplace(std::move(read_stream));
    ASSIGN_OR_RETURN(Statement put_checkpoint,
                     db.Prepare("INSERT INTO checkpoints (seq, chain_hash, signed_at_us, "
                                "key_id, signature) VALUES (?,?,?,?,?)"));
    ASSIGN_OR_RETURN(Statement chain_at,
                     db.Prepare("SELECT chain_hash, (SELECT IFNULL(MAX(seq), 0) FROM "
                                "checkpoints) FROM events WHERE seq = ?"));
    tx->put_snapshot_.emplace(std::move(put_snapshot));
    tx->put_checkpoint_.emplace(std::move(put_checkpoint));
    tx->chain_at_.emplace(std::move(chain_at));
    return tx;
  }

  absl::StatusOr<std::vector<RecordedEvent>> ReadStream(absl::string_view stream,
                                                        int64_t from_version) override {
    Statement& stmt = *read_stream_;
    stmt.Reset();
    stmt.BindText(1, stream).Bind(2, from_version);
    return CollectEvents(stmt);
  }

  absl::StatusOr<int64_t> StreamVersion(absl::string_view stream) override {
    ASSIGN_OR_RETURN(auto head, StreamHead(stream));
    return head.first;
  }

  absl::StatusOr<std::vector<RecordedEvent>> FindRequest(absl::string_view request_id) override {
    std::vector<RecordedEvent> events;
    for (int64_t index = 0;; ++index) {
      Statement& stmt = *by_id_;
      stmt.Reset();
      stmt.BindBlob(1, EventIdFor(request_id, index));
      ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      events.push_back(ReadEventRow(stmt));
    }
    return events;
  }

  absl::StatusOr<AppendResult> Append(const AppendRequest& request) override {
    RETURN_IF_ERROR(ValidateRequest(request));
    ASSIGN_OR_RETURN(std::vector<RecordedEvent> prior, FindRequest(request.request_id));
    if (!prior.empty()) return AppendResult{std::move(prior), /*replayed=*/true};

    // A nested savepoint makes this call atomic even when the command goes on after an error.
    Head saved = store_->head_;
    RETURN_IF_ERROR(store_->writer_->ExecCached("SAVEPOINT append", "append: savepoint"));
    absl::StatusOr<AppendResult> result = AppendUnchecked(request);
    if (result.ok()) {
      RETURN_IF_ERROR(store_->writer_->ExecCached("RELEASE append", "append: release"));
      return result;
    }
    store_->head_ = std::move(saved);
    if (!sqlite3_get_autocommit(store_->writer_->raw())) {
      store_->writer_->ExecCached("ROLLBACK TO append", "append: rollback").IgnoreError();
      store_->writer_->ExecCached("RELEASE append", "append: release").IgnoreError();
    }
    return result;
  }

  absl::Status PutSnapshot(const Snapshot& snapshot) override {
    if (snapshot.projection.empty()) {
      return absl::InvalidArgumentError("snapshot: projection must not be empty");
    }
    Statement& stmt = *put_snapshot_;
    stmt.Reset();
    stmt.BindText(1, snapshot.projection)
        .Bind(2, snapshot.seq)
        .Bind(3, snapshot.schema_version)
        .BindBlob(4, snapshot.state);
    return stmt.Run();
  }

  absl::Status PutCheckpoint(const v1::Checkpoint& checkpoint) override {
    if (checkpoint.key_id().empty() || checkpoint.signature().empty()) {
      return absl::InvalidArgumentError("checkpoint: key_id and signature must be set");
    }
    Statement& at = *chain_at_;
    at.Reset();
    at.Bind(1, checkpoint.seq());
    ASSIGN_OR_RETURN(bool row, at.Step());
    if (!row) {
      return absl::InvalidArgumentError(
          absl::StrCat("checkpoint: seq ", checkpoint.seq(), " is not an event of the log"));
    }
    const std::string chain_hash = at.ColumnBlob(0);
    const int64_t newest = at.ColumnInt(1);
    at.Reset();  // see StreamHead
    if (chain_hash != checkpoint.chain_hash()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "checkpoint: chain_hash differs from the chain_hash of seq ", checkpoint.seq()));
    }
    if (checkpoint.seq() <= newest) {
      return absl::InvalidArgumentError(absl::StrCat("checkpoint: seq ", checkpoint.seq(),
                                                     " is not above the newest checkpoint's ",
                                                     newest));
    }
    Statement& stmt = *put_checkpoint_;
    stmt.Reset();
    stmt.Bind(1, checkpoint.seq())
        .BindBlob(2, checkpoint.chain_hash())
        .Bind(3, checkpoint.signed_at_us())
        .BindText(4, checkpoint.key_id())
        .BindBlob(5, checkpoint.signature());
    return stmt.Run();
  }

 private:
  explicit Transaction(SqliteEventStore* store) : store_(store) {}

  // The stream's last version (-1 when empty) and its stream hash (zero hash when empty).
  absl::StatusOr<std::pair<int64_t, std::string>> StreamHead(absl::string_view stream) {
    Statement& stmt = *stream_head_;
    stmt.Reset();
    stmt.BindText(1, stream);
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return std::make_pair(int64_t{-1}, ZeroHash());
    auto head = std::make_pair(stmt.ColumnInt(0), stmt.ColumnBlob(1));
    // A cached statement left on a row keeps the write connection's read transaction open
    // after COMMIT, and SQLite can then never checkpoint the WAL, which grows without bound.
    stmt.Reset();
    return head;
  }

  absl::StatusOr<AppendResult> AppendUnchecked(const AppendRequest& request) {
    AppendResult result;
    Head& head = store_->head_;
    const int64_t now_us = absl::ToUnixMicros(store_->options_.clock->Now());
    int64_t index = 0;
    for (const StreamAppend& append : request.streams) {
      ASSIGN_OR_RETURN(auto stream_head, StreamHead(append.stream));
      auto [version, stream_hash] = std::move(stream_head);
      if (!append.expected.is_any() && version != append.expected.required_version()) {
        return absl::AbortedError(absl::StrCat(
            "stream \"", append.stream, "\": expected version ",
            append.expected.required_version(), ", found ", version,
            " (another writer appended first; reload and retry)"));
      }
      for (const NewEvent& in : append.events) {
        RecordedEvent e;
        e.seq = head.seq + 1;
        e.stream = append.stream;
        e.stream_version = ++version;
        e.event_id = EventIdFor(request.request_id, index++);
        e.type = in.type;
        e.schema_version = in.schema_version;
        e.recorded_at_us = std::max(now_us, head.recorded_at_us + 1);
        e.metadata = in.metadata;
        e.payload = in.payload;
        e.digest = EventDigest(e);
        e.prev_chain_hash = head.chain_hash;
        e.chain_hash = NextChainHash(head.chain_hash, e.digest);
        e.stream_hash = NextChainHash(stream_hash, e.digest);
        RETURN_IF_ERROR(Insert(e));
        stream_hash = e.stream_hash;
        head = {e.seq, e.chain_hash, e.recorded_at_us};
        result.events.push_back(std::move(e));
      }
    }
    return result;
  }

  absl::Status Insert(const RecordedEvent& e) {
    Statement& stmt = *insert_;
    stmt.Reset();
    stmt.Bind(1, e.seq)
        .BindText(2, e.stream)
        .Bind(3, e.stream_version)
        .BindText(4, e.type)
        .Bind(5, e.schema_version)
        .Bind(6, e.recorded_at_us)
        .BindBlob(7, e.payload)
        .BindBlob(8, e.event_id)
        .BindBlob(9, e.metadata)
        .BindBlob(10, e.digest)
        .BindBlob(11, e.prev_chain_hash)
        .BindBlob(12, e.chain_hash)
        .BindBlob(13, e.stream_hash);
    return stmt.Run();
  }

  SqliteEventStore* store_;
  std::optional<Statement> insert_, stream_head_, by_id_, read_stream_, put_snapshot_,
      put_checkpoint_, chain_at_;
};

// A read connection borrowed from the pool; returned on destruction.
class SqliteEventStore::ReaderLease {
 public:
  ReaderLease(SqliteEventStore* store, std::unique_ptr<Connection> db)
      : store_(store), db_(std::move(db)) {}
  ReaderLease(ReaderLease&& other) noexcept = default;
  ~ReaderLease() {
    if (db_ != nullptr) store_->ReleaseReader(std::move(db_));
  }
  Connection* operator->() { return db_.get(); }

 private:
  SqliteEventStore* store_;
  std::unique_ptr<Connection> db_;
};

SqliteEventStore::SqliteEventStore(SqliteEventStoreOptions options)
    : options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<SqliteEventStore>> SqliteEventStore::Open(
    SqliteEventStoreOptions options) {
  if (options.path.empty()) return absl::InvalidArgumentError("store: path must not be empty");
  if (options.read_connections < 1 || options.max_batch_commands < 1) {
    return absl::InvalidArgumentError(
        "store: read_connections and max_batch_commands must be >= 1");
  }
  if (!options.vfs.empty() && sqlite3_vfs_find(options.vfs.c_str()) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("store: vfs \"", options.vfs, "\" is not a registered SQLite VFS"));
  }
  auto store = std::unique_ptr<SqliteEventStore>(new SqliteEventStore(std::move(options)));
  RETURN_IF_ERROR(store->Initialize());
  if (!store->options_.read_only) {
    store->writer_thread_ = std::thread([s = store.get()] { s->WriterLoop(); });
  }
  return store;
}

absl::Status SqliteEventStore::InitializeReadOnly() {
  std::error_code ec;
  if (!std::filesystem::exists(options_.path, ec)) {
    return absl::FailedPreconditionError(
        absl::StrCat("store ", options_.path.string(), ": no such database file"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Connection> db,
                   Connection::Open(options_.path, /*create=*/false,
                                    /*read_only=*/true, options_.vfs));
  RETURN_IF_ERROR(ConfigureConnection(*db, options_));
  ASSIGN_OR_RETURN(int64_t version, SchemaVersion(*db));
  const std::vector<EmbeddedMigration>& embedded = EmbeddedMigrations();
  int64_t newest = 0;
  if (!embedded.empty() && !absl::SimpleAtoi(embedded.back().file_name.substr(0, 4), &newest)) {
    return absl::InternalError("store: embedded migration names must start with a version");
  }
  if (version != newest) {
    return absl::FailedPreconditionError(absl::StrCat(
        "store ", options_.path.string(), ": schema version ", version, ", this binary reads ",
        newest, " read-only; ",
        version < newest ? "open it read-write once (credledger migrate) to migrate it"
                         : "use a newer credledger"));
  }
  RETURN_IF_ERROR(CheckStoredTypes(*db));
  ASSIGN_OR_RETURN(head_, LoadHead(*db));
  ReleaseReader(std::move(db));
  absl::MutexLock lock(&mu_);
  committed_seq_ = head_.seq;
  closing_ = true;  // no writer: Execute refuses, WaitForHead does not wait for one
  return absl::OkStatus();
}

absl::Status SqliteEventStore::CheckStoredTypes(Connection& db) {
  std::map<std::string, int64_t> stored;
  ASSIGN_OR_RETURN(Statement types,
                   db.Prepare("SELECT type, max_schema_version FROM event_types"));
  while (true) {
    ASSIGN_OR_RETURN(bool more, types.Step());
    if (!more) break;
    stored[types.ColumnText(0)] = types.ColumnInt(1);
  }
  return options_.codec->CheckStoredTypes(stored);
}

absl::Status SqliteEventStore::Initialize() {
  if (options_.read_only) return InitializeReadOnly();
  ASSIGN_OR_RETURN(writer_, Connection::Open(options_.path, /*create=*/true,
                                              /*read_only=*/false, options_.vfs));
  {
    ASSIGN_OR_RETURN(Statement wal, writer_->Prepare("PRAGMA journal_mode = WAL"));
    ASSIGN_OR_RETURN(bool row, wal.Step());
    if (!row || wal.ColumnText(0) != "wal") {
      return absl::FailedPreconditionError(
          absl::StrCat("store ", options_.path.string(), ": cannot enable WAL mode"));
    }
  }
  RETURN_IF_ERROR(ConfigureConnection(*writer_, options_));
  RETURN_IF_ERROR(ApplyMigrations(*writer_, EmbeddedMigrations()));
  RETURN_IF_ERROR(CheckStoredTypes(*writer_));

  ASSIGN_OR_RETURN(head_, LoadHead(*writer_));
  ASSIGN_OR_RETURN(transaction_, Transaction::Create(this));
  absl::MutexLock lock(&mu_);
  committed_seq_ = head_.seq;
  return absl::OkStatus();
}

absl::StatusOr<SqliteEventStore::Head> SqliteEventStore::LoadHead(Connection& db) {
  ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT seq, chain_hash, recorded_at_us FROM "
                                              "events ORDER BY seq DESC LIMIT 1"));
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Head{0, ZeroHash(), 0};
  return Head{stmt.ColumnInt(0), stmt.ColumnBlob(1), stmt.ColumnInt(2)};
}

SqliteEventStore::~SqliteEventStore() { Close(); }

bool SqliteEventStore::HasWorkOrClosing() const { return !queue_.empty() || closing_; }

void SqliteEventStore::Close() {
  {
    absl::MutexLock lock(&mu_);
    closing_ = true;
  }
  if (writer_thread_.joinable()) writer_thread_.join();
}

absl::Status SqliteEventStore::Execute(Command command) {
  const auto queued = std::chrono::steady_clock::now();
  Pending pending{std::move(command), absl::OkStatus(), {}};
  {
    absl::MutexLock lock(&mu_);
    if (options_.read_only) {
      return absl::FailedPreconditionError("store: the event log is open read-only");
    }
    if (closing_) return absl::CancelledError("store: closing; command not run");
    queue_.push_back(&pending);
  }
  pending.done.WaitForNotification();
  append_latency_.Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - queued).count());
  return pending.result;
}

void SqliteEventStore::WriterLoop() {
  while (true) {
    std::vector<Pending*> batch;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &SqliteEventStore::HasWorkOrClosing));
      if (queue_.empty()) return;  // closing and drained
      while (!queue_.empty() && static_cast<int>(batch.size()) < options_.max_batch_commands) {
        batch.push_back(queue_.front());
        queue_.pop_front();
      }
    }
    RunBatch(batch);
  }
}

void SqliteEventStore::RunBatch(std::vector<Pending*>& batch) {
  Connection& db = *writer_;
  absl::Status batch_error = db.ExecCached("BEGIN IMMEDIATE", "append: begin");
  if (!batch_error.ok() && (sqlite3_extended_errcode(db.raw()) & 0xff) == SQLITE_BUSY) {
    batch_error = absl::UnavailableError(absl::StrCat(
        "the event log is locked by another connection for longer than the busy timeout (",
        absl::FormatDuration(options_.busy_timeout), ")"));
  }
  const Head batch_start = head_;
  for (size_t i = 0; i < batch.size() && batch_error.ok(); ++i) {
    Pending& p = *batch[i];
    const Head saved = head_;
    p.result = db.ExecCached("SAVEPOINT command", "append: savepoint");
    if (p.result.ok()) p.result = p.command(*transaction_);
    if (p.result.ok()) {
      p.result = db.ExecCached("RELEASE command", "append: release");
      if (!p.result.ok()) batch_error = p.result;
      continue;
    }
    head_ = saved;
    // An I/O error or a full disk can roll back the whole transaction under us.
    if (sqlite3_get_autocommit(db.raw())) {
      batch_error = absl::UnavailableError(
          absl::StrCat("append: transaction rolled back: ", p.result.message()));
      break;
    }
    absl::Status undo = db.ExecCached("ROLLBACK TO command", "append: rollback to savepoint");
    if (undo.ok()) undo = db.ExecCached("RELEASE command", "append: release");
    if (!undo.ok()) batch_error = undo;
  }
  // The fence is asked last, right before the commit: a replica that lost its Lease while the
  // batch ran commits nothing.
  if (batch_error.ok() && options_.write_fence) batch_error = options_.write_fence();
  if (batch_error.ok()) batch_error = db.ExecCached("COMMIT", "append: commit");
  if (!batch_error.ok()) {
    if (!sqlite3_get_autocommit(db.raw()))
      db.ExecCached("ROLLBACK", "append: rollback").IgnoreError();
    // The commit did not happen, so the head is the batch's start. This holds for a failed
    // fsync too: SQLite makes a WAL commit visible only after its fsync succeeded.
    head_ = batch_start;
    batch_error = absl::Status(
        batch_error.code(),
        absl::StrCat("append: batch of ", batch.size(),
                     batch.size() == 1 ? " command" : " commands",
                     " not committed, nothing was appended: ", batch_error.message()));
    for (Pending* p : batch) {
      if (p->result.ok() || p->result.code() == absl::StatusCode::kUnavailable) {
        p->result = batch_error;
      }
    }
  }
  {
    absl::MutexLock lock(&mu_);
    committed_seq_ = head_.seq;
    stats_.batches += 1;
    stats_.commands += static_cast<int64_t>(batch.size());
    stats_.largest_batch = std::max<int64_t>(stats_.largest_batch, batch.size());
    stats_.events += head_.seq - batch_start.seq;
    if (!batch_error.ok()) stats_.failed_batches += 1;
  }
  batch_sizes_.Observe(static_cast<double>(batch.size()));
  for (Pending* p : batch) p->done.Notify();
}

absl::StatusOr<SqliteEventStore::ReaderLease> SqliteEventStore::AcquireReader() {
  {
    absl::MutexLock lock(&readers_mu_);
    if (!readers_.empty()) {
      std::unique_ptr<Connection> db = std::move(readers_.back());
      readers_.pop_back();
      return ReaderLease(this, std::move(db));
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Connection> db,
                   Connection::Open(options_.path, /*create=*/false,
                                    options_.read_only, options_.vfs));
  RETURN_IF_ERROR(ConfigureConnection(*db, options_));
  RETURN_IF_ERROR(db->Exec("PRAGMA query_only = ON", "pragma query_only"));
  return ReaderLease(this, std::move(db));
}

void SqliteEventStore::ReleaseReader(std::unique_ptr<Connection> reader) {
  absl::MutexLock lock(&readers_mu_);
  if (static_cast<int>(readers_.size()) < options_.read_connections) {
    readers_.push_back(std::move(reader));
  }
}

absl::StatusOr<std::vector<RecordedEvent>> SqliteEventStore::ReadAll(int64_t after_seq,
                                                                     int limit) {
  std::vector<RecordedEvent> events;
  RETURN_IF_ERROR(ReadAllInto(after_seq, limit, EventFields::kAll, events));
  return events;
}

absl::Status SqliteEventStore::ReadAllInto(int64_t after_seq, int limit, EventFields fields,
                                           std::vector<RecordedEvent>& page) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  ASSIGN_OR_RETURN(ReaderLease db, AcquireReader());
  static const std::string* const kAllSql = new std::string(
      absl::StrCat("SELECT ", kEventColumns, " FROM events WHERE seq > ? ORDER BY seq LIMIT ?"));
  static const std::string* const kFoldSql = new std::string(
      absl::StrCat("SELECT ", kFoldColumns, " FROM events WHERE seq > ? ORDER BY seq LIMIT ?"));
  const bool all = fields == EventFields::kAll;
  ASSIGN_OR_RETURN(Statement stmt, db->PrepareCached(all ? *kAllSql : *kFoldSql));
  stmt.Bind(1, after_seq).Bind(2, limit);
  return CollectEventsInto(stmt, all ? ReadEventRowInto : ReadFoldRowInto, page);
}

absl::StatusOr<std::vector<RecordedEvent>> SqliteEventStore::ReadStream(absl::string_view stream,
                                                                        int64_t from_version,
                                                                        int limit) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  ASSIGN_OR_RETURN(ReaderLease db, AcquireReader());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare(absl::StrCat("SELECT ", kEventColumns,
                                            " FROM events WHERE stream = ? AND stream_version "
                                            ">= ? ORDER BY stream_version LIMIT ?")));
  stmt.BindText(1, stream).Bind(2, from_version).Bind(3, limit);
  return CollectEvents(stmt);
}

int64_t SqliteEventStore::HeadSeq() const {
  absl::MutexLock lock(&mu_);
  return committed_seq_;
}

absl::StatusOr<int64_t> SqliteEventStore::SeqAtTime(int64_t time_us) {
  ASSIGN_OR_RETURN(ReaderLease db, AcquireReader());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare("SELECT MAX(seq) FROM events WHERE recorded_at_us <= ?"));
  stmt.Bind(1, time_us);
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row && !stmt.ColumnIsNull(0) ? stmt.ColumnInt(0) : 0;
}

int64_t SqliteEventStore::WaitForHead(int64_t after_seq, absl::Duration timeout) const {
  struct Args {
    const SqliteEventStore* store;
    int64_t after;
  } args{this, after_seq};
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](Args* a) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                             return a->store->committed_seq_ > a->after || a->store->closing_;
                           },
                           &args),
                       timeout);
  return committed_seq_;
}

absl::StatusOr<std::optional<Snapshot>> SqliteEventStore::LoadSnapshot(
    absl::string_view projection, int64_t max_seq) {
  ASSIGN_OR_RETURN(ReaderLease db, AcquireReader());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare("SELECT seq, schema_version, state FROM projection_snapshots "
                               "WHERE projection = ? AND seq <= ? ORDER BY seq DESC LIMIT 1"));
  stmt.BindText(1, projection).Bind(2, max_seq);
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<Snapshot>();
  return std::optional<Snapshot>(Snapshot{std::string(projection), stmt.ColumnInt(0),
                                          static_cast<uint32_t>(stmt.ColumnInt(1)),
                                          stmt.ColumnBlob(2)});
}

absl::StatusOr<std::vector<RecordedEvent>> SqliteEventStore::ReadFiltered(
    const EventFilter& filter, int64_t after_seq, int limit) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  if (!filter.stream.empty() && !filter.stream_prefix.empty()) {
    return absl::InvalidArgumentError("read: stream and stream_prefix exclude each other");
  }
  std::string sql = absl::StrCat("SELECT ", kEventColumns, " FROM events WHERE seq > ?");
  if (filter.until_seq > 0) absl::StrAppend(&sql, " AND seq <= ?");
  if (!filter.stream.empty()) absl::StrAppend(&sql, " AND stream = ?");
  // substr() rather than LIKE or GLOB: a prefix may hold their wildcard characters.
  if (!filter.stream_prefix.empty()) absl::StrAppend(&sql, " AND substr(stream, 1, ?) = ?");
  if (!filter.types.empty()) {
    absl::StrAppend(&sql, " AND type IN (?");
    for (size_t i = 1; i < filter.types.size(); ++i) absl::StrAppend(&sql, ",?");
    absl::StrAppend(&sql, ")");
  }
  absl::StrAppend(&sql, " ORDER BY seq LIMIT ?");
  ASSIGN_OR_RETURN(ReaderLease db, AcquireReader());
  ASSIGN_OR_RETURN(Statement stmt, db->Prepare(sql));
  int i = 1;
  stmt.Bind(i++, after_seq);
  if (filter.until_seq > 0) stmt.Bind(i++, filter.until_seq);
  if (!filter.stream.empty()) stmt.BindText(i++, filter.stream);
  if (!filter.stream_prefix.empty()) {
    stmt.Bind(i++, static_cast<int64_t>(filter.stream_prefix.size()));
    stmt.BindText(i++, filter.stream_prefix);
  }
  for (const std::string& type : filter.types) stmt.BindText(i++, type);
  stmt.Bind(i, limit);
  return CollectEvents(stmt);
}

absl::StatusOr<std::optional<v1::Checkpoint>> SqliteEventStore::LatestCheckpoint() {
  ASSIGN_OR_RETURN(ReaderLease db, AcquireReader());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare(absl::StrCat("SELECT ", kCheckpointColumns,
                                            " FROM checkpoints ORDER BY seq DESC LIMIT 1")));
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<v1::Checkpoint>();
  return std::optional<v1::Checkpoint>(ReadCheckpointRow(stmt));
}

absl::StatusOr<std::vector<v1::Checkpoint>> SqliteEventStore::ReadCheckpoints(int64_t after_seq,
                                                                             int limit) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  ASSIGN_OR_RETURN(ReaderLease db, AcquireReader());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare(absl::StrCat("SELECT ", kCheckpointColumns,
                                            " FROM checkpoints WHERE seq > ? ORDER BY seq "
                                            "LIMIT ?")));
  stmt.Bind(1, after_seq).Bind(2, limit);
  std::vector<v1::Checkpoint> checkpoints;
  while (true) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    checkpoints.push_back(ReadCheckpointRow(stmt));
  }
  return checkpoints;
}

SqliteEventStore::Stats SqliteEventStore::stats() const {
  absl::MutexLock lock(&mu_);
  Stats stats = stats_;
  stats.queue_depth = static_cast<int64_t>(queue_.size());
  return stats;
}

}  // namespace credledger::store
