// Refused calls counted per caller identity and minute, with a bounded number of entries
// per minute (docs/api.md, "Refused calls in the log").
#include "service/grpc/auth/denial_ledger.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "service/api/target_api.h"

namespace credledger::service {
namespace denial_ledger_test {

using projections::FromProto;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

const absl::Time kMinute = absl::FromUnixSeconds(1'800'000'000 - 1'800'000'000 % 60);

std::map<std::string, int64_t> Counts(const v1::CallsDenied& event) {
  std::map<std::string, int64_t> counts;
  for (const v1::DeniedRpc& rpc : event.rpcs()) counts[rpc.rpc()] = rpc.count();
  return counts;
}

TEST(DenialLedgerTest, CountsPerIdentityRpcAndMinute) {
  DenialLedger ledger;
  EXPECT_TRUE(ledger.Add("bob", "declared", "TargetService/Revoke", kMinute + absl::Seconds(1)));
  EXPECT_FALSE(ledger.Add("bob", "declared", "TargetService/Revoke", kMinute + absl::Seconds(2)));
  EXPECT_FALSE(
      ledger.Add("bob", "declared", "ReportService/PushReport", kMinute + absl::Seconds(59)));
  EXPECT_TRUE(ledger.Add("carol", "certificate", "TargetService/Revoke", kMinute));
  EXPECT_TRUE(ledger.Add("bob", "declared", "TargetService/Revoke", kMinute + absl::Minutes(1)));
  EXPECT_EQ(ledger.pending(), 3u);

  // Nothing has ended before the end of the first minute.
  EXPECT_THAT(ledger.TakeEndedBefore(kMinute + absl::Seconds(59)), ::testing::IsEmpty());
  std::vector<v1::CallsDenied> first = ledger.TakeEndedBefore(kMinute + absl::Minutes(1));
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].identity(), "bob");
  EXPECT_EQ(first[0].authentication(), "declared");
  EXPECT_EQ(FromProto(first[0].minute()), kMinute);
  EXPECT_EQ(FromProto(first[0].first_at()), kMinute + absl::Seconds(1));
  EXPECT_EQ(FromProto(first[0].last_at()), kMinute + absl::Seconds(59));
  EXPECT_EQ(first[0].identities(), 1);
  EXPECT_EQ(Counts(first[0]), (std::map<std::string, int64_t>{{"ReportService/PushReport", 1},
                                                              {"TargetService/Revoke", 2}}));
  EXPECT_EQ(first[1].identity(), "carol");
  EXPECT_EQ(first[1].authentication(), "certificate");
  EXPECT_EQ(ledger.pending(), 1u);

  std::vector<v1::CallsDenied> rest = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(FromProto(rest[0].minute()), kMinute + absl::Minutes(1));
  EXPECT_EQ(ledger.pending(), 0u);
}

TEST(DenialLedgerTest, AnIdentityRefusedInTwoWaysGetsAnEntryForEach) {
  DenialLedger ledger;
  ledger.Add("anonymous", "anonymous", "TargetService/Revoke", kMinute);
  ledger.Add("anonymous", "unauthenticated", "TargetService/Revoke", kMinute);
  ledger.Add("anonymous", "unauthenticated", "TargetService/Revoke", kMinute);
  std::vector<v1::CallsDenied> events = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].authentication(), "anonymous");
  EXPECT_EQ(Counts(events[0]).at("TargetService/Revoke"), 1);
  EXPECT_EQ(events[1].authentication(), "unauthenticated");
  EXPECT_EQ(Counts(events[1]).at("TargetService/Revoke"), 2);
}

