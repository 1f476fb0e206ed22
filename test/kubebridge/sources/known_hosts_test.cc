#include "kubebridge/sources/known_hosts.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/model/connection_errors.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"
#include "test/support/temp_dir.h"

namespace credledger::kubebridge {
namespace known_hosts_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Standard padded base64 with OpenSSL (independent of the implementation's encoder).
std::string Base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(n);
  return out;
}

// SSH wire string: uint32 big-endian length, then the bytes.
std::string WireString(const std::string& s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  std::string out = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                     static_cast<char>(n >> 8), static_cast<char>(n)};
  return out + s;
}

// A fresh ed25519 public key as an SSH blob, built from OpenSSL's raw public key.
HostKey Ed25519Key() {
  EVP_PKEY* pkey = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  std::string raw(32, '\0');
  size_t length = raw.size();
  EVP_PKEY_get_raw_public_key(pkey, reinterpret_cast<unsigned char*>(raw.data()), &length);
  EVP_PKEY_free(pkey);
  return {"ssh-ed25519", WireString("ssh-ed25519") + WireString(raw)};
}

// A fresh ECDSA P-256 public key as an SSH blob (type, curve name, uncompressed point).
HostKey EcdsaKey() {
  EVP_PKEY* pkey = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  std::string point(65, '\0');
  size_t length = 0;
  EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY,
                                  reinterpret_cast<unsigned char*>(point.data()), point.size(),
                                  &length);
  EVP_PKEY_free(pkey);
  point.resize(length);
  return {"ecdsa-sha2-nistp256", WireString("ecdsa-sha2-nistp256") + WireString("nistp256") +
                                     WireString(point)};
}

std::string Line(const std::string& hosts, const HostKey& key) {
  return absl::StrCat(hosts, " ", key.type, " ", Base64(key.blob));
}

// `|1|salt|hash` for `name` with a fresh random salt, computed with OpenSSL's HMAC.
std::string HashedHost(const std::string& name) {
  std::string salt(20, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), 20);
  unsigned char digest[20];
  unsigned int length = 0;
  HMAC(EVP_sha1(), salt.data(), 20, reinterpret_cast<const unsigned char*>(name.data()),
       name.size(), digest, &length);
  return absl::StrCat("|1|", Base64(salt), "|",
                      Base64(std::string(reinterpret_cast<char*>(digest), length)));
}

KnownHosts ParseOk(const std::string& data, std::vector<std::string>* warnings = nullptr) {
  absl::StatusOr<KnownHosts> parsed = KnownHosts::Parse(data, warnings);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *std::move(parsed) : KnownHosts();
}

HostKeyVerdict VerdictOf(const KnownHosts& known_hosts, const std::string& host, int port,
                         const HostKey& key) {
  return known_hosts.Check(host, port, key).verdict;
}

TEST(KnownHostsTest, PlaintextEntryMatchesItsHostOnPort22) {
  const HostKey key = Ed25519Key();
  std::vector<std::string> warnings;
  KnownHosts known_hosts = ParseOk(Line("git.example.com", key) + " deploy key\n", &warnings);
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_EQ(known_hosts.size(), 1u);
  const HostKeyCheck check = known_hosts.Check("git.example.com", 22, key);
  EXPECT_EQ(check.verdict, HostKeyVerdict::kMatch);
  EXPECT_THAT(check.message, HasSubstr("line 1"));
}

