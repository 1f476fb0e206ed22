#include "kubebridge/client/kubeconfig.h"

#include <algorithm>
#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::kubebridge {
namespace kubeconfig_test {

const std::filesystem::path kDir = KUBEBRIDGE_TESTDATA_DIR;

std::string Prefix(const std::filesystem::path& path) {
  return absl::StrCat("kubeconfig ", path.string(), ": ");
}

absl::Status LoadError(const std::string& file, const std::string& context) {
  absl::StatusOr<ConnectionConfig> config = LoadKubeconfig(kDir / file, context);
  EXPECT_FALSE(config.ok()) << config->DebugString();
  return config.status();
}

TEST(KubeconfigTest, CurrentContextWithInlineCaAndToken) {
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, LoadKubeconfig(kDir / "multi_context.yaml"));
  EXPECT_EQ(config.server, "https://10.0.0.1:6443");  // trailing slash dropped
  EXPECT_EQ(config.ca_pem, "-----BEGIN CERTIFICATE-----\nINLINE-CA\n-----END CERTIFICATE-----\n");
  EXPECT_EQ(config.token, "inline-secret-token");
  EXPECT_TRUE(config.token_file.empty());
  EXPECT_EQ(config.default_namespace, "team-a");
  EXPECT_FALSE(config.insecure_skip_tls_verify);
  EXPECT_EQ(config.source, absl::StrCat("kubeconfig ", (kDir / "multi_context.yaml").string(),
                                        " context \"inline\""));
}

TEST(KubeconfigTest, RelativeCaFileAndTokenFileResolveAgainstTheKubeconfigFolder) {
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       LoadKubeconfig(kDir / "multi_context.yaml", "relative"));
  EXPECT_EQ(config.server, "https://file.example:443");
  EXPECT_EQ(config.ca_pem, "-----BEGIN CERTIFICATE-----\nFILE-CA\n-----END CERTIFICATE-----\n");
  EXPECT_EQ(config.token_file, kDir / "tokens" / "token");
  // The file's content wins over the inline token (trimmed).
  EXPECT_EQ(config.token, "file-token-from-tokens-dir");
}

TEST(KubeconfigTest, RelativePathsWorkFromARelativeKubeconfigPath) {
  std::filesystem::path saved = std::filesystem::current_path();
  std::filesystem::current_path(kDir.parent_path());
  absl::StatusOr<ConnectionConfig> config =
      LoadKubeconfig(std::filesystem::path("kubeconfig") / "multi_context.yaml", "relative");
  std::filesystem::current_path(saved);
  ASSERT_OK(config.status());
  EXPECT_EQ(config->ca_pem, "-----BEGIN CERTIFICATE-----\nFILE-CA\n-----END CERTIFICATE-----\n");
  EXPECT_TRUE(config->token_file.is_absolute());
}

TEST(KubeconfigTest, ClientCertificateDataIsDecoded) {
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       LoadKubeconfig(kDir / "multi_context.yaml", "mtls"));
  EXPECT_EQ(config.client_certificate_pem, "CLIENT-CERT-PEM");
  EXPECT_EQ(config.client_key_pem, "CLIENT-KEY-PEM");
  EXPECT_TRUE(config.token.empty());
}

TEST(KubeconfigTest, ContextWithoutUserIsAnonymousAndMayBeInsecure) {
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       LoadKubeconfig(kDir / "multi_context.yaml", "anonymous"));
  EXPECT_EQ(config.server, "http://127.0.0.1:8080");
  EXPECT_TRUE(config.insecure_skip_tls_verify);
  EXPECT_TRUE(config.token.empty());
  EXPECT_TRUE(config.ca_pem.empty());
}

TEST(KubeconfigTest, DebugStringNeverShowsSecrets) {
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, LoadKubeconfig(kDir / "multi_context.yaml"));
  std::string text = config.DebugString();
  EXPECT_EQ(text.find("inline-secret-token"), std::string::npos) << text;
  EXPECT_NE(text.find("token=<redacted>"), std::string::npos) << text;
}

TEST(KubeconfigTest, MissingClusterIsNamedWithItsContext) {
  absl::Status status = LoadError("multi_context.yaml", "dangling-cluster");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), Prefix(kDir / "multi_context.yaml") +
                                  "context \"dangling-cluster\": cluster \"nowhere\" not found");
}