TEST(DenialLedgerTest, IdentitiesPastTheLimitShareOneEntry) {
  DenialLedger ledger;
  const int identities = kMaxIdentitiesPerMinute + 10;
  int opened = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < identities; ++i) {
      opened += ledger.Add(absl::StrCat("caller-", 1000 + i), "declared", "TargetService/Revoke",
                           kMinute + absl::Seconds(round));
    }
  }
  // One log line per identity with its own entry, and one for the shared entry.
  EXPECT_EQ(opened, kMaxIdentitiesPerMinute + 1);
  std::vector<v1::CallsDenied> events = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(events.size(), static_cast<size_t>(kMaxIdentitiesPerMinute + 1));
  for (int i = 0; i < kMaxIdentitiesPerMinute; ++i) {
    EXPECT_EQ(events[i].identity(), absl::StrCat("caller-", 1000 + i));
    EXPECT_EQ(Counts(events[i]).at("TargetService/Revoke"), 3);
  }
  const v1::CallsDenied& others = events.back();
  EXPECT_EQ(others.identity(), "");
  EXPECT_EQ(others.authentication(), "");
  EXPECT_EQ(others.identities(), 10);
  EXPECT_EQ(Counts(others).at("TargetService/Revoke"), 30);
}

TEST(DenialLedgerTest, AFloodOfMadeUpNamesStaysBounded) {
  DenialLedger ledger;
  const int names = kMaxIdentitiesPerMinute + kMaxFoldedIdentities + 500;
  for (int i = 0; i < names; ++i) {
    ledger.Add(absl::StrCat("n", i), "declared", "TargetService/GetTarget", kMinute);
  }
  std::vector<v1::CallsDenied> events = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(events.size(), static_cast<size_t>(kMaxIdentitiesPerMinute + 1));
  EXPECT_EQ(events.back().identities(), kMaxFoldedIdentities);
  EXPECT_EQ(Counts(events.back()).at("TargetService/GetTarget"), names - kMaxIdentitiesPerMinute);
}

TEST(DenialLedgerTest, RestoredEntriesMergeWithLaterCounts) {
  DenialLedger ledger;
  ledger.Add("bob", "declared", "TargetService/Revoke", kMinute + absl::Seconds(5));
  std::vector<v1::CallsDenied> taken = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(taken.size(), 1u);
  ledger.Add("bob", "declared", "TargetService/Revoke", kMinute + absl::Seconds(1));
  ledger.Restore(taken);
  std::vector<v1::CallsDenied> merged = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(Counts(merged[0]).at("TargetService/Revoke"), 2);
  EXPECT_EQ(FromProto(merged[0].first_at()), kMinute + absl::Seconds(1));
  EXPECT_EQ(FromProto(merged[0].last_at()), kMinute + absl::Seconds(5));
}

TEST(DenialLedgerTest, DeclaredNamesAreListedDistinctAndOrderedUpToTheLimit) {
  DenialLedger ledger;
  const absl::string_view rpc = "TargetService/RegisterTarget";
  ledger.Add("spiffe://corp/ops", "certificate", rpc, kMinute, "root");
  ledger.Add("spiffe://corp/ops", "certificate", rpc, kMinute, "admin");
  ledger.Add("spiffe://corp/ops", "certificate", rpc, kMinute, "admin");
  ledger.Add("spiffe://corp/ops", "certificate", rpc, kMinute, "");
  ledger.Add("viewer", "certificate", rpc, kMinute);
  std::vector<v1::CallsDenied> events = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].identity(), "spiffe://corp/ops");
  EXPECT_EQ(Counts(events[0]).at(std::string(rpc)), 4);
  EXPECT_THAT(events[0].declared_names(), ElementsAre("admin", "root"));
  EXPECT_FALSE(events[0].unlisted_declared_names());
  EXPECT_THAT(events[1].declared_names(), IsEmpty());
  EXPECT_FALSE(events[1].unlisted_declared_names());
}

