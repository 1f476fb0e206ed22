// ListRemoteRefs against real servers on loopback: Debian's sshd serving a bare repository
// (test/support/ssh_git_server.h) and an HTTPS server with a private CA that answers the
// smart HTTP ref advertisement.
#include "kubebridge/sources/git_verifier.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "kubebridge/model/connection_errors.h"
#include "test/kubeapi/tls_material.h"
#include "test/support/ssh_git_server.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"
#include "test/support/temp_dir.h"

namespace credledger::kubebridge {
namespace git_verifier_test {

using ::credledger::testing::SshGitServer;
using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// The status message must hold no part of `secret` (checked line by line for key text).
void ExpectNoSecret(const absl::Status& status, const std::string& secret) {
  for (absl::string_view line : absl::StrSplit(secret, '\n', absl::SkipEmpty())) {
    if (line.size() < 8 || absl::StartsWith(line, "-----")) continue;
    EXPECT_THAT(std::string(status.message()), Not(HasSubstr(std::string(line))));
  }
}

class GitVerifierSshTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<std::unique_ptr<SshGitServer>> started = SshGitServer::Start();
    if (started.ok()) {
      server_ = started->release();
    } else {
      start_status_ = new absl::Status(started.status());
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    delete start_status_;
    start_status_ = nullptr;
  }
  void SetUp() override {
    if (start_status_ != nullptr && absl::IsNotFound(*start_status_)) {
      GTEST_SKIP() << start_status_->message();
    }
    ASSERT_NE(server_, nullptr) << *start_status_;
  }

  // `[127.0.0.1]:<port>`, the known_hosts name of the server.
  static std::string HostName() { return absl::StrCat("[127.0.0.1]:", server_->port()); }

  // A fresh ed25519 public key ("ssh-ed25519 <base64>") made by ssh-keygen.
  static std::string OtherPublicKey() {
    credledger::testing::TempDir dir;
    const std::string path = (dir.path() / "other").string();
    absl::StatusOr<credledger::testing::RunResult> run = credledger::testing::Run(
        {"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path}, absl::Seconds(30));
    EXPECT_TRUE(run.ok() && run->exit_code == 0);
    std::ifstream in(path + ".pub");
    std::string type, base64;
    in >> type >> base64;
    return absl::StrCat(type, " ", base64);
  }

  absl::StatusOr<GitVerifyResult> List(const std::string& known_hosts_text,
                                       const std::string& private_key,
                                       const std::string& url = "",
                                       const std::string& passphrase = "") {
    absl::StatusOr<KnownHosts> known_hosts = KnownHosts::Parse(known_hosts_text);
    EXPECT_TRUE(known_hosts.ok()) << known_hosts.status();
    if (!known_hosts.ok()) return known_hosts.status();
    GitCredentials credentials;
    credentials.kind = GitCredentials::Kind::kSshKey;
    credentials.private_key = private_key;
    credentials.passphrase = passphrase;
    credentials.known_hosts = &*known_hosts;
    absl::StatusOr<GitVerifyResult> result =
        ListRemoteRefs(url.empty() ? server_->url() : url, credentials, GitVerifyOptions{});
    ExpectNoSecret(result.status(), private_key);
    if (!passphrase.empty()) {
      EXPECT_THAT(std::string(result.status().message()), Not(HasSubstr(passphrase)));
    }
    return result;
  }

  static SshGitServer* server_;
  static absl::Status* start_status_;
};

SshGitServer* GitVerifierSshTest::server_ = nullptr;
absl::Status* GitVerifierSshTest::start_status_ = nullptr;

TEST_F(GitVerifierSshTest, RightHostKeyListsRefsAndReportsTheFingerprintSshKeygenPrints) {
  ASSERT_OK_AND_ASSIGN(
      credledger::testing::RunResult keygen,
      credledger::testing::Run({"/usr/bin/ssh-keygen", "-l", "-E", "sha256", "-f",
                                server_->host_public_key_path().string()},
                               absl::Seconds(30)));
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  const std::vector<std::string> fields = absl::StrSplit(keygen.out, ' ');
  ASSERT_GE(fields.size(), 2u) << keygen.out;

  ASSERT_OK_AND_ASSIGN(
      GitVerifyResult result,
      List(absl::StrCat(HostName(), " ", server_->host_public_key(), "\n"),
           server_->client_private_key()));
  EXPECT_EQ(result.refs, SshGitServer::kAdvertisedRefs);
  EXPECT_EQ(result.host_key_fingerprint, fields[1]);
}

TEST_F(GitVerifierSshTest, OtherKeyForTheHostIsAMismatch) {
  absl::StatusOr<GitVerifyResult> result =
      List(absl::StrCat(HostName(), " ", OtherPublicKey()), server_->client_private_key());
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kPermissionDenied,
                               AllOf(HasSubstr("does not match"), HasSubstr(HostName()),
                                     HasSubstr("SHA256:"))));
  EXPECT_FALSE(IsUnsupported(result.status()));
}

TEST_F(GitVerifierSshTest, RevokedHostKeyIsRefusedEvenWhenAlsoListed) {
  const std::string line = absl::StrCat(HostName(), " ", server_->host_public_key());
  absl::StatusOr<GitVerifyResult> result =
      List(absl::StrCat(line, "\n@revoked ", line, "\n"), server_->client_private_key());
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("revoked")));
}