TEST(KnownHostsTest, SeveralKeyTypesForOneHostAllMatchAndAnotherKeyMismatches) {
  const HostKey ed25519 = Ed25519Key();
  const HostKey ecdsa = EcdsaKey();
  const HostKey other = Ed25519Key();
  KnownHosts known_hosts =
      ParseOk(absl::StrCat(Line("git.example.com", ed25519), "\n",
                           Line("git.example.com", ecdsa), "\n", Line("other.example", other)));
  EXPECT_EQ(VerdictOf(known_hosts, "git.example.com", 22, ed25519), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "git.example.com", 22, ecdsa), HostKeyVerdict::kMatch);
  const HostKeyCheck check = known_hosts.Check("git.example.com", 22, other);
  EXPECT_EQ(check.verdict, HostKeyVerdict::kMismatch);
  EXPECT_THAT(check.message, HasSubstr("does not match the 2 known_hosts entries"));
  EXPECT_THAT(check.message, HasSubstr("git.example.com"));
  EXPECT_THAT(check.message, Not(HasSubstr("none of which")));
}

TEST(KnownHostsTest, MismatchMessageSaysWhenNoEntryHasThePresentedKeyType) {
  KnownHosts known_hosts = ParseOk(Line("git.example.com", Ed25519Key()));
  const HostKeyCheck check = known_hosts.Check("git.example.com", 22, EcdsaKey());
  EXPECT_EQ(check.verdict, HostKeyVerdict::kMismatch);
  EXPECT_THAT(check.message, HasSubstr("1 known_hosts entry for it, none of which has its type "
                                       "ecdsa-sha2-nistp256"));
}

TEST(KnownHostsTest, MessagesNameHostAndFingerprintComputedIndependently) {
  const HostKey key = Ed25519Key();
  unsigned char digest[32];
  EVP_Digest(key.blob.data(), key.blob.size(), digest, nullptr, EVP_sha256(), nullptr);
  std::string expected = Base64(std::string(reinterpret_cast<char*>(digest), 32));
  while (!expected.empty() && expected.back() == '=') expected.pop_back();
  EXPECT_EQ(HostKeyFingerprint(key), "SHA256:" + expected);

  KnownHosts known_hosts = ParseOk(Line("a.example", Ed25519Key()));
  const HostKeyCheck unknown = known_hosts.Check("b.example", 2222, key);
  EXPECT_EQ(unknown.verdict, HostKeyVerdict::kUnknownHost);
  EXPECT_THAT(unknown.message, HasSubstr("[b.example]:2222"));
  EXPECT_THAT(unknown.message, HasSubstr("SHA256:" + expected));
}

TEST(KnownHostsTest, CommaSeparatedPatternsEachMatch) {
  const HostKey key = Ed25519Key();
  KnownHosts known_hosts = ParseOk(Line("a.example,b.example,10.0.0.7", key));
  EXPECT_EQ(VerdictOf(known_hosts, "a.example", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "b.example", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "10.0.0.7", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "c.example", 22, key), HostKeyVerdict::kUnknownHost);
}

TEST(KnownHostsTest, RevokedKeyWinsOverAPlainEntryWhateverTheOrder) {
  const HostKey key = Ed25519Key();
  for (const std::string& data :
       {absl::StrCat(Line("git.example", key), "\n@revoked ", Line("git.example", key)),
        absl::StrCat("@revoked ", Line("git.example", key), "\n", Line("git.example", key))}) {
    KnownHosts known_hosts = ParseOk(data);
    const HostKeyCheck check = known_hosts.Check("git.example", 22, key);
    EXPECT_EQ(check.verdict, HostKeyVerdict::kRevoked) << data;
    EXPECT_THAT(check.message, HasSubstr("revoked"));
  }
}

TEST(KnownHostsTest, RevokedLineAppliesOnlyToTheHostsItMatches) {
  const HostKey key = Ed25519Key();
  KnownHosts known_hosts = ParseOk(
      absl::StrCat("@revoked ", Line("other.example", key), "\n", Line("git.example", key)));
  EXPECT_EQ(VerdictOf(known_hosts, "git.example", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "other.example", 22, key), HostKeyVerdict::kRevoked);
  KnownHosts everywhere = ParseOk(
      absl::StrCat("@revoked ", Line("*", key), "\n", Line("git.example", key)));
  EXPECT_EQ(VerdictOf(everywhere, "git.example", 22, key), HostKeyVerdict::kRevoked);
}

