#include "test/support/faulty_vfs.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <utility>

namespace credledger::testing {

// An open file: our header, then (at kRealOffset) the wrapped VFS's own file object.
struct WrappedFile {
  sqlite3_file base;  // first, so that a sqlite3_file* is a WrappedFile*
  FaultyVfs* owner = nullptr;
  std::string path;  // empty when the file is not counted
  int kind = 0;      // a FaultyVfs::FileKind, 0 when not counted
};

namespace {

constexpr size_t kRealOffset = (sizeof(WrappedFile) + 15) & ~size_t{15};

WrappedFile* Wrapped(sqlite3_file* file) { return reinterpret_cast<WrappedFile*>(file); }
sqlite3_file* Real(sqlite3_file* file) {
  return reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kRealOffset);
}
const sqlite3_io_methods& RealMethods(sqlite3_file* file) { return *Real(file)->pMethods; }

int KindOf(int open_flags) {
  if (open_flags & SQLITE_OPEN_MAIN_DB) return FaultyVfs::kDatabase;
  if (open_flags & SQLITE_OPEN_WAL) return FaultyVfs::kWal;
  if (open_flags & SQLITE_OPEN_MAIN_JOURNAL) return FaultyVfs::kJournal;
  return 0;
}

}  // namespace

// The VFS and file callbacks; a friend of FaultyVfs for its guarded state.
struct FaultyVfsMethods {
  static FaultyVfs* Self(sqlite3_vfs* vfs) { return static_cast<FaultyVfs*>(vfs->pAppData); }
  static sqlite3_vfs* RealVfs(sqlite3_vfs* vfs) { return Self(vfs)->real_; }

