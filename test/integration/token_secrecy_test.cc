// Token secrecy through the real binaries: the database file, logs and responses never
// contain token bytes (docs/design.md, "Security model").
//
// A whole credential lifecycle runs against `credledger serve` and the test API server:
// register, rotate, confirm, revoke, lift, with get/list/watch in text and JSON between the
// steps. Every token credledger stores is read from its Secret while the Secret exists; at
// the end each token, its base64 form and its signature segment are searched for in the
// database file and its -wal/-shm files (raw bytes, while serve runs and after it stopped),
// in serve's stdout and stderr, and in the stdout and stderr of every CLI run (exports in
// every format and the forensic answers included); so is the
// start of any JWT, which finds a token that never reached a Secret. The test fails when
// credledger writes a token, or a form of it, to any of those places: the tokens searched
// for are exactly the bytes the cluster's Secrets hold.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "projections/mirror_naming.h"
#include "store/event_codec.h"
#include "test/integration/live_processes.h"
#include "test/integration/mirror_processes.h"
#include "test/support/file_text.h"
#include "test/support/rbac_objects.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {
namespace token_secrecy_test {

using kubebridge::StringAt;

constexpr char kTarget[] = "edge-1";

// The forms a leaked token would take: the JWT itself, base64 as a Secret stores it, and
// its signature segment (unique to the token, unlike its header).
std::vector<std::string> NeedlesOf(const std::string& token) {
  std::vector<std::string> needles = {token, absl::Base64Escape(token)};
  const size_t last_dot = token.rfind('.');
  if (last_dot != std::string::npos && token.size() - last_dot > 16) {
    needles.push_back(token.substr(last_dot + 1));
  }
  return needles;
}

class TokenSecrecyTest : public LiveProcessTest {
 protected:
  // Reads the tokens of the Target's credential Secrets that exist now.
  void CollectTokens() {
    for (const nlohmann::json& secret : CredentialSecrets(kTarget)) {
      const std::string token = TokenOf(secret);
      EXPECT_FALSE(token.empty()) << StringAt(secret, {"metadata", "name"});
      if (token.empty()) continue;
      // The search below finds a token where it is: the Secret as the cluster serves it.
      EXPECT_TRUE(absl::StrContains(secret.dump(), NeedlesOf(token)[1]));
      tokens_.insert(token);
    }
  }

  // `credledger get` and `list` in both output formats.
  void ReadEverywhere() {
    for (const char* output : {"text", "json"}) {
      EXPECT_EQ(Cli({"target", "get", "demo/edge-1", "--output", output}).exit_code, 0);
      EXPECT_EQ(Cli({"target", "list", "--output", output}).exit_code, 0);
    }
  }

  std::set<std::string> tokens_;
};

TEST_F(TokenSecrecyTest, NoTokenReachesTheDatabaseTheLogsOrAnyResponse) {
  StartServe();
  // Long-lived watches in both formats see every change of the lifecycle.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Subprocess> text_watch, StartCli({"target", "watch"}));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Subprocess> json_watch,
                       StartCli({"target", "watch", "--output", "json"}));

  EXPECT_EQ(Cli({"target", "register", "demo/edge-1", "--as", "alice"}).exit_code, 0);
  ASSERT_FALSE(WaitForCurrentCredential(kTarget, 1).is_null());
  CollectTokens();
  ReadEverywhere();

  EXPECT_EQ(Cli({"target", "rotate", "demo/edge-1", "--output", "json"}).exit_code, 0);
  const nlohmann::json rotated = WaitForCurrentCredential(kTarget, 2);
  ASSERT_FALSE(rotated.is_null());
  CollectTokens();
  ReadEverywhere();

  const std::string revision =
      absl::StrCat("1.0.0", StringAt(rotated, {"current_credential", "chart_version_suffix"}));
  EXPECT_EQ(Cli({"target", "confirm", "demo/edge-1", "--revision", revision}).exit_code, 0);
  ASSERT_FALSE(WaitForTarget(
                   kTarget,
                   [](const nlohmann::json& t) {
                     return t.value("older_secret_names", nlohmann::json::array()).empty();
                   },
                   "superseded Secret deleted after the confirmation")
                   .is_null());

  EXPECT_EQ(Cli({"target", "revoke", "demo/edge-1", "--reason", "lost", "--output", "json"})
                .exit_code,
            0);
  ASSERT_FALSE(WaitForTarget(
                   kTarget,
                   [](const nlohmann::json& t) {
                     return StringAt(t, {"agent_credential_ready", "reason"}) == "Revoked" &&
                            !t.contains("current_credential") &&
                            t.value("older_secret_names", nlohmann::json::array()).empty();
                   },
                   "credentials revoked")
                   .is_null());
  EXPECT_THAT(CredentialSecrets(kTarget), ::testing::IsEmpty());

