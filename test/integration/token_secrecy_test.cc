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
#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "projections/mirror_naming.h"
#include "test/integration/live_processes.h"
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
// exports or logs; only hashes do (docs/design.md, "Security model"; docs/mirrors.md,
// "Source hash"). An identity mirrors a source Secret into a namespace, the source is rotated,
// and every output of the CLI and of serve, the database files and every export format are
// searched for the data's values, raw and base64-encoded as the Secret holds them.
class MirrorSecrecyTest : public LiveProcessTest {
 protected:
  static nlohmann::json Source(const std::string& access_key, const std::string& secret_key) {
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", "aws-keys"}, {"namespace", kLiveNamespace}}},
            {"data",
             {{"access_key", absl::Base64Escape(access_key)},
              {"secret_key", absl::Base64Escape(secret_key)}}}};
  }

  // Follows the mirror Secret in `ns` until it holds source hash `hash` (a list, then a
  // watch from it; the watch's server-side timeout bounds the wait).
  bool WaitForMirror(const std::string& ns, const std::string& hash) {
    const std::string name = projections::MirrorSecretName("aws");
    const auto holds = [&](const nlohmann::json& secret) {
      return StringAt(secret, {"metadata", "annotations", "captf.io/source-hash"}) == hash;
    };
    kubebridge::ListOptions by_name;
    by_name.field_selector = absl::StrCat("metadata.name=", name);
    absl::StatusOr<kubebridge::ObjectList> listed =
        admin_->List(kubebridge::SecretResource(ns), by_name);
    if (!listed.ok()) return false;
    for (const nlohmann::json& secret : listed->items) {
      if (holds(secret)) return true;
    }
    kubebridge::WatchOptions watch;
    watch.field_selector = by_name.field_selector;
    watch.resource_version = listed->resource_version;
    watch.timeout = kLiveWait;
    bool found = false;
    admin_
        ->WatchOnce(kubebridge::SecretResource(ns), watch,
                    [&](const kubebridge::WatchEvent& event) {
                      found = found || holds(event.object);
                      // Ending the watch early is the callback's error.
                      return found ? absl::CancelledError("mirror found") : absl::OkStatus();
                    })
        .IgnoreError();
    return found;
  }
};

TEST_F(MirrorSecrecyTest, NoSourceDataReachesTheDatabaseTheLogsOrAnyResponse) {
  const std::vector<std::string> values = {"AKIA-LIVE-7f3e21", "live-secret-value-9a1c55",
                                           "AKIA-LIVE-ROTATED-0b8d", "rotated-secret-4e6f70"};
  ASSERT_OK(admin_->Create(kubebridge::ResourceRef{"", "v1", "namespaces", "", ""},
                           {{"apiVersion", "v1"},
                            {"kind", "Namespace"},
                            {"metadata", {{"name", "team-a"}}}})
                .status());
  ASSERT_OK(admin_->Create(kubebridge::SecretResource(kLiveNamespace), Source(values[0], values[1]))
                .status());
  // Without a policy file the caller's declared name is the Kubernetes user of the review.
  ASSERT_OK(admin_
                ->Create(kubebridge::RoleResource(kLiveNamespace),
                         SecretReaderRole("read-aws-keys", "aws-keys"))
                .status());
  ASSERT_OK(admin_
                ->Create(kubebridge::RoleBindingResource(kLiveNamespace),
                         RoleBindingTo("alice-reads-aws-keys", "read-aws-keys", "User", "alice"))
                .status());
  StartServe();

  EXPECT_EQ(Cli({"identity", "create", "aws", "--secret", "demo/aws-keys", "--allow-namespace",
                 "team-a", "--as", "alice"})
                .exit_code,
            0);
  EXPECT_EQ(Cli({"identity", "bind", "aws", "--namespace", "team-a", "--owner",
                 "batch/v1/Job/plan", "--owner-uid", "6f0c2a8e-5d1b-4c3a-9e7f-0a1b2c3d4e5f", "--as", "alice"})
                .exit_code,
            0);
  ASSERT_TRUE(WaitForMirror("team-a", projections::SourceHash({{"access_key", values[0]},
                                                                {"secret_key", values[1]}})));

  ASSERT_OK_AND_ASSIGN(nlohmann::json live,
                       admin_->Get(kubebridge::SecretResource(kLiveNamespace, "aws-keys")));
  nlohmann::json rotated = Source(values[2], values[3]);
  rotated["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"];
  ASSERT_OK(admin_->Update(kubebridge::SecretResource(kLiveNamespace, "aws-keys"), rotated)
                .status());
  ASSERT_TRUE(WaitForMirror("team-a", projections::SourceHash({{"access_key", values[2]},
                                                                {"secret_key", values[3]}})));

  for (const char* output : {"text", "json"}) {
    EXPECT_EQ(Cli({"identity", "get", "aws", "--output", output}).exit_code, 0);
    EXPECT_EQ(Cli({"identity", "list", "--output", output}).exit_code, 0);
    EXPECT_EQ(Cli({"identity", "mirrors", "--output", output}).exit_code, 0);
    EXPECT_EQ(Cli({"timeline", "--identity", "aws", "--output", output}).exit_code, 0);
  }
  for (const char* format : {"jsonl", "cloudevents", "csv"}) {
    EXPECT_EQ(Cli({"export", "--format", format}).exit_code, 0) << format;
  }
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

}  // namespace token_secrecy_test
}  // namespace credledger::testing