  static int Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags,
                  int* out_flags) {
    auto* wrapped = new (file) WrappedFile();
    wrapped->base.pMethods = nullptr;
    sqlite3_file* real = Real(file);
    real->pMethods = nullptr;
    const int rc = RealVfs(vfs)->xOpen(RealVfs(vfs), name, real, flags, out_flags);
    if (rc != SQLITE_OK) {
      if (real->pMethods != nullptr) real->pMethods->xClose(real);
      wrapped->~WrappedFile();
      file->pMethods = nullptr;
      return rc;
    }
    wrapped->owner = Self(vfs);
    wrapped->kind = name == nullptr ? 0 : KindOf(flags);
    if (wrapped->kind != 0) {
      wrapped->path = name;
      sqlite3_int64 size = 0;
      real->pMethods->xFileSize(real, &size);
      wrapped->owner->SetSize(wrapped->path, size);
    }
    wrapped->base.pMethods = &kIoMethods;
    return SQLITE_OK;
  }

  static int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
    const int rc = RealVfs(vfs)->xDelete(RealVfs(vfs), name, sync_dir);
    if (rc == SQLITE_OK) Self(vfs)->Forget(name);
    return rc;
  }

  static int Close(sqlite3_file* file) {
    const int rc = RealMethods(file).xClose(Real(file));
    Wrapped(file)->~WrappedFile();
    file->pMethods = nullptr;
    return rc;
  }

  static int Write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
    WrappedFile* f = Wrapped(file);
    if (f->kind == 0) return RealMethods(file).xWrite(Real(file), data, amount, offset);
    FaultyVfs& self = *f->owner;
    absl::MutexLock lock(&self.mu_);
    const int64_t old_size = self.sizes_[f->path];
    const int64_t new_size = std::max<int64_t>(old_size, offset + amount);
    if (self.limit_.has_value()) {
      int64_t used = 0;
      for (const auto& [path, size] : self.sizes_) used += size;
      if (used + (new_size - old_size) > *self.limit_) {
        ++self.refused_writes_;
        return SQLITE_FULL;
      }
    }
    const int rc = RealMethods(file).xWrite(Real(file), data, amount, offset);
    if (rc == SQLITE_OK) self.sizes_[f->path] = new_size;
    return rc;
  }

  static int Truncate(sqlite3_file* file, sqlite3_int64 size) {
    const int rc = RealMethods(file).xTruncate(Real(file), size);
    WrappedFile* f = Wrapped(file);
    if (rc == SQLITE_OK && f->kind != 0) f->owner->SetSize(f->path, size);
    return rc;
  }

  static int Sync(sqlite3_file* file, int flags) {
    WrappedFile* f = Wrapped(file);
    if (f->kind != 0) {
      absl::MutexLock lock(&f->owner->mu_);
      if (f->owner->failing_sync_kinds_ & f->kind) {
        ++f->owner->failed_syncs_;
        return SQLITE_IOERR_FSYNC;
      }
    }
    return RealMethods(file).xSync(Real(file), flags);
  }

  // Pure forwarders.
  static int Read(sqlite3_file* file, void* data, int amount, sqlite3_int64 offset) {
    return RealMethods(file).xRead(Real(file), data, amount, offset);
  }
  static int FileSize(sqlite3_file* file, sqlite3_int64* size) {
    return RealMethods(file).xFileSize(Real(file), size);
  }
  static int Lock(sqlite3_file* file, int level) {
    return RealMethods(file).xLock(Real(file), level);
  }
  static int Unlock(sqlite3_file* file, int level) {
    return RealMethods(file).xUnlock(Real(file), level);
  }
  static int CheckReservedLock(sqlite3_file* file, int* out) {
    return RealMethods(file).xCheckReservedLock(Real(file), out);
  }
  static int FileControl(sqlite3_file* file, int op, void* arg) {
    return RealMethods(file).xFileControl(Real(file), op, arg);
  }
  static int SectorSize(sqlite3_file* file) { return RealMethods(file).xSectorSize(Real(file)); }
  static int DeviceCharacteristics(sqlite3_file* file) {
    return RealMethods(file).xDeviceCharacteristics(Real(file));
  }
  static int ShmMap(sqlite3_file* file, int region, int size, int extend, void volatile** out) {
    return RealMethods(file).xShmMap(Real(file), region, size, extend, out);
  }
  static int ShmLock(sqlite3_file* file, int offset, int n, int flags) {
    return RealMethods(file).xShmLock(Real(file), offset, n, flags);
  }
  static void ShmBarrier(sqlite3_file* file) { RealMethods(file).xShmBarrier(Real(file)); }
  static int ShmUnmap(sqlite3_file* file, int delete_flag) {
    return RealMethods(file).xShmUnmap(Real(file), delete_flag);
  }
  static int Fetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** out) {
    return RealMethods(file).xFetch(Real(file), offset, amount, out);
  }
  static int Unfetch(sqlite3_file* file, sqlite3_int64 offset, void* page) {
    return RealMethods(file).xUnfetch(Real(file), offset, page);
  }

  static int Access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
    return RealVfs(vfs)->xAccess(RealVfs(vfs), name, flags, out);
  }
  static int FullPathname(sqlite3_vfs* vfs, const char* name, int size, char* out) {
    return RealVfs(vfs)->xFullPathname(RealVfs(vfs), name, size, out);
  }
  static void* DlOpen(sqlite3_vfs* vfs, const char* name) {
    return RealVfs(vfs)->xDlOpen(RealVfs(vfs), name);
  }
  static void DlError(sqlite3_vfs* vfs, int size, char* out) {
    RealVfs(vfs)->xDlError(RealVfs(vfs), size, out);
  }
  static void (*DlSym(sqlite3_vfs* vfs, void* handle, const char* symbol))(void) {
    return RealVfs(vfs)->xDlSym(RealVfs(vfs), handle, symbol);
  }
  static void DlClose(sqlite3_vfs* vfs, void* handle) {
    RealVfs(vfs)->xDlClose(RealVfs(vfs), handle);
  }
  static int Randomness(sqlite3_vfs* vfs, int size, char* out) {
    return RealVfs(vfs)->xRandomness(RealVfs(vfs), size, out);
  }
  static int Sleep(sqlite3_vfs* vfs, int microseconds) {
    return RealVfs(vfs)->xSleep(RealVfs(vfs), microseconds);
  }
  static int CurrentTime(sqlite3_vfs* vfs, double* out) {
    return RealVfs(vfs)->xCurrentTime(RealVfs(vfs), out);
  }
  static int GetLastError(sqlite3_vfs* vfs, int size, char* out) {
    return RealVfs(vfs)->xGetLastError(RealVfs(vfs), size, out);
  }
  static int CurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* out) {
    return RealVfs(vfs)->xCurrentTimeInt64(RealVfs(vfs), out);
  }

  // Version 3: WAL needs the shared-memory methods (2), memory mapping the fetch ones (3).
  static constexpr sqlite3_io_methods kIoMethods = {
      3,          Close,       Read,         Write,    Truncate,
      Sync,       FileSize,    Lock,         Unlock,   CheckReservedLock,
      FileControl, SectorSize, DeviceCharacteristics, ShmMap, ShmLock,
      ShmBarrier, ShmUnmap,    Fetch,        Unfetch};
};

