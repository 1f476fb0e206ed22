// The deciders of the service's own streams and of source checks: `service`
// (ServiceConfigured), `access` (CallsDenied) and `source/<namespace>/<name>` (SourceVerified).
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "service/decide/access_decider.h"
#include "service/decide/service_decider.h"
#include "service/decide/source_decider.h"

namespace credledger::service {
namespace {

v1::ServiceConfigured Config(const std::string& url, int64_t ttl) {
  v1::ServiceConfigured c;
  c.set_agent_apiserver_url(url);
  c.set_agent_ca_sha256(url.empty() ? "" : "ab12");
  c.set_agent_token_ttl_seconds(ttl);
  c.set_credentials_enabled(!url.empty());
  return c;
}

TEST(DecideServiceConfiguredTest, FirstConfigurationIsRecorded) {
  EXPECT_TRUE(DecideServiceConfigured(std::nullopt, Config("https://a", 86400)).has_value());
}

TEST(DecideServiceConfiguredTest, UnchangedConfigurationEmitsNothing) {
  EXPECT_FALSE(
      DecideServiceConfigured(Config("https://a", 86400), Config("https://a", 86400)).has_value());
}

TEST(DecideServiceConfiguredTest, AnyChangedFieldIsRecorded) {
  EXPECT_TRUE(
      DecideServiceConfigured(Config("https://a", 86400), Config("https://a", 3600)).has_value());
  EXPECT_TRUE(DecideServiceConfigured(Config("https://a", 86400), Config("", 86400)).has_value());
}

TEST(ServiceConfiguredRequestIdTest, NamesThePositionTheEventIsAppendedAt) {
  EXPECT_EQ(ServiceConfiguredRequestId(-1), "credledger:service-configured/0");
  EXPECT_EQ(ServiceConfiguredRequestId(4), "credledger:service-configured/5");
}

TEST(DecideCallsDeniedTest, OneEventPerEntryInOrder) {
  RecordCallsDenied command;
  command.entries.emplace_back().set_identity("spiffe://corp/a");
  command.entries.emplace_back().set_identity("spiffe://corp/b");
  const std::vector<v1::Event> events = DecideCallsDenied(command);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].calls_denied().identity(), "spiffe://corp/a");
  EXPECT_EQ(events[1].calls_denied().identity(), "spiffe://corp/b");
  EXPECT_TRUE(DecideCallsDenied(RecordCallsDenied{}).empty());
}

TEST(CallsDeniedRequestIdTest, NamesThePositionTheBatchIsAppendedAt) {
  EXPECT_EQ(CallsDeniedRequestId(-1), "credledger:calls-denied/0");
  EXPECT_EQ(CallsDeniedRequestId(9), "credledger:calls-denied/10");
}

TEST(DecideSourceVerifiedTest, RecordsTheCheckAsOneEventOnTheSourcesStream) {
  RecordSourceVerified command;
  command.verified.set_reason("Verified");
  command.verified.set_url("https://charts.example.com");
  const std::vector<v1::Event> events = DecideSourceVerified(command);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].source_verified().SerializeAsString(), command.verified.SerializeAsString());
  EXPECT_EQ(SourceStream("flux-system", "charts"), "source/flux-system/charts");
}

}  // namespace
}  // namespace credledger::service