TEST_F(GitVerifierSshTest, HashedEntryForHostAndPortPasses) {
  const std::string name = HostName();
  unsigned char salt[20];
  RAND_bytes(salt, sizeof(salt));
  unsigned char digest[20];
  unsigned int length = 0;
  HMAC(EVP_sha1(), salt, sizeof(salt), reinterpret_cast<const unsigned char*>(name.data()),
       name.size(), digest, &length);
  const std::string hashed = absl::StrCat(
      "|1|", absl::Base64Escape(std::string(reinterpret_cast<char*>(salt), sizeof(salt))), "|",
      absl::Base64Escape(std::string(reinterpret_cast<char*>(digest), length)));
  ASSERT_OK_AND_ASSIGN(GitVerifyResult result,
                       List(absl::StrCat(hashed, " ", server_->host_public_key()),
                            server_->client_private_key()));
  EXPECT_EQ(result.refs, SshGitServer::kAdvertisedRefs);
}

TEST_F(GitVerifierSshTest, UnknownHostIsRefused) {
  // The right key, but listed for port 22 only and for another port.
  absl::StatusOr<GitVerifyResult> result = List(
      absl::StrCat("127.0.0.1 ", server_->host_public_key(), "\n[127.0.0.1]:",
                   server_->port() == 65535 ? 1 : server_->port() + 1, " ",
                   server_->host_public_key()),
      server_->client_private_key());
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kPermissionDenied,
                               AllOf(HasSubstr("no entry"), HasSubstr(HostName()))));
}

TEST_F(GitVerifierSshTest, UnauthorizedClientKeyIsUnauthenticated) {
  absl::StatusOr<GitVerifyResult> result =
      List(absl::StrCat(HostName(), " ", server_->host_public_key()),
           server_->unauthorized_private_key());
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kUnauthenticated,
                               HasSubstr(absl::StrCat("user ", server_->user()))));
}

TEST_F(GitVerifierSshTest, PassphraseProtectedKeyIsUnlockedInMemory) {
  ASSERT_OK_AND_ASSIGN(
      GitVerifyResult result,
      List(absl::StrCat(HostName(), " ", server_->host_public_key()),
           server_->encrypted_private_key(), "", SshGitServer::kEncryptedKeyPassphrase));
  EXPECT_EQ(result.refs, SshGitServer::kAdvertisedRefs);
}

TEST_F(GitVerifierSshTest, WrongPassphraseOrUnreadableKeyIsInvalidArgument) {
  const std::string known_hosts = absl::StrCat(HostName(), " ", server_->host_public_key());
  EXPECT_THAT(List(known_hosts, server_->encrypted_private_key(), "", "not-the-passphrase-42"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("private key")));
  EXPECT_THAT(List(known_hosts, "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("private key")));
}

// Regression: with an encrypted key and no passphrase the message ended in "Failed to
// authenticate SSH session: " with nothing after it (libssh2 gives no reason).
TEST_F(GitVerifierSshTest, PassphraseProtectedKeyWithoutPassphraseSaysSo) {
  const std::string known_hosts = absl::StrCat(HostName(), " ", server_->host_public_key());
  absl::StatusOr<GitVerifyResult> result = List(known_hosts, server_->encrypted_private_key());
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("the SSH private key is protected by a passphrase, and "
                                         "none was given")));
}

