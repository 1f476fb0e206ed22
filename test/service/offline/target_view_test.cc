// The API view of a Target: the chart version suffix, the current and older Secrets, the
// condition, and no token material.
#include "service/offline/target_view.h"

#include <google/protobuf/descriptor.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "projections/target_state.h"

namespace credledger::service {
namespace target_view_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kFingerprint[] = "9f8e7d6c5b4a3921";

v1::CredentialRecord Credential(int suffix, v1::CredentialRecord::Phase phase) {
  v1::CredentialRecord c;
  c.mutable_secret()->set_name(absl::StrCat("solar-agent-edge-1-", suffix));
  c.mutable_secret()->set_uid(absl::StrCat("uid-", suffix));
  c.set_suffix(suffix);
  c.set_phase(phase);
  c.set_credential_tag(projections::CredentialTag(absl::StrCat("uid-", suffix)));
  c.set_token_fingerprint(kFingerprint);
  *c.mutable_issued_at() = projections::ToProto(absl::FromUnixSeconds(1000));
  *c.mutable_expires_at() = projections::ToProto(absl::FromUnixSeconds(2000));
  *c.mutable_rotation_due_at() = projections::ToProto(absl::FromUnixSeconds(1800));
  return c;
}

v1::TargetState State() {
  v1::TargetState s;
  s.set_namespace_("demo");
  s.set_name("edge-1");
  s.set_target_uid("0f8fad5b-d9cb-469f-a165-70867728950e");
  s.set_phase(v1::TargetState::PHASE_ACTIVE);
  *s.add_credentials() = Credential(1, v1::CredentialRecord::PHASE_ISSUED);
  *s.add_credentials() = Credential(2, v1::CredentialRecord::PHASE_ISSUED);
  *s.add_credentials() = Credential(3, v1::CredentialRecord::PHASE_CREATED);
  s.mutable_open_attempt()->set_attempt_id("m3");
  s.mutable_open_attempt()->mutable_secret()->set_uid("uid-3");
  s.set_last_seq(41);
  v1::Condition* c = s.mutable_agent_credential_ready();
  c->set_type("AgentCredentialReady");
  c->set_status("True");
  c->set_reason("Issued");
  c->set_message("Secret solar-agent-edge-1-2 holds the current credential");
  *c->mutable_last_transition_time() = projections::ToProto(absl::FromUnixSeconds(1000));
  return s;
}

TEST(TargetViewTest, SuffixIsDashConnectionHashDashCredentialTag) {
  EXPECT_EQ(ChartVersionSuffix("0a1b2c3d4e", "5f6a7b8c9d"), "-0a1b2c3d4e-5f6a7b8c9d");
}

TEST(TargetViewTest, CurrentCredentialIsTheNewestIssuedSecret) {
  const v1::Target view = ToTargetView(State(), "0a1b2c3d4e");
  EXPECT_EQ(view.namespace_(), "demo");
  EXPECT_EQ(view.name(), "edge-1");
  EXPECT_EQ(view.uid(), "0f8fad5b-d9cb-469f-a165-70867728950e");
  EXPECT_EQ(view.phase(), "Active");
  const v1::TargetCredential& c = view.current_credential();
  EXPECT_EQ(c.secret_name(), "solar-agent-edge-1-2");
  EXPECT_EQ(c.credential_tag(), projections::CredentialTag("uid-2"));
  EXPECT_EQ(c.connection_hash(), "0a1b2c3d4e");
  EXPECT_EQ(c.chart_version_suffix(),
            absl::StrCat("-0a1b2c3d4e-", projections::CredentialTag("uid-2")));
  EXPECT_EQ(c.issued_at().seconds(), 1000);
  EXPECT_EQ(c.expires_at().seconds(), 2000);
  EXPECT_EQ(c.rotation_due_at().seconds(), 1800);
  // The Secret of the mint in flight is neither current nor older.
  EXPECT_THAT(view.older_secret_names(), ElementsAre("solar-agent-edge-1-1"));
  EXPECT_EQ(view.open_mint_attempt_id(), "m3");
  EXPECT_EQ(view.agent_credential_ready().reason(), "Issued");
  EXPECT_EQ(view.agent_credential_ready().last_transition_time().seconds(), 1000);
  EXPECT_EQ(view.last_seq(), 41);
}

// A finalized Target's state has no condition; its view leaves the field unset rather than
// sending an empty condition (docs/api.md, "GetTarget: `target get <ns>/<name>`").
TEST(TargetViewTest, AFinalizedTargetHasNoCondition) {
  v1::TargetState s = State();
  s.clear_credentials();
  s.clear_open_attempt();
  s.clear_agent_credential_ready();
  s.set_phase(v1::TargetState::PHASE_FINALIZED);
  const v1::Target view = ToTargetView(s, "0a1b2c3d4e");
  EXPECT_EQ(view.phase(), "Finalized");
  EXPECT_FALSE(view.has_agent_credential_ready());
}

TEST(TargetViewTest, NoCredentialLeavesTheCredentialUnset) {
  v1::TargetState s = State();
  s.clear_credentials();
  s.set_phase(v1::TargetState::PHASE_DELETING);
  const v1::Target view = ToTargetView(s, "0a1b2c3d4e");
  EXPECT_FALSE(view.has_current_credential());
  EXPECT_EQ(view.phase(), "Deleting");
  EXPECT_EQ(PhaseName(v1::TargetState::PHASE_FINALIZED), "Finalized");
}

TEST(TargetViewTest, TheViewCarriesNoTokenMaterial) {
  const v1::Target view = ToTargetView(State(), "0a1b2c3d4e");
  EXPECT_THAT(view.SerializeAsString(), Not(HasSubstr(kFingerprint)));
  // No field of any API message can carry a token or its fingerprint. (A source fingerprint,
  // MirrorView.source_fingerprint, is keyed and names a source Secret's data, no token.)
  const google::protobuf::FileDescriptor* api = v1::Target::descriptor()->file();
  for (int i = 0; i < api->message_type_count(); ++i) {
    const google::protobuf::Descriptor* message = api->message_type(i);
    for (int f = 0; f < message->field_count(); ++f) {
      const std::string name = absl::AsciiStrToLower(message->field(f)->name());
      if (name == "source_fingerprint") continue;
      EXPECT_THAT(name, Not(HasSubstr("token"))) << message->full_name();
      EXPECT_THAT(name, Not(HasSubstr("fingerprint"))) << message->full_name();
    }
  }
}

}  // namespace target_view_test
}  // namespace credledger::service
