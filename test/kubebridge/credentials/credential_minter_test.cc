#include "kubebridge/credentials/credential_minter.h"

#include <memory>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kubebridge/fake_transport.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace credential_minter_test {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kToken[] = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg";

// Records every outcome and answers with the state it was built with.
class RecordingSink final : public OutcomeSink {
 public:
  explicit RecordingSink(v1::TargetState state) : state_(std::move(state)) {}
  absl::StatusOr<v1::TargetState> Record(const std::string&, const std::string&,
                                         const Outcome& outcome, const std::string&) override {
    outcomes.push_back(outcome);
    return state_;
  }
  absl::StatusOr<v1::TargetState> Load(const std::string&, const std::string&) override {
    return state_;
  }
  v1::ServiceConfigured Service() override { return {}; }

  std::vector<Outcome> outcomes;

 private:
  v1::TargetState state_;
};

// A Target whose attempt m1 has recorded Secret solar-agent-edge-1-1, not yet holding a token.
v1::TargetState AttemptWithSecret() {
  v1::TargetState state;
  state.set_namespace_("demo");
  state.set_name("edge-1");
  state.set_target_uid("0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718");
  state.set_phase(v1::TargetState::PHASE_ACTIVE);
  state.mutable_open_attempt()->set_attempt_id("m1");
  state.mutable_open_attempt()->mutable_secret()->set_name("solar-agent-edge-1-1");
  state.mutable_open_attempt()->mutable_secret()->set_uid("u1");
  state.mutable_open_attempt()->set_suffix(1);
  return state;
}

// Regression: when the Secret update after a TokenRequest was refused, the server's message
// went into CredentialMintFailed as it was; kube-apiserver quotes the request body in some
// refusals ("Object 'Kind' is missing in '{...}'"), so the token reached the log, the
// AgentCredentialReady message and every response showing it.
TEST(CredentialMinterTest, ARefusedTokenWriteRecordsTheFailureWithoutTheToken) {
  StepClock clock;
  FakeClient fake = MakeFakeClient(&clock);
  const std::string encoded = absl::Base64Escape(kToken);
  fake.transport->Push(FakeReply::Json(
      200, {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata",
             {{"name", "solar-agent-edge-1-1"}, {"uid", "u1"}, {"resourceVersion", "7"}}}}));
  fake.transport->Push(FakeReply::Json(
      201, {{"status", {{"token", kToken}, {"expirationTimestamp", "2026-01-02T00:00:00Z"}}}}));
  fake.transport->Push(FakeReply::Status(
      400, "BadRequest",
      absl::StrCat("Object 'Kind' is missing in '{\"data\":{\"token\":\"", encoded,
                   "\"}}' (raw ", kToken, ")")));
  fake.transport->Push(FakeReply::Json(200, {{"kind", "Status"}, {"status", "Success"}}));

  RecordingSink sink(AttemptWithSecret());
  CredentialMinter minter(*fake.client, sink, clock, absl::Hours(24));
  ASSERT_OK(minter.Run(AttemptWithSecret(), nullptr));

  ASSERT_EQ(sink.outcomes.size(), 1u);
  const auto* failed = std::get_if<RecordMintFailed>(&sink.outcomes[0]);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->stage, v1::MINT_STAGE_SECRET_UPDATE);
  EXPECT_THAT(failed->message, HasSubstr("Object 'Kind' is missing"));
  EXPECT_THAT(failed->message, Not(HasSubstr(encoded)));
  EXPECT_THAT(failed->message, Not(HasSubstr(kToken)));
  ASSERT_TRUE(failed->deleted_secret.has_value());
  EXPECT_EQ(failed->deleted_secret->uid(), "u1");
  fake.client->Stop();
}

// A Conflict on the token write is answered by a fresh read (docs/architecture.md,
// "Kubernetes API faults"); only a Secret that already holds another token still fails the
// attempt, and is deleted.
TEST(CredentialMinterTest, AConflictOverAnotherStoredTokenFailsTheAttempt) {
  StepClock clock;
  FakeClient fake = MakeFakeClient(&clock);
  const nlohmann::json empty = {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", {{"name", "solar-agent-edge-1-1"}, {"uid", "u1"}, {"resourceVersion", "7"}}}};
  nlohmann::json other = empty;
  other["metadata"]["resourceVersion"] = "8";
  other["data"]["token"] = absl::Base64Escape("another.token.value");
  fake.transport->Push(FakeReply::Json(200, empty));
  fake.transport->Push(FakeReply::Json(
      201, {{"status", {{"token", kToken}, {"expirationTimestamp", "2026-01-02T00:00:00Z"}}}}));
  fake.transport->Push(FakeReply::Status(409, "Conflict", "the object has been modified"));
  fake.transport->Push(FakeReply::Json(200, other));  // the fresh read
  fake.transport->Push(FakeReply::Json(200, {{"kind", "Status"}, {"status", "Success"}}));

  RecordingSink sink(AttemptWithSecret());
  CredentialMinter minter(*fake.client, sink, clock, absl::Hours(24));
  ASSERT_OK(minter.Run(AttemptWithSecret(), nullptr));

  std::vector<std::string> methods;
  for (const HttpRequest& r : fake.transport->requests()) methods.push_back(r.method);
  EXPECT_THAT(methods, ::testing::ElementsAre("GET", "POST", "PUT", "GET", "DELETE"));
  ASSERT_EQ(sink.outcomes.size(), 1u);
  const auto* failed = std::get_if<RecordMintFailed>(&sink.outcomes[0]);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->stage, v1::MINT_STAGE_SECRET_UPDATE);
  EXPECT_THAT(failed->message, HasSubstr("Conflict"));
  ASSERT_TRUE(failed->deleted_secret.has_value());
  fake.client->Stop();
}

}  // namespace credential_minter_test
}  // namespace credledger::kubebridge