TEST_F(GitVerifierSshTest, AnEncryptedKeyIsToldFromAPlainOne) {
  EXPECT_TRUE(SshPrivateKeyIsEncrypted(server_->encrypted_private_key()));
  EXPECT_FALSE(SshPrivateKeyIsEncrypted(server_->client_private_key()));
  EXPECT_FALSE(SshPrivateKeyIsEncrypted("-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n"
                                        "-----END OPENSSH PRIVATE KEY-----\n"));
  EXPECT_TRUE(SshPrivateKeyIsEncrypted(
      "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n"
      "AAAA\n-----END RSA PRIVATE KEY-----\n"));
  EXPECT_TRUE(SshPrivateKeyIsEncrypted(
      "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"));
}

// Regression: the server's message kept its trailing newline, which printed a blank line.
TEST_F(GitVerifierSshTest, AServerMessageLosesItsTrailingNewline) {
  std::string url = server_->url();
  url.replace(url.rfind("repo.git"), 8, "absent.git");
  absl::StatusOr<GitVerifyResult> result =
      List(absl::StrCat(HostName(), " ", server_->host_public_key()),
           server_->client_private_key(), url);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              AllOf(HasSubstr("does not appear to be a git repository"),
                    Not(::testing::EndsWith("\n")), Not(::testing::EndsWith(" "))));
}

TEST_F(GitVerifierSshTest, UrlWithoutUserLogsInAsGit) {
  // No local user "git" exists on the test machine, so sshd refuses the key; what matters
  // is that the default user was supplied and the refusal ended the call.
  std::string url = server_->url();
  url.replace(url.find(server_->user() + "@"), server_->user().size() + 1, "");
  absl::StatusOr<GitVerifyResult> result =
      List(absl::StrCat(HostName(), " ", server_->host_public_key()),
           server_->client_private_key(), url);
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("user git")));
}

TEST_F(GitVerifierSshTest, UrlPasswordIsStrippedFromMessages) {
  std::string url = server_->url();
  url.replace(url.find("@"), 1, ":hunter2secret@");
  absl::StatusOr<GitVerifyResult> result =
      List(absl::StrCat(HostName(), " ", OtherPublicKey()), server_->client_private_key(), url);
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kPermissionDenied,
                               AllOf(Not(HasSubstr("hunter2secret")), HasSubstr("127.0.0.1"))));
}

TEST_F(GitVerifierSshTest, CancelledBeforeTheCallIsCancelled) {
  absl::StatusOr<KnownHosts> known_hosts =
      KnownHosts::Parse(absl::StrCat(HostName(), " ", server_->host_public_key()));
  ASSERT_OK(known_hosts);
  GitCredentials credentials;
  credentials.kind = GitCredentials::Kind::kSshKey;
  credentials.private_key = server_->client_private_key();
  credentials.known_hosts = &*known_hosts;
  Cancellation cancel;
  cancel.Cancel();
  EXPECT_THAT(ListRemoteRefs(server_->url(), credentials, {}, &cancel),
              StatusIs(absl::StatusCode::kCancelled));
}

// Scheme and credential combinations that are refused before any connection.
TEST(GitVerifierTest, UnsupportedSchemesAndLocalPaths) {
  const GitCredentials none;
  for (const char* url : {"file:///srv/repo.git", "git://git.example/repo.git",
                          "http://git.example/repo.git", "/srv/repo.git", "repo.git"}) {
    absl::StatusOr<GitVerifyResult> result = ListRemoteRefs(url, none, {});
    EXPECT_TRUE(IsUnsupported(result.status())) << url << ": " << result.status();
  }
}