TEST(KnownHostsTest, RevokedLinesDoNotMakeAHostKnown) {
  const HostKey revoked = Ed25519Key();
  const HostKey presented = Ed25519Key();
  KnownHosts known_hosts = ParseOk(absl::StrCat("@revoked ", Line("git.example", revoked), "\n",
                                                Line("other.example", Ed25519Key())));
  EXPECT_EQ(known_hosts.size(), 2u);
  EXPECT_EQ(VerdictOf(known_hosts, "git.example", 22, presented), HostKeyVerdict::kUnknownHost);
}

// A file of @revoked lines alone accepts no host key at all: it has no usable entry.
TEST(KnownHostsTest, OnlyRevokedEntriesAreUnsupported) {
  const std::string data = absl::StrCat("@revoked ", Line("git.example", Ed25519Key()), "\n",
                                        "@revoked ", Line("*", EcdsaKey()), "\n");
  absl::StatusOr<KnownHosts> parsed = KnownHosts::Parse(data);
  EXPECT_TRUE(IsUnsupported(parsed.status())) << parsed.status();
  EXPECT_THAT(parsed, credledger::testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                                    HasSubstr("no usable entry")));
}

TEST(KnownHostsTest, CertAuthorityLinesAreSkippedWithAWarning) {
  const HostKey ca = Ed25519Key();
  const HostKey key = Ed25519Key();
  std::vector<std::string> warnings;
  KnownHosts known_hosts = ParseOk(
      absl::StrCat("@cert-authority ", Line("*.example", ca), "\n", Line("git.other", key)),
      &warnings);
  EXPECT_EQ(known_hosts.size(), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("line 1"));
  EXPECT_THAT(warnings[0], HasSubstr("@cert-authority"));
  EXPECT_EQ(VerdictOf(known_hosts, "git.example", 22, ca), HostKeyVerdict::kUnknownHost);
}

TEST(KnownHostsTest, NoUsableEntryIsUnsupported) {
  const HostKey key = Ed25519Key();
  for (const std::string& data :
       {std::string(""), std::string("\n\n# only a comment\n   \n"),
        "@cert-authority " + Line("*.example", key), std::string("git.example ssh-ed25519 !!!")}) {
    absl::StatusOr<KnownHosts> parsed = KnownHosts::Parse(data);
    EXPECT_TRUE(IsUnsupported(parsed.status())) << "data: " << data << " " << parsed.status();
    EXPECT_THAT(parsed, credledger::testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                                      HasSubstr("no usable entry")));
  }
}

TEST(KnownHostsTest, HashedEntryMatchesItsHostOnly) {
  const HostKey key = Ed25519Key();
  KnownHosts known_hosts = ParseOk(Line(HashedHost("git.example.com"), key));
  EXPECT_EQ(VerdictOf(known_hosts, "git.example.com", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "GIT.Example.com", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "git.example.org", 22, key), HostKeyVerdict::kUnknownHost);
  EXPECT_EQ(VerdictOf(known_hosts, "git.example.com", 2222, key), HostKeyVerdict::kUnknownHost);
  EXPECT_EQ(VerdictOf(known_hosts, "git.example.com", 22, Ed25519Key()),
            HostKeyVerdict::kMismatch);
}

TEST(KnownHostsTest, HashedEntriesEachUseTheirOwnSalt) {
  const HostKey a = Ed25519Key();
  const HostKey b = EcdsaKey();
  KnownHosts known_hosts = ParseOk(absl::StrCat(Line(HashedHost("a.example"), a), "\n",
                                                Line(HashedHost("b.example"), b), "\n"));
  EXPECT_EQ(VerdictOf(known_hosts, "a.example", 22, a), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "b.example", 22, b), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "a.example", 22, b), HostKeyVerdict::kMismatch);
}

