#include "test/support/postgres_server.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "test/support/file_text.h"
#include "test/support/free_port.h"
#include "test/support/subprocess.h"

namespace credledger::testing {
namespace {

constexpr char kRunuser[] = "/usr/sbin/runuser";
constexpr char kServerUser[] = "postgres";
// The cluster's postgresql.conf includes this file, which Start writes for each launch.
constexpr char kSettingsFile[] = "credledger_test.conf";
constexpr char kPgCtlWaitSeconds[] = "60";
constexpr absl::Duration kInitdbTimeout = absl::Seconds(120);
constexpr absl::Duration kPgCtlTimeout = absl::Seconds(90);  // beyond pg_ctl's own wait
constexpr absl::Duration kSqlTimeout = absl::Seconds(60);
constexpr absl::Duration kPromoteTimeout = absl::Seconds(60);
constexpr int kPostgresLaunchAttempts = 5;
constexpr size_t kLogTailBytes = 4000;

// A libpq keyword/value: as it is when plain, otherwise in single quotes with `\` before
// each `'` and `\`.
std::string ConnectionValue(absl::string_view value) {
  bool plain = !value.empty();
  for (char c : value) plain = plain && !absl::ascii_isspace(c) && c != '\'' && c != '\\';
  if (plain) return std::string(value);
  std::string quoted = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

// A postgresql.conf value: in single quotes, with `'` and `\` doubled.
std::string ConfigValue(absl::string_view value) {
  std::string quoted = "'";
  for (char c : value) {
    quoted += c;
    if (c == '\'' || c == '\\') quoted += c;
  }
  return quoted + "'";
}

// The "name = 'value'" line of a "name=value" setting.
// Errors: kInvalidArgument naming the setting and the rule it breaks.
absl::StatusOr<std::string> SettingLine(const std::string& setting) {
  const size_t equals = setting.find('=');
  const absl::string_view name = absl::string_view(setting).substr(0, equals);
  bool name_ok = !name.empty();
  for (char c : name) name_ok = name_ok && (absl::ascii_isalnum(c) || c == '_' || c == '.');
  if (equals == std::string::npos || !name_ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("postgres setting \"", setting,
                     "\": must be name=value with a name of letters, digits, '_' and '.'"));
  }
  const absl::string_view value = absl::string_view(setting).substr(equals + 1);
  if (absl::StrContains(value, '\n') || absl::StrContains(value, '\r')) {
    return absl::InvalidArgumentError(
        absl::StrCat("postgres setting \"", name, "\": the value must hold no line break"));
  }
  return absl::StrCat(name, " = ", ConfigValue(value), "\n");
}

// A standby's application name: letters, digits and `_`, so that it stands unquoted in a
// connection string and in an SQL literal. Errors: kInvalidArgument naming the rule.
absl::Status CheckApplicationName(absl::string_view name) {
  bool ok = !name.empty();
  for (char c : name) ok = ok && (absl::ascii_isalnum(c) || c == '_');
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("standby application name \"", name, "\": must be letters, digits and '_'"));
}

// The end of the server log, for error messages.
std::string LogTail(const std::filesystem::path& log) {
  const std::string text = ReadText(log);
  return text.size() <= kLogTailBytes ? text : text.substr(text.size() - kLogTailBytes);
}

PostgresServer* shared_server = nullptr;

void StopSharedServer() {
  delete shared_server;
  shared_server = nullptr;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Prepare(
    PostgresServerOptions options, const std::vector<const char*>& programs) {
  std::string setting_lines;
  for (const std::string& setting : options.settings) {
    absl::StatusOr<std::string> line = SettingLine(setting);
    if (!line.ok()) return line.status();
    setting_lines += *line;
  }
  for (const char* program : programs) {
    if (access((options.bin_dir / program).c_str(), X_OK) != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "PostgreSQL 15 program ", program, " is missing from ", options.bin_dir.string(),
          " (the server programs are not on PATH); scripts/install-deps.sh installs "
          "postgresql-15 and libpq-dev"));
    }
  }
  return std::unique_ptr<PostgresServer>(
      new PostgresServer(std::move(options), std::move(setting_lines)));
}

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start(
    PostgresServerOptions options) {
  absl::StatusOr<std::unique_ptr<PostgresServer>> server =
      Prepare(std::move(options), {"initdb", "pg_ctl", "postgres", "psql"});
  if (!server.ok()) return server.status();
  if (absl::Status made = (*server)->MakeFolder(); !made.ok()) return made;
  if (absl::Status made = (*server)->InitCluster(); !made.ok()) return made;
  if (absl::Status launched = (*server)->Launch(); !launched.ok()) return launched;
  return server;
}

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::StartStandby(
    const PostgresServer& primary, absl::string_view application_name,
    PostgresServerOptions options) {
  if (absl::Status named = CheckApplicationName(application_name); !named.ok()) return named;
  absl::StatusOr<std::unique_ptr<PostgresServer>> server =
      Prepare(std::move(options), {"pg_basebackup", "pg_ctl", "postgres", "psql"});
  if (!server.ok()) return server.status();
  if (absl::Status made = (*server)->MakeFolder(); !made.ok()) return made;
  if (absl::Status made = (*server)->CopyCluster(primary, application_name); !made.ok()) {
    return made;
  }
  if (absl::Status launched = (*server)->Launch(); !launched.ok()) return launched;
  return server;
}

