// `credledger source verify`: the spec flags and the source file as they become a
// SourceSpec, the printed text, the exit codes, and the subcommand end to end against
// SourceService served over gRPC on 127.0.0.1:0 (SourceApi on a real SQLite log with a fake
// verifier).
#include "cli/source_cli.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>

#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "cli/source_printer.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/api/authorization_policy.h"
#include "service/api/source_api.h"
#include "service/grpc/source_grpc_service.h"
#include "store/sqlite_event_store.h"
#include "test/support/call_environment.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::cli {
namespace source_cli_test {

using ::google::protobuf::util::MessageDifferencer;
using service::AuthorizationPolicy;
using service::CallAuthorizer;
using service::SourceApi;
using service::SourceGrpcService;
using service::TestCallEnvironment;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;
using testing::StatusIs;

v1::SourceSpec ParseSpec(const std::string& text) {
  v1::SourceSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  return spec;
}

MATCHER_P(EqualsProto, expected, "") {
  if (MessageDifferencer::Equals(arg, expected)) return true;
  *result_listener << "is\n" << arg.DebugString();
  return false;
}

// A Git source over SSH with known_hosts from a Secret and a CA bundle from a ConfigMap, as
// both the flags and the file of the tests below describe it.
constexpr char kGitSshSpec[] = R"pb(
  kind: SOURCE_KIND_GIT
  url: "ssh://git@git.example.com/org/repo.git"
  namespace: "flux-system"
  auth {
    type: "sshKey"
    ssh_key {
      secret_name: "deploy-key"
      known_hosts_ref { kind: "Secret" name: "hosts" key: "kh" }
    }
  }
  tls {
    insecure_skip_verify: true
    ca_public_cert_ref { kind: "ConfigMap" name: "corp-ca" }
  }
)pb";

// ---- Flags -------------------------------------------------------------------------------

// The flags that describe kGitSshSpec.
SourceFlags GitSshFlags() {
  SourceFlags flags;
  flags.kind = "git";
  flags.url = "ssh://git@git.example.com/org/repo.git";
  flags.source_namespace = "flux-system";
  flags.auth = "sshKey";
  flags.secret = "deploy-key";
  flags.known_hosts_secret = "hosts";
  flags.known_hosts_key = "kh";
  flags.ca_configmap = "corp-ca";
  flags.insecure_skip_tls_verify = true;
  return flags;
}

TEST(SourceSpecFromFlagsTest, SshKeyWithKnownHostsAndACaBundle) {
  ASSERT_OK_AND_ASSIGN(v1::SourceSpec spec, SourceSpecFromFlags(GitSshFlags()));
  EXPECT_THAT(spec, EqualsProto(ParseSpec(kGitSshSpec)));
}

