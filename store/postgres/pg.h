// Thin RAII layer over libpq used by the PostgreSQL event store: a connection, its prepared
// statements, results, statement parameters in binary format, pipeline mode, and the mapping
// of SQLSTATE codes to absl::Status (docs/postgres.md, "Errors").
//
// Every statement runs with binary parameters and binary results: int8 as 8 big-endian
// bytes, bytea and text as their raw bytes. Nothing here logs or returns the connection
// string, which may hold a password.
//
// Thread-safety: a PgConnection and its results belong to one thread at a time.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace credledger::store {

// The SQLSTATE the log's fence raises when a writer's epoch is no longer the current one
// (docs/postgres.md, "The fence").
inline constexpr char kFencedSqlState[] = "CL001";
// The SQLSTATE the fence raises when the log's head is not where the writer's batch starts:
// the batch before it did not commit, or rows came from outside the writer (docs/postgres.md,
// "The fence").
inline constexpr char kHeadMovedSqlState[] = "CL002";

// Maps a failed result or connection to a status (docs/postgres.md, "Errors"):
//   unique and other integrity violations (class 23), serialization failure (40001),
//   deadlock (40P01)                                  → kAborted
//   connection exceptions (08), shutdown and crash (57P01..57P03), read-only transaction
//   (25006), idle-in-transaction timeout (25P03), insufficient resources (53: disk full,
//   out of memory, too many connections), query cancelled (57014), a lost connection
//                                                     → kUnavailable
//   the fence (kFencedSqlState), missing privilege (42501), no such database (3D000),
//   undefined table (42P01)                           → kFailedPrecondition
//   data corrupted (XX001, XX002)                     → kDataLoss
//   anything else                                     → kInternal
// The message is "<context>: <server's primary message> [SQLSTATE xxxxx]". `result` may be
// null (a lost connection); `conn` may be null.
absl::Status PgError(const PGresult* result, const PGconn* conn, absl::string_view context);

// The SQLSTATE of a status PgError made ("" when it carries none).
std::string SqlStateOf(const absl::Status& status);

// Whether a failure PgError made means the session is gone: it carries no SQLSTATE (libpq's
// own failure), or a connection exception (class 08) or a shutdown or crash (57P01..57P03).
// Over a unix socket the first failure on a connection whose server died is of this kind
// while PQstatus still reports the connection as open.
bool SessionLost(const absl::Status& failure);

// How many errors PgError has made in this process, by SQLSTATE class (its first two
// characters, "08" for a connection exception) and "connection" for libpq's own failures
// without a SQLSTATE (a lost or refused connection); for metrics.
std::map<std::string, int64_t> PgErrorsByClass();

// A result of libpq, cleared when destroyed.
class PgResult {
 public:
  explicit PgResult(PGresult* result) : result_(result) {}
  PgResult(PgResult&&) noexcept = default;
  PgResult& operator=(PgResult&&) noexcept = default;

  const PGresult* raw() const { return result_.get(); }
  int rows() const { return result_ == nullptr ? 0 : PQntuples(result_.get()); }
  // The rows an INSERT, UPDATE or DELETE changed (PQcmdTuples); 0 when it names none.
  int64_t affected_rows() const;
  // Column readers (0-based) of a binary-format result.
  bool IsNull(int row, int column) const;
  // An int8, int4 or int2 column.
  int64_t Int(int row, int column) const;
  // A bytea or text column's bytes.
  absl::string_view Bytes(int row, int column) const;
  std::string String(int row, int column) const { return std::string(Bytes(row, column)); }

 private:
  struct Clear {
    void operator()(PGresult* r) const { PQclear(r); }
  };
  std::unique_ptr<PGresult, Clear> result_;
};

// The parameters of one statement, in binary format with their types named. Up to 16
// parameters and ints or short values take no allocation.
class PgParams {
 public:
  PgParams& Int(int64_t value);
  PgParams& Bytes(absl::string_view value);  // bytea, copied
  PgParams& Text(absl::string_view value);   // text, copied
  PgParams& Bool(bool value);
  // bytea and text parameters that point at `value`'s bytes instead of copying them: they must
  // stay as they are while this object is used (a statement sent copies them).
  PgParams& BytesRef(absl::string_view value);
  PgParams& TextRef(absl::string_view value);