TEST(KnownHostsTest, HashedEntryWithPortHashesTheBracketedName) {
  const HostKey key = Ed25519Key();
  KnownHosts known_hosts = ParseOk(Line(HashedHost("[127.0.0.1]:2222"), key));
  EXPECT_EQ(VerdictOf(known_hosts, "127.0.0.1", 2222, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "127.0.0.1", 22, key), HostKeyVerdict::kUnknownHost);
}

TEST(KnownHostsTest, HashedLinesWrittenBySshKeygenMatch) {
  if (!std::filesystem::exists("/usr/bin/ssh-keygen")) {
    GTEST_SKIP() << "/usr/bin/ssh-keygen is not installed (package openssh-client)";
  }
  const HostKey plain_port = Ed25519Key();
  const HostKey other_port = EcdsaKey();
  credledger::testing::TempDir dir;
  const std::filesystem::path file = dir.path() / "known_hosts";
  std::ofstream(file) << Line("git.example.com", plain_port) << "\n"
                      << Line("[127.0.0.1]:2222", other_port) << "\n";
  ASSERT_OK_AND_ASSIGN(credledger::testing::RunResult run,
                       credledger::testing::Run({"/usr/bin/ssh-keygen", "-H", "-f", file.string()},
                                                absl::Seconds(30)));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::stringstream hashed;
  hashed << std::ifstream(file).rdbuf();
  ASSERT_THAT(hashed.str(), HasSubstr("|1|"));
  ASSERT_THAT(hashed.str(), ::testing::Not(HasSubstr("git.example.com")));

  std::vector<std::string> warnings;
  KnownHosts known_hosts = ParseOk(hashed.str(), &warnings);
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_EQ(VerdictOf(known_hosts, "git.example.com", 22, plain_port), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "127.0.0.1", 2222, other_port), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "127.0.0.1", 22, other_port), HostKeyVerdict::kUnknownHost);
}

