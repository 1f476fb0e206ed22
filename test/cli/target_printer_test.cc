// Text output of `credledger target get`, `target list` and `target watch`: the condition of
// an active Target, and none for a finalized one (docs/api.md,
// "GetTarget: `target get <ns>/<name>`").
#include "cli/target_printer.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::cli {
namespace target_printer_test {

using ::testing::HasSubstr;
using ::testing::Not;

v1::Target FinalizedTarget() {
  v1::Target t;
  t.set_namespace_("demo");
  t.set_name("edge-1");
  t.set_uid("2cd159b9-100b-43a0-939d-a5307bf478fd");
  t.set_phase("Finalized");
  t.set_last_seq(40);
  return t;
}

v1::Target ActiveTarget() {
  v1::Target t = FinalizedTarget();
  t.set_phase("Active");
  v1::TargetCondition& c = *t.mutable_agent_credential_ready();
  c.set_type("AgentCredentialReady");
  c.set_status("Unknown");
  c.set_reason("MintPending");
  c.set_message("waiting for the first credential");
  return t;
}

TEST(TargetPrinterTest, AFinalizedTargetShowsNoConditionRatherThanAnEmptyOne) {
  const std::string text = FormatTargetText(FinalizedTarget());
  EXPECT_THAT(text, HasSubstr("\n  condition:   none\n"));
  EXPECT_THAT(text, Not(HasSubstr("=")));  // no "<type>=<status>" of an empty condition

  const std::string row = FormatTargetRow(FinalizedTarget());
  EXPECT_THAT(row, HasSubstr(" Finalized "));
  EXPECT_THAT(row, HasSubstr(" - "));
  EXPECT_THAT(row, Not(HasSubstr("   /")));

  v1::WatchTargetsResponse item;
  item.set_kind(v1::WatchTargetsResponse::KIND_CHANGE);
  item.set_seq(40);
  *item.mutable_target() = FinalizedTarget();
  EXPECT_EQ(FormatWatchItem(item), "40 change demo/edge-1 Finalized -/- -\n");
}

TEST(TargetPrinterTest, AnActiveTargetShowsItsCondition) {
  EXPECT_THAT(FormatTargetText(ActiveTarget()),
              HasSubstr("condition:   AgentCredentialReady=Unknown MintPending: waiting for the "
                        "first credential (since -)\n"));
  v1::WatchTargetsResponse item;
  item.set_kind(v1::WatchTargetsResponse::KIND_SNAPSHOT);
  item.set_seq(7);
  *item.mutable_target() = ActiveTarget();
  EXPECT_EQ(FormatWatchItem(item), "7 snapshot demo/edge-1 Active Unknown/MintPending -\n");
}

}  // namespace target_printer_test
}  // namespace credledger::cli
