// A PostgreSQL event log for tests: a fresh database on the test process's server
// (test/support/postgres_server.h) and the options to open PostgresEventStore on it.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "store/postgres/postgres_event_store.h"
#include "test/support/postgres_server.h"

namespace credledger::testing {

// A fresh, empty database on the shared server: its connection string over the unix socket.
// Errors: those of SharedPostgresServer and CreateDatabase.
inline absl::StatusOr<std::string> FreshPostgresLog() {
  absl::StatusOr<PostgresServer*> server = SharedPostgresServer();
  if (!server.ok()) return server.status();
  absl::StatusOr<std::string> database = (*server)->CreateDatabase();
  if (!database.ok()) return database.status();
  return (*server)->ConnectionString(*database);
}

// Options for a store on `conninfo` with `clock`, holder `holder`.
inline store::PostgresEventStoreOptions PostgresLogOptions(const std::string& conninfo,
                                                           common::Clock* clock,
                                                           const std::string& holder = "test") {
  store::PostgresEventStoreOptions options;
  options.conninfo = conninfo;
  options.clock = clock;
  options.holder = holder;
  return options;
}

}  // namespace credledger::testing