TEST(KubeconfigTest, MissingUserIsNamedWithItsContext) {
  absl::Status status = LoadError("multi_context.yaml", "dangling-user");
  EXPECT_EQ(status.message(), Prefix(kDir / "multi_context.yaml") +
                                  "context \"dangling-user\": user \"nobody\" not found");
}

TEST(KubeconfigTest, UnknownContextIsReported) {
  absl::Status status = LoadError("multi_context.yaml", "nope");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), Prefix(kDir / "multi_context.yaml") + "context \"nope\" not found");
}

TEST(KubeconfigTest, MissingServerNamesTheCluster) {
  absl::Status status = LoadError("missing_server.yaml", "");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            Prefix(kDir / "missing_server.yaml") + "cluster \"b\": server is not set");
}

TEST(KubeconfigTest, NoCurrentContextAndNoneRequestedIsAnError) {
  absl::Status status = LoadError("bad_fields.yaml", "");
  EXPECT_EQ(status.message(), Prefix(kDir / "bad_fields.yaml") +
                                  "no context was requested and current-context is not set");
}

struct BadField {
  const char* context;
  absl::StatusCode code;
  const char* message;  // after "kubeconfig <path>: "
};

class KubeconfigBadFieldTest : public ::testing::TestWithParam<BadField> {};

TEST_P(KubeconfigBadFieldTest, ErrorNamesTheFieldAndNeverTheSecret) {
  const BadField& want = GetParam();
  std::filesystem::path path = kDir / "bad_fields.yaml";
  absl::Status status = LoadError("bad_fields.yaml", want.context);
  std::string message = absl::StrReplaceAll(want.message, {{"$DIR", kDir.string()}});
  EXPECT_EQ(status.code(), want.code) << status;
  EXPECT_EQ(status.message(), Prefix(path) + message);
  EXPECT_EQ(std::string(status.message()).find("secret-never-in-messages"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, KubeconfigBadFieldTest,
    ::testing::Values(
        BadField{"bad-base64", absl::StatusCode::kInvalidArgument,
                 "cluster \"bad-base64\": certificate-authority-data is not valid base64"},
        BadField{"missing-ca-file", absl::StatusCode::kNotFound,
                 "cluster \"missing-ca-file\": certificate-authority: "
                 "\"$DIR/certs/absent.pem\": No such file or directory"},
        BadField{"cert-without-key", absl::StatusCode::kInvalidArgument,
                 "user \"cert-without-key\": client-certificate is set but client-key is not"},
        BadField{"exec-user", absl::StatusCode::kUnimplemented,
                 "user \"exec-user\": exec credentials are not supported"},
        BadField{"missing-token-file", absl::StatusCode::kNotFound,
                 "user \"missing-token-file\": tokenFile: \"$DIR/tokens/absent\": "
                 "No such file or directory"},
        BadField{"no-cluster", absl::StatusCode::kInvalidArgument,
                 "context \"no-cluster\": cluster is not set"},
        BadField{"ca-and-insecure", absl::StatusCode::kInvalidArgument,
                 "cluster \"ca-and-insecure\": insecure-skip-tls-verify cannot be combined "
                 "with a certificate authority"},
        BadField{"server-list", absl::StatusCode::kInvalidArgument,
                 "cluster \"server-list\": server must be a string"},
        BadField{"bad-scheme", absl::StatusCode::kInvalidArgument,
                 "cluster \"bad-scheme\": server \"ftp://x.example\" must start with "
                 "https:// or http://"}),
    [](const ::testing::TestParamInfo<BadField>& info) {
      std::string name = info.param.context;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(KubeconfigTest, InvalidYamlReportsTheLine) {
  absl::Status status = LoadError("invalid.yaml", "");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StartsWith(status.message(), Prefix(kDir / "invalid.yaml") + "not valid YAML at line "))
      << status;
}

TEST(KubeconfigTest, MissingKubeconfigFileIsNotFound) {
  absl::StatusOr<ConnectionConfig> config = LoadKubeconfig(kDir / "absent.yaml");
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(config.status().message(),
            absl::StrCat("kubeconfig \"", (kDir / "absent.yaml").string(),
                         "\": No such file or directory"));
}

TEST(KubeconfigTest, OversizedInputIsRejectedBeforeParsing) {
  std::string yaml = "apiVersion: v1\n# " + std::string(size_t{1} << 20, 'x') + "\n";
  absl::StatusOr<ConnectionConfig> config = ParseKubeconfig(yaml, "/x/config");
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(config.status().message(),
            "kubeconfig /x/config: larger than the limit of 1048576 bytes");
}

TEST(KubeconfigTest, DeeplyNestedFlowInputIsInvalidArgument) {
  // yaml-cpp recurses once per bracket; its depth guard stops it before the stack runs out.
  for (const std::string& yaml : {"contexts: " + std::string(100000, '['),
                                  std::string(100000, '[') + std::string(100000, ']')}) {
    absl::StatusOr<ConnectionConfig> config = ParseKubeconfig(yaml, "/x/config");
    EXPECT_THAT(config, ::credledger::testing::StatusIs(
                            absl::StatusCode::kInvalidArgument,
                            "kubeconfig /x/config: nested deeper than the limit of 499 levels"));
  }
}

TEST(KubeconfigTest, DeeplyNestedBlockKubeconfigFileIsInvalidArgumentNamingTheFile) {
  // A kubeconfig whose users list nests 600 block mappings, read from disk.
  std::string yaml = "apiVersion: v1\nusers:\n- name: u\n  user:\n";
  for (int i = 0; i < 600; ++i) absl::StrAppend(&yaml, std::string(4 + i, ' '), "a:\n");
  credledger::testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "config";
  credledger::testing::WriteText(path, yaml);
  EXPECT_THAT(LoadKubeconfig(path),
              ::credledger::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  Prefix(path) + "nested deeper than the limit of 499 levels"));
}

TEST(KubeconfigTest, DocumentThatIsNotAMappingIsRejected) {
  absl::StatusOr<ConnectionConfig> config = ParseKubeconfig("- a\n- b\n", "/x/config");
  EXPECT_EQ(config.status().message(), "kubeconfig /x/config: the document is not a mapping");
}

TEST(KubeconfigTest, DuplicateContextNamesAreRejected) {
  const char* yaml = R"(
current-context: a
contexts:
- {name: a, context: {cluster: c}}
- {name: a, context: {cluster: c}}
clusters:
- {name: c, cluster: {server: "https://c"}}
)";
  absl::StatusOr<ConnectionConfig> config = ParseKubeconfig(yaml, "/x/config");
  EXPECT_EQ(config.status().message(),
            "kubeconfig /x/config: context \"a\" is defined more than once");
}

// A URL's scheme is case-insensitive: "HTTPS://" is https, as cluster validation reads it.
TEST(KubeconfigTest, TheServersSchemeIsReadWhateverItsCase) {
  const char* yaml = R"(
current-context: a
contexts:
- {name: a, context: {cluster: c, user: u}}
clusters:
- {name: c, cluster: {server: "HTTPS://c.example:6443/", insecure-skip-tls-verify: true}}
users:
- {name: u, user: {token: t}}
)";
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, ParseKubeconfig(yaml, "/x/config"));
  EXPECT_EQ(config.server, "HTTPS://c.example:6443");
  const char* ftp = R"(
