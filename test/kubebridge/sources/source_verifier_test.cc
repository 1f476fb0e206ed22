// SourceVerifier: auth type dispatch, Secret and ConfigMap reads from the test API server,
// and the classification of outcomes into Verified, VerifyFailed and Unsupported, against a
// local HTTPS Helm/OCI server (docs/connections.md, "Sources", "known_hosts" and "TLS").
#include "kubebridge/sources/source_verifier.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "kubebridge/model/connection_errors.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/local_https_server.h"
#include "test/support/ssh_git_server.h"
#include "test/support/subprocess.h"

namespace credledger::kubebridge {
namespace source_verifier_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::credledger::testing::SshGitServer;
using ::credledger::testing::RunResult;

constexpr char kNs[] = "src";
constexpr char kUser[] = "chart-reader";
constexpr char kPassword[] = "pw-Hq83-secret";
constexpr char kToken[] = "bearer-Zk41-secret";
constexpr char kIdentity[] =
    "-----BEGIN OPENSSH PRIVATE KEY-----\nidentity-Rt55-secret\n-----END OPENSSH PRIVATE "
    "KEY-----\n";
constexpr char kPassphrase[] = "passphrase-Mm20-secret";
// A real ed25519 public key (from ssh-keygen), for known_hosts lines.
constexpr char kHostKey[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFD8lwM5eXevSr49s+2At42qWkFoIH4y2n12VC0rMRqs";
constexpr char kIndex[] =
    "apiVersion: v1\nentries:\n  app:\n  - name: app\n    version: 1.0.0\n    urls:\n"
    "    - app-1.0.0.tgz\n";

class SourceVerifierTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.namespaces = {kNs};
    StartServer(std::move(options));
    resolver_ = std::make_unique<SecretResolver>(*client_);
    https_ = LocalHttpsServer::Start();
    ASSERT_NE(https_, nullptr);
    https_->Respond("/charts/index.yaml", 200, kIndex);
    CreateConfigMap("repo-ca", {{"ca.crt", https_->ca_pem()}});
    CreateSecret("helm-basic", {{"username", kUser}, {"password", kPassword}});
    // A Secret made from a file: the token ends in a newline that is no part of it.
    CreateSecret("registry-token", {{"token", absl::StrCat(kToken, "\n")},
                                    {"bundle.pem", https_->ca_pem()}});
  }

  void CreateSecret(const std::string& name, const std::map<std::string, std::string>& data) {
    nlohmann::json encoded = nlohmann::json::object();
    for (const auto& [key, value] : data) encoded[key] = absl::Base64Escape(value);
    ASSERT_OK(client_->Create(Core("secrets", "", kNs),
                              {{"apiVersion", "v1"},
                               {"kind", "Secret"},
                               {"metadata", {{"name", name}}},
                               {"data", encoded}}));
  }

  void CreateConfigMap(const std::string& name, const std::map<std::string, std::string>& data) {
    ASSERT_OK(client_->Create(Core("configmaps", "", kNs), {{"apiVersion", "v1"},
                                                           {"kind", "ConfigMap"},
                                                           {"metadata", {{"name", name}}},
                                                           {"data", data}}));
  }

  v1::SourceSpec Source(v1::SourceKind kind, const std::string& url,
                        const std::string& auth_type = kSourceAuthNone) {
    v1::SourceSpec source;
    source.set_kind(kind);
    source.set_url(url);
    source.set_namespace_(kNs);
    source.mutable_auth()->set_type(auth_type);
    return source;
  }

  // A Helm source on the local server trusting its CA from ConfigMap repo-ca.
  v1::SourceSpec Helm(const std::string& auth_type = kSourceAuthNone) {
    v1::SourceSpec source = Source(v1::SOURCE_KIND_HELM, https_->url() + "/charts", auth_type);
    source.mutable_tls()->mutable_ca_public_cert_ref()->set_kind("ConfigMap");
    source.mutable_tls()->mutable_ca_public_cert_ref()->set_name("repo-ca");
    return source;
  }

  v1::SourceSpec Oci(const std::string& auth_type = kSourceAuthNone) {
    v1::SourceSpec source = Source(
        v1::SOURCE_KIND_OCI, absl::StrCat("oci://127.0.0.1:", https_->port(), "/team/app"),
        auth_type);
    source.mutable_tls()->mutable_ca_public_cert_ref()->set_kind("ConfigMap");
    source.mutable_tls()->mutable_ca_public_cert_ref()->set_name("repo-ca");
    return source;
  }

