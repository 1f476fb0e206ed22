// PostgresEventStore (postgres_event_store.h): opening the log, the fence, and the writer's
// connection and caches (docs/postgres.md, "The writer"). The batches are in
// postgres_event_store_batches.cc, reads in postgres_event_store_reads.cc, the transaction a
// command sees in postgres_write_transaction.cc.
#include "store/postgres/postgres_event_store.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "store/log_hash.h"
#include "store/postgres/pg_migrations.h"
#include "store/postgres/postgres_event_store_internal.h"

namespace credledger::store {
namespace {

// Rows per page when the caches are loaded.
constexpr int kLoadPage = 20000;

absl::Status CheckStoredTypes(PgConnection& db, const EventCodec& codec) {
  ASSIGN_OR_RETURN(PgResult rows, db.Query("SELECT type, max_schema_version FROM event_types",
                                           PgParams(), "store: read event types"));
  std::map<std::string, int64_t> stored;
  for (int i = 0; i < rows.rows(); ++i) stored[rows.String(i, 0)] = rows.Int(i, 1);
  return codec.CheckStoredTypes(stored);
}

}  // namespace

PostgresEventStore::PostgresEventStore(PostgresEventStoreOptions options)
    : EventLog(options.max_batch_commands),
      options_(std::move(options)),
      transaction_(std::make_unique<Transaction>(this)),
      readers_(
          options_.read_connections,
          [this] {
            return PgConnection::Open(options_.conninfo, options_.connect_timeout,
                                      options_.password);
          },
          [](const PgConnection& db) { return db.ok(); }) {}

absl::StatusOr<std::unique_ptr<PostgresEventStore>> PostgresEventStore::Open(
    PostgresEventStoreOptions options) {
  if (options.conninfo.empty()) {
    return absl::InvalidArgumentError("store: the PostgreSQL connection string must not be empty");
  }
  if (options.read_connections < 1 || options.max_batch_commands < 1) {
    return absl::InvalidArgumentError(
        "store: read_connections and max_batch_commands must be >= 1");
  }
  auto store = std::unique_ptr<PostgresEventStore>(new PostgresEventStore(std::move(options)));
  RETURN_IF_ERROR(store->Initialize());
  if (!store->options_.read_only) {
    store->StartWriter();
  }
  return store;
}

absl::Status PostgresEventStore::Initialize() {
  ASSIGN_OR_RETURN(
      std::unique_ptr<PgConnection> db,
      PgConnection::Open(options_.conninfo, options_.connect_timeout, options_.password));
  if (options_.read_only) {
    ASSIGN_OR_RETURN(const int64_t version, PostgresSchemaVersion(*db));
    ASSIGN_OR_RETURN(const int64_t newest, NewestVersion(EmbeddedPostgresMigrations()));
    if (version != newest) {
      return absl::FailedPreconditionError(absl::StrCat(
          "store: the PostgreSQL log has schema version ", version, ", this binary reads ", newest,
          " read-only; ",
          version < newest ? "migrate it first (credledger migrate)" : "use a newer credledger"));
    }
    RETURN_IF_ERROR(CheckStoredTypes(*db, *options_.codec));
    ASSIGN_OR_RETURN(PgResult last, db->Query("SELECT seq FROM events ORDER BY seq DESC LIMIT 1",
                                              PgParams(), "store: read head"));
    readers_.Release(std::move(db));
    OpenReadOnly(last.rows() == 0 ? 0 : last.Int(0, 0));
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(ApplyPostgresMigrations(*db, EmbeddedPostgresMigrations()));
  RETURN_IF_ERROR(CheckStoredTypes(*db, *options_.codec));
  writer_ = std::move(db);
  return ConnectWriter(/*take_epoch=*/true);
}

absl::Status PostgresEventStore::ConnectWriter(bool take_epoch) {
  if (!take_epoch || writer_ == nullptr) {
    // A fresh connection: after a failure libpq picks the server again (a switchover may
    // have made another host the primary; target_session_attrs in the string says which).
    writer_.reset();
    ASSIGN_OR_RETURN(writer_, PgConnection::Open(options_.conninfo, options_.connect_timeout,
                                                 options_.password));
  }
  PgConnection& db = *writer_;
  const int64_t acknowledged_seq = head_.seq;
  int64_t fence_seq = 0;
  std::string fence_chain;
  if (take_epoch) {
    ASSIGN_OR_RETURN(PgResult row,
                     db.Query("UPDATE log_writer SET epoch = epoch + 1, holder = $1 RETURNING "
                              "epoch, seq, chain_hash",
                              PgParams().Text(options_.holder), "store: take the writer's epoch"));
    if (row.rows() != 1) {
      return absl::DataLossError("store: the log_writer row of the PostgreSQL log is missing");
    }
    epoch_ = row.Int(0, 0);
    absl::MutexLock lock(&state_mu_);
    state_.epoch = epoch_;
    fence_seq = row.Int(0, 1);
    fence_chain = row.String(0, 2);
  } else {
    ASSIGN_OR_RETURN(PgResult row, db.Query("SELECT epoch, seq, chain_hash FROM log_writer",
                                            PgParams(), "store: read the writer's epoch"));
    if (row.rows() != 1 || row.Int(0, 0) != epoch_) return Fenced();
    fence_seq = row.Int(0, 1);
    fence_chain = row.String(0, 2);
  }
  ASSIGN_OR_RETURN(PgResult last,
                   db.Query("SELECT seq, chain_hash, recorded_at_us FROM events ORDER BY seq "
                            "DESC LIMIT 1",
                            PgParams(), "store: read head"));
  head_ = last.rows() == 0 ? Head{0, ZeroHash(), 0}
                           : Head{last.Int(0, 0), last.String(0, 1), last.Int(0, 2)};
  if (head_.seq != fence_seq || head_.chain_hash != fence_chain) {
    return absl::DataLossError(
        absl::StrCat("store: the log_writer row names head seq ", fence_seq,
                     " but the events table ends at seq ", head_.seq,
                     (head_.seq == fence_seq ? " with another chain hash" : ""),
                     ": rows were written or removed outside credledger's writer; verify the log "
                     "(credledger verify) before writing to it"));
  }
  if (!take_epoch && head_.seq < acknowledged_seq) {
    return Stop(absl::DataLossError(absl::StrCat(
        "the PostgreSQL log's head is seq ", head_.seq,
        " but this writer had acknowledged up to "
        "seq ",
        acknowledged_seq,
        ": acknowledged events are gone (a failover to a standby that "
        "had not received them?); this replica writes nothing more. Verify the log and treat it "
        "as a restore (docs/operations.md, \"Database failover\")")));
  }
  RETURN_IF_ERROR(LoadCaches(db));
  ASSIGN_OR_RETURN(statements_.advance, db.Prepare("SELECT log_writer_advance($1, $2, $3, $4)"));
  ASSIGN_OR_RETURN(statements_.insert, db.Prepare(InsertEventSql()));
  // A snapshot written again at the same seq replaces the stored one.
  ASSIGN_OR_RETURN(
      statements_.snapshot,
      db.Prepare(absl::StrCat(InsertSnapshotSql(),
                              " ON CONFLICT (projection, seq) DO UPDATE SET schema_version = "
                              "excluded.schema_version, state = excluded.state, chain_hash = "
                              "excluded.chain_hash, state_sha256 = excluded.state_sha256, key_id = "
                              "excluded.key_id, signature = excluded.signature")));
  ASSIGN_OR_RETURN(statements_.checkpoint, db.Prepare(InsertCheckpointSql()));
  transaction_->Reset();
  reconnect_ = false;
  PublishHead(head_.seq);
  return absl::OkStatus();
}

absl::Status PostgresEventStore::Stop(absl::Status reason) {
  if (!stopped_.ok()) return stopped_;
  stopped_ = reason;
  common::Log(common::LogLevel::kError, "the event log is no longer written by this replica",
              {{"error", reason.ToString()}});
  if (options_.on_stopped) options_.on_stopped(reason);
  return reason;
}

absl::Status PostgresEventStore::Fenced() {
  {
    absl::MutexLock lock(&state_mu_);
    state_.fenced = true;
  }
  return Stop(absl::FailedPreconditionError(
      absl::StrCat("another replica took over writing the log (the writer's epoch is no longer ",
                   epoch_, "): this replica writes nothing more")));
}

absl::Status PostgresEventStore::LoadCaches(PgConnection& db) {
  streams_.clear();
  id_prefixes_.clear();
  for (int64_t after = 0;;) {
    ASSIGN_OR_RETURN(PgResult page, db.Query("SELECT seq, stream, stream_version, event_id, "
                                             "stream_hash FROM events WHERE seq > $1 ORDER BY "
                                             "seq LIMIT $2",
                                             PgParams().Int(after).Int(kLoadPage),
                                             "store: load the writer's caches"));
    for (int i = 0; i < page.rows(); ++i) {
      StreamHead& head = streams_[page.Bytes(i, 1)];
      head.version = page.Int(i, 2);
      head.hash = page.String(i, 4);
      id_prefixes_.insert(EventIdPrefix(page.Bytes(i, 3)));
    }
    if (page.rows() < kLoadPage) break;
    after = page.Int(page.rows() - 1, 0);
  }
  ASSIGN_OR_RETURN(PgResult newest, db.Query("SELECT COALESCE(MAX(seq), 0) FROM checkpoints",
                                             PgParams(), "store: read the newest checkpoint"));
  newest_checkpoint_ = newest.Int(0, 0);
  return absl::OkStatus();
}

PostgresEventStore::~PostgresEventStore() { Close(); }

PostgresEventStore::PostgresWriterState PostgresEventStore::writer_state() const {
  absl::MutexLock lock(&state_mu_);
  return state_;
}

}  // namespace credledger::store
