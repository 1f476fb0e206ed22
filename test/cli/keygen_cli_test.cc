// `credledger keygen`: the key pair and the fingerprint key it writes, file modes, refusal to
// overwrite, and --help.
#include "cli/keygen_cli.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "audit/signing_key.h"
#include "common/fingerprint_key.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/credledger_main.h"
#include "test/support/file_mode.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::cli {
namespace keygen_cli_test {

using ::credledger::testing::ModeOf;
using ::credledger::testing::ReadText;
using ::credledger::testing::ScopedUmask;
using ::credledger::testing::WriteText;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

class KeygenCliTest : public ::testing::Test {
 protected:
  int Run(const std::vector<std::string>& args) {
    out_.str("");
    err_.str("");
    return service::CredledgerDispatcher().Run(args, out_, err_);
  }
  int Keygen() {
    return Run({"keygen", "--private-key", private_path_.string(), "--public-key",
                public_path_.string()});
  }

  // Files in the test's folder, in name order.
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  TempDir dir_;
  const std::filesystem::path private_path_ = dir_.path() / "signing.pem";
  const std::filesystem::path public_path_ = dir_.path() / "signing.pub.pem";
  const std::filesystem::path fingerprint_path_ = dir_.path() / "fingerprint-key";
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(KeygenCliTest, WritesAMatchingKeyPairAndPrintsItsKeyId) {
  ASSERT_EQ(Keygen(), kExitOk) << err_.str();
  ASSERT_OK_AND_ASSIGN(audit::SigningKey key, audit::SigningKey::LoadFile(private_path_));
  ASSERT_OK_AND_ASSIGN(audit::PublicKey public_key, audit::PublicKey::LoadFile(public_path_));
  EXPECT_EQ(public_key.raw(), key.public_key().raw());
  EXPECT_EQ(public_key.key_id(), key.key_id());
  ASSERT_OK_AND_ASSIGN(std::string signature, key.Sign("checkpoint"));
  EXPECT_TRUE(public_key.Verify("checkpoint", signature));

  EXPECT_THAT(out_.str(), HasSubstr("key id: " + key.key_id() + "\n"));
  EXPECT_THAT(out_.str(), HasSubstr(private_path_.string()));
  EXPECT_THAT(out_.str(), HasSubstr(public_path_.string()));
  EXPECT_EQ(err_.str(), "");
}

TEST_F(KeygenCliTest, EachRunWritesANewKey) {
  ASSERT_EQ(Keygen(), kExitOk) << err_.str();
  const std::string first = ReadText(public_path_);
  const std::filesystem::path other_private = dir_.path() / "other.pem";
  const std::filesystem::path other_public = dir_.path() / "other.pub.pem";
  ASSERT_EQ(Run({"keygen", "--private-key", other_private.string(), "--public-key",
                 other_public.string()}),
            kExitOk)
      << err_.str();
  EXPECT_NE(ReadText(other_public), first);
}

TEST_F(KeygenCliTest, PrivateKeyIsOwnerOnlyAndPublicKeyWorldReadableWhateverTheUmask) {
  {
    ScopedUmask permissive(0);
    ASSERT_EQ(Keygen(), kExitOk) << err_.str();
  }
  EXPECT_EQ(ModeOf(private_path_), 0600u);
  EXPECT_EQ(ModeOf(public_path_), 0644u);
  std::filesystem::remove(private_path_);
  std::filesystem::remove(public_path_);
  {
    ScopedUmask strict(077);
    ASSERT_EQ(Keygen(), kExitOk) << err_.str();
  }
  EXPECT_EQ(ModeOf(private_path_), 0600u);
  EXPECT_EQ(ModeOf(public_path_), 0644u);
}

TEST_F(KeygenCliTest, RefusesToOverwriteAnExistingPrivateKey) {
  WriteText(private_path_, "precious\n");
  EXPECT_EQ(Keygen(), kExitFailure);
  EXPECT_THAT(err_.str(), HasSubstr("error: "));
  EXPECT_THAT(err_.str(), HasSubstr(private_path_.string() +
                                    " exists; remove it or choose another path"));
  EXPECT_EQ(ReadText(private_path_), "precious\n");
  EXPECT_FALSE(std::filesystem::exists(public_path_));
  EXPECT_EQ(out_.str(), "");
}

TEST_F(KeygenCliTest, RefusesToOverwriteAnExistingPublicKeyAndWritesNoPrivateKey) {
  WriteText(public_path_, "precious\n");
  EXPECT_EQ(Keygen(), kExitFailure);
  EXPECT_THAT(err_.str(), HasSubstr(public_path_.string() +
                                    " exists; remove it or choose another path"));
  EXPECT_EQ(ReadText(public_path_), "precious\n");
  EXPECT_FALSE(std::filesystem::exists(private_path_));
}

TEST_F(KeygenCliTest, RefusesADanglingSymbolicLinkInsteadOfFollowingIt) {
  const std::filesystem::path target = dir_.path() / "elsewhere.pem";
  std::filesystem::create_symlink(target, private_path_);
  EXPECT_EQ(Keygen(), kExitFailure);
  EXPECT_THAT(err_.str(), HasSubstr("exists"));
  EXPECT_FALSE(std::filesystem::exists(target));
}

TEST_F(KeygenCliTest, RefusesTheSameFileForBothKeys) {
  EXPECT_EQ(Run({"keygen", "--private-key", private_path_.string(), "--public-key",
                 private_path_.string()}),
            kExitUsage);
  EXPECT_THAT(err_.str(), HasSubstr("--public-key"));
  EXPECT_FALSE(std::filesystem::exists(private_path_));
}

TEST_F(KeygenCliTest, MissingFolderIsAUsageErrorNamingTheFolder) {
  const std::filesystem::path missing = dir_.path() / "absent" / "key.pem";
  EXPECT_EQ(
      Run({"keygen", "--private-key", missing.string(), "--public-key", public_path_.string()}),
      kExitUsage);
  EXPECT_THAT(err_.str(),
              HasSubstr(absl::StrCat("--private-key: \"", missing.parent_path().string(),
                                     "\" is not an existing folder")));
  EXPECT_FALSE(std::filesystem::exists(public_path_));
}

TEST_F(KeygenCliTest, AFingerprintKeyAloneIsOwnerOnlyAndNamedByItsKeyId) {
  {
    ScopedUmask permissive(0);
    ASSERT_EQ(Run({"keygen", "--fingerprint-key", fingerprint_path_.string()}), kExitOk)
        << err_.str();
  }
  EXPECT_EQ(ModeOf(fingerprint_path_), 0600u);
  EXPECT_THAT(Files(), ::testing::ElementsAre("fingerprint-key"));
  ASSERT_OK_AND_ASSIGN(common::FingerprintKey key,
                       common::FingerprintKey::LoadFile(fingerprint_path_));
  EXPECT_EQ(out_.str(), absl::StrCat("fingerprint key id: ", key.key_id(),
                                     "\nfingerprint key: ", fingerprint_path_.string(), "\n"));
  EXPECT_THAT(out_.str() + err_.str(), Not(HasSubstr(key.Text().substr(0, 16))));
}

TEST_F(KeygenCliTest, AFingerprintKeyBesideAKeyPairWritesAllThree) {
  ASSERT_EQ(Run({"keygen", "--private-key", private_path_.string(), "--public-key",
                 public_path_.string(), "--fingerprint-key", fingerprint_path_.string()}),
            kExitOk)
      << err_.str();
  EXPECT_THAT(Files(), ::testing::ElementsAre("fingerprint-key", "signing.pem", "signing.pub.pem"));
  EXPECT_THAT(out_.str(), HasSubstr("\nprivate key: "));
  EXPECT_THAT(out_.str(), HasSubstr("\nfingerprint key id: "));
  EXPECT_EQ(ModeOf(fingerprint_path_), 0600u);
}

TEST_F(KeygenCliTest, AnExistingFingerprintKeyIsKeptAndNothingIsWritten) {
  WriteText(fingerprint_path_, "precious\n");
  EXPECT_EQ(Run({"keygen", "--private-key", private_path_.string(), "--public-key",
                 public_path_.string(), "--fingerprint-key", fingerprint_path_.string()}),
            kExitFailure);
  EXPECT_THAT(err_.str(), HasSubstr("--fingerprint-key: " + fingerprint_path_.string() +
                                    " exists; remove it or choose another path"));
  EXPECT_EQ(ReadText(fingerprint_path_), "precious\n");
  EXPECT_THAT(Files(), ::testing::ElementsAre("fingerprint-key"));
  EXPECT_EQ(out_.str(), "");
}

TEST_F(KeygenCliTest, AnExistingKeyOfThePairWritesNoFingerprintKey) {
  WriteText(public_path_, "precious\n");
  EXPECT_EQ(Run({"keygen", "--private-key", private_path_.string(), "--public-key",
                 public_path_.string(), "--fingerprint-key", fingerprint_path_.string()}),
            kExitFailure);
  EXPECT_THAT(err_.str(), HasSubstr("--public-key: "));
  EXPECT_THAT(Files(), ::testing::ElementsAre("signing.pub.pem"));
}

TEST_F(KeygenCliTest, TheFingerprintKeyMustBeAnotherFileThanThePair) {
  EXPECT_EQ(Run({"keygen", "--private-key", private_path_.string(), "--public-key",
                 public_path_.string(), "--fingerprint-key", private_path_.string()}),
            kExitUsage);
  EXPECT_THAT(err_.str(), HasSubstr("--fingerprint-key: must name another file"));
  EXPECT_EQ(Run({"keygen", "--fingerprint-key", ""}), kExitUsage);
  EXPECT_THAT(err_.str(), HasSubstr("--fingerprint-key: names no file"));
  EXPECT_THAT(Files(), ::testing::IsEmpty());
}

TEST_F(KeygenCliTest, HelpExplainsTheKeysAndTheirFlags) {
  EXPECT_EQ(Run({"keygen", "--help"}), kExitOk);
  const std::string help = out_.str();
  EXPECT_THAT(help, HasSubstr("--private-key"));
  EXPECT_THAT(help, HasSubstr("--public-key"));
  EXPECT_THAT(help, HasSubstr("signing-key.pem"));
  EXPECT_THAT(help, HasSubstr("signing-key.pub.pem"));
  EXPECT_THAT(help, HasSubstr("serve --signing-key"));
  EXPECT_THAT(help, HasSubstr("verify --public-key"));
  EXPECT_THAT(help, HasSubstr("must stay on the service host"));
  EXPECT_THAT(help, HasSubstr("--fingerprint-key"));
  EXPECT_THAT(help, HasSubstr("serve --fingerprint-key"));
  EXPECT_THAT(help, Not(HasSubstr("--db")));
}

TEST_F(KeygenCliTest, ProgramUsageListsKeygen) {
  Run({"--help"});
  EXPECT_THAT(out_.str() + err_.str(), HasSubstr("keygen"));
}

}  // namespace keygen_cli_test
}  // namespace credledger::cli