TEST(KnownHostsTest, BracketedPatternMatchesItsPortAndPlainPatternOnlyPort22) {
  const HostKey key = Ed25519Key();
  KnownHosts bracketed = ParseOk(Line("[git.example]:2222", key));
  EXPECT_EQ(VerdictOf(bracketed, "git.example", 2222, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(bracketed, "git.example", 22, key), HostKeyVerdict::kUnknownHost);
  EXPECT_EQ(VerdictOf(bracketed, "git.example", 2223, key), HostKeyVerdict::kUnknownHost);
  KnownHosts plain = ParseOk(Line("git.example", key));
  EXPECT_EQ(VerdictOf(plain, "git.example", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(plain, "git.example", 2222, key), HostKeyVerdict::kUnknownHost);
}

TEST(KnownHostsTest, WildcardsMatchAsInOpenSsh) {
  const HostKey key = Ed25519Key();
  KnownHosts star = ParseOk(Line("*.example.com", key));
  EXPECT_EQ(VerdictOf(star, "git.example.com", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(star, "a.b.example.com", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(star, "example.com", 22, key), HostKeyVerdict::kUnknownHost);
  EXPECT_EQ(VerdictOf(star, "git.example.com.evil", 22, key), HostKeyVerdict::kUnknownHost);

  KnownHosts question = ParseOk(Line("git?.example", key));
  EXPECT_EQ(VerdictOf(question, "git1.example", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(question, "git12.example", 22, key), HostKeyVerdict::kUnknownHost);
  EXPECT_EQ(VerdictOf(question, "git.example", 22, key), HostKeyVerdict::kUnknownHost);

  // Wildcards inside brackets, and a bare `*` matching the bracketed form too.
  KnownHosts in_brackets = ParseOk(Line("[*.example]:2222,[git.example]:222?", key));
  EXPECT_EQ(VerdictOf(in_brackets, "a.example", 2222, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(in_brackets, "git.example", 2229, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(in_brackets, "a.example", 22, key), HostKeyVerdict::kUnknownHost);
  KnownHosts everything = ParseOk(Line("*", key));
  EXPECT_EQ(VerdictOf(everything, "10.1.2.3", 2222, key), HostKeyVerdict::kMatch);
}

TEST(KnownHostsTest, NegatedPatternExcludesAHostFromTheLine) {
  const HostKey key = Ed25519Key();
  KnownHosts known_hosts = ParseOk(Line("*.example,!bad.example", key));
  EXPECT_EQ(VerdictOf(known_hosts, "good.example", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "bad.example", 22, key), HostKeyVerdict::kUnknownHost);
  // The negation wins whatever the order of the patterns.
  KnownHosts first = ParseOk(Line("!bad.example,bad.example", key));
  EXPECT_EQ(VerdictOf(first, "bad.example", 22, key), HostKeyVerdict::kUnknownHost);
}

TEST(KnownHostsTest, NegatedOnlyLineIsSkippedWithAWarning) {
  const HostKey key = Ed25519Key();
  std::vector<std::string> warnings;
  KnownHosts known_hosts =
      ParseOk(absl::StrCat(Line("!bad.example", key), "\n", Line("git.example", key)), &warnings);
  EXPECT_EQ(known_hosts.size(), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("line 1"));
  EXPECT_THAT(warnings[0], HasSubstr("negated"));
  EXPECT_EQ(VerdictOf(known_hosts, "good.example", 22, key), HostKeyVerdict::kUnknownHost);
}

// `!` followed by nothing negates no pattern: the line is malformed and skipped, and the host
// patterns beside it match nothing.
TEST(KnownHostsTest, ANegationWithoutAPatternMakesTheLineInvalid) {
  const HostKey key = Ed25519Key();
  for (const std::string& hosts : {std::string("github.com,!"), std::string("!,github.com"),
                                   std::string("github.com,!,gitlab.com")}) {
    std::vector<std::string> warnings;
    KnownHosts known_hosts =
        ParseOk(absl::StrCat(Line(hosts, key), "\n", Line("other.example", key)), &warnings);
    EXPECT_EQ(known_hosts.size(), 1u) << hosts;
    ASSERT_EQ(warnings.size(), 1u) << hosts;
    EXPECT_THAT(warnings[0], HasSubstr("line 1"));
    EXPECT_THAT(warnings[0], HasSubstr("negation without a pattern"));
    EXPECT_EQ(VerdictOf(known_hosts, "github.com", 22, key), HostKeyVerdict::kUnknownHost) << hosts;
  }
  EXPECT_FALSE(KnownHosts::Parse(Line("github.com,!", key)).ok());
}

TEST(KnownHostsTest, HostNamesCompareCaseInsensitively) {
  const HostKey key = Ed25519Key();
  KnownHosts known_hosts = ParseOk(Line("Git.Example.COM", key));
  EXPECT_EQ(VerdictOf(known_hosts, "git.example.com", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "GIT.EXAMPLE.com", 22, key), HostKeyVerdict::kMatch);
}

TEST(KnownHostsTest, MalformedLinesAreSkippedWithOneWarningEach) {
  const HostKey key = Ed25519Key();
  const HostKey ecdsa = EcdsaKey();
  const std::string b64 = Base64(key.blob);
  // An ECDSA P-256 blob is 104 bytes, so its base64 ends in one '='.
  std::string unpadded = Base64(ecdsa.blob);
  ASSERT_EQ(unpadded.back(), '=');
  unpadded.pop_back();
  const std::vector<std::string> lines = {
      Line("good.example", key),                                    // 1: usable
      "bad64.example ssh-ed25519 AAAA%%%",                          // 2: bad base64
      "unpadded.example ecdsa-sha2-nistp256 " + unpadded,           // 3: non-canonical base64
      "@trusted " + Line("marker.example", key),                    // 4: unknown marker
      "@revoked @revoked " + Line("twice.example", key),            // 5: two markers
      "fields.example ssh-ed25519",                                 // 6: missing key
      "type.example ssh-ed25519 " + Base64(ecdsa.blob),             // 7: type mismatch
      "|1|c2FsdA==|aGFzaA== ssh-ed25519 " + b64,                    // 8: short salt and hash
      "|2|abc|def ssh-ed25519 " + b64,                              // 9: unknown hash format
      "rsa1.example 2048 65537 1234567",                            // 10: SSH-1 form
      "blob.example ssh-ed25519 " + Base64(std::string("\0\0", 2)), // 11: no type in blob
      Line("also-good.example", ecdsa),                             // 12: usable
  };
  std::vector<std::string> warnings;
  KnownHosts known_hosts = ParseOk(absl::StrJoin(lines, "\n"), &warnings);
  EXPECT_EQ(known_hosts.size(), 2u);
  ASSERT_EQ(warnings.size(), 10u) << absl::StrJoin(warnings, "\n");
  for (size_t i = 0; i < warnings.size(); ++i) {
    EXPECT_THAT(warnings[i], HasSubstr(absl::StrCat("known_hosts line ", i + 2, ": ")));
  }
  EXPECT_THAT(warnings[0], HasSubstr("base64"));
  EXPECT_THAT(warnings[1], HasSubstr("base64"));
  EXPECT_THAT(warnings[2], HasSubstr("unknown marker"));
  EXPECT_THAT(warnings[3], HasSubstr("more than one marker"));
  EXPECT_THAT(warnings[4], HasSubstr("missing fields"));
  EXPECT_THAT(warnings[5], HasSubstr("differs"));
  EXPECT_THAT(warnings[6], HasSubstr("hashed"));
  EXPECT_THAT(warnings[7], HasSubstr("hashed"));
  EXPECT_EQ(VerdictOf(known_hosts, "good.example", 22, key), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "also-good.example", 22, ecdsa), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "unpadded.example", 22, ecdsa), HostKeyVerdict::kUnknownHost);
}

TEST(KnownHostsTest, CrlfLineEndsAreAccepted) {
  const HostKey a = Ed25519Key();
  const HostKey b = EcdsaKey();
  std::vector<std::string> warnings;
  KnownHosts known_hosts = ParseOk(
      absl::StrCat("# comment\r\n", Line("a.example", a), "\r\n", Line("b.example", b), "\r\n"),
      &warnings);
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_EQ(VerdictOf(known_hosts, "a.example", 22, a), HostKeyVerdict::kMatch);
  EXPECT_EQ(VerdictOf(known_hosts, "b.example", 22, b), HostKeyVerdict::kMatch);
}

TEST(KnownHostsTest, TabsRunsOfSpacesLeadingBlanksAndTrailingCommentsAreAccepted) {
  const HostKey key = Ed25519Key();
  std::vector<std::string> warnings;
  KnownHosts known_hosts = ParseOk(
      absl::StrCat("  \t# indented comment\n\t git.example \t ", key.type, "\t\t",
                   Base64(key.blob), "   a comment\twith  words\n"),
      &warnings);
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_EQ(known_hosts.size(), 1u);
  EXPECT_EQ(VerdictOf(known_hosts, "git.example", 22, key), HostKeyVerdict::kMatch);
}

TEST(KnownHostsTest, WarningsNeverStopParsingOfLaterLines) {
  const HostKey key = Ed25519Key();
  std::vector<std::string> warnings;
  KnownHosts known_hosts =
      ParseOk(absl::StrCat("broken\n", Line("git.example", key)), &warnings);
  EXPECT_THAT(warnings, ElementsAre(HasSubstr("line 1")));
  EXPECT_EQ(VerdictOf(known_hosts, "git.example", 22, key), HostKeyVerdict::kMatch);
}

}  // namespace known_hosts_test
}  // namespace credledger::kubebridge
