#include "service/server/service_configuration.h"

#include "gtest/gtest.h"
#include "service/decide/service_decider.h"
#include "service/server/event_log.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/support/captured_log.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::service {
namespace service_configuration_test {

// A configuration with agent API server `url`.
v1::ServiceConfigured AgentsAt(const std::string& url) {
  v1::ServiceConfigured configured;
  configured.set_agent_apiserver_url(url);
  configured.set_agent_token_ttl_seconds(86400);
  return configured;
}

TEST(OpenEventLogTest, CreatingANewLogIsAWarningNamingThePathOpeningAnExistingOneIsNot) {
  ::credledger::testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "fresh" / "credledger.db";
  ::credledger::testing::CapturedLog log;
  for (int start = 0; start < 2; ++start) {
    absl::StatusOr<std::unique_ptr<store::EventLog>> opened =
        OpenEventLog(store::LogLocation{.sqlite_path = path}, store::OpenLogOptions());
    ASSERT_OK(opened);
    (*opened)->Close();
  }
  const std::vector<nlohmann::json> lines = log.Lines(kNewEventLogMessage);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["level"], "warning");
  EXPECT_EQ(lines[0]["db"], path.string());
  // Opened read-only, a missing log is an error and nothing is created.
  const std::filesystem::path other = dir.path() / "other.db";
  store::OpenLogOptions read_only;
  read_only.read_only = true;
  EXPECT_FALSE(OpenEventLog(store::LogLocation{.sqlite_path = other}, read_only).ok());
  EXPECT_FALSE(std::filesystem::exists(other));
  EXPECT_EQ(log.Lines(kNewEventLogMessage).size(), 1u);
}

TEST(RecordServiceConfigurationTest, AppendsOnlyWhenTheConfigurationChangesAcrossRestarts) {
  testing::TempDir dir;
  store::SqliteEventStoreOptions options;
  options.path = dir.path() / "events.db";
  auto open = [&] {
    auto s = store::SqliteEventStore::Open(options);
    EXPECT_OK(s);
    return *std::move(s);
  };
  {
    auto store = open();
    EXPECT_EQ(*RecordServiceConfiguration(*store, AgentsAt("https://a"), "credledger"), true);
  }
  {
    auto store = open();  // restart, same flags
    EXPECT_EQ(*RecordServiceConfiguration(*store, AgentsAt("https://a"), "credledger"), false);
    EXPECT_EQ(*RecordServiceConfiguration(*store, AgentsAt("https://b"), "credledger"), true);
    ASSERT_OK_AND_ASSIGN(auto events, store->ReadStream(kServiceStream, 0, 10));
    ASSERT_EQ(events.size(), 2u);
    ASSERT_OK_AND_ASSIGN(v1::Event last, store::EventCodec::Default().Decode(events[1]));
    EXPECT_EQ(last.service_configured().agent_apiserver_url(), "https://b");
    ASSERT_OK_AND_ASSIGN(auto meta, store::EventCodec::DecodeMetadata(events[1]));
    EXPECT_EQ(meta.actor(), "credledger");
  }
}

}  // namespace service_configuration_test
}  // namespace credledger::service
