// PostgresServer: a real PostgreSQL 15 server (Debian's postgresql-15) that a test starts and
// removes itself, for the PostgreSQL event store and anything else that needs a server
// (docs/testing.md, "PostgreSQL in tests").
//
// Start makes a cluster with initdb in a fresh folder /tmp/clpg.XXXXXX, kept short because the
// unix socket `<folder>/.s.PGSQL.<port>` must stay under 108 bytes, and starts it with pg_ctl.
// The server listens on 127.0.0.1 at a free port and on the unix socket in the folder; every
// local connection is trusted and the superuser is `postgres`. initdb refuses to run as root,
// so when the test runs as root the folder belongs to the `postgres` user and the server
// programs run as that user (through runuser); otherwise they run as the test's user. psql
// always runs as the test's user. Layout: `<folder>/data` (the cluster), `<folder>/log` (the
// server log), `<folder>/.s.PGSQL.<port>`.
//
// StartStandby makes a streaming standby of a running server in a folder of its own
// (pg_basebackup -R), for failover tests: the primary waits for it when its
// synchronous_standby_names names the standby's application name, AwaitStandby waits until
// the primary lists it, Promote makes it a primary, StopImmediate kills a server.
//
// Every wait has a deadline: pg_ctl waits at most 60 seconds for the server, and every command
// is killed when it runs longer than its timeout.
//
// Thread-safety: ConnectionString, TcpConnectionString, CreateDatabase, Sql, AwaitSql,
// AwaitStandby and the accessors may be called from any thread; Start, StartStandby, Stop,
// StopImmediate, StartAgain, RestartImmediate, Promote and the destructor from one thread while
// no other of these runs on the same server.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace credledger::testing {

// Where Debian's postgresql-15 package puts the server programs (not on PATH).
inline constexpr char kPostgresBinDir[] = "/usr/lib/postgresql/15/bin";

struct PostgresServerOptions {
  // Extra server settings as "name=value" (e.g. "fsync=on",
  // "idle_in_transaction_session_timeout=1s"), written to the cluster's configuration after
  // the harness's own, so they win over `fsync` below. A name is letters, digits, `_` and
  // `.`; a value holds no line break.
  std::vector<std::string> settings;
  // fsync=off by default: tests lose nothing, since the OS keeps the written data across a
  // killed server. A benchmark sets it to true.
  bool fsync = false;
  // The folder holding initdb, pg_ctl, postgres and psql.
  std::filesystem::path bin_dir = kPostgresBinDir;
};

class PostgresServer {
 public:
  // Makes the folder and the cluster and starts the server on a free loopback port (started
  // again on another port when the port was taken meanwhile); returns once it accepts
  // connections.
  // Errors: kInvalidArgument naming a setting that is not "name=value" as described above;
  // kFailedPrecondition when a server program is missing from `bin_dir` (the message names
  // the folder and scripts/install-deps.sh) or, as root, when there is no `postgres` user;
  // kInternal when the folder cannot be made or initdb or pg_ctl fails (with their output and
  // the server log); kDeadlineExceeded when a command outlives its timeout.
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start(PostgresServerOptions options = {});
  // Makes a streaming standby of `primary` and starts it like Start (its own folder, port and
  // `options`; the primary's settings are not carried over); returns once it accepts read-only
  // connections. pg_basebackup -R copies the primary's cluster with the WAL it needs, writes
  // standby.signal, and a primary_conninfo over the primary's unix socket carrying
  // `application_name`: the name the primary lists the standby by in pg_stat_replication and
  // that its synchronous_standby_names may name (docs/testing.md, "PostgreSQL in tests").
  // REQUIRES: `primary` runs.
  // Errors: kInvalidArgument when `application_name` is empty or holds other than letters,
  // digits and `_`; those of Start, with pg_basebackup in the place of initdb (kInternal with
  // its output when it fails).
  static absl::StatusOr<std::unique_ptr<PostgresServer>> StartStandby(
      const PostgresServer& primary, absl::string_view application_name,
      PostgresServerOptions options = {});
  // Stops the server at once (pg_ctl stop -m immediate; errors ignored, so a stopped server
  // is fine) and removes the folder.
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // A libpq keyword/value connection string over the unix socket:
  // "host=<folder> port=<port> user=postgres dbname=<database>" (a value with a space, a quote
  // or a backslash is quoted the libpq way).
  std::string ConnectionString(absl::string_view database) const;
  // The same over TCP: "host=127.0.0.1 port=<port> user=postgres dbname=<database>".
  std::string TcpConnectionString(absl::string_view database) const;

