#include "cli/backup_cli.h"

#include <string>

#include "cli/copy_log_cli.h"
#include "cli/framework/file_path_flag.h"
#include "store/backup.h"
#include "store/open/log_location.h"

namespace credledger::cli {
namespace {

constexpr char kBackupDescription[] =
    "Copies the event log to a new file while `credledger serve` keeps running. The copy\n"
    "holds every event committed when it began, is written beside --to first, checked with\n"
    "SQLite's quick_check, synced, and only then renamed to --to, never over a file that\n"
    "appeared there meanwhile: the file is either absent or complete. Check it with\n"
    "`credledger verify --db <copy> --public-key <key>`; restore it by stopping the service\n"
    "and putting it in place of --db (docs/operations.md).\n"
    "\n"
    "A log on PostgreSQL (--store) is copied into the new SQLite file as `credledger copy-log\n"
    "--to-db` copies it: every event, checkpoint and snapshot up to the head when the copy\n"
    "began, byte for byte, checked against the database before it is renamed to --to. That\n"
    "is a portable copy to verify, hand out or restore anywhere; the primary backup of a\n"
    "PostgreSQL log stays PostgreSQL's own: pg_basebackup with WAL archiving, for\n"
    "point-in-time recovery (docs/operations.md, \"PostgreSQL\").\n"
    "\n"
    "Examples:\n"
    "  credledger backup --db /var/lib/credledger/credledger.db \\\n"
    "      --to /backup/credledger-2026-12-02.db\n"
    "  credledger backup --store postgresql://credledger@db.example:5432/credledger \\\n"
    "      --store-password-file /etc/credledger/db-password --to /backup/credledger.db\n";

class BackupCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override {
    flags_ = &flags;
    flags.Add("db", &db_, "the event log database to copy");
    flags.AddNonEmpty("store", &store_,
              "a log on PostgreSQL to copy into the new SQLite file, instead of --db; its "
              "primary backup is PostgreSQL's own (docs/operations.md, \"PostgreSQL\")");
    flags.AddNonEmpty("store-password-file", &store_password_file_, store::kStorePasswordFileHelp);
    flags.Add("to", &to_, "the new file for the copy (required; must not exist)");
  }

  absl::Status CheckFlags() const override {
    if (to_.empty()) return absl::InvalidArgumentError("--to: required");
    return CheckFilePathFlag("--to", to_);
  }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    absl::StatusOr<store::LogLocation> from =
        store::ParseLogLocation(db_, flags_->Given("db"), store_, store_password_file_);
    if (!from.ok()) return ReportUsageError(from.status().message(), err);
    if (from->is_postgres()) return RunLogCopy(*from, {.sqlite_path = to_}, out, err);
    absl::StatusOr<store::BackupResult> copied = store::BackupDatabase(from->sqlite_path, to_);
    if (!copied.ok()) return ReportError(copied.status(), err);
    out << "copied the log up to seq " << copied->head_seq << " (" << copied->bytes << " bytes) to "
        << to_ << "\n";
    return kExitOk;
  }

 private:
  const FlagSet* flags_ = nullptr;  // the flags DefineFlags declared, to ask which were given
  std::string db_ = "./var/credledger.db";
  std::string store_;
  std::string store_password_file_;
  std::string to_;
};

}  // namespace

void AddBackupCommands(Dispatcher& d) {
  d.Add({"backup", "", "copy the event log to a new file while the service runs", 0, 0,
         [] { return std::make_unique<BackupCommand>(); }, kBackupDescription});
  AddCopyLogCommand(d);
}

}  // namespace credledger::cli