current-context: a
contexts:
- {name: a, context: {cluster: c}}
clusters:
- {name: c, cluster: {server: "ftp://c.example"}}
)";
  EXPECT_EQ(ParseKubeconfig(ftp, "/x/config").status().message(),
            "kubeconfig /x/config: cluster \"c\": server \"ftp://c.example\" must start with "
            "https:// or http://");
}

TEST(KubeconfigTest, RefusingFilesRejectsEveryFileFieldAndNamesIt) {
  const std::string cluster_ca = "{server: \"https://c\", certificate-authority: ca.pem}";
  const std::string cluster_inline = "{server: \"https://c\", certificate-authority-data: QUJD}";
  struct Case {
    std::string cluster, user, scope, field;
  };
  for (const Case& c : {
           Case{cluster_ca, "{token: t}", "cluster \"c\"", "certificate-authority"},
           Case{cluster_inline, "{tokenFile: t}", "user \"u\"", "tokenFile"},
           Case{cluster_inline, "{client-certificate: c.pem, client-key-data: QUJD}",
                "user \"u\"", "client-certificate"},
           Case{cluster_inline, "{client-certificate-data: QUJD, client-key: k.pem}",
                "user \"u\"", "client-key"},
       }) {
    const std::string yaml = absl::StrCat(
        "current-context: a\ncontexts: [{name: a, context: {cluster: c, user: u}}]\n",
        "clusters: [{name: c, cluster: ", c.cluster, "}]\n",
        "users: [{name: u, user: ", c.user, "}]\n");
    EXPECT_THAT(ParseKubeconfig(yaml, "/x/config", "", KubeconfigFiles::kRefuse),
                ::credledger::testing::StatusIs(
                    absl::StatusCode::kUnimplemented,
                    absl::StrCat("kubeconfig /x/config: ", c.scope, ": ", c.field,
                                 " names a file; this kubeconfig may not refer to files")))
        << c.field;
  }
  const std::string inline_only = absl::StrCat(
      "current-context: a\ncontexts: [{name: a, context: {cluster: c, user: u}}]\n",
      "clusters: [{name: c, cluster: ", cluster_inline, "}]\n",
      "users: [{name: u, user: {token: t}}]\n");
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       ParseKubeconfig(inline_only, "/x/config", "", KubeconfigFiles::kRefuse));
  EXPECT_EQ(config.ca_pem, "ABC");
  EXPECT_EQ(config.token, "t");
}