  EXPECT_EQ(Cli({"target", "lift", "demo/edge-1"}).exit_code, 0);
  ASSERT_FALSE(WaitForCurrentCredential(kTarget, 1).is_null());
  CollectTokens();
  ReadEverywhere();
  EXPECT_EQ(tokens_.size(), 3u) << "one token per mint: register, rotate, lift";

  // Let both watches print the last change, then end them by stopping serve.
  RunResult last = Cli({"target", "get", "demo/edge-1", "--output", "json"});
  const nlohmann::json got = nlohmann::json::parse(last.out, nullptr, false);
  const std::string last_seq = StringAt(got, {"target", "last_seq"});
  ASSERT_FALSE(last_seq.empty()) << last.out;
  EXPECT_OK(text_watch->WaitForLine(absl::StrCat(last_seq, " change demo/edge-1"),
                                    absl::Now() + kLiveWait));
  EXPECT_OK(json_watch->WaitForLine(absl::StrCat("\"seq\":\"", last_seq, "\""),
                                    absl::Now() + kLiveWait));
  // Every export format and every forensic answer goes through the same search.
  for (const char* format : {"jsonl", "cloudevents", "csv"}) {
    EXPECT_EQ(Cli({"export", "--format", format}).exit_code, 0) << format;
  }
  for (const char* output : {"text", "json"}) {
    EXPECT_EQ(Cli({"timeline", "demo/edge-1", "--output", output}).exit_code, 0);
    EXPECT_EQ(Cli({"replay", "--as-of", last_seq, "--output", output}).exit_code, 0);
    EXPECT_EQ(Cli({"valid-credentials", "--at", "2100-01-01T00:00:00Z", "--output", output})
                  .exit_code,
              0);
    EXPECT_EQ(Cli({"diff", "--from", "0", "--to", last_seq, "--output", output}).exit_code, 0);
  }
  KeepDatabaseFiles("while serving");
  StopServe();
  KeepDatabaseFiles("after stop");
  for (Subprocess* watch : {text_watch.get(), json_watch.get()}) {
    EXPECT_OK(watch->Wait(absl::Now() + kLiveWait));
    haystacks_.push_back({"watch stdout", watch->out()});
    haystacks_.push_back({"watch stderr", watch->err()});
  }
  EXPECT_THAT(text_watch->out(), ::testing::HasSubstr("change demo/edge-1"));

  KeepProcessOutputs();
  ASSERT_FALSE(tokens_.empty());
  for (const std::string& token : tokens_) ExpectNotFoundAnywhere(NeedlesOf(token));
  // Nor any other token (one minted but never stored, say).
  ExpectNotFoundAnywhere({std::begin(kJwtMarkers), std::end(kJwtMarkers)});
}

// Source Secret data through the real binaries: the source data never appears in the log,
// exports or logs (docs/design.md, "Security model"; docs/mirrors.md, "Source fingerprint").
// An identity mirrors a source Secret into a namespace, the source is rotated, and every
// output of the CLI and of serve, the database files and every export format are searched
// for the data's values, raw and base64-encoded as the Secret holds them.
class MirrorSecrecyTest : public MirrorProcessTest {
 protected:
  // Every read of the identity in text and JSON, and every export format.
  void ReadEverywhere() {
    for (const char* output : {"text", "json"}) {
      EXPECT_EQ(Cli({"identity", "get", "aws", "--output", output}).exit_code, 0);
      EXPECT_EQ(Cli({"identity", "list", "--output", output}).exit_code, 0);
      EXPECT_EQ(Cli({"identity", "mirrors", "--output", output}).exit_code, 0);
      EXPECT_EQ(Cli({"timeline", "--identity", "aws", "--output", output}).exit_code, 0);
    }
    for (const char* format : {"jsonl", "cloudevents", "csv"}) {
      EXPECT_EQ(Cli({"export", "--format", format}).exit_code, 0) << format;
    }
  }
};

