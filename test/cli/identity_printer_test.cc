// The identity CLI's text formats and inputs: the shapes of `identity get|list|mirrors`
// output, the spec flags and spec file (-f) as they reach the request, --owner, and the
// subcommands end to end against IdentityService served over gRPC on 127.0.0.1:0.
#include "cli/identity_printer.h"

#include <grpcpp/grpcpp.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/identity_cli.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/mirrors/consumer_pod_spec.h"
#include "service/credledger_main.h"
#include "service/grpc/identity_grpc_service.h"
#include "test/service/identity_api_fixture.h"
#include "test/support/call_environment.h"

namespace credledger::cli {
namespace identity_printer_test {

using service::IdentityApiFixture;
using service::IdentityGrpcService;
using service::kOwnerUid1;
using service::TestCallEnvironment;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using testing::StatusIs;

// A source's fingerprint, and the plain hash of the same digits as version 1 events carry it.
const std::string kHash = "0123456789abcdef" + std::string(48, 'e');
const std::string kFingerprint = "hmac-sha256:5d0c8e1f2a3b4c6d:" + kHash;

v1::Condition Condition(const std::string& type, const std::string& status,
                        const std::string& reason, const std::string& message) {
  v1::Condition c;
  c.set_type(type);
  c.set_status(status);
  c.set_reason(reason);
  c.set_message(message);
  return c;
}

// An identity bound in team-a (mirrored, current) and team-b (not allowed, no mirror).
v1::IdentityState SampleIdentity() {
  v1::IdentityState s;
  s.set_name("aws");
  s.set_phase(v1::IdentityState::PHASE_ACTIVE);
  s.mutable_spec()->mutable_secret_ref()->set_namespace_("creds");
  s.mutable_spec()->mutable_secret_ref()->set_name("aws-root");
  s.mutable_spec()->mutable_allowed_namespaces()->add_list("team-a");
  s.set_seq(42);
  s.mutable_access_review()->set_user("alice@example.com");
  s.mutable_access_review()->add_groups("ops");
  *s.mutable_access_review()->mutable_secret() = s.spec().secret_ref();
  s.mutable_access_review()->set_allowed(true);
  s.mutable_source()->set_observed(true);
  s.mutable_source()->set_found(true);
  s.mutable_source()->set_source_fingerprint(kFingerprint);
  s.mutable_source()->add_keys("AWS_ACCESS_KEY_ID");
  s.mutable_source()->add_keys("AWS_SECRET_ACCESS_KEY");
  v1::IdentityNamespaceState& a = *s.add_namespaces();
  a.set_namespace_("team-a");
  v1::OwnerReference& owner = *a.add_bindings()->mutable_owner();
  owner.set_api_version("infra.example/v1");
  owner.set_kind("TerraformCluster");
  owner.set_name("c1");
  owner.set_uid(kOwnerUid1);
  a.mutable_mirror()->mutable_secret()->set_name("captf-creds-aws");
  a.mutable_mirror()->set_source_fingerprint(kFingerprint);
  *a.mutable_identity_allowed() =
      Condition("IdentityAllowed", "True", "NamespaceAllowed", "listed");
  *a.mutable_credentials_mirrored() = Condition("CredentialsMirrored", "True", "Mirrored", "");
  v1::IdentityNamespaceState& b = *s.add_namespaces();
  b.set_namespace_("team-b");
  b.add_bindings()->mutable_owner()->set_kind("TerraformCluster");
  *b.mutable_identity_allowed() =
      Condition("IdentityAllowed", "False", "NamespaceNotAllowed", "not listed");
  *b.mutable_credentials_mirrored() =
      Condition("CredentialsMirrored", "False", "NamespaceNotAllowed", "mirror removed");
  return s;
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

TEST(IdentityPrinterTest, TextShowsSpecSourceAndEachNamespaceWithItsMirrorAndConditions) {
  const std::vector<std::string> lines = Lines(FormatIdentityText(SampleIdentity()));
  EXPECT_EQ(lines[0], "identity aws (active)");
  EXPECT_THAT(lines, Contains("  secret:      creds/aws-root"));
  EXPECT_THAT(lines, Contains("  cluster:     home"));
  EXPECT_THAT(lines, Contains("  allowed:     namespaces team-a"));
  EXPECT_THAT(lines, Contains("  source:      found, fingerprint 0123456789ab (key "
                              "5d0c8e1f2a3b4c6d), keys AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY"));
  EXPECT_THAT(lines, Contains("  review:      user alice@example.com (groups ops) may get "
                              "creds/aws-root"));
  EXPECT_THAT(lines, Contains("  seq:         42"));
  EXPECT_THAT(lines, Contains(absl::StrCat("  team-a: bound by TerraformCluster/c1 "
                                           "(infra.example/v1, uid ",
                                           kOwnerUid1, ")")));
  EXPECT_THAT(lines, Contains("    mirror:              captf-creds-aws, fingerprint 0123456789ab "
                              "(key 5d0c8e1f2a3b4c6d), current"));
  EXPECT_THAT(lines, Contains("    IdentityAllowed:     True/NamespaceAllowed: listed"));
  EXPECT_THAT(lines, Contains("    CredentialsMirrored: True/Mirrored"));
  EXPECT_THAT(lines, Contains("    mirror:              none"));
  EXPECT_THAT(lines,
              Contains("    CredentialsMirrored: False/NamespaceNotAllowed: mirror removed"));
  // Never more of the fingerprint than its key id and a prefix.
  EXPECT_THAT(FormatIdentityText(SampleIdentity()), Not(HasSubstr(kHash.substr(0, 13))));
}

TEST(IdentityPrinterTest, ABindingWhoseObjectIsGoneIsMarked) {
  v1::IdentityState s = SampleIdentity();
  s.mutable_namespaces(0)->mutable_bindings(0)->set_gone(true);
  EXPECT_THAT(Lines(FormatIdentityText(s)),
              Contains(absl::StrCat("  team-a: bound by TerraformCluster/c1 (infra.example/v1, "
                                    "uid ",
                                    kOwnerUid1, ") (gone)")));
}

TEST(IdentityPrinterTest, AMirrorOfAnOlderSourceIsStale) {
  v1::IdentityState s = SampleIdentity();
  s.mutable_source()->set_source_fingerprint("hmac-sha256:5d0c8e1f2a3b4c6d:" +
                                             std::string(64, 'f'));
  EXPECT_THAT(FormatIdentityText(s),
              HasSubstr("captf-creds-aws, fingerprint 0123456789ab (key 5d0c8e1f2a3b4c6d), stale"));
  s.mutable_source()->set_found(false);
  EXPECT_THAT(FormatIdentityText(s), HasSubstr("  source:      not found"));
  s.mutable_source()->set_observed(false);
  EXPECT_THAT(FormatIdentityText(s), HasSubstr("  source:      not observed yet"));
}

// A log written with plain hashes (version 1) prints them as hashes; a plain hash and a
// fingerprint never name the same data, so such a mirror is stale until it is recorded again.
TEST(IdentityPrinterTest, PlainHashesOfVersion1EventsPrintAsHashes) {
  v1::IdentityState s = SampleIdentity();
  s.mutable_source()->clear_source_fingerprint();
  s.mutable_source()->set_source_hash(kHash);
  s.mutable_namespaces(0)->mutable_mirror()->clear_source_fingerprint();
  s.mutable_namespaces(0)->mutable_mirror()->set_source_hash(kHash);
  EXPECT_THAT(FormatIdentityText(s), HasSubstr("  source:      found, hash 0123456789ab, keys "));
  EXPECT_THAT(FormatIdentityText(s), HasSubstr("captf-creds-aws, hash 0123456789ab, current"));
  EXPECT_THAT(FormatIdentityRow(s), HasSubstr(" 0123456789ab\n"));
  s.mutable_source()->set_source_fingerprint(kFingerprint);
  EXPECT_THAT(FormatIdentityText(s), HasSubstr("captf-creds-aws, hash 0123456789ab, stale"));
}

TEST(IdentityPrinterTest, AllowedNamespacesInWords) {
  v1::IdentitySpec spec;
  EXPECT_EQ(FormatAllowedNamespaces(spec), "no namespace (unset)");
  spec.mutable_allowed_namespaces()->mutable_selector();
  EXPECT_EQ(FormatAllowedNamespaces(spec), "every namespace (selector {})");
  v1::LabelSelector& selector = *spec.mutable_allowed_namespaces()->mutable_selector();
  v1::Label& label = *selector.add_match_labels();
  label.set_key("env");
  label.set_value("prod");
  v1::LabelSelectorRequirement& in = *selector.add_match_expressions();
  in.set_key("tier");
  in.set_operator_("In");
  in.add_values("a");
  in.add_values("b");
  selector.add_match_expressions()->set_key("gpu");
  selector.mutable_match_expressions(1)->set_operator_("Exists");
  spec.mutable_allowed_namespaces()->add_list("team-a");
  spec.mutable_allowed_namespaces()->add_list("team-b");
  EXPECT_EQ(FormatAllowedNamespaces(spec),
            "namespaces team-a, team-b; or selector env=prod, tier In (a, b), gpu Exists");
}

TEST(IdentityPrinterTest, ChangeSummaryTellsWhatWasAppended) {
  v1::IdentityChangeResponse response;
  *response.mutable_identity() = SampleIdentity();
  response.set_seq(7);
  EXPECT_THAT(FormatIdentityChangeText("created", response),
              StartsWith("created identity aws (seq 7)\nidentity aws (active)\n"));
  response.set_replayed(true);
  EXPECT_THAT(FormatIdentityChangeText("created", response),
              StartsWith("created identity aws: request already answered, nothing appended"));
  response.set_replayed(false);
  response.set_seq(0);
  EXPECT_THAT(FormatIdentityChangeText("bound", response),
              StartsWith("bound identity aws: already in that state, nothing appended\n"));
}

TEST(IdentityPrinterTest, TableRowsCountNamespacesAndShowShortHashes) {
  const std::vector<std::string> row =
      absl::StrSplit(FormatIdentityRow(SampleIdentity()), ' ', absl::SkipEmpty());
  EXPECT_THAT(row, ElementsAre("aws", "active", "creds/aws-root", "2", "1", "0123456789ab\n"));
  EXPECT_THAT(FormatIdentityTableHeader(), StartsWith("IDENTITY"));

  v1::MirrorView mirror;
  mirror.set_identity("aws");
  mirror.set_namespace_("team-a");
  mirror.mutable_secret()->set_name("captf-creds-aws");
  mirror.set_source_fingerprint(kFingerprint);
  mirror.set_current(true);
  *mirror.mutable_credentials_mirrored() = Condition("CredentialsMirrored", "True", "Mirrored", "");
  *mirror.add_owners() = SampleIdentity().namespaces(0).bindings(0).owner();
  const std::vector<std::string> cells =
      absl::StrSplit(FormatMirrorRow(mirror), ' ', absl::SkipEmpty());
  EXPECT_THAT(cells, ElementsAre("aws", "team-a", "captf-creds-aws", "0123456789ab", "yes",
                                 "True/Mirrored", "TerraformCluster/c1\n"));
  EXPECT_THAT(FormatMirrorTableHeader(), StartsWith("IDENTITY"));
  EXPECT_THAT(FormatMirrorTableHeader(), HasSubstr(" FINGERPRINT "));
}

TEST(IdentitySpecInputTest, FlagsBecomeTheSpec) {
  IdentitySpecFlags flags;
  flags.secret = "creds/aws";
  flags.allow_no_namespaces = true;
  ASSERT_OK_AND_ASSIGN(v1::IdentitySpec none, SpecFromFlags(flags));
  EXPECT_EQ(none.secret_ref().namespace_(), "creds");
  EXPECT_EQ(none.secret_ref().name(), "aws");
  EXPECT_FALSE(none.has_allowed_namespaces());
  EXPECT_EQ(none.cluster(), "");

  flags.cluster = "edge-1";
  ASSERT_OK_AND_ASSIGN(v1::IdentitySpec remote, SpecFromFlags(flags));
  EXPECT_EQ(remote.cluster(), "edge-1");
  flags.cluster.clear();

  flags.allow_no_namespaces = false;
  flags.allow_namespaces = {"team-a", "team-b"};
  flags.match_labels = {"env=prod", "empty="};
  ASSERT_OK_AND_ASSIGN(v1::IdentitySpec both, SpecFromFlags(flags));
  EXPECT_THAT(both.allowed_namespaces().list(), ElementsAre("team-a", "team-b"));
  ASSERT_EQ(both.allowed_namespaces().selector().match_labels_size(), 2);
  EXPECT_EQ(both.allowed_namespaces().selector().match_labels(1).key(), "empty");
  EXPECT_EQ(both.allowed_namespaces().selector().match_labels(1).value(), "");

  IdentitySpecFlags all;
  all.secret = "creds/aws";
  all.allow_all_namespaces = true;
  ASSERT_OK_AND_ASSIGN(v1::IdentitySpec every, SpecFromFlags(all));
  EXPECT_TRUE(every.allowed_namespaces().has_selector());
  EXPECT_EQ(every.allowed_namespaces().selector().ByteSizeLong(), 0u);
}

TEST(IdentitySpecInputTest, BadFlagsNameTheFlag) {
  IdentitySpecFlags flags;
  flags.allow_namespaces = {"team-a"};
  // Regression: a missing --secret was reported as `expected <namespace>/<name>, got ""`.
  EXPECT_THAT(SpecFromFlags(flags),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--secret: required (<namespace>/<name> of the source Secret)")));
  flags.secret = "creds/aws/x";
  EXPECT_THAT(SpecFromFlags(flags), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("--secret: expected <namespace>/<name>")));
  flags.secret = "creds/aws";
  flags.allow_no_namespaces = true;
  EXPECT_THAT(SpecFromFlags(flags),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--allow-no-namespaces excludes --allow-namespace")));
  flags.allow_no_namespaces = false;
  flags.match_labels = {"env"};
  EXPECT_THAT(SpecFromFlags(flags), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("--match-label: expected <key>=<value>")));
  flags.match_labels = {"env=prod"};
  flags.allow_all_namespaces = true;
  EXPECT_THAT(SpecFromFlags(flags),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("are exclusive")));
}

// Regression: without a namespace flag the spec allowed no namespace, so `identity update
// NAME --secret S` silently revoked every namespace and deleted every mirror.
TEST(IdentitySpecInputTest, NoNamespaceMustBeChosenExplicitly) {
  IdentitySpecFlags flags;
  flags.secret = "creds/aws";
  EXPECT_THAT(SpecFromFlags(flags),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("allowed namespaces: none given"),
                             HasSubstr("--allow-no-namespaces to allow none"))));
}