  // A Git source over SSH to a closed loopback port, with known_hosts from ConfigMap
  // `known_hosts_map` and the key from Secret `secret`.
  v1::SourceSpec SshGit(const std::string& secret, const std::string& known_hosts_map) {
    v1::SourceSpec source =
        Source(v1::SOURCE_KIND_GIT, "ssh://git@127.0.0.1:1/repo.git", kSourceAuthSshKey);
    v1::SshKeySourceAuth* ssh = source.mutable_auth()->mutable_ssh_key();
    ssh->set_secret_name(secret);
    ssh->mutable_known_hosts_ref()->set_kind("ConfigMap");
    ssh->mutable_known_hosts_ref()->set_name(known_hosts_map);
    return source;
  }

  // Verifies `source` and checks that no credential value (nor its base64 form), nor any
  // of `more_secrets`, appears in the message or the notes.
  SourceVerification Verify(const v1::SourceSpec& source,
                            std::vector<std::string> more_secrets = {}) {
    SourceVerifierOptions options;
    options.timeout = absl::Seconds(20);
    SourceVerification result = SourceVerifier(resolver_.get(), options).Verify(source);
    std::vector<std::string> texts = result.notes;
    texts.push_back(result.message);
    more_secrets.insert(more_secrets.end(), {kPassword, kToken, kIdentity, kPassphrase,
                                             "identity-Rt55-secret"});
    for (const std::string& text : texts) {
      for (const std::string& secret : more_secrets) {
        EXPECT_THAT(text, Not(HasSubstr(secret)));
        EXPECT_THAT(text, Not(HasSubstr(absl::Base64Escape(secret))));
      }
    }
    return result;
  }

  std::unique_ptr<SecretResolver> resolver_;
  std::unique_ptr<LocalHttpsServer> https_;
};

TEST_F(SourceVerifierTest, HelmWithoutAuthIsVerified) {
  SourceVerification result = Verify(Helm());
  EXPECT_EQ(result.reason, kReasonVerified);
  EXPECT_EQ(result.message, "index.yaml lists 1 chart (1 version)");
  EXPECT_THAT(result.notes, IsEmpty());
  ASSERT_EQ(https_->requests().size(), 1u);
  EXPECT_EQ(https_->requests()[0].authorization, "");
}

TEST_F(SourceVerifierTest, HelmBasicAuthFromASecretIsVerified) {
  https_->RequireAuthorization("Basic " + absl::Base64Escape(absl::StrCat(kUser, ":", kPassword)));
  v1::SourceSpec source = Helm(kSourceAuthBasic);
  source.mutable_auth()->mutable_basic()->set_secret_name("helm-basic");
  SourceVerification result = Verify(source);
  EXPECT_EQ(result.reason, kReasonVerified) << result.message;
}

TEST_F(SourceVerifierTest, RefusedBasicCredentialsAreVerifyFailed) {
  https_->RequireAuthorization("Basic " + absl::Base64Escape("someone:else"));
  v1::SourceSpec source = Helm(kSourceAuthBasic);
  source.mutable_auth()->mutable_basic()->set_secret_name("helm-basic");
  SourceVerification result = Verify(source);
  EXPECT_EQ(result.reason, kReasonVerifyFailed);
  EXPECT_THAT(result.message, HasSubstr("HTTP 401"));
}

TEST_F(SourceVerifierTest, OciBearerTokenIsTrimmedAndCaComesFromASecret) {
  https_->RequireAuthorization(absl::StrCat("Bearer ", kToken));
  https_->Respond("/v2/", 200, "{}");
  v1::SourceSpec source = Oci(kSourceAuthBearer);
  source.mutable_auth()->mutable_bearer()->set_secret_name("registry-token");
  v1::ObjectKeyRef* ca = source.mutable_tls()->mutable_ca_public_cert_ref();
  ca->set_kind("Secret");
  ca->set_name("registry-token");
  ca->set_key("bundle.pem");
  SourceVerification result = Verify(source);
  EXPECT_EQ(result.reason, kReasonVerified) << result.message;
  EXPECT_EQ(result.message, "registry answered 200");
}