  int size() const { return static_cast<int>(types_.size()); }
  const Oid* types() const { return types_.data(); }
  // Pointers to each parameter's bytes: valid while this object and the borrowed values live
  // unchanged.
  absl::InlinedVector<const char*, 16> values() const;
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  PgParams& Own(Oid type, std::string bytes);
  PgParams& Borrow(Oid type, absl::string_view bytes);
  absl::InlinedVector<Oid, 16> types_;
  absl::InlinedVector<int, 16> lengths_;
  absl::InlinedVector<int, 16> formats_;
  // Per parameter: its bytes held here, or (when not null) where they are borrowed from.
  absl::InlinedVector<std::string, 16> owned_;
  absl::InlinedVector<const char*, 16> borrowed_;
};

// A statement prepared on one connection.
struct PgStatement {
  std::string name;
  std::string sql;
};

class PgConnection {
 public:
  // Connects with `conninfo` (a libpq URI or keyword/value string) and `password` (empty:
  // libpq's own sources, PGPASSWORD or a password file), waiting at most `connect_timeout`;
  // sets application_name to "credledger" unless the string names one.
  // `connect_timeout` counts in whole seconds, at least 2 (libpq's floor), for each host the
  // string names.
  // Errors: kUnavailable when the server cannot be reached, does not answer in time or refuses
  // the login (a missing database too: libpq gives no SQLSTATE for a failed login), naming
  // libpq's reason (never the string itself); kInvalidArgument when the string does not parse.
  static absl::StatusOr<std::unique_ptr<PgConnection>> Open(const std::string& conninfo,
                                                            absl::Duration connect_timeout,
                                                            const std::string& password = "");
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs one or more SQL statements without parameters (simple protocol). `context` names it
  // in errors. Errors: PgError's.
  absl::Status Exec(absl::string_view sql, absl::string_view context);
  // Prepares `sql` once per connection (kept until it closes); the same SQL returns the same
  // statement. Errors: PgError's (kInternal for invalid SQL).
  absl::StatusOr<const PgStatement*> Prepare(absl::string_view sql);
  // Runs a prepared statement and waits for its result (binary rows).
  // Errors: PgError's, naming `context`.
  absl::StatusOr<PgResult> Run(const PgStatement& statement, const PgParams& params,
                               absl::string_view context);
  // Prepare, then Run.
  absl::StatusOr<PgResult> Query(absl::string_view sql, const PgParams& params,
                                 absl::string_view context);

  // Runs `sql` once without keeping a prepared statement (for SQL built per call).
  // Errors: PgError's, naming `context`.
  absl::StatusOr<PgResult> QueryOnce(absl::string_view sql, const PgParams& params,
                                     absl::string_view context);

  // Pipeline mode (libpq's): Send queues statements without waiting; Sync ends the pipeline's
  // current segment (the server commits or rolls back an implicit transaction there);
  // NextResult reads the results in order. Errors: kUnavailable when sending fails.
  absl::Status EnterPipeline();
  absl::Status ExitPipeline();
  absl::Status Send(const PgStatement& statement, const PgParams& params);
  absl::Status SendSql(absl::string_view sql);
  absl::Status Sync();
  // The next result of the pipeline: PGRES_PIPELINE_SYNC at a Sync; a null result between
  // the results of two statements is skipped.
  PgResult NextResult();

  // Whether the connection is usable (CONNECTION_OK); false after the server closed it.
  bool ok() const;
  PGconn* raw() const { return conn_; }

 private:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  PGconn* conn_;
  std::map<std::string, PgStatement, std::less<>> prepared_;
};

// The status of a statement's result: OK for PGRES_COMMAND_OK and PGRES_TUPLES_OK (and
// PGRES_PIPELINE_SYNC), else PgError's mapping naming `context`.
absl::Status CheckResult(const PgResult& result, const PgConnection& conn,
                         absl::string_view context);

}  // namespace credledger::store