FaultyVfs::FaultyVfs(std::string name, bool make_default)
    : name_(std::move(name)), real_(sqlite3_vfs_find(nullptr)), vfs_() {
  if (real_ == nullptr || real_->iVersion < 2) std::abort();
  vfs_.iVersion = 2;
  vfs_.szOsFile = static_cast<int>(kRealOffset) + real_->szOsFile;
  vfs_.mxPathname = real_->mxPathname;
  vfs_.zName = name_.c_str();
  vfs_.pAppData = this;
  vfs_.xOpen = FaultyVfsMethods::Open;
  vfs_.xDelete = FaultyVfsMethods::Delete;
  vfs_.xAccess = FaultyVfsMethods::Access;
  vfs_.xFullPathname = FaultyVfsMethods::FullPathname;
  vfs_.xDlOpen = FaultyVfsMethods::DlOpen;
  vfs_.xDlError = FaultyVfsMethods::DlError;
  vfs_.xDlSym = FaultyVfsMethods::DlSym;
  vfs_.xDlClose = FaultyVfsMethods::DlClose;
  vfs_.xRandomness = FaultyVfsMethods::Randomness;
  vfs_.xSleep = FaultyVfsMethods::Sleep;
  vfs_.xCurrentTime = FaultyVfsMethods::CurrentTime;
  vfs_.xGetLastError = FaultyVfsMethods::GetLastError;
  vfs_.xCurrentTimeInt64 = FaultyVfsMethods::CurrentTimeInt64;
  if (sqlite3_vfs_register(&vfs_, make_default ? 1 : 0) != SQLITE_OK) std::abort();
}

FaultyVfs::~FaultyVfs() { sqlite3_vfs_unregister(&vfs_); }

int64_t FaultyVfs::UsedBytes() const {
  absl::MutexLock lock(&mu_);
  int64_t used = 0;
  for (const auto& [path, size] : sizes_) used += size;
  return used;
}

void FaultyVfs::SetSpaceLimit(int64_t bytes) {
  absl::MutexLock lock(&mu_);
  limit_ = bytes;
}

void FaultyVfs::LiftSpaceLimit() {
  absl::MutexLock lock(&mu_);
  limit_.reset();
}

void FaultyVfs::FailSyncs(int kinds) {
  absl::MutexLock lock(&mu_);
  failing_sync_kinds_ = kinds;
}

int64_t FaultyVfs::refused_writes() const {
  absl::MutexLock lock(&mu_);
  return refused_writes_;
}

int64_t FaultyVfs::failed_syncs() const {
  absl::MutexLock lock(&mu_);
  return failed_syncs_;
}

void FaultyVfs::SetSize(const std::string& path, int64_t size) {
  absl::MutexLock lock(&mu_);
  sizes_[path] = size;
}

void FaultyVfs::Forget(const std::string& path) {
  absl::MutexLock lock(&mu_);
  sizes_.erase(path);
}

}  // namespace credledger::testing