TEST(IdentitySpecInputTest, TheSpecFileUsesKubernetesFieldNames) {
  ASSERT_OK_AND_ASSIGN(v1::IdentitySpec spec, ParseIdentitySpecYaml(R"(
secretRef: {namespace: creds, name: aws}
cluster: edge-1
allowedNamespaces:
  list: [team-a, team-b]
  selector:
    matchLabels: {env: prod, empty: ""}
    matchExpressions:
      - {key: tier, operator: In, values: [a, b]}
      - {key: gpu, operator: Exists}
)"));
  EXPECT_EQ(spec.secret_ref().namespace_(), "creds");
  EXPECT_EQ(spec.secret_ref().name(), "aws");
  EXPECT_EQ(spec.cluster(), "edge-1");
  EXPECT_THAT(spec.allowed_namespaces().list(), ElementsAre("team-a", "team-b"));
  const v1::LabelSelector& selector = spec.allowed_namespaces().selector();
  ASSERT_EQ(selector.match_labels_size(), 2);
  EXPECT_EQ(selector.match_labels(0).key(), "env");
  EXPECT_EQ(selector.match_labels(1).value(), "");
  ASSERT_EQ(selector.match_expressions_size(), 2);
  EXPECT_EQ(selector.match_expressions(0).operator_(), "In");
  EXPECT_THAT(selector.match_expressions(0).values(), ElementsAre("a", "b"));
  EXPECT_THAT(selector.match_expressions(1).values(), IsEmpty());
}

TEST(IdentitySpecInputTest, EmptyAllowedNamespacesStaysPresentAndEmptySelectorMeansAll) {
  ASSERT_OK_AND_ASSIGN(
      v1::IdentitySpec braces,
      ParseIdentitySpecYaml("secretRef: {namespace: creds, name: aws}\nallowedNamespaces: {}\n"));
  EXPECT_TRUE(braces.has_allowed_namespaces());
  EXPECT_FALSE(braces.allowed_namespaces().has_selector());
  EXPECT_THAT(braces.allowed_namespaces().list(), IsEmpty());

  ASSERT_OK_AND_ASSIGN(
      v1::IdentitySpec all,
      ParseIdentitySpecYaml(
          "secretRef: {namespace: creds, name: aws}\nallowedNamespaces: {selector: {}}\n"));
  EXPECT_TRUE(all.allowed_namespaces().has_selector());

  ASSERT_OK_AND_ASSIGN(v1::IdentitySpec unset,
                       ParseIdentitySpecYaml("secretRef: {namespace: creds, name: aws}\n"));
  EXPECT_FALSE(unset.has_allowed_namespaces());
}

TEST(IdentitySpecInputTest, BadSpecFilesNameThePath) {
  struct Case {
    std::string yaml;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"secretRef: {namespace: creds, name: aws}\nallowedNamespace: {}\n",
       "allowedNamespace: unknown key"},
      {"allowedNamespaces: {selector: {matchLabel: {a: b}}}\n",
       "allowedNamespaces.selector.matchLabel: unknown key"},
      {"allowedNamespaces: {selector: {matchExpressions: [{key: a, op: In}]}}\n",
       "allowedNamespaces.selector.matchExpressions[0].op: unknown key"},
      {"allowedNamespaces: {list: team-a}\n", "allowedNamespaces.list: must be a list"},
      {"allowedNamespaces: {selector: {matchLabels: {a: [b]}}}\n",
       "allowedNamespaces.selector.matchLabels.a: must be a string"},
      {"secretRef: {namespace: creds, name: {x: y}}\n", "secretRef.name: must be a string"},
      {"- a\n- b\n", "document: must be a mapping"},
      {"secretRef: [unclosed\n", "not valid YAML"},
      // Regression: a second document was silently ignored.
      {"secretRef: {namespace: creds, name: aws}\n---\nsecretRef: {namespace: creds, name: gcp}\n",
       "2 YAML documents found (separated by ---); one is expected"},
      {std::string(600, '[') + std::string(600, ']'), "nested deeper"},
      // Regression: of a key given twice, one value was silently dropped.
      {"allowedNamespaces:\n  list: [team-b]\n  list: [team-a]\n",
       "allowedNamespaces.list: duplicate key"},
      {"secretRef: {namespace: creds, name: aws}\nsecretRef: {namespace: creds, name: gcp}\n",
       "secretRef: duplicate key"},
      {"secretRef: {namespace: creds, name: aws, name: gcp}\n", "secretRef.name: duplicate key"},
      {"allowedNamespaces: {selector: {matchLabels: {env: prod, env: dev}}}\n",
       "allowedNamespaces.selector.matchLabels.env: duplicate key"},
      {"allowedNamespaces: {selector: {matchExpressions: [{key: a, key: b, operator: Exists}]}}\n",
       "allowedNamespaces.selector.matchExpressions[0].key: duplicate key"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(ParseIdentitySpecYaml(c.yaml),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)))
        << c.yaml;
  }
}