TEST_F(SourceVerifierTest, Oci401IsVerifiedWithANote) {
  https_->RequireAuthorization("Basic other");
  v1::SourceSpec source = Oci(kSourceAuthBasic);
  source.mutable_auth()->mutable_basic()->set_secret_name("helm-basic");
  SourceVerification result = Verify(source);
  EXPECT_EQ(result.reason, kReasonVerified);
  EXPECT_EQ(result.message, "registry answered 401");
  EXPECT_THAT(result.notes, ElementsAre("the credentials are only checked at the first pull"));
}

TEST_F(SourceVerifierTest, WithoutTheCaTheServerIsNotTrusted) {
  v1::SourceSpec source = Helm();
  source.clear_tls();
  EXPECT_EQ(Verify(source).reason, kReasonVerifyFailed);
  source.mutable_tls()->set_insecure_skip_verify(true);
  EXPECT_EQ(Verify(source).reason, kReasonVerified);
}

TEST_F(SourceVerifierTest, UnknownOrEmptyAuthTypeIsUnsupported) {
  SourceVerification oidc = Verify(Helm("oidc"));
  EXPECT_EQ(oidc.reason, kReasonUnsupported);
  EXPECT_EQ(oidc.message, "auth.type \"oidc\" is not supported (none, basic, bearer, sshKey)");
  EXPECT_EQ(Verify(Oci("")).reason, kReasonUnsupported);
  EXPECT_EQ(Verify(Source(v1::SOURCE_KIND_GIT, "https://127.0.0.1:1/r.git", "token")).reason,
            kReasonUnsupported);
  EXPECT_THAT(https_->requests(), IsEmpty());
}

TEST_F(SourceVerifierTest, AKnownTypeInAnotherCaseIsUnsupportedWithAHint) {
  SourceVerification basic = Verify(Helm("Basic"));
  EXPECT_EQ(basic.reason, kReasonUnsupported);
  EXPECT_EQ(basic.message,
            "auth.type \"Basic\" is not supported (none, basic, bearer, sshKey); auth types are "
            "case-sensitive; did you mean basic?");
  EXPECT_THAT(Verify(Source(v1::SOURCE_KIND_GIT, "ssh://git@127.0.0.1:1/r.git", "SSHKey")).message,
              ::testing::EndsWith("; did you mean sshKey?"));
  EXPECT_THAT(Verify(Helm("oidc")).message, Not(HasSubstr("did you mean")));
  EXPECT_THAT(https_->requests(), IsEmpty());
}

TEST_F(SourceVerifierTest, SelectedTypeWithoutItsBlockIsUnsupported) {
  SourceVerification basic = Verify(Helm(kSourceAuthBasic));
  EXPECT_EQ(basic.reason, kReasonUnsupported);
  EXPECT_EQ(basic.message, "auth.type \"basic\" needs the auth.basic block");
  EXPECT_EQ(Verify(Oci(kSourceAuthBearer)).message,
            "auth.type \"bearer\" needs the auth.bearer block");
  SourceVerification ssh =
      Verify(Source(v1::SOURCE_KIND_GIT, "ssh://git@127.0.0.1:1/r.git", kSourceAuthSshKey));
  EXPECT_EQ(ssh.reason, kReasonUnsupported);
  EXPECT_EQ(ssh.message, "auth.type \"sshKey\" needs the auth.sshKey block");
}

TEST_F(SourceVerifierTest, SshKeyOnHelmOrOciIsUnsupported) {
  v1::SourceSpec helm = Helm(kSourceAuthSshKey);
  helm.mutable_auth()->mutable_ssh_key()->set_secret_name("ssh");
  SourceVerification result = Verify(helm);
  EXPECT_EQ(result.reason, kReasonUnsupported);
  EXPECT_EQ(result.message,
            "auth.type \"sshKey\" is not supported for Helm sources (none, basic, bearer)");
  v1::SourceSpec oci = Oci(kSourceAuthSshKey);
  oci.mutable_auth()->mutable_ssh_key()->set_secret_name("ssh");
  EXPECT_EQ(Verify(oci).reason, kReasonUnsupported);
}

TEST_F(SourceVerifierTest, UnspecifiedKindIsUnsupported) {
  SourceVerification result = Verify(Source(v1::SOURCE_KIND_UNSPECIFIED, https_->url()));
  EXPECT_EQ(result.reason, kReasonUnsupported);
  EXPECT_THAT(result.message, HasSubstr("source.kind SOURCE_KIND_UNSPECIFIED"));
}