TEST(SourceSpecFromFlagsTest, EachAuthTypeFillsOnlyItsBlock) {
  SourceFlags flags;
  flags.kind = "helm";
  flags.url = "https://charts.example.com";
  ASSERT_OK_AND_ASSIGN(v1::SourceSpec none, SourceSpecFromFlags(flags));
  EXPECT_THAT(none, EqualsProto(ParseSpec(R"pb(
                kind: SOURCE_KIND_HELM
                url: "https://charts.example.com"
                auth { type: "none" }
              )pb")));
  flags.auth = "basic";
  flags.secret = "creds";
  flags.ca_secret = "ca";
  flags.ca_key = "bundle.pem";
  ASSERT_OK_AND_ASSIGN(v1::SourceSpec basic, SourceSpecFromFlags(flags));
  EXPECT_THAT(basic, EqualsProto(ParseSpec(R"pb(
                kind: SOURCE_KIND_HELM
                url: "https://charts.example.com"
                auth {
                  type: "basic"
                  basic { secret_name: "creds" }
                }
                tls { ca_public_cert_ref { kind: "Secret" name: "ca" key: "bundle.pem" } }
              )pb")));
  flags = SourceFlags();
  flags.kind = "oci";
  flags.url = "oci://registry.example.com/app";
  flags.auth = "bearer";
  flags.secret = "token";
  ASSERT_OK_AND_ASSIGN(v1::SourceSpec bearer, SourceSpecFromFlags(flags));
  EXPECT_THAT(bearer, EqualsProto(ParseSpec(R"pb(
                kind: SOURCE_KIND_OCI
                url: "oci://registry.example.com/app"
                auth {
                  type: "bearer"
                  bearer { secret_name: "token" }
                }
              )pb")));
  flags.auth = "oidc";
  flags.secret.clear();
  ASSERT_OK_AND_ASSIGN(v1::SourceSpec other, SourceSpecFromFlags(flags));
  EXPECT_THAT(other, EqualsProto(ParseSpec(R"pb(
                kind: SOURCE_KIND_OCI
                url: "oci://registry.example.com/app"
                auth { type: "oidc" }
              )pb")));
}

TEST(SourceSpecFromFlagsTest, MissingAndContradictoryFlagsAreNamed) {
  struct Case {
    std::string expected;
    std::function<void(SourceFlags&)> change;
  };
  const std::vector<Case> cases = {
      {"--kind: required", [](SourceFlags& f) { f.kind.clear(); }},
      {"--kind: \"svn\" is not a source kind (git, helm or oci)",
       [](SourceFlags& f) { f.kind = "svn"; }},
      {"--kind: \"Git\" is not a source kind", [](SourceFlags& f) { f.kind = "Git"; }},
      {"--url: required", [](SourceFlags& f) { f.url.clear(); }},
      {"--secret: only with --auth basic, bearer or sshKey (got --auth none)",
       [](SourceFlags& f) {
         f.auth = "none";
         f.known_hosts_configmap.clear();
       }},
      {"--secret: required with --auth sshKey", [](SourceFlags& f) { f.secret.clear(); }},
      {"--secret: required with --auth basic",
       [](SourceFlags& f) {
         f.auth = "basic";
         f.secret.clear();
         f.known_hosts_configmap.clear();
       }},
      {"--auth sshKey: requires --known-hosts-configmap or --known-hosts-secret",
       [](SourceFlags& f) { f.known_hosts_configmap.clear(); }},
      {"--known-hosts-configmap, --known-hosts-secret: only with --auth sshKey",
       [](SourceFlags& f) { f.auth = "basic"; }},
      {"--known-hosts-configmap and --known-hosts-secret are exclusive",
       [](SourceFlags& f) { f.known_hosts_secret = "hosts"; }},
      {"--known-hosts-key needs --known-hosts-configmap or --known-hosts-secret",
       [](SourceFlags& f) {
         f.known_hosts_configmap.clear();
         f.known_hosts_key = "kh";
       }},
      {"--ca-configmap and --ca-secret are exclusive",
       [](SourceFlags& f) {
         f.ca_configmap = "a";
         f.ca_secret = "b";
       }},
      {"--ca-key needs --ca-configmap or --ca-secret", [](SourceFlags& f) { f.ca_key = "k"; }},
  };
  for (const Case& c : cases) {
    SourceFlags flags;
    flags.kind = "git";
    flags.url = "ssh://git@git.example.com/repo";
    flags.auth = "sshKey";
    flags.secret = "key";
    flags.known_hosts_configmap = "hosts";
    ASSERT_OK(SourceSpecFromFlags(flags).status());
    c.change(flags);
    EXPECT_THAT(SourceSpecFromFlags(flags),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.expected)))
        << c.expected;
  }
}

// An auth type that differs from a known one only in case fills that type's block, as a
// file would, and is sent as given: the service answers Unsupported and names the type.
TEST(SourceSpecFromFlagsTest, AuthTypeInAnotherCaseFillsTheBlockAndIsSentAsGiven) {
  SourceFlags flags = GitSshFlags();
  flags.auth = "SSHKey";
  v1::SourceSpec expected = ParseSpec(kGitSshSpec);
  expected.mutable_auth()->set_type("SSHKey");
  ASSERT_OK_AND_ASSIGN(v1::SourceSpec spec, SourceSpecFromFlags(flags));
  EXPECT_THAT(spec, EqualsProto(expected));

  flags.auth = "BASIC";
  flags.known_hosts_secret.clear();
  flags.known_hosts_key.clear();
  ASSERT_OK_AND_ASSIGN(v1::SourceSpec basic, SourceSpecFromFlags(flags));
  EXPECT_EQ(basic.auth().type(), "BASIC");
  EXPECT_EQ(basic.auth().basic().secret_name(), "deploy-key");
  EXPECT_FALSE(basic.auth().has_ssh_key());
}

// ---- The source file ---------------------------------------------------------------------

TEST(ParseSourceSpecYamlTest, TheWholeDocument) {
  ASSERT_OK_AND_ASSIGN(v1::SourceSpec spec, ParseSourceSpecYaml(R"(
kind: git
url: ssh://git@git.example.com/org/repo.git
namespace: flux-system
auth:
  type: sshKey
  sshKey:
    secretName: deploy-key
    knownHostsRef: {kind: Secret, name: hosts, key: kh}
tls:
  insecureSkipVerify: true
  caPublicCertRef:
    kind: ConfigMap
    name: corp-ca
)"));
  EXPECT_THAT(spec, EqualsProto(ParseSpec(kGitSshSpec)));
}

TEST(ParseSourceSpecYamlTest, AuthDefaultsToNoneAndBlocksArePassedAsWritten) {
  ASSERT_OK_AND_ASSIGN(v1::SourceSpec bare,
                       ParseSourceSpecYaml("kind: oci\nurl: oci://r.example.com/app\n"));
  EXPECT_THAT(bare, EqualsProto(ParseSpec(R"pb(
                kind: SOURCE_KIND_OCI
                url: "oci://r.example.com/app"
                auth { type: "none" }
              )pb")));
  ASSERT_OK_AND_ASSIGN(
      v1::SourceSpec blocks,
      ParseSourceSpecYaml("kind: helm\nurl: https://c.example.com\nauth:\n  type: basic\n"
                          "  basic: {secretName: creds}\n  bearer: {secretName: tok}\n"));
  EXPECT_THAT(blocks, EqualsProto(ParseSpec(R"pb(
                kind: SOURCE_KIND_HELM
                url: "https://c.example.com"
                auth {
                  type: "basic"
                  basic { secret_name: "creds" }
                  bearer { secret_name: "tok" }
                }
              )pb")));
}

TEST(ParseSourceSpecYamlTest, ErrorsNameThePath) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"kind: git\nkind: helm\nurl: u\n", "kind: duplicate key; each key may appear once"},
      {"kind: git\nurl: u\nauth:\n  type: sshKey\n  sshKey:\n    secretName: a\n"
       "    secretName: b\n",
       "auth.sshKey.secretName: duplicate key"},
      {"kind: git\nurl: u\ntls:\n  caPublicCertRef: {kind: Secret, name: a, name: b}\n",
       "tls.caPublicCertRef.name: duplicate key"},
      {"kind: git\nurl: u\nauth:\n  type: sshKey\n  sshKey:\n    knownHostsRef: {nme: a}\n",
       "auth.sshKey.knownHostsRef.nme: unknown key"},
      {"kind: git\nurl: u\nsecret: x\n", "secret: unknown key"},
      {"kind: svn\nurl: u\n", "kind: \"svn\" is not a source kind (git, helm or oci)"},
      {"kind: GitRepository\nurl: u\n", "kind: \"GitRepository\" is not a source kind"},
      {"kind: [git]\nurl: u\n", "kind: must be a string"},
      {"kind: git\nurl: u\nauth: {basic: {secretName: a}}\n", "auth.type: required"},
      {"kind: git\nurl: u\nauth: none\n", "auth: must be a mapping"},
      {"kind: git\nurl: u\ntls: {insecureSkipVerify: maybe}\n",
       "tls.insecureSkipVerify: must be true or false (unquoted)"},
      // Regression: YAML 1.1 spellings and quoted strings were taken for booleans.
      {"kind: git\nurl: u\ntls: {insecureSkipVerify: yes}\n",
       "tls.insecureSkipVerify: must be true or false (unquoted)"},
      {"kind: git\nurl: u\ntls: {insecureSkipVerify: \"true\"}\n",
       "tls.insecureSkipVerify: must be true or false (unquoted)"},
      {"- kind: git\n", "document: must be a mapping"},
      {"kind: git\nurl: [unterminated\n", "not valid YAML"},
      // Regression: a second document was silently ignored.
      {"kind: git\nurl: u\n---\nkind: helm\n", "2 YAML documents found"},
      {std::string(600, '[') + std::string(600, ']') + "\n", "nested deeper than"},
  };
  for (const auto& [yaml, expected] : cases) {
    EXPECT_THAT(ParseSourceSpecYaml(yaml),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(expected)))
        << yaml;
  }
}

// ---- Output and exit codes -----------------------------------------------------------------

v1::VerifySourceResponse Answer(const std::string& reason) {
  v1::VerifySourceResponse response;
  response.mutable_result()->set_reason(reason);
  return response;
}

TEST(SourcePrinterTest, PrintsEveryRecordedFieldAndNothingElse) {
  v1::VerifySourceRequest request;
  request.set_name("podinfo");
  request.mutable_source()->set_namespace_("flux-system");
  v1::VerifySourceResponse response;
  response.set_seq(42);
  v1::SourceVerified& result = *response.mutable_result();
  result.set_kind(v1::SOURCE_KIND_GIT);
  result.set_url("ssh://git@git.example.com/org/repo.git");
  result.set_auth_type("sshKey");
  result.set_reason("Verified");
  result.set_message("listed 3 refs");
  result.add_notes("note one");
  result.add_notes("note two");
  result.set_host_key_fingerprint("SHA256:AbC");
  result.set_insecure_skip_verify(true);
  EXPECT_EQ(FormatVerifySourceText(request, response),
            "source flux-system/podinfo: Verified (seq 42)\n"
            "  kind:      git\n"
            "  url:       ssh://git@git.example.com/org/repo.git\n"
            "  auth:      sshKey\n"
            "  message:   listed 3 refs\n"
            "  host key:  SHA256:AbC\n"
            "  tls:       server certificate not verified (insecureSkipVerify)\n"
            "  note:      note one\n"
            "  note:      note two\n"
            "  retry:     no\n");
}

TEST(SourcePrinterTest, ReplayDefaultNamespaceAndRetryAdvice) {
  v1::VerifySourceRequest request;
  request.set_name("charts");
  v1::VerifySourceResponse failed = Answer("VerifyFailed");
  failed.set_seq(7);
  failed.set_replayed(true);
  failed.mutable_result()->set_kind(v1::SOURCE_KIND_HELM);
  EXPECT_EQ(FormatVerifySourceText(request, failed),
            "source default/charts: VerifyFailed (request already answered, nothing appended; "
            "seq 7)\n"
            "  kind:      helm\n"
            "  url:       -\n"
            "  auth:      -\n"
            "  message:   -\n"
            "  retry:     yes, with backoff\n");
  EXPECT_THAT(FormatVerifySourceText(request, Answer("Unsupported")),
              HasSubstr("  retry:     no: change the source's spec first\n"));
}

TEST(SourceExitCodeTest, EachReasonHasItsOwnCodeBesideFailureAndUsage) {
  EXPECT_EQ(VerifySourceExitCode(Answer("Verified")), 0);
  EXPECT_EQ(VerifySourceExitCode(Answer("VerifyFailed")), 3);
  EXPECT_EQ(VerifySourceExitCode(Answer("Unsupported")), 4);
  EXPECT_EQ(VerifySourceExitCode(Answer("")), kExitFailure);
  EXPECT_NE(kExitCheckFailed, kExitUsage);
  EXPECT_NE(kExitUnsupported, kExitFailure);
}

// ---- End to end ----------------------------------------------------------------------------

// SourceService over gRPC on 127.0.0.1:0; the verifier records sources and answers `answer_`.
class SourceCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(store_, store::SqliteEventStore::Open(options));
    api_ = std::make_unique<SourceApi>(
        store_.get(),
        [this](const v1::SourceSpec& source, kubebridge::Cancellation*) {
          absl::MutexLock lock(&mu_);
          sources_.push_back(source);
          return answer_;
        },
        /*has_home_cluster=*/true);
    grpc_service_ = std::make_unique<SourceGrpcService>(api_.get(), calls_.env());
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(grpc_service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    address_ = "127.0.0.1:" + std::to_string(port);
    AddSourceCommands(dispatcher_);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  int Run(std::vector<std::string> args) {
    args.insert(args.begin(), {"source", "verify"});
    args.push_back("--server=" + address_);
    args.push_back("--as=alice");
    out_.str("");
    err_.str("");
    return dispatcher_.Run(args, out_, err_);
  }
  void SetAnswer(kubebridge::SourceVerification answer) {
    absl::MutexLock lock(&mu_);
    answer_ = std::move(answer);
  }
  std::vector<v1::SourceSpec> sources() {
    absl::MutexLock lock(&mu_);
    return sources_;
  }
  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = (dir_.path() / name).string();
    std::ofstream(path) << text;
    return path;
  }

  credledger::testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  absl::Mutex mu_;
  kubebridge::SourceVerification answer_ ABSL_GUARDED_BY(mu_) = {"Verified", "ok", {}, ""};
  std::vector<v1::SourceSpec> sources_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<SourceApi> api_;
  AuthorizationPolicy policy_ = AuthorizationPolicy::AllowAll();
  CallAuthorizer authorizer_{&policy_};
  TestCallEnvironment calls_{&authorizer_};
  std::unique_ptr<SourceGrpcService> grpc_service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  Dispatcher dispatcher_{"credledger"};
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(SourceCliTest, FlagsReachTheServiceAndTheExitCodeFollowsTheReason) {
  SetAnswer({"Verified", "listed 2 refs", {"a note"}, "SHA256:xyz"});
  ASSERT_EQ(
      Run({"--name", "podinfo", "--kind", "git", "--url", "ssh://git@git.example.com/org/repo.git",
           "--namespace", "flux-system", "--auth", "sshKey", "--secret", "deploy-key",
           "--known-hosts-configmap", "hosts", "--request-id", "r1"}),
      0)
      << err_.str();
  EXPECT_THAT(out_.str(),
              AllOf(StartsWith("source flux-system/podinfo: Verified (seq 1)\n"),
                    HasSubstr("host key:  SHA256:xyz\n"), HasSubstr("note:      a note\n")));
  EXPECT_THAT(err_.str(), IsEmpty());
  ASSERT_THAT(sources(), SizeIs(1));
  EXPECT_EQ(sources()[0].auth().ssh_key().known_hosts_ref().kind(), "ConfigMap");
  EXPECT_EQ(sources()[0].auth().ssh_key().known_hosts_ref().name(), "hosts");

  SetAnswer({"VerifyFailed", "connection refused", {}, ""});
  EXPECT_EQ(Run({"--name", "charts", "--kind", "helm", "--url", "https://charts.example.com"}),
            kExitCheckFailed);
  EXPECT_THAT(err_.str(), StartsWith("request-id: "));
  EXPECT_THAT(out_.str(), HasSubstr("retry:     yes, with backoff"));
  SetAnswer({"Unsupported", "auth type \"oidc\"", {}, ""});
  EXPECT_EQ(Run({"--name", "charts", "--kind", "helm", "--url", "https://charts.example.com",
                 "--auth", "oidc", "--output", "json"}),
            kExitUnsupported);
  EXPECT_THAT(out_.str(),
              AllOf(HasSubstr("\"reason\":\"Unsupported\""), HasSubstr("\"auth_type\":\"oidc\"")));
  EXPECT_EQ(store_->HeadSeq(), 3);
}

// Regression: `--auth SSHKey` was a usage error (exit 2) while the same spec from -f reached
// the service and was answered Unsupported (exit 4).
TEST_F(SourceCliTest, AnAuthTypeInAnotherCaseReachesTheServiceLikeTheFile) {
  SetAnswer({"Unsupported", "auth.type \"SSHKey\" is not supported", {}, ""});
  EXPECT_EQ(Run({"--name", "podinfo", "--kind", "git", "--url", "ssh://git@git.example.com/r",
                 "--auth", "SSHKey", "--secret", "deploy-key", "--known-hosts-configmap", "hosts"}),
            kExitUnsupported)
      << err_.str();
  const std::string file =
      WriteFile("ssh.yaml",
                "kind: git\nurl: ssh://git@git.example.com/r\nauth:\n  type: SSHKey\n  sshKey:\n"
                "    secretName: deploy-key\n    knownHostsRef: {kind: ConfigMap, name: hosts}\n");
  EXPECT_EQ(Run({"--name", "podinfo", "-f", file}), kExitUnsupported) << err_.str();
  ASSERT_THAT(sources(), SizeIs(2));
  EXPECT_THAT(sources()[0], EqualsProto(sources()[1]));
}

TEST_F(SourceCliTest, ARepeatedRequestIdPrintsTheOriginalAnswer) {
  const std::vector<std::string> args = {"--name",       "charts", "--kind",
                                         "helm",         "--url",  "https://charts.example.com",
                                         "--request-id", "r1"};
  ASSERT_EQ(Run(args), 0) << err_.str();
  SetAnswer({"VerifyFailed", "later", {}, ""});
  ASSERT_EQ(Run(args), 0) << err_.str();
  EXPECT_THAT(out_.str(),
              HasSubstr("Verified (request already answered, nothing appended; seq 1)"));
  EXPECT_THAT(sources(), SizeIs(1));
}

// Regression: `source verify --namespace default` repeated without --namespace (the
// default) was refused as a request whose other fields differ.
TEST_F(SourceCliTest, LeavingOutTheDefaultNamespaceRepeatsTheSameRequest) {
  const std::vector<std::string> args = {"--name",       "charts", "--kind",
                                         "helm",         "--url",  "https://charts.example.com",
                                         "--request-id", "r1"};
  std::vector<std::string> with_namespace = args;
  with_namespace.insert(with_namespace.end(), {"--namespace", "default"});
  ASSERT_EQ(Run(with_namespace), 0) << err_.str();
  ASSERT_EQ(Run(args), 0) << err_.str();
  EXPECT_THAT(out_.str(),
              HasSubstr("Verified (request already answered, nothing appended; seq 1)"));
  EXPECT_THAT(sources(), SizeIs(1));
}

TEST_F(SourceCliTest, TheFileDescribesTheSource) {
  const std::string file =
      WriteFile("source.yaml",
                "kind: helm\nurl: https://charts.example.com\nauth:\n  type: basic\n"
                "  basic: {secretName: creds}\ntls: {insecureSkipVerify: true}\n");
  ASSERT_EQ(Run({"--name", "charts", "-f", file}), 0) << err_.str();
  ASSERT_THAT(sources(), SizeIs(1));
  EXPECT_EQ(sources()[0].auth().basic().secret_name(), "creds");
  EXPECT_TRUE(sources()[0].tls().insecure_skip_verify());
  EXPECT_THAT(out_.str(), HasSubstr("tls:       server certificate not verified"));
}

TEST_F(SourceCliTest, UsageAndRequestErrorsSendNothingOrAppendNothing) {
  EXPECT_EQ(Run({"--kind", "git", "--url", "https://g.example.com/r"}), kExitUsage);
  EXPECT_THAT(err_.str(), HasSubstr("error: --name: required"));
  EXPECT_EQ(Run({"--name", "r", "--kind", "svn", "--url", "https://g.example.com/r"}), kExitUsage);
  EXPECT_THAT(err_.str(), HasSubstr("--kind"));
  EXPECT_EQ(Run({"--name", "r", "--kind", "git", "--url", "ssh://git@g.example.com/r", "--auth",
                 "sshKey", "--secret", "key"}),
            kExitUsage);
  EXPECT_THAT(err_.str(), HasSubstr("--known-hosts-configmap or --known-hosts-secret"));
  const std::string file = WriteFile("s.yaml", "kind: git\nurl: https://g.example.com/r\n");
  EXPECT_EQ(Run({"--name", "r", "-f", file, "--url", "https://g.example.com/r"}), kExitUsage);
  EXPECT_THAT(err_.str(), HasSubstr("error: -f and --url are exclusive"));
  EXPECT_EQ(
      Run({"--name", "r", "--kind", "git", "--url", "https://g.example.com/r", "--request-id="}),
      kExitUsage);
  const std::string bad = WriteFile("bad.yaml", "kind: git\nkind: git\n");
  EXPECT_EQ(Run({"--name", "r", "-f", bad}), kExitFailure);
  EXPECT_THAT(err_.str(), AllOf(HasSubstr("error: INVALID_ARGUMENT: "), HasSubstr(bad),
                                HasSubstr("kind: duplicate key")));
  EXPECT_THAT(sources(), IsEmpty());

  EXPECT_EQ(Run({"--name", "r", "--kind", "git", "--url", "https://u:hunter2@g.example.com/r"}),
            kExitFailure);
  EXPECT_THAT(err_.str(), HasSubstr("error: INVALID_ARGUMENT: source.url: must not contain a "
                                    "password; put credentials in auth"));
  EXPECT_EQ(Run({"--name", "Bad_Name", "--kind", "git", "--url", "https://g.example.com/r"}),
            kExitFailure);
  EXPECT_THAT(err_.str(), HasSubstr("error: INVALID_ARGUMENT: name: "));
  EXPECT_THAT(sources(), IsEmpty());
  EXPECT_EQ(store_->HeadSeq(), 0);
}

TEST_F(SourceCliTest, HelpListsTheFileFormatAndTheExitCodes) {
  out_.str("");
  ASSERT_EQ(dispatcher_.Run({"source", "verify", "--help"}, out_, err_), 0);
  EXPECT_THAT(out_.str(), AllOf(HasSubstr("--known-hosts-configmap"), HasSubstr("knownHostsRef"),
                                HasSubstr("3  VerifyFailed"), HasSubstr("4  Unsupported"),
                                HasSubstr("0  Verified")));
}

}  // namespace source_cli_test
}  // namespace credledger::cli