TEST(DenialLedgerTest, DeclaredNamesPastTheLimitOrNotValidActorsAreOnlyFlagged) {
  DenialLedger ledger;
  const absl::string_view rpc = "TargetService/GetTarget";
  for (int i = 0; i < kMaxDeclaredNames + 3; ++i) {
    ledger.Add("anonymous", "unauthenticated", rpc, kMinute, absl::StrCat("name-", i));
  }
  ledger.Add("anonymous", "unauthenticated", rpc, kMinute + absl::Minutes(1), "two words");
  ledger.Add("anonymous", "unauthenticated", rpc, kMinute + absl::Minutes(2),
             std::string(kMaxActorBytes + 1, 'x'));
  ledger.Add("anonymous", "unauthenticated", rpc, kMinute + absl::Minutes(2),
             std::string(kMaxActorBytes, 'y'));
  std::vector<v1::CallsDenied> events = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(events.size(), 3u);
  ASSERT_EQ(events[0].declared_names_size(), kMaxDeclaredNames);
  // The first eight added (name-0 to name-7), ordered.
  EXPECT_EQ(events[0].declared_names(0), "name-0");
  EXPECT_EQ(events[0].declared_names(kMaxDeclaredNames - 1), "name-7");
  EXPECT_TRUE(events[0].unlisted_declared_names());
  EXPECT_THAT(events[1].declared_names(), IsEmpty());
  EXPECT_TRUE(events[1].unlisted_declared_names());
  EXPECT_THAT(events[2].declared_names(), ElementsAre(std::string(kMaxActorBytes, 'y')));
  EXPECT_TRUE(events[2].unlisted_declared_names());
}

TEST(DenialLedgerTest, NamesDeclaredByIdentitiesPastTheLimitAreListedInTheSharedEntry) {
  DenialLedger ledger;
  for (int i = 0; i < kMaxIdentitiesPerMinute; ++i) {
    ledger.Add(absl::StrCat("n", i), "certificate", "TargetService/GetTarget", kMinute);
  }
  ledger.Add("late", "certificate", "TargetService/GetTarget", kMinute, "admin");
  std::vector<v1::CallsDenied> events = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(events.size(), static_cast<size_t>(kMaxIdentitiesPerMinute + 1));
  EXPECT_EQ(events.back().identity(), "");
  EXPECT_THAT(events.back().declared_names(), ElementsAre("admin"));
}

TEST(DenialLedgerTest, RestoredNamesComeBeforeNamesCountedSinceWithinTheLimit) {
  DenialLedger ledger;
  for (int i = 0; i < kMaxDeclaredNames; ++i) {
    ledger.Add("ops", "certificate", "TargetService/Revoke", kMinute, absl::StrCat("b", i));
  }
  std::vector<v1::CallsDenied> taken = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(taken.size(), 1u);
  ledger.Add("ops", "certificate", "TargetService/Revoke", kMinute, "a-later-name");
  ledger.Restore(taken);
  std::vector<v1::CallsDenied> merged = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(merged.size(), 1u);
  ASSERT_EQ(merged[0].declared_names_size(), kMaxDeclaredNames);
  EXPECT_EQ(merged[0].declared_names(0), "b0");
  EXPECT_TRUE(merged[0].unlisted_declared_names());
}

TEST(DenialLedgerTest, RestoredEntriesKeepTheirDeclaredNames) {
  DenialLedger ledger;
  ledger.Add("ops", "certificate", "TargetService/Revoke", kMinute, "root");
  ledger.Add("ops", "certificate", "TargetService/Revoke", kMinute, "two words");
  std::vector<v1::CallsDenied> taken = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(taken.size(), 1u);
  ledger.Add("ops", "certificate", "TargetService/Revoke", kMinute, "admin");
  ledger.Restore(taken);
  std::vector<v1::CallsDenied> merged = ledger.TakeEndedBefore(absl::InfiniteFuture());
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_THAT(merged[0].declared_names(), ElementsAre("admin", "root"));
  EXPECT_TRUE(merged[0].unlisted_declared_names());
}

}  // namespace denial_ledger_test
}  // namespace credledger::service