TEST(IdentitySpecInputTest, OwnerIsApiVersionKindAndName) {
  ASSERT_OK_AND_ASSIGN(
      v1::OwnerReference grouped,
      ParseOwner("infrastructure.cluster.x-k8s.io/v1beta1/TerraformCluster/edge-1"));
  EXPECT_EQ(grouped.api_version(), "infrastructure.cluster.x-k8s.io/v1beta1");
  EXPECT_EQ(grouped.kind(), "TerraformCluster");
  EXPECT_EQ(grouped.name(), "edge-1");
  ASSERT_OK_AND_ASSIGN(v1::OwnerReference core, ParseOwner("v1/ConfigMap/settings"));
  EXPECT_EQ(core.api_version(), "v1");
  EXPECT_EQ(core.kind(), "ConfigMap");
  for (const char* bad : {"ConfigMap/settings", "a/b/c/d/e", "v1//settings", ""}) {
    EXPECT_THAT(ParseOwner(bad),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("--owner: expected <apiVersion>/<kind>/<name>")))
        << bad;
  }
}

// The subcommands against IdentityService served over gRPC by the fixture's api.
class IdentityCliTest : public IdentityApiFixture {
 protected:
  void SetUp() override {
    IdentityApiFixture::SetUp();
    grpc_service_ = std::make_unique<IdentityGrpcService>(api_.get(), calls_.env());
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(grpc_service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    address_ = "127.0.0.1:" + std::to_string(port);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  int Run(std::vector<std::string> args) {
    args.push_back("--server=" + address_);
    args.push_back("--as=alice");
    out_.str("");
    err_.str("");
    return service::CredledgerMain(args, out_, err_);
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = (dir_.path() / name).string();
    std::ofstream(path) << text;
    return path;
  }

  TestCallEnvironment calls_{&authorizer_};
  std::unique_ptr<IdentityGrpcService> grpc_service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(IdentityCliTest, CreateFromFlagsBindAndGet) {
  ASSERT_EQ(Run({"identity", "create", "aws", "--secret", "creds/aws", "--allow-namespace",
                 "team-b", "--allow-namespace", "team-a", "--request-id", "c1"}),
            0)
      << err_.str();
  EXPECT_THAT(out_.str(), StartsWith("created identity aws (seq "));
  EXPECT_THAT(out_.str(), HasSubstr("allowed:     namespaces team-a, team-b"));
  ASSERT_THAT(reviewer_.reviews(), ::testing::SizeIs(1));
  EXPECT_EQ(reviewer_.reviews()[0].user(), "alice@example.com");

  ASSERT_EQ(Run({"identity", "bind", "aws", "--namespace", "team-a", "--owner",
                 "infrastructure.cluster.x-k8s.io/v1beta1/TerraformCluster/edge-1", "--owner-uid",
                 kOwnerUid1}),
            0)
      << err_.str();
  EXPECT_THAT(err_.str(), StartsWith("request-id: "));
  const std::optional<v1::IdentityState> aws = projector_->GetIdentity("aws");
  ASSERT_TRUE(aws.has_value());
  const v1::OwnerReference& owner = aws->namespaces(0).bindings(0).owner();
  EXPECT_EQ(owner.api_version(), "infrastructure.cluster.x-k8s.io/v1beta1");
  EXPECT_EQ(owner.kind(), "TerraformCluster");
  EXPECT_EQ(owner.name(), "edge-1");
  EXPECT_EQ(owner.uid(), kOwnerUid1);

  ASSERT_EQ(Run({"identity", "get", "aws", "--output", "json"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("\"name\":\"aws\""));
  ASSERT_EQ(Run({"identity", "mirrors"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), StartsWith("IDENTITY"));

  ASSERT_EQ(Run({"identity", "unbind", "aws", "--namespace", "team-a", "--owner",
                 "infrastructure.cluster.x-k8s.io/v1beta1/TerraformCluster/edge-1"}),
            0)
      << err_.str();
  EXPECT_THAT(out_.str(), StartsWith("unbound identity aws (seq "));
  ASSERT_EQ(Run({"identity", "delete", "aws"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("identity aws (deleted)"));
  ASSERT_EQ(Run({"identity", "list", "--include-deleted"}), 0) << err_.str();
  EXPECT_THAT(Lines(out_.str()), ElementsAre(StartsWith("IDENTITY"), StartsWith("aws ")));
  EXPECT_EQ(Run({"identity", "get", "aws"}), 1);
  EXPECT_THAT(err_.str(), StartsWith("error: NOT_FOUND: "));
}

TEST_F(IdentityCliTest, AnEmptyAllowedNamespacesFromAFileReachesTheServerAsPresent) {
  const std::string file =
      WriteFile("spec.yaml", "secretRef: {namespace: creds, name: aws}\nallowedNamespaces: {}\n");
  EXPECT_EQ(Run({"identity", "create", "aws", "-f", file}), 1);
  EXPECT_THAT(err_.str(), AllOf(HasSubstr("error: INVALID_ARGUMENT: "),
                                HasSubstr("spec.allowed_namespaces"), HasSubstr("selector: {}")));
  EXPECT_EQ(store_->HeadSeq(), 0);

  const std::string all = WriteFile(
      "all.yaml", "secretRef: {namespace: creds, name: aws}\nallowedNamespaces: {selector: {}}\n");
  ASSERT_EQ(Run({"identity", "create", "aws", "-f=" + all}), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("every namespace (selector {})"));
}

TEST_F(IdentityCliTest, SpecFileErrorsAndExclusiveFlagsSendNothing) {
  const std::string file = WriteFile("bad.yaml", "secretRef: {namespace: creds, nam: aws}\n");
  EXPECT_EQ(Run({"identity", "create", "aws", "--file", file}), 1);
  EXPECT_THAT(err_.str(), HasSubstr("secretRef.nam: unknown key"));
  EXPECT_THAT(err_.str(), HasSubstr(file));
  EXPECT_EQ(Run({"identity", "update", "aws", "-f", file, "--secret", "creds/aws"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("are exclusive"));
  EXPECT_EQ(Run({"identity", "create", "aws", "--allow-namespace", "team-a"}), 2);
  EXPECT_THAT(err_.str(),
              HasSubstr("error: --secret: required (<namespace>/<name> of the source Secret)"));
  EXPECT_EQ(Run({"identity", "bind", "aws", "--namespace", "team-a", "--owner", "x/y"}), 2);
  EXPECT_EQ(Run({"identity", "create", "aws", "--secret", "creds/aws", "--cluster", ""}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("error: --cluster: given but empty"));
  EXPECT_THAT(reviewer_.reviews(), IsEmpty());
  EXPECT_EQ(store_->HeadSeq(), 0);
}

// Regression: `identity update NAME --secret S` without namespace flags sent a spec allowing
// no namespace, revoking every namespace (and so every mirror) by omission.
TEST_F(IdentityCliTest, UpdateWithoutANamespaceChoiceIsAUsageErrorAndNoneMustBeExplicit) {
  ASSERT_EQ(
      Run({"identity", "create", "aws", "--secret", "creds/aws", "--allow-namespace", "team-a"}), 0)
      << err_.str();
  const int64_t head = store_->HeadSeq();
  EXPECT_EQ(Run({"identity", "update", "aws", "--secret", "creds/aws"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("--allow-no-namespaces"));
  EXPECT_EQ(Run({"identity", "create", "gcp", "--secret", "creds/gcp"}), 2);
  EXPECT_EQ(Run({"identity", "update", "aws", "--secret", "creds/aws", "--allow-no-namespaces",
                 "--allow-namespace", "team-a"}),
            2);
  EXPECT_EQ(Run({"identity", "update", "aws", "-f", WriteFile("s.yaml", "secretRef: {}\n"),
                 "--allow-no-namespaces"}),
            2);
  EXPECT_THAT(err_.str(), HasSubstr("are exclusive"));
  EXPECT_EQ(store_->HeadSeq(), head);

  ASSERT_EQ(Run({"identity", "update", "aws", "--secret", "creds/aws", "--allow-no-namespaces"}), 0)
      << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("allowed:     no namespace (unset)"));
}

// Regression: any printable --owner-uid was accepted and became the uid of the mirror's
// owner reference; Kubernetes uids are lowercase RFC 4122 UUIDs.
TEST_F(IdentityCliTest, BindRefusesAnOwnerUidThatIsNotAUuid) {
  ASSERT_EQ(
      Run({"identity", "create", "aws", "--secret", "creds/aws", "--allow-namespace", "team-a"}), 0)
      << err_.str();
  const int64_t head = store_->HeadSeq();
  EXPECT_EQ(Run({"identity", "bind", "aws", "--namespace", "team-a", "--owner", "batch/v1/Job/plan",
                 "--owner-uid", "not-a-uid"}),
            1);
  EXPECT_THAT(err_.str(), HasSubstr("error: INVALID_ARGUMENT: owner.uid: \"not-a-uid\" is not "
                                    "a lowercase RFC 4122 UUID"));
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(IdentityCliTest, PodSpecRunsLocallyAndPrintsTheFragment) {
  out_.str("");
  std::ostringstream err;
  ASSERT_EQ(service::CredledgerMain({"identity", "pod-spec", "aws", "--container", "terraform"},
                                    out_, err),
            0)
      << err.str();
  const nlohmann::json printed = nlohmann::json::parse(out_.str(), nullptr, false);
  EXPECT_EQ(printed, kubebridge::ConsumerPodSpec("aws", "terraform"));
  EXPECT_EQ(service::CredledgerMain({"identity", "pod-spec", "Bad_Name"}, out_, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("name:"));
}

}  // namespace identity_printer_test
}  // namespace credledger::cli
