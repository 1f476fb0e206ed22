// Runs the EventStore conformance suites against SqliteEventStore, with synchronous FULL (the
// default) and NORMAL.
#include "store/sqlite_event_store.h"
#include "test/store/event_store_conformance.h"
#include "test/store/request_probe_conformance.h"

namespace credledger::store {
namespace sqlite_event_store_conformance_test {

template <SqliteEventStoreOptions::Synchronous kSync>
struct SqliteFactory {
  static std::unique_ptr<EventStore> Open(const std::filesystem::path& dir, common::Clock* clock) {
    SqliteEventStoreOptions options;
    options.path = dir / "events.db";
    options.clock = clock;
    options.synchronous = kSync;
    auto store = SqliteEventStore::Open(options);
    if (!store.ok()) {
      ADD_FAILURE() << store.status();
      return nullptr;
    }
    return *std::move(store);
  }
};

using Factories = ::testing::Types<SqliteFactory<SqliteEventStoreOptions::Synchronous::kFull>,
                                   SqliteFactory<SqliteEventStoreOptions::Synchronous::kNormal>>;
struct FactoryNames {
  template <typename T>
  static std::string GetName(int index) {
    return index == 0 ? "SynchronousFull" : "SynchronousNormal";
  }
};
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, EventStoreConformanceTest, Factories, FactoryNames);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, RequestProbeConformanceTest, Factories, FactoryNames);

}  // namespace sqlite_event_store_conformance_test
}  // namespace credledger::store