PostgresServer::~PostgresServer() {
  if (dir_.empty()) return;
  (void)PgCtl({"stop", "-m", "immediate"});
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

absl::Status PostgresServer::MakeFolder() {
  const passwd* server_user = nullptr;
  if (geteuid() == 0) {
    server_user = getpwnam(kServerUser);
    if (server_user == nullptr) {
      return absl::FailedPreconditionError(
          "running as root, the PostgreSQL programs run as the user postgres, which does not "
          "exist; scripts/install-deps.sh installs postgresql-15, which creates it");
    }
  }
  // Short on purpose: the unix socket path `<folder>/.s.PGSQL.<port>` must stay under 108
  // bytes. mkdtemp makes the folder with mode 0700.
  std::string pattern = "/tmp/clpg.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp ", pattern, ": ", std::strerror(errno)));
  }
  dir_ = pattern;
  if (server_user != nullptr &&
      chown(dir_.c_str(), server_user->pw_uid, server_user->pw_gid) != 0) {
    return absl::InternalError(
        absl::StrCat("chown ", dir_.string(), " to postgres: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status PostgresServer::InitCluster() {
  absl::Status made = RunServerProgram("initdb",
                                       {"-D", data_dir().string(), "-A", "trust", "-U", kServerUser,
                                        "--no-sync", "-E", "UTF8", "--locale=C"},
                                       kInitdbTimeout);
  if (!made.ok()) return made;
  const std::filesystem::path config = data_dir() / "postgresql.conf";
  return WriteTextChecked(config,
                          absl::StrCat(ReadText(config), "include '", kSettingsFile, "'\n"));
}

absl::Status PostgresServer::CopyCluster(const PostgresServer& primary,
                                         absl::string_view application_name) {
  // -R writes standby.signal and a primary_conninfo made of this connection string (less the
  // database), so the standby streams from the primary's socket under `application_name`.
  // The copy includes the primary's settings file, which Launch then writes anew.
  return RunServerProgram(
      "pg_basebackup",
      {"-D", data_dir().string(), "-R", "-X", "stream", "-c", "fast", "--no-sync", "-d",
       absl::StrCat(primary.ConnectionString("postgres"), " application_name=", application_name)},
      kInitdbTimeout);
}

absl::Status PostgresServer::Launch() {
  absl::Status last = absl::InternalError("postgres was not started");
  for (int attempt = 0; attempt < kPostgresLaunchAttempts; ++attempt) {
    absl::StatusOr<int> port = PickFreePort();
    if (!port.ok()) return port.status();
    const std::string settings = absl::StrCat(
        "port = ", *port,
        "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ", ConfigValue(dir_.string()),
        "\nfsync = ", options_.fsync ? "on" : "off", "\n", setting_lines_);
    absl::Status written = WriteTextChecked(data_dir() / kSettingsFile, settings);
    if (!written.ok()) return written;
    std::error_code ignored;
    std::filesystem::remove(dir_ / "log", ignored);  // so the log shows this attempt only
    last = PgCtl({"start"});
    if (last.ok()) {
      port_ = *port;
      return last;
    }
    // Another process may have taken the port since PickFreePort: try another one.
    if (!absl::StrContains(ReadText(dir_ / "log"), "Address already in use")) return last;
  }
  return last;
}

absl::Status PostgresServer::RunServerProgram(const char* program,
                                              const std::vector<std::string>& args,
                                              absl::Duration timeout) const {
  std::vector<std::string> argv;
  if (geteuid() == 0) argv = {kRunuser, "-u", kServerUser, "--"};
  argv.push_back((options_.bin_dir / program).string());
  argv.insert(argv.end(), args.begin(), args.end());
  return RunOk(argv, timeout);
}

absl::Status PostgresServer::PgCtl(const std::vector<std::string>& args) const {
  // -l keeps the server's output off pg_ctl's pipes (Run reads them to their end).
  std::vector<std::string> pg_ctl_args = {
      "-D", data_dir().string(), "-l", (dir_ / "log").string(), "-w", "-t", kPgCtlWaitSeconds};
  pg_ctl_args.insert(pg_ctl_args.end(), args.begin(), args.end());
  absl::Status ran = RunServerProgram("pg_ctl", pg_ctl_args, kPgCtlTimeout);
  if (ran.ok()) return ran;
  return absl::Status(ran.code(),
                      absl::StrCat(ran.message(), "\nserver log:\n", LogTail(dir_ / "log")));
}

absl::Status PostgresServer::RestartImmediate() { return PgCtl({"restart", "-m", "immediate"}); }

absl::Status PostgresServer::Stop() { return PgCtl({"stop", "-m", "fast"}); }

absl::Status PostgresServer::StopImmediate() { return PgCtl({"stop", "-m", "immediate"}); }

absl::Status PostgresServer::StartAgain() { return PgCtl({"start"}); }

absl::Status PostgresServer::Promote() {
  // pg_ctl waits until the control file says the server is in production; sessions see the
  // end of recovery a moment later.
  if (absl::Status promoted = PgCtl({"promote"}); !promoted.ok()) return promoted;
  return AwaitSql("postgres", "SELECT pg_is_in_recovery()", "f\n", kPromoteTimeout);
}

std::string PostgresServer::ConnectionString(absl::string_view database) const {
  return absl::StrCat("host=", ConnectionValue(dir_.string()), " port=", port_,
                      " user=", kServerUser, " dbname=", ConnectionValue(database));
}

std::string PostgresServer::TcpConnectionString(absl::string_view database) const {
  return absl::StrCat("host=127.0.0.1 port=", port_, " user=", kServerUser,
                      " dbname=", ConnectionValue(database));
}

absl::StatusOr<std::string> PostgresServer::CreateDatabase() {
  const std::string name = absl::StrCat("test_", getpid(), "_", ++databases_made_);
  absl::StatusOr<std::string> created = Sql("postgres", absl::StrCat("CREATE DATABASE ", name));
  if (!created.ok()) return created.status();
  return name;
}

absl::StatusOr<std::string> PostgresServer::Sql(absl::string_view database, absl::string_view sql) {
  // A script file (psql -f) rather than -c, so that each statement runs on its own, as psql
  // runs a file; stdin is not available for it.
  const std::filesystem::path script = dir_ / absl::StrCat("script-", ++scripts_run_, ".sql");
  if (absl::Status written = WriteTextChecked(script, std::string(sql)); !written.ok()) {
    return written;
  }
  absl::StatusOr<RunResult> run =
      Run({(options_.bin_dir / "psql").string(), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
           "-d", ConnectionString(database), "-f", script.string()},
          kSqlTimeout);
  std::error_code ignored;
  std::filesystem::remove(script, ignored);
  if (!run.ok()) return run.status();
  // psql's exit codes: 2 when the connection failed or broke, 3 when a statement failed.
  switch (run->exit_code) {
    case 0:
      return run->out;
    case 2:
      return absl::UnavailableError(absl::StrCat("psql could not connect to database \"", database,
                                                 "\" or lost the connection: ", run->err));
    case 3:
      return absl::InvalidArgumentError(
          absl::StrCat("sql in database \"", database, "\" failed: ", run->err));
    default:
      return absl::InternalError(absl::StrCat("psql exited with ", run->exit_code,
                                              " in database \"", database, "\": ", run->err));
  }
}

absl::Status PostgresServer::AwaitSql(absl::string_view database, absl::string_view sql,
                                      absl::string_view expected, absl::Duration timeout) {
  const absl::Time give_up = absl::Now() + timeout;
  std::string last;
  do {
    absl::StatusOr<std::string> out = Sql(database, sql);
    if (out.ok() && *out == expected) return absl::OkStatus();
    if (!out.ok() && out.status().code() != absl::StatusCode::kUnavailable) return out.status();
    last = out.ok() ? absl::StrCat("it printed \"", *out, "\"") : out.status().ToString();
  } while (absl::Now() < give_up);
  return absl::DeadlineExceededError(absl::StrCat("\"", sql, "\" in database \"", database,
                                                  "\" did not print \"", expected, "\" within ",
                                                  absl::FormatDuration(timeout), ": ", last));
}

absl::Status PostgresServer::AwaitStandby(absl::string_view application_name,
                                          absl::string_view sync_state, absl::Duration timeout) {
  if (absl::Status named = CheckApplicationName(application_name); !named.ok()) return named;
  return AwaitSql("postgres",
                  absl::StrCat("SELECT state, sync_state FROM pg_stat_replication WHERE "
                               "application_name = '",
                               application_name, "'"),
                  absl::StrCat("streaming|", sync_state, "\n"), timeout);
}

absl::StatusOr<PostgresServer*> SharedPostgresServer() {
  // Made once, thread-safe. The server is deleted by an exit handler rather than by a static
  // object's destructor (statics with destructors are avoided).
  static const absl::StatusOr<PostgresServer*>* const shared = [] {
    absl::StatusOr<std::unique_ptr<PostgresServer>> started = PostgresServer::Start();
    if (!started.ok()) return new absl::StatusOr<PostgresServer*>(started.status());
    shared_server = started->release();
    std::atexit(StopSharedServer);
    return new absl::StatusOr<PostgresServer*>(shared_server);
  }();
  return *shared;
}

std::string ReadWriteConnectionString(const std::vector<const PostgresServer*>& servers,
                                      absl::string_view database) {
  std::vector<std::string> hosts;
  std::vector<int> ports;
  for (const PostgresServer* server : servers) {
    hosts.push_back(server->dir().string());
    ports.push_back(server->port());
  }
  return absl::StrCat("host=", ConnectionValue(absl::StrJoin(hosts, ",")),
                      " port=", absl::StrJoin(ports, ","), " user=", kServerUser,
                      " dbname=", ConnectionValue(database), " target_session_attrs=read-write");
}

}  // namespace credledger::testing