// Regression: proxy-url was ignored and the connection went direct; fields that change where
// or as whom requests go are refused instead, also in the service's own --kubeconfig.
TEST(KubeconfigTest, FieldsThatWouldBeIgnoredAreRefusedNamingThem) {
  struct Case {
    std::string cluster, user, scope, message;
  };
  const std::string server = "server: \"https://c\"";
  for (const Case& c : {
           Case{absl::StrCat("{", server, ", proxy-url: \"http://proxy:3128\"}"), "{token: t}",
                "cluster \"c\"",
                "clusters[].cluster.proxy-url is not supported: credledger connects to the "
                "server directly, never through a proxy"},
           Case{absl::StrCat("{", server, ", tls-server-name: api.internal}"), "{token: t}",
                "cluster \"c\"",
                "clusters[].cluster.tls-server-name is not supported: the server certificate "
                "is checked against the host of server"},
           Case{absl::StrCat("{", server, "}"), "{token: t, as: admin}", "user \"u\"",
                "users[].user.as is not supported: credledger does not impersonate; give the "
                "credentials of the user to act as"},
           Case{absl::StrCat("{", server, "}"), "{token: t, as-groups: [\"system:masters\"]}",
                "user \"u\"",
                "users[].user.as-groups is not supported: credledger does not impersonate; "
                "give the credentials of the user to act as"},
       }) {
    const std::string yaml = absl::StrCat(
        "current-context: a\ncontexts: [{name: a, context: {cluster: c, user: u}}]\n",
        "clusters: [{name: c, cluster: ", c.cluster, "}]\n",
        "users: [{name: u, user: ", c.user, "}]\n");
    for (KubeconfigFiles files : {KubeconfigFiles::kRead, KubeconfigFiles::kRefuse}) {
      EXPECT_THAT(ParseKubeconfig(yaml, "/x/config", "", files),
                  ::credledger::testing::StatusIs(
                      absl::StatusCode::kUnimplemented,
                      absl::StrCat("kubeconfig /x/config: ", c.scope, ": ", c.message)))
          << c.message;
    }
  }
}

TEST(KubeconfigTest, EmptyRefusedFieldsAndDisableCompressionAreAccepted) {
  const std::string yaml =
      "current-context: a\ncontexts: [{name: a, context: {cluster: c, user: u}}]\n"
      "clusters: [{name: c, cluster: {server: \"https://c\", proxy-url: \"\", "
      "tls-server-name: \"\", disable-compression: true}}]\n"
      "users: [{name: u, user: {token: t, as-groups: [], as-user-extra: {}}}]\n";
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, ParseKubeconfig(yaml, "/x/config"));
  EXPECT_EQ(config.server, "https://c");
  EXPECT_EQ(config.token, "t");
  const std::string bad_flag =
      "current-context: a\ncontexts: [{name: a, context: {cluster: c}}]\n"
      "clusters: [{name: c, cluster: {server: \"https://c\", disable-compression: maybe}}]\n";
  EXPECT_THAT(ParseKubeconfig(bad_flag, "/x/config"),
              ::credledger::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  "kubeconfig /x/config: cluster \"c\": disable-compression must be true or "
                  "false"));
}

}  // namespace kubeconfig_test
}  // namespace credledger::kubebridge