TEST(GitVerifierTest, CredentialKindMustFitTheScheme) {
  absl::StatusOr<KnownHosts> known_hosts =
      KnownHosts::Parse("git.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBkCjtI0VUcT7vmvdNf3"
                        "ElPuP1mIxHC0a6fDrKQyFPZA");
  ASSERT_OK(known_hosts);
  GitCredentials ssh_key;
  ssh_key.kind = GitCredentials::Kind::kSshKey;
  ssh_key.private_key = "not a key";
  ssh_key.known_hosts = &*known_hosts;
  absl::StatusOr<GitVerifyResult> ssh_key_on_https =
      ListRemoteRefs("https://tok3n-Zp02@git.example/r.git", ssh_key, {});
  EXPECT_TRUE(IsUnsupported(ssh_key_on_https.status()));
  // The message names the fields and the URLs that work, and drops the https userinfo.
  EXPECT_EQ(ssh_key_on_https.status().message(),
            "git remote https://git.example/r.git: auth.type sshKey needs an ssh:// or "
            "user@host:path url, not https://");

  GitCredentials basic;
  basic.kind = GitCredentials::Kind::kBasic;
  basic.username = "u";
  basic.password = "p";
  EXPECT_TRUE(IsUnsupported(ListRemoteRefs("ssh://git.example/r.git", basic, {}).status()));
  EXPECT_TRUE(IsUnsupported(ListRemoteRefs("git@git.example:r.git", basic, {}).status()));
  EXPECT_TRUE(IsUnsupported(ListRemoteRefs("ssh://git.example/r.git", {}, {}).status()));

  // CheckGitRemote makes the same decisions without credentials.
  EXPECT_TRUE(IsUnsupported(
      CheckGitRemote("https://git.example/r.git", GitCredentials::Kind::kSshKey)));
  EXPECT_TRUE(
      IsUnsupported(CheckGitRemote("git@git.example:r.git", GitCredentials::Kind::kBasic)));
  EXPECT_TRUE(IsUnsupported(CheckGitRemote("file:///srv/r.git", GitCredentials::Kind::kNone)));
  EXPECT_OK(CheckGitRemote("git@git.example:r.git", GitCredentials::Kind::kSshKey));
  EXPECT_OK(CheckGitRemote("https://git.example/r.git", GitCredentials::Kind::kBearer));

  ssh_key.known_hosts = nullptr;
  absl::StatusOr<GitVerifyResult> no_known_hosts =
      ListRemoteRefs("ssh://git.example/r.git", ssh_key, {});
  EXPECT_TRUE(IsUnsupported(no_known_hosts.status()));
  EXPECT_THAT(no_known_hosts.status().message(), HasSubstr("known_hosts"));
}