  // Creates a fresh empty database named "test_<pid>_<n>" (n counts up per server) and
  // returns its name. Errors: those of Sql.
  absl::StatusOr<std::string> CreateDatabase();
  // Runs `sql` (one or more statements, each committed on its own unless the script opens a
  // transaction) as the superuser in `database` with `psql -X -q -A -t -v ON_ERROR_STOP=1`,
  // and returns what psql printed: unaligned rows, one per line, `|` between columns.
  // Errors: kInvalidArgument with psql's message when a statement fails (the statements
  // before it stay done); kUnavailable when psql cannot connect or loses the connection (a
  // stopped server, a missing database); kDeadlineExceeded after 60 seconds; kInternal
  // otherwise.
  absl::StatusOr<std::string> Sql(absl::string_view database, absl::string_view sql);
  // Runs `sql` in `database` again and again until it prints `expected` (Sql's output), at
  // most `timeout`: a wait on the server's state without a sleep. A server that does not
  // accept connections yet counts as not there yet.
  // Errors: kDeadlineExceeded naming the query, `expected` and the last output or error when
  // the time is up; Sql's other errors at once (a statement that fails).
  absl::Status AwaitSql(absl::string_view database, absl::string_view sql,
                        absl::string_view expected, absl::Duration timeout);
  // Waits (at most `timeout`) until this server, a primary, lists a standby named
  // `application_name` in pg_stat_replication as streaming with `sync_state` ("sync" when
  // synchronous_standby_names names it, "async" otherwise; "potential" and "quorum" exist
  // too). Until then a commit on a primary whose synchronous_standby_names names the standby
  // waits for it. Errors: kInvalidArgument for a name as StartStandby refuses; AwaitSql's.
  absl::Status AwaitStandby(absl::string_view application_name, absl::string_view sync_state,
                            absl::Duration timeout);

  // A crash restart: pg_ctl restart -m immediate, which kills the server without a shutdown
  // checkpoint and starts it again with crash recovery; committed data survives.
  // Errors: kInternal with pg_ctl's output and the server log when pg_ctl fails;
  // kDeadlineExceeded when it outlives its timeout. The same for Stop and StartAgain.
  absl::Status RestartImmediate();
  // A clean stop (pg_ctl stop -m fast): open connections are ended. REQUIRES: running.
  absl::Status Stop();
  // Kills the server: pg_ctl stop -m immediate, no shutdown checkpoint, connections cut; the
  // next start recovers from the WAL. REQUIRES: running.
  absl::Status StopImmediate();
  // Starts a stopped server again on the same folder, port and settings; a standby starts as a
  // standby again. REQUIRES: stopped by Stop or StopImmediate.
  absl::Status StartAgain();
  // Promotes a standby to a primary (pg_ctl promote) and waits until it is out of recovery
  // (pg_is_in_recovery() is false), at most 60 seconds: from then on it accepts writes.
  // REQUIRES: a running standby (StartStandby). Errors: those of RestartImmediate when pg_ctl
  // fails; AwaitSql's.
  absl::Status Promote();

  int port() const { return port_; }
  // The folder: the cluster, the server log and the unix socket are in it.
  const std::filesystem::path& dir() const { return dir_; }
  // `<folder>/data`, the cluster's data directory.
  std::filesystem::path data_dir() const { return dir_ / "data"; }

 private:
  PostgresServer(PostgresServerOptions options, std::string setting_lines)
      : options_(std::move(options)), setting_lines_(std::move(setting_lines)) {}
  // Checks `options` and that `programs` are in its bin_dir; the server, not yet made.
  // Errors: those of Start for a bad setting or a missing program.
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Prepare(
      PostgresServerOptions options, const std::vector<const char*>& programs);
  absl::Status MakeFolder();
  absl::Status InitCluster();
  // The cluster as a streaming standby of `primary` (pg_basebackup -R).
  absl::Status CopyCluster(const PostgresServer& primary, absl::string_view application_name);
  absl::Status Launch();
  // Runs a server program from bin_dir with `args`, as the `postgres` user when root.
  // Errors: those of RunOk.
  absl::Status RunServerProgram(const char* program, const std::vector<std::string>& args,
                                absl::Duration timeout) const;
  // Runs pg_ctl on the cluster with `args` (the command last), waiting at most 60 seconds.
  // Errors: those of RunOk, with the end of the server log.
  absl::Status PgCtl(const std::vector<std::string>& args) const;

  PostgresServerOptions options_;
  // options_.settings as postgresql.conf lines, checked by Start.
  std::string setting_lines_;
  std::filesystem::path dir_;
  int port_ = 0;
  std::atomic<int> databases_made_{0};
  std::atomic<int> scripts_run_{0};
};

// The test process's one server, started on first use with default options and stopped (its
// folder removed) when the process exits. A test that needs a database calls
// `SharedPostgresServer()` and then `CreateDatabase()` on it, and asserts both are OK.
// Errors: those of PostgresServer::Start; a failed start is not retried, every later call
// returns the same error.
absl::StatusOr<PostgresServer*> SharedPostgresServer();

// A connection string naming every server of `servers` in order, over their unix sockets, with
// target_session_attrs=read-write: libpq tries them in turn and keeps the first that accepts
// writes, as credledger's --store does across a database failover (docs/operations.md,
// "Database failover"). "host=<folder>,<folder> port=<port>,<port> user=postgres
// dbname=<database> target_session_attrs=read-write".
// REQUIRES: `servers` is not empty and every one was started (its port is known).
std::string ReadWriteConnectionString(const std::vector<const PostgresServer*>& servers,
                                      absl::string_view database);

}  // namespace credledger::testing
