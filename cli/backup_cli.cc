#include "cli/backup_cli.h"

#include <string>

#include "cli/framework/file_path_flag.h"
#include "store/backup.h"

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
    "Example:\n"
    "  credledger backup --db /var/lib/credledger/credledger.db \\\n"
    "      --to /backup/credledger-2026-12-02.db\n";

class BackupCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override {
    flags.Add("db", &db_, "the event log database to copy");
    flags.Add("store", &store_,
              "a log on PostgreSQL: refused; back it up with PostgreSQL's own tools "
              "(docs/operations.md, \"PostgreSQL\")");
    flags.Add("to", &to_, "the new file for the copy (required; must not exist)");
  }

  absl::Status CheckFlags() const override {
    if (!store_.empty()) {
      return absl::InvalidArgumentError(
          "--store: a log on PostgreSQL is backed up with PostgreSQL's tools: pg_basebackup with "
          "WAL archiving for point-in-time recovery, or pg_dump for a logical copy "
          "(docs/operations.md, \"PostgreSQL\")");
    }
    if (db_.empty()) return absl::InvalidArgumentError("--db: required");
    if (to_.empty()) return absl::InvalidArgumentError("--to: required");
    return CheckFilePathFlag("--to", to_);
  }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    absl::StatusOr<store::BackupResult> copied = store::BackupDatabase(db_, to_);
    if (!copied.ok()) return ReportError(copied.status(), err);
    out << "copied the log up to seq " << copied->head_seq << " (" << copied->bytes << " bytes) to "
        << to_ << "\n";
    return kExitOk;
  }

 private:
  std::string db_ = "./var/credledger.db";
  std::string store_;
  std::string to_;
};

}  // namespace

void AddBackupCommands(Dispatcher& d) {
  d.Add({"backup", "", "copy the event log to a new file while the service runs", 0, 0,
         [] { return std::make_unique<BackupCommand>(); }, kBackupDescription});
}

}  // namespace credledger::cli