TEST(GitVerifierTest, MalformedPortAndBearerTokenWithLineBreakAreInvalidArgument) {
  EXPECT_THAT(ListRemoteRefs("https://git.example:99999/r.git", {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("port")));
  EXPECT_THAT(ListRemoteRefs("https://[::1/r.git", {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  GitCredentials bearer;
  bearer.kind = GitCredentials::Kind::kBearer;
  bearer.token = "abc\r\nX-Injected: 1";
  absl::StatusOr<GitVerifyResult> result =
      ListRemoteRefs("https://git.example/r.git", bearer, {});
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kInvalidArgument,
                               AllOf(HasSubstr("line break"), Not(HasSubstr("X-Injected")))));
}

// A URL libcurl cannot read is named without what precedes its last '@'.
TEST(GitVerifierTest, AMalformedUrlIsInvalidWithoutEchoingTheUserinfo) {
  EXPECT_THAT(ListRemoteRefs("https://robot:pw-Kq71@git.example:99999/r.git", {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("git remote ...@git.example:99999/r.git: has an invalid "
                                       "port"),
                             Not(HasSubstr("pw-Kq71")), Not(HasSubstr("robot")))));
}

// A scheme is what libcurl reads as one: "git@host:a://b" is an scp-like address whose path
// is "a://b" (it was taken for the scheme "git@host:a" before), as the API reads it.
TEST(GitVerifierTest, AnScpLikeAddressWhosePathHoldsASchemeIsSsh) {
  EXPECT_OK(CheckGitRemote("git@git.example:a://b", GitCredentials::Kind::kSshKey));
  EXPECT_OK(CheckGitRemote("git@[::1]:org/r.git", GitCredentials::Kind::kSshKey));
}

TEST(GitVerifierTest, ElapsedDeadlineIsUnavailableBeforeConnecting) {
  GitVerifyOptions options;
  options.timeout = absl::ZeroDuration();
  // Port 1 on loopback has no server: reaching it would give a connection error instead.
  EXPECT_THAT(ListRemoteRefs("https://127.0.0.1:1/repo.git", {}, options),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("timed out")));
}

TEST(GitVerifierTest, UnsupportedSchemeMessageHasNoUserinfo) {
  absl::StatusOr<GitVerifyResult> result =
      ListRemoteRefs("git://alice:s3cr3t-pass@git.example/repo.git", {}, {});
  EXPECT_TRUE(IsUnsupported(result.status()));
  EXPECT_THAT(result.status().message(),
              AllOf(HasSubstr("git://git.example/repo.git"), Not(HasSubstr("s3cr3t-pass")),
                    Not(HasSubstr("alice"))));
}

// Regression: the scp-like `git@host:repo` was shown as `host:repo`, losing the login. SSH
// URLs keep their user (no secret); a password is always dropped, and https:// URLs lose
// their whole userinfo (tokens are sent as user names).
TEST(GitVerifierTest, MessagesKeepTheSshUserButNeverAPassword) {
  GitCredentials basic;
  basic.kind = GitCredentials::Kind::kBasic;
  basic.username = "u";
  basic.password = "p";
  const std::pair<std::string, std::string> cases[] = {
      {"git@git.example:org/r.git", "git remote git@git.example:org/r.git: "},
      {"alice:pw-Kq71@git.example:org/r.git", "git remote alice@git.example:org/r.git: "},
      {"ssh://git@git.example/org/r.git", "git remote ssh://git@git.example/org/r.git: "},
      {"ssh://alice:pw-Kq71@git.example:2222/r.git",
       "git remote ssh://alice@git.example:2222/r.git: "},
  };
  for (const auto& [url, prefix] : cases) {
    absl::StatusOr<GitVerifyResult> result = ListRemoteRefs(url, basic, {});
    EXPECT_TRUE(IsUnsupported(result.status())) << url;
    EXPECT_THAT(std::string(result.status().message()),
                AllOf(::testing::StartsWith(prefix), Not(HasSubstr("pw-Kq71")),
                      HasSubstr("needs auth.type sshKey")))
        << url;
  }
}

// A smart HTTP Git server over HTTPS that only answers the ref advertisement
// (GET <repo>/info/refs?service=git-upload-pack), which is all ls-remote reads.
class GitHttpsServer {
 public:
  // `authorization`: the Authorization header a request must carry ("" accepts any);
  // `dns_names` and `ip_addresses`: the SANs of the server certificate.
  explicit GitHttpsServer(std::string authorization,
                          const std::vector<std::string>& dns_names = {"localhost"},
                          const std::vector<std::string>& ip_addresses = {"127.0.0.1"})
      : authorization_(std::move(authorization)) {
    absl::StatusOr<kubeapi::TlsMaterial> tls =
        kubeapi::GenerateTlsMaterial(dns_names, ip_addresses);
    EXPECT_TRUE(tls.ok()) << tls.status();
    tls_ = *std::move(tls);
    server_ = std::make_unique<httplib::SSLServer>(tls_.server_cert.get(), tls_.server_key.get());
    server_->Get("/repo.git/info/refs", [this](const httplib::Request& req,
                                               httplib::Response& res) { Handle(req, res); });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    const absl::Time give_up = absl::Now() + absl::Seconds(20);
    while (!server_->is_running() && absl::Now() < give_up) std::this_thread::yield();
    EXPECT_TRUE(server_->is_running());
  }
  ~GitHttpsServer() {
    server_->stop();
    thread_.join();
  }
  std::string url() const { return absl::StrCat("https://127.0.0.1:", port_, "/repo.git"); }
  const std::string& ca_pem() const { return tls_.ca_cert_pem; }
  std::vector<std::string> authorizations() const {
    absl::MutexLock lock(&mu_);
    return seen_;
  }

 private:
  static std::string Pkt(const std::string& payload) {
    char length[5];
    snprintf(length, sizeof(length), "%04zx", payload.size() + 4);
    return length + payload;
  }
  void Handle(const httplib::Request& req, httplib::Response& res) {
    const std::string authorization = req.get_header_value("Authorization");
    {
      absl::MutexLock lock(&mu_);
      seen_.push_back(authorization);
    }
    if (!authorization_.empty() && authorization != authorization_) {
      res.status = 401;
      res.set_header("WWW-Authenticate", "Basic realm=\"git\"");
      return;
    }
    const std::string oid(40, 'a');
    res.set_content(
        absl::StrCat(Pkt("# service=git-upload-pack\n"), "0000",
                     Pkt(absl::StrCat(oid, " HEAD", std::string(1, '\0'),
                                      "symref=HEAD:refs/heads/main side-band-64k\n")),
                     Pkt(absl::StrCat(oid, " refs/heads/main\n")),
                     Pkt(absl::StrCat(oid, " refs/tags/v1\n")), "0000"),
        "application/x-git-upload-pack-advertisement");
  }

  const std::string authorization_;
  kubeapi::TlsMaterial tls_;
  std::unique_ptr<httplib::SSLServer> server_;
  int port_ = 0;
  std::thread thread_;
  mutable absl::Mutex mu_;
  std::vector<std::string> seen_ ABSL_GUARDED_BY(mu_);
};

TEST(GitVerifierHttpsTest, CaBundleVerifiesTheServerAndBearerTokenIsSent) {
  GitHttpsServer server("Bearer git-token-1");
  GitCredentials bearer;
  bearer.kind = GitCredentials::Kind::kBearer;
  bearer.token = "git-token-1";
  GitVerifyOptions options;
  options.ca_pem = server.ca_pem();
  ASSERT_OK_AND_ASSIGN(GitVerifyResult result, ListRemoteRefs(server.url(), bearer, options));
  EXPECT_EQ(result.refs, 3);
  EXPECT_TRUE(result.host_key_fingerprint.empty());
  EXPECT_THAT(server.authorizations(), ::testing::Contains("Bearer git-token-1"));
}

TEST(GitVerifierHttpsTest, RefusedBearerTokenIsUnauthenticatedWithoutTheToken) {
  GitHttpsServer server("Bearer expected");
  GitCredentials bearer;
  bearer.kind = GitCredentials::Kind::kBearer;
  bearer.token = "wrong-token-value";
  GitVerifyOptions options;
  options.ca_pem = server.ca_pem();
  absl::StatusOr<GitVerifyResult> result = ListRemoteRefs(server.url(), bearer, options);
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kUnauthenticated,
                               Not(HasSubstr("wrong-token-value"))));
}

