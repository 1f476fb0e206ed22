// `credledger copy-log` (copy_log_cli.h).
#include "cli/copy_log_cli.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/counted.h"
#include "cli/framework/file_path_flag.h"
#include "common/sha256.h"
#include "store/open/log_copy.h"

namespace credledger::cli {
namespace {

constexpr char kCopyLogDescription[] =
    "Copies an event log into an empty log, on the other backend or the same one: every event,\n"
    "checkpoint and snapshot up to the head seen when the copy began, byte for byte (every\n"
    "column, recorded_at_us and every hash as stored; nothing is hashed or timed again), so\n"
    "exports, checkpoint signatures, snapshot seals and a witness's checkpoints stay valid.\n"
    "The source is opened read-only and may be a running service's log; what it appends\n"
    "meanwhile is not copied. The target must be empty: a SQLite file that does not exist yet\n"
    "(written beside it and renamed once the copy verifies, so a failed copy leaves nothing),\n"
    "or a PostgreSQL database holding no events (its schema is created first when missing; the\n"
    "copy is one transaction, at whose end log_writer names the copied head). A target that is\n"
    "not empty is refused and left as it is. The copy is then opened read-only and compared\n"
    "with the source, every event, checkpoint and snapshot, and its chains are recomputed.\n"
    "Prints what was copied, from where to where, and that the copy verifies; exits 1 when it\n"
    "does not. Passwords come from the --*-store-password-file flags, PGPASSWORD or a libpq\n"
    "password file, never from the connection string, and are never printed.\n"
    "\n"
    "To move a service's log: stop the service, copy, check the copy with `credledger verify`,\n"
    "start the service on the copy (docs/operations.md, \"Moving a log between SQLite and\n"
    "PostgreSQL\").\n"
    "\n"
    "Examples:\n"
    "  # SQLite to PostgreSQL, when moving a service onto a database server:\n"
    "  credledger copy-log --from-db /var/lib/credledger/credledger.db \\\n"
    "      --to-store postgresql://credledger@db.example:5432/credledger \\\n"
    "      --to-store-password-file /etc/credledger/db-password\n"
    "  # and back, into a new SQLite file:\n"
    "  credledger copy-log --from-store postgresql://credledger@db.example:5432/credledger \\\n"
    "      --from-store-password-file /etc/credledger/db-password \\\n"
    "      --to-db /var/lib/credledger/credledger.db\n";

class CopyLogCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override {
    flags.Add("from-db", &from_db_,
              "the log to copy, a SQLite file (opened read-only; a running service's log may be "
              "copied)");
    flags.AddNonEmpty(
        "from-store", &from_store_,
        "the log to copy on PostgreSQL: a libpq URI or keyword/value string without a "
        "password; instead of --from-db");
    flags.AddNonEmpty("from-store-password-file", &from_password_file_,
                      "with --from-store: a file holding the database password (its first line)");
    flags.Add("to-db", &to_db_,
              "the copy, a new SQLite file (must not exist; written beside it, renamed once it "
              "verifies)");
    flags.AddNonEmpty(
        "to-store", &to_store_,
        "the copy on PostgreSQL: a database holding no events, its schema created when "
        "missing; instead of --to-db");
    flags.AddNonEmpty("to-store-password-file", &to_password_file_,
                      "with --to-store: a file holding the database password (its first line)");
  }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    absl::StatusOr<store::LogLocation> from =
        store::ParseLogLocation(from_db_, !from_db_.empty(), from_store_, from_password_file_,
                                {.db = "--from-db",
                                 .store = "--from-store",
                                 .store_password_file = "--from-store-password-file"});
    if (!from.ok()) return ReportUsageError(from.status().message(), err);
    absl::StatusOr<store::LogLocation> to =
        store::ParseLogLocation(to_db_, !to_db_.empty(), to_store_, to_password_file_,
                                {.db = "--to-db",
                                 .store = "--to-store",
                                 .store_password_file = "--to-store-password-file"});
    if (!to.ok()) return ReportUsageError(to.status().message(), err);
    if (!to->is_postgres()) {
      if (absl::Status path = CheckFilePathFlag("--to-db", to_db_); !path.ok()) {
        return ReportUsageError(path.message(), err);
      }
    }
    return RunLogCopy(*from, *to, out, err);
  }

 private:
  std::string from_db_;
  std::string from_store_;
  std::string from_password_file_;
  std::string to_db_;
  std::string to_store_;
  std::string to_password_file_;
};

}  // namespace

int RunLogCopy(const store::LogLocation& from, const store::LogLocation& to, std::ostream& out,
               std::ostream& err) {
  absl::StatusOr<store::CopiedLog> copied = store::CopyLog(from, to);
  if (!copied.ok()) return ReportError(copied.status(), err);
  const std::string events =
      copied->head_seq == 0
          ? "0 events"
          : absl::StrCat(Counted(copied->head_seq, "event"), " (seq 1..", copied->head_seq,
                         ", chain ", common::HexEncode(copied->head_chain_hash).substr(0, 16), ")");
  out << "copied " << events << ", " << Counted(copied->checkpoints.size(), "checkpoint") << " and "
      << Counted(copied->snapshots.size(), "snapshot") << " from " << from.Name() << " to "
      << to.Name() << "; the copy verifies\n";
  return kExitOk;
}

void AddCopyLogCommand(Dispatcher& d) {
  d.Add({"copy-log", "",
         "copy an event log into an empty log on either backend, byte for byte, and check it", 0, 0,
         [] { return std::make_unique<CopyLogCommand>(); }, kCopyLogDescription});
}

}  // namespace credledger::cli
