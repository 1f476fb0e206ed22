// FaultyVfs: a SQLite VFS for tests that wraps the default VFS (unix) and injects, on demand,
// the storage faults of docs/architecture.md, "Faults":
// - a full file system: once a space limit is set, a write that would make the files grow
//   past it fails with SQLITE_FULL and writes nothing (writes inside a file's current size
//   still succeed, as on a real full file system);
// - failing fsyncs: xSync of the chosen kinds of file answers SQLITE_IOERR_FSYNC without
//   syncing (the written bytes stay in the operating system's cache, as after a real failed
//   fsync).
//
// Only named database files opened through this VFS count and fail: the main database, its
// WAL and its rollback journal. Temporary files (statement journals, sorters) and the
// shared-memory index (-shm, mapped memory rather than written) are passed through untouched.
// Sizes are those last written, truncated or found at open through this VFS; a file deleted
// through it stops counting.
//
// Thread-safety: all methods are thread-safe and may be called while connections on other
// threads use the VFS; writes to counted files are serialized by one mutex.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace credledger::testing {

class FaultyVfs {
 public:
  // Kinds of file, combined with | in FailSyncs.
  enum FileKind : int { kDatabase = 1, kWal = 2, kJournal = 4 };

  // Registers the VFS as `name` (unique in the process) around the current default VFS;
  // with `make_default` it also becomes the default, so that connections that name no VFS
  // (for example those of a whole credledger server) use it.
  explicit FaultyVfs(std::string name, bool make_default = false);
  // Unregisters the VFS. REQUIRES: no connection opened through it is still open.
  ~FaultyVfs();
  FaultyVfs(const FaultyVfs&) = delete;
  FaultyVfs& operator=(const FaultyVfs&) = delete;

  // The registered name, for sqlite3_open_v2 or SqliteEventStoreOptions::vfs.
  const std::string& name() const { return name_; }

  // Bytes held by the counted files now.
  int64_t UsedBytes() const;
  // From now on the counted files may hold at most `bytes` (>= 0) bytes together.
  void SetSpaceLimit(int64_t bytes);
  // Removes the space limit ("space returns").
  void LiftSpaceLimit();
  // From now on xSync fails for the kinds of file in `kinds` (FileKind values or'ed; 0:
  // none fails).
  void FailSyncs(int kinds);

  // Faults injected since construction: writes refused for space, syncs failed.
  int64_t refused_writes() const;
  int64_t failed_syncs() const;

 private:
  friend struct FaultyVfsMethods;

  // Counts `path` at `size` bytes (a file opened or truncated).
  void SetSize(const std::string& path, int64_t size);
  // Stops counting `path` (the file was deleted).
  void Forget(const std::string& path);

  const std::string name_;
  sqlite3_vfs* const real_;
  sqlite3_vfs vfs_;

  mutable absl::Mutex mu_;
  std::map<std::string, int64_t> sizes_ ABSL_GUARDED_BY(mu_);
  std::optional<int64_t> limit_ ABSL_GUARDED_BY(mu_);
  int failing_sync_kinds_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t refused_writes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t failed_syncs_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace credledger::testing