TEST(GitVerifierHttpsTest, BasicCredentialsAreSentAndARefusalEndsTheCall) {
  GitHttpsServer server(absl::StrCat("Basic ", absl::Base64Escape("alice:right-password")));
  GitVerifyOptions options;
  options.ca_pem = server.ca_pem();
  GitCredentials basic;
  basic.kind = GitCredentials::Kind::kBasic;
  basic.username = "alice";
  basic.password = "right-password";
  ASSERT_OK_AND_ASSIGN(GitVerifyResult result, ListRemoteRefs(server.url(), basic, options));
  EXPECT_EQ(result.refs, 3);

  basic.password = "wrong-password";
  absl::StatusOr<GitVerifyResult> refused = ListRemoteRefs(server.url(), basic, options);
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kUnauthenticated,
                                Not(HasSubstr("wrong-password"))));
  absl::StatusOr<GitVerifyResult> anonymous = ListRemoteRefs(server.url(), {}, options);
  EXPECT_THAT(anonymous, StatusIs(absl::StatusCode::kUnauthenticated,
                                  HasSubstr("none are configured")));
}

TEST(GitVerifierHttpsTest, CertificateFromAnotherCaFailsTlsVerification) {
  GitHttpsServer server("");
  ASSERT_OK_AND_ASSIGN(kubeapi::TlsMaterial other,
                       kubeapi::GenerateTlsMaterial({"localhost"}, {"127.0.0.1"}));
  GitVerifyOptions options;
  options.ca_pem = other.ca_cert_pem;
  EXPECT_THAT(ListRemoteRefs(server.url(), {}, options),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("CA bundle")));
}

TEST(GitVerifierHttpsTest, CertificateWithoutTheIpAddressFailsTlsVerification) {
  GitHttpsServer server("", {"git.example"}, {});
  GitVerifyOptions options;
  options.ca_pem = server.ca_pem();
  EXPECT_THAT(ListRemoteRefs(server.url(), {}, options),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not valid for IP 127.0.0.1")));
}

TEST(GitVerifierHttpsTest, CertificateWithoutTheHostNameFailsTlsVerification) {
  GitHttpsServer server("", {"git.example"}, {"127.0.0.1"});
  GitVerifyOptions options;
  options.ca_pem = server.ca_pem();
  std::string url = server.url();
  url.replace(url.find("127.0.0.1"), 9, "localhost");
  EXPECT_THAT(ListRemoteRefs(url, {}, options),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not valid for host localhost")));
}

TEST(GitVerifierHttpsTest, SystemStoreRejectsAPrivateCaUnlessVerificationIsSkipped) {
  GitHttpsServer server("");
  EXPECT_THAT(ListRemoteRefs(server.url(), {}, {}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("system store")));
  GitVerifyOptions insecure;
  insecure.insecure_skip_tls_verify = true;
  ASSERT_OK_AND_ASSIGN(GitVerifyResult result, ListRemoteRefs(server.url(), {}, insecure));
  EXPECT_EQ(result.refs, 3);
}

TEST(GitVerifierHttpsTest, ConnectionRefusedIsUnavailable) {
  std::string url;
  {
    GitHttpsServer server("");
    url = server.url();
  }
  GitVerifyOptions insecure;
  insecure.insecure_skip_tls_verify = true;
  EXPECT_THAT(ListRemoteRefs(url, {}, insecure), StatusIs(absl::StatusCode::kUnavailable));
}

}  // namespace git_verifier_test
}  // namespace credledger::kubebridge