TEST_F(SourceVerifierTest, MissingSecretOrKeyIsVerifyFailedNamingIt) {
  v1::SourceSpec source = Helm(kSourceAuthBearer);
  source.mutable_auth()->mutable_bearer()->set_secret_name("absent");
  SourceVerification missing = Verify(source);
  EXPECT_EQ(missing.reason, kReasonVerifyFailed);
  EXPECT_THAT(missing.message, HasSubstr("src/absent"));

  source.mutable_auth()->mutable_bearer()->set_secret_name("helm-basic");
  SourceVerification no_key = Verify(source);
  EXPECT_EQ(no_key.reason, kReasonVerifyFailed);
  EXPECT_THAT(no_key.message, HasSubstr("src/helm-basic"));
  EXPECT_THAT(no_key.message, HasSubstr("\"token\""));
  EXPECT_THAT(https_->requests(), IsEmpty());
}

TEST_F(SourceVerifierTest, MissingOrEmptyCaIsVerifyFailed) {
  v1::SourceSpec source = Helm();
  source.mutable_tls()->mutable_ca_public_cert_ref()->set_name("absent-ca");
  SourceVerification missing = Verify(source);
  EXPECT_EQ(missing.reason, kReasonVerifyFailed);
  EXPECT_THAT(missing.message, HasSubstr("src/absent-ca"));

  CreateConfigMap("empty-ca", {{"ca.crt", ""}});
  source.mutable_tls()->mutable_ca_public_cert_ref()->set_name("empty-ca");
  SourceVerification empty = Verify(source);
  EXPECT_EQ(empty.reason, kReasonVerifyFailed);
  EXPECT_EQ(empty.message,
            "tls.caPublicCertRef: ConfigMap \"src/empty-ca\" key \"ca.crt\" is empty");
  EXPECT_THAT(https_->requests(), IsEmpty());
}

TEST_F(SourceVerifierTest, WithoutAHomeClusterAReferenceIsVerifyFailed) {
  SourceVerifier verifier(nullptr);
  SourceVerification with_ca = verifier.Verify(Helm());
  EXPECT_EQ(with_ca.reason, kReasonVerifyFailed);
  EXPECT_EQ(with_ca.message, "no home cluster connection to read ConfigMap \"src/repo-ca\"");

  v1::SourceSpec source = Helm(kSourceAuthBasic);
  source.clear_tls();
  source.mutable_tls()->set_insecure_skip_verify(true);
  source.mutable_auth()->mutable_basic()->set_secret_name("helm-basic");
  SourceVerification basic = verifier.Verify(source);
  EXPECT_EQ(basic.reason, kReasonVerifyFailed);
  EXPECT_EQ(basic.message, "no home cluster connection to read Secret \"src/helm-basic\"");

  source.mutable_auth()->set_type(kSourceAuthNone);
  EXPECT_EQ(verifier.Verify(source).reason, kReasonVerified);
}

TEST_F(SourceVerifierTest, SshKeyWithoutKnownHostsRefIsUnsupported) {
  v1::SourceSpec source = SshGit("ssh", "known-hosts");
  source.mutable_auth()->mutable_ssh_key()->clear_known_hosts_ref();
  SourceVerification result = Verify(source);
  EXPECT_EQ(result.reason, kReasonUnsupported);
  EXPECT_THAT(result.message, HasSubstr("auth.sshKey.knownHostsRef is required"));
}

TEST_F(SourceVerifierTest, KnownHostsWithoutAUsableEntryIsUnsupported) {
  CreateSecret("ssh", {{"identity", kIdentity}, {"password", kPassphrase}});
  CreateConfigMap("known-hosts", {{"known_hosts", absl::StrCat("# only a comment\n@cert-authority "
                                                               "*.example ",
                                                               kHostKey, "\n")}});
  SourceVerification result = Verify(SshGit("ssh", "known-hosts"));
  EXPECT_EQ(result.reason, kReasonUnsupported);
  EXPECT_THAT(result.message, HasSubstr("ConfigMap \"src/known-hosts\" key \"known_hosts\""));
}

