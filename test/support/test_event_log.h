// OpenTestEventLog: the SQLite event log most tests write to. For tests only.
#pragma once

#include <filesystem>
#include <memory>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "store/sqlite_event_store.h"

namespace credledger::testing {

// A SqliteEventStore on "<dir>/events.db" (created when missing) with `clock` (not owned;
// must outlive the store) as its clock, and synchronous=NORMAL: durability on power loss is
// not what these tests check, and it keeps them fast. Errors: those of
// SqliteEventStore::Open.
inline absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> OpenTestEventLog(
    const std::filesystem::path& dir, common::Clock* clock) {
  store::SqliteEventStoreOptions options;
  options.path = dir / "events.db";
  options.clock = clock;
  options.synchronous = store::SqliteEventStoreOptions::Synchronous::kNormal;
  return store::SqliteEventStore::Open(options);
}

}  // namespace credledger::testing
