// CopyLog (log_copy.h): the rows of a log, as stored, into an empty log, and the check of the
// copy.
#include "store/open/log_copy.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "store/log_hash.h"
#include "store/log_import.h"
#include "store/page_reader.h"
#include "store/postgres/postgres_log_import.h"
#include "store/sqlite_log_import.h"

namespace credledger::store {
namespace {

// Events per read of the source and per call of the import.
constexpr int kCopyPage = 256;

// Prefixes errors with the log they concern: "source <name>: " or "target <name>: ".
class Blame {
 public:
  Blame(const LogLocation& from, const LogLocation& to)
      : source_(absl::StrCat("source ", from.Name(), ": ")),
        target_(absl::StrCat("target ", to.Name(), ": ")) {}

  absl::Status Source(const absl::Status& status) const { return Prefixed(source_, status); }
  absl::Status Target(const absl::Status& status) const { return Prefixed(target_, status); }

 private:
  static absl::Status Prefixed(const std::string& prefix, const absl::Status& status) {
    if (status.ok()) return status;
    return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
  }

  const std::string source_;
  const std::string target_;
};

// An import under way and where its copy can be read once committed.
struct Target {
  std::unique_ptr<LogImport> import;
  LogLocation written;
};

absl::StatusOr<Target> StartImport(const LogLocation& to) {
  if (to.is_postgres()) {
    ASSIGN_OR_RETURN(
        std::unique_ptr<PostgresLogImport> import,
        PostgresLogImport::Start(to.postgres_conninfo, to.postgres_password, kLogConnectTimeout));
    return Target{std::move(import), to};
  }
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteLogImport> import, SqliteLogImport::Start(to.sqlite_path));
  LogLocation written{.sqlite_path = import->written_path()};
  return Target{std::move(import), std::move(written)};
}

// Hands the rows of `source` up to its head to `import`: events, then checkpoints, then
// snapshots, each naming events before it.
absl::StatusOr<CopiedLog> CopyRows(EventStore& source, LogImport& import, const Blame& blame) {
  CopiedLog copied;
  copied.head_seq = source.HeadSeq();
  copied.head_chain_hash = ZeroHash();
  PageReader reader(&source, 0, copied.head_seq, kCopyPage, EventFields::kAll);
  std::vector<RecordedEvent> page;
  while (true) {
    RETURN_IF_ERROR(blame.Source(reader.Next(page)));
    if (page.empty()) break;
    RETURN_IF_ERROR(blame.Target(import.AddEvents(page)));
    copied.head_chain_hash = page.back().chain_hash;
  }
  absl::StatusOr<std::vector<v1::Checkpoint>> checkpoints =
      CheckpointsUpTo(source, copied.head_seq);
  RETURN_IF_ERROR(blame.Source(checkpoints.status()));
  copied.checkpoints = *std::move(checkpoints);
  RETURN_IF_ERROR(blame.Target(import.AddCheckpoints(copied.checkpoints)));
  absl::StatusOr<std::vector<SnapshotId>> ids = source.ListSnapshots();
  RETURN_IF_ERROR(blame.Source(ids.status()));
  for (const SnapshotId& id : *ids) {
    if (id.seq > copied.head_seq) continue;
    absl::StatusOr<std::optional<Snapshot>> snapshot = source.LoadSnapshot(id.projection, id.seq);
    RETURN_IF_ERROR(blame.Source(snapshot.status()));
    if (!snapshot->has_value()) {
      return blame.Source(absl::AbortedError(absl::StrCat(
          "snapshot \"", id.projection, "\" at seq ", id.seq, " went away while copying")));
    }
    RETURN_IF_ERROR(blame.Target(import.AddSnapshot(**snapshot)));
    copied.snapshots.push_back(id);
  }
  return copied;
}

}  // namespace

absl::StatusOr<CopiedLog> CopyLog(const LogLocation& from, const LogLocation& to) {
  const Blame blame(from, to);
  OpenLogOptions read_only;
  read_only.read_only = true;
  absl::StatusOr<std::unique_ptr<EventLog>> source = OpenLog(from, read_only);
  RETURN_IF_ERROR(blame.Source(source.status()));
  absl::StatusOr<Target> target = StartImport(to);
  RETURN_IF_ERROR(blame.Target(target.status()));
  ASSIGN_OR_RETURN(CopiedLog copied, CopyRows(**source, *target->import, blame));
  RETURN_IF_ERROR(blame.Target(target->import->Commit()));
  {
    absl::StatusOr<std::unique_ptr<EventLog>> copy = OpenLog(target->written, read_only);
    absl::Status checked = copy.ok() ? CheckCopy(**source, **copy, copied) : copy.status();
    if (!checked.ok() && to.is_postgres()) {
      checked = absl::Status(checked.code(),
                             absl::StrCat(checked.message(),
                                          " (the copy was committed: drop the database and create "
                                          "it again before copying into it again)"));
    }
    RETURN_IF_ERROR(blame.Target(checked));
  }
  RETURN_IF_ERROR(blame.Target(target->import->Publish()));
  return copied;
}

}  // namespace credledger::store
