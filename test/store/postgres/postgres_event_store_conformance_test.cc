// Runs the EventStore conformance suites against PostgresEventStore on a real PostgreSQL server
// the test starts (test/support/postgres_server.h).
#include <filesystem>
#include <map>
#include <string>

#include "store/postgres/postgres_event_store.h"
#include "test/store/event_store_conformance.h"
#include "test/store/postgres/postgres_log.h"
#include "test/store/request_probe_conformance.h"

namespace credledger::store {
namespace postgres_event_store_conformance_test {

struct PostgresFactory {
  // One database per test folder, so that a reopen finds the same log.
  static std::unique_ptr<EventStore> Open(const std::filesystem::path& dir, common::Clock* clock) {
    static auto* databases = new std::map<std::string, std::string>();
    auto [it, fresh] = databases->try_emplace(dir.string());
    if (fresh) {
      absl::StatusOr<std::string> conninfo = testing::FreshPostgresLog();
      if (!conninfo.ok()) {
        ADD_FAILURE() << conninfo.status();
        return nullptr;
      }
      it->second = *conninfo;
    }
    auto store = PostgresEventStore::Open(testing::PostgresLogOptions(it->second, clock));
    if (!store.ok()) {
      ADD_FAILURE() << store.status();
      return nullptr;
    }
    return *std::move(store);
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, EventStoreConformanceTest,
                               ::testing::Types<PostgresFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, RequestProbeConformanceTest,
                               ::testing::Types<PostgresFactory>);

}  // namespace postgres_event_store_conformance_test
}  // namespace credledger::store