TEST_F(MirrorSecrecyTest, NoSourceDataReachesTheDatabaseTheLogsOrAnyResponse) {
  const std::vector<std::string> values = {"AKIA-LIVE-7f3e21", "live-secret-value-9a1c55",
                                           "AKIA-LIVE-ROTATED-0b8d", "rotated-secret-4e6f70"};
  CreateSource({{"access_key", values[0]}, {"secret_key", values[1]}});
  StartServe();
  CreateAndBindIdentity();
  ASSERT_TRUE(WaitForMirror("team-a", projections::SourceHash({{"access_key", values[0]},
                                                                {"secret_key", values[1]}})));

  ASSERT_OK_AND_ASSIGN(nlohmann::json live,
                       admin_->Get(kubebridge::SecretResource(kLiveNamespace, "aws-keys")));
  nlohmann::json rotated = Source({{"access_key", values[2]}, {"secret_key", values[3]}});
  rotated["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"];
  ASSERT_OK(admin_->Update(kubebridge::SecretResource(kLiveNamespace, "aws-keys"), rotated)
                .status());
  ASSERT_TRUE(WaitForMirror("team-a", projections::SourceHash({{"access_key", values[2]},
                                                                {"secret_key", values[3]}})));

  ReadEverywhere();
  KeepDatabaseFiles("while serving");
  StopServe();
  KeepDatabaseFiles("after stop");
  KeepProcessOutputs();

  std::vector<std::string> needles;
  for (const std::string& value : values) {
    needles.push_back(value);
    needles.push_back(absl::Base64Escape(value));
  }
  ExpectNotFoundAnywhere(needles);
  // The search can find what it looks for: the mirror holds the rotated data.
  ASSERT_OK_AND_ASSIGN(nlohmann::json mirror,
                       admin_->Get(kubebridge::SecretResource(
                           "team-a", projections::MirrorSecretName("aws"))));
  EXPECT_TRUE(absl::StrContains(mirror.dump(), absl::Base64Escape(values[3])));
}

// A guessed source password cannot be confirmed offline from what credledger records or
// answers (docs/audit.md, "Source fingerprints"). The source holds a known `user` and
// `pw=hunter2`; whoever holds an export could compute the plain source hash of the guess
// {user, pw=hunter2} and look for it. The test computes that hash and searches every event's
// payload and metadata bytes, the database files, every export format, the identity API's
// answers and serve's log lines for its hex form, its raw bytes and its first 8 hex
// characters (a short hash of 8 or more characters starts with them). The mirror in the
// cluster keeps that hash as its captf.io/source-hash annotation, beside the data itself.
TEST_F(MirrorSecrecyTest, AGuessedPasswordCannotBeConfirmedFromTheLogExportsOrAnswers) {
  const std::map<std::string, std::string> data = {{"user", "ops-admin"}, {"pw", "hunter2"}};
  CreateSource(data);
  StartServe();
  CreateAndBindIdentity();
  const std::string guess = projections::SourceHash({data.begin(), data.end()});
  ASSERT_TRUE(WaitForMirror("team-a", guess));
  ReadEverywhere();
  KeepDatabaseFiles("while serving");
  StopServe();
  KeepDatabaseFiles("after stop");
  KeepProcessOutputs();
  // The observation is recorded before any mirror is written, so the log holds it now.
  std::string recorded;  // what the log says of the source's data
  for (const store::RecordedEvent& e : ReadLog()) {
    haystacks_.push_back({absl::StrCat("payload of seq ", e.seq), e.payload});
    haystacks_.push_back({absl::StrCat("metadata of seq ", e.seq), e.metadata});
    absl::StatusOr<v1::Event> event = store::EventCodec::Default().Decode(e);
    ASSERT_OK(event.status());
    if (event->has_source_secret_observed()) {
      recorded = projections::SourceDigestOf(event->source_secret_observed());
    }
    if (event->has_mirror_written()) {
      EXPECT_EQ(projections::SourceDigestOf(event->mirror_written()), recorded);
    }
  }
  ASSERT_FALSE(recorded.empty());

  std::string raw_guess;
  ASSERT_TRUE(common::HexDecode(guess, &raw_guess));
  ExpectNotFoundAnywhere({guess, raw_guess, guess.substr(0, 8)});
  // Nor the key that made the fingerprints (serve made it beside the database), in any form.
  const std::string key_hex = ReadText(db_path().parent_path() / "fingerprint-key").substr(0, 64);
  ASSERT_EQ(key_hex.size(), 64u);
  std::string raw_key;
  ASSERT_TRUE(common::HexDecode(key_hex, &raw_key));
  ExpectNotFoundAnywhere({key_hex, raw_key, key_hex.substr(0, 16)});
  // The search finds what the log holds instead: the exports carry it.
  const auto printed = [&](const std::string& needle) {
    for (const RunResult& run : cli_outputs_) {
      if (absl::StrContains(run.out, needle)) return true;
    }
    return false;
  };
  EXPECT_TRUE(printed(recorded)) << recorded;
  // The cluster keeps CAPTF's annotation.
  ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, admin_->Get(kubebridge::SecretResource(
                                                  "team-a", projections::MirrorSecretName("aws"))));
  EXPECT_EQ(StringAt(mirror, {"metadata", "annotations", "captf.io/source-hash"}), guess);
}

}  // namespace token_secrecy_test
}  // namespace credledger::testing