TEST_F(SourceVerifierTest, SshKeyWithoutPassphraseKeyReachesTheConnection) {
  // Only "identity": a missing "password" key means the key has no passphrase, so the
  // verification gets as far as connecting (to a closed port) instead of failing on the read.
  CreateSecret("ssh-nopass", {{"identity", kIdentity}});
  CreateConfigMap("known-hosts",
                  {{"known_hosts", absl::StrCat("not a valid line\n[127.0.0.1]:1 ", kHostKey,
                                                "\n")}});
  SourceVerification result = Verify(SshGit("ssh-nopass", "known-hosts"));
  EXPECT_EQ(result.reason, kReasonVerifyFailed);
  EXPECT_THAT(result.message, Not(HasSubstr("has no key")));
  EXPECT_THAT(result.message, HasSubstr("127.0.0.1"));
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_THAT(result.notes[0], HasSubstr("known_hosts: "));
}

TEST_F(SourceVerifierTest, SshKeyWithoutItsSecretIsVerifyFailed) {
  CreateConfigMap("known-hosts", {{"known_hosts", absl::StrCat("127.0.0.1 ", kHostKey, "\n")}});
  SourceVerification result = Verify(SshGit("absent-ssh", "known-hosts"));
  EXPECT_EQ(result.reason, kReasonVerifyFailed);
  EXPECT_THAT(result.message, HasSubstr("src/absent-ssh"));
}

TEST_F(SourceVerifierTest, GitOverHttpsToAClosedPortIsVerifyFailed) {
  v1::SourceSpec source = Source(v1::SOURCE_KIND_GIT, "https://127.0.0.1:1/repo.git",
                                 kSourceAuthBearer);
  source.mutable_auth()->mutable_bearer()->set_secret_name("registry-token");
  SourceVerification result = Verify(source);
  EXPECT_EQ(result.reason, kReasonVerifyFailed);
  EXPECT_THAT(result.host_key_fingerprint, IsEmpty());
}

TEST_F(SourceVerifierTest, GitUnsupportedSchemeIsUnsupported) {
  SourceVerification result = Verify(Source(v1::SOURCE_KIND_GIT, "file:///tmp/repo.git"));
  EXPECT_EQ(result.reason, kReasonUnsupported);
}

// Regression: sshKey with an https:// URL read the Secret first, so a missing Secret gave
// VerifyFailed ("retry") and only a later attempt, with the Secret, gave Unsupported.
TEST_F(SourceVerifierTest, WhatTheSpecAloneDecidesIsUnsupportedBeforeAnySecretIsRead) {
  v1::SourceSpec ssh_key_on_https = SshGit("absent-ssh", "absent-hosts");
  ssh_key_on_https.set_url("https://127.0.0.1:1/repo.git");
  SourceVerification result = Verify(ssh_key_on_https);
  EXPECT_EQ(result.reason, kReasonUnsupported);
  EXPECT_THAT(result.message, HasSubstr("auth.type sshKey needs an ssh:// or user@host:path url"));

  v1::SourceSpec basic_on_ssh =
      Source(v1::SOURCE_KIND_GIT, "git@127.0.0.1:repo.git", kSourceAuthBasic);
  basic_on_ssh.mutable_auth()->mutable_basic()->set_secret_name("absent");
  EXPECT_EQ(Verify(basic_on_ssh).reason, kReasonUnsupported);

  v1::SourceSpec helm_http = Source(v1::SOURCE_KIND_HELM, "http://127.0.0.1:1/charts",
                                    kSourceAuthBearer);
  helm_http.mutable_auth()->mutable_bearer()->set_secret_name("absent");
  helm_http.mutable_tls()->mutable_ca_public_cert_ref()->set_kind("ConfigMap");
  helm_http.mutable_tls()->mutable_ca_public_cert_ref()->set_name("absent-ca");
  EXPECT_EQ(Verify(helm_http).reason, kReasonUnsupported);

  v1::SourceSpec oci_git_scheme =
      Source(v1::SOURCE_KIND_OCI, "git://127.0.0.1/app", kSourceAuthBasic);
  oci_git_scheme.mutable_auth()->mutable_basic()->set_secret_name("absent");
  EXPECT_EQ(Verify(oci_git_scheme).reason, kReasonUnsupported);
  EXPECT_THAT(https_->requests(), IsEmpty());
}

