// The deciders of the service's own streams and of source checks: `service`
// (ServiceConfigured), `access` (CallsDenied), `audit` (LogAdopted) and
// `source/<namespace>/<name>` (SourceVerified).
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "service/decide/access_decider.h"
#include "service/decide/audit_decider.h"
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

AdoptLog Adoption() {
  AdoptLog command;
  command.adoption.set_reason("restored from the 02:00 backup");
  command.adoption.set_adopted_by("jane");
  command.adoption.add_refusals("the log holds 12 events and no checkpoint");
  command.adoption.set_head_seq(12);
  command.adoption.set_head_chain_hash(std::string(32, 'h'));
  return command;
}

TEST(DecideLogAdoptedTest, RecordsTheAdoptionAsGiven) {
  const AdoptLog command = Adoption();
  auto event = DecideLogAdopted(command);
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->log_adopted().SerializeAsString(), command.adoption.SerializeAsString());
  EXPECT_EQ(LogAdoptedRequestId(-1), "credledger:log-adopted/0");
  EXPECT_EQ(LogAdoptedRequestId(2), "credledger:log-adopted/3");
}

TEST(DecideLogAdoptedTest, RefusesAnAdoptionWithoutReasonAuthorOrRefusal) {
  const auto refused = [](void (*edit)(AdoptLog&)) {
    AdoptLog command = Adoption();
    edit(command);
    return std::string(DecideLogAdopted(command).status().message());
  };
  EXPECT_EQ(refused([](AdoptLog& c) { c.adoption.set_reason("  "); }),
            "reason: required: say why the log is adopted (it is recorded)");
  EXPECT_EQ(refused([](AdoptLog& c) { c.adoption.set_reason(std::string(1025, 'x')); }),
            "reason: 1025 bytes; at most 1024 allowed");
  EXPECT_EQ(refused([](AdoptLog& c) { c.adoption.set_reason("line\nbreak"); }),
            "reason: must be UTF-8 text without control characters");
  EXPECT_EQ(refused([](AdoptLog& c) { c.adoption.set_reason("\xff"); }),
            "reason: must be UTF-8 text without control characters");
  EXPECT_NE(refused([](AdoptLog& c) { c.adoption.set_adopted_by("jane doe"); }), "");
  EXPECT_EQ(refused([](AdoptLog& c) { c.adoption.clear_refusals(); }),
            "refusals: a log is adopted only over a refusal");
  EXPECT_EQ(refused([](AdoptLog& c) { c.adoption.set_head_chain_hash("short"); }),
            "head_chain_hash: 5 bytes; must be 32");
  EXPECT_TRUE(ValidateAdoptionReason("--reason", "Wiederhergestellt nach Plattenausfall \u2013 ok")
                  .ok());
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