// Git over SSH against sshd and git from Debian on a loopback port (one server for the
// suite; the API server is per test).
class SourceVerifierSshTest : public SourceVerifierTest {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<std::unique_ptr<SshGitServer>> server = SshGitServer::Start();
    if (server.ok()) {
      ssh_ = server->release();
    } else {
      start_error_ = new absl::Status(server.status());
    }
  }
  static void TearDownTestSuite() {
    delete ssh_;
    ssh_ = nullptr;
    delete start_error_;
    start_error_ = nullptr;
  }
  void SetUp() override {
    if (ssh_ == nullptr) {
      if (start_error_ != nullptr && absl::IsNotFound(*start_error_)) {
        GTEST_SKIP() << *start_error_;
      }
      FAIL() << (start_error_ != nullptr ? *start_error_ : absl::UnknownError("no sshd"));
    }
    SourceVerifierTest::SetUp();
  }

  // A Git source on the sshd with Secret `secret` holding `identity` and known_hosts
  // `known_hosts`.
  v1::SourceSpec Repository(const std::string& identity, const std::string& known_hosts) {
    CreateSecret("git-ssh", {{"identity", identity}});
    CreateConfigMap("git-known-hosts", {{"known_hosts", known_hosts}});
    v1::SourceSpec source = SshGit("git-ssh", "git-known-hosts");
    source.set_url(ssh_->url());
    return source;
  }

  std::string KnownHostsLine() const {
    return absl::StrCat("[127.0.0.1]:", ssh_->port(), " ", ssh_->host_public_key(), "\n");
  }

  static SshGitServer* ssh_;
  static absl::Status* start_error_;
};

SshGitServer* SourceVerifierSshTest::ssh_ = nullptr;
absl::Status* SourceVerifierSshTest::start_error_ = nullptr;

TEST_F(SourceVerifierSshTest, AuthorizedKeyAndKnownHostIsVerifiedWithTheFingerprint) {
  const std::string& key = ssh_->client_private_key();
  SourceVerification result = Verify(Repository(key, KnownHostsLine()), {key});
  ASSERT_EQ(result.reason, kReasonVerified) << result.message;
  EXPECT_EQ(result.message, absl::StrCat("listed ", SshGitServer::kAdvertisedRefs, " refs"));
  // ssh-keygen -l prints "<bits> SHA256:<base64> <comment> (<type>)".
  absl::StatusOr<RunResult> keygen = ::credledger::testing::Run(
      {"/usr/bin/ssh-keygen", "-l", "-E", "sha256", "-f", ssh_->host_public_key_path().string()},
      absl::Seconds(20));
  ASSERT_TRUE(keygen.ok()) << keygen.status();
  std::vector<std::string> fields = absl::StrSplit(keygen->out, ' ');
  ASSERT_GE(fields.size(), 2u) << keygen->out;
  EXPECT_EQ(result.host_key_fingerprint, fields[1]);
}

// Regression: a passphrase-protected key in a Secret without a "password" key ended in
// "Failed to authenticate SSH session: " with no reason.
TEST_F(SourceVerifierSshTest, AnEncryptedKeyWithoutPasswordKeyNamesTheSecret) {
  const std::string& key = ssh_->encrypted_private_key();
  SourceVerification result = Verify(Repository(key, KnownHostsLine()), {key});
  EXPECT_EQ(result.reason, kReasonVerifyFailed);
  EXPECT_EQ(result.message,
            "Secret \"src/git-ssh\": key \"identity\" holds a passphrase-protected private key, "
            "and the Secret has no \"password\" key with its passphrase");
  EXPECT_THAT(result.host_key_fingerprint, IsEmpty());
}

TEST_F(SourceVerifierSshTest, OtherHostKeyIsVerifyFailed) {
  SourceVerification result = Verify(
      Repository(ssh_->client_private_key(), absl::StrCat("[127.0.0.1]:", ssh_->port(), " ",
                                                          kHostKey, "\n")),
      {ssh_->client_private_key()});
  EXPECT_EQ(result.reason, kReasonVerifyFailed);
}

TEST_F(SourceVerifierSshTest, UnauthorizedKeyIsVerifyFailed) {
  const std::string& key = ssh_->unauthorized_private_key();
  SourceVerification result = Verify(Repository(key, KnownHostsLine()), {key});
  EXPECT_EQ(result.reason, kReasonVerifyFailed);
}

}  // namespace source_verifier_test
}  // namespace credledger::kubebridge
