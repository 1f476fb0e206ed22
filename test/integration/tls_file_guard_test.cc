// TlsFileGuard (service/server/tls_file_guard.h): the server's TLS files reach gRPC only as checked
// copies in a private directory; files that fail the checks are logged once per problem and
// counted, and the last good copies stay in use.
#include "service/server/tls_file_guard.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/await_tls_file_guard.h"
#include "test/kubeapi/tls_material.h"
#include "test/support/captured_log.h"
#include "test/support/file_mode.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {
namespace tls_file_guard_test {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kNotReloaded[] =
    "TLS files not reloaded; new connections keep the last good certificate";

class TlsFileGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(material_, kubeapi::GenerateTlsMaterial({"localhost"}, {"127.0.0.1"}));
    Write("server.pem", material_.server_cert_pem);
    Write("server-key.pem", material_.server_key_pem);
    Write("ca.pem", material_.ca_cert_pem);
    files_.cert_file = (dir_.path() / "server.pem").string();
    files_.key_file = (dir_.path() / "server-key.pem").string();
    files_.client_ca_file = (dir_.path() / "ca.pem").string();
    files_.reload_interval = absl::Seconds(1);
  }
  // Replaces file `name` atomically, so that the guard never reads it half-written.
  void Write(const std::string& name, const std::string& text) {
    const std::filesystem::path tmp = dir_.path() / (name + ".tmp");
    std::ofstream(tmp) << text;
    std::filesystem::rename(tmp, dir_.path() / name);
  }

  TempDir dir_;
  kubeapi::TlsMaterial material_;
  service::ServerTlsFiles files_;
};

TEST_F(TlsFileGuardTest, StagesCopiesInAPrivateDirectoryRemovedAtTheEnd) {
  files_.reload_interval = absl::Minutes(1);
  std::filesystem::path private_dir;
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<service::TlsFileGuard> guard,
                         service::TlsFileGuard::Start(files_));
    const service::ServerTlsFiles& staged = guard->staged();
    EXPECT_EQ(ReadText(staged.cert_file), material_.server_cert_pem);
    EXPECT_EQ(ReadText(staged.key_file), material_.server_key_pem);
    EXPECT_EQ(ReadText(staged.client_ca_file), material_.ca_cert_pem);
    EXPECT_EQ(staged.reload_interval, absl::Seconds(1));  // gRPC re-reads the copies often
    EXPECT_EQ(ModeOf(staged.key_file), 0600u);
    private_dir = std::filesystem::path(staged.key_file).parent_path().parent_path();
    EXPECT_EQ(ModeOf(private_dir), 0700u);
    EXPECT_NE(private_dir, dir_.path());
    EXPECT_TRUE(absl::StartsWith(private_dir.filename().string(),
                                 absl::StrCat("credledger-tls-", getpid(), "-")))
        << private_dir;
  }
  EXPECT_FALSE(std::filesystem::exists(private_dir));
}

TEST_F(TlsFileGuardTest, StartRemovesTheDirectoriesOfProcessesThatAreGone) {
  const std::filesystem::path tmp = dir_.path() / "tmp";
  std::filesystem::create_directory(tmp);
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved = old_tmpdir == nullptr ? "" : old_tmpdir;
  setenv("TMPDIR", tmp.c_str(), 1);
  // A process that has exited: its pid is free.
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  const std::filesystem::path dead = tmp / absl::StrCat("credledger-tls-", child, "-aaaaaa");
  const std::filesystem::path restarted = tmp / absl::StrCat("credledger-tls-", getpid(), "-b");
  const std::filesystem::path live = tmp / "credledger-tls-1-cccccc";  // init runs
  const std::filesystem::path other = tmp / "credledger-tls-notes";
  for (const auto& dir : {dead, restarted, live, other}) {
    std::filesystem::create_directory(dir);
    std::ofstream(dir / "key.pem") << "x";
  }
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<service::TlsFileGuard> first,
                         service::TlsFileGuard::Start(files_));
    // A second guard of this process leaves the first one's directory alone.
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<service::TlsFileGuard> second,
                         service::TlsFileGuard::Start(files_));
    EXPECT_TRUE(std::filesystem::exists(first->staged().key_file));
    EXPECT_FALSE(std::filesystem::exists(dead));
    EXPECT_FALSE(std::filesystem::exists(restarted));
    EXPECT_TRUE(std::filesystem::exists(live / "key.pem"));
    EXPECT_TRUE(std::filesystem::exists(other / "key.pem"));
  }
  if (old_tmpdir == nullptr) {
    unsetenv("TMPDIR");
  } else {
    setenv("TMPDIR", saved.c_str(), 1);
  }
}

TEST_F(TlsFileGuardTest, WithoutAClientCaNoneIsStaged) {
  files_.client_ca_file.clear();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<service::TlsFileGuard> guard,
                       service::TlsFileGuard::Start(files_));
  EXPECT_EQ(guard->staged().client_ca_file, "");
}

TEST_F(TlsFileGuardTest, StartRefusesFilesThatFailTheChecks) {
  kubeapi::TlsMaterial other;
  ASSERT_OK_AND_ASSIGN(other, kubeapi::GenerateTlsMaterial({"localhost"}, {}));
  Write("server-key.pem", other.server_key_pem);
  EXPECT_THAT(service::TlsFileGuard::Start(files_).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls-key: the key does not belong to the certificate")));
  files_.reload_interval = absl::Milliseconds(500);
  EXPECT_THAT(service::TlsFileGuard::Start(files_).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("below 1s")));
}

TEST_F(TlsFileGuardTest, FailingFilesKeepTheLastGoodCopiesAndAreLoggedOnce) {
  CapturedLog log;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<service::TlsFileGuard> guard,
                       service::TlsFileGuard::Start(files_));
  ASSERT_OK_AND_ASSIGN(kubeapi::TlsMaterial renewed,
                       kubeapi::GenerateTlsMaterial({"localhost"}, {"127.0.0.1"}));
  Write("server-key.pem", renewed.server_key_pem);  // the certificate not yet renewed
  ASSERT_TRUE(AwaitTlsFileGuardCount(*guard, &service::TlsFileGuard::refused, 2));
  EXPECT_EQ(ReadText(guard->staged().key_file), material_.server_key_pem);
  std::vector<nlohmann::json> warnings = log.Lines(kNotReloaded);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].value("level", ""), "warning");
  EXPECT_THAT(warnings[0].value("error", ""),
              HasSubstr("--tls-key: the key does not belong to the certificate"));
  EXPECT_THAT(warnings[0].dump(), Not(HasSubstr("PRIVATE KEY")));

  Write("server.pem", renewed.server_cert_pem);
  ASSERT_TRUE(AwaitTlsFileGuardCount(*guard, &service::TlsFileGuard::published, 1));
  EXPECT_EQ(ReadText(guard->staged().cert_file), renewed.server_cert_pem);
  EXPECT_EQ(ReadText(guard->staged().key_file), renewed.server_key_pem);
  EXPECT_EQ(ReadText(guard->staged().client_ca_file), material_.ca_cert_pem);

  // A new problem is logged again.
  Write("ca.pem", "garbage\n");
  const int64_t refused = guard->refused();
  ASSERT_TRUE(AwaitTlsFileGuardCount(*guard, &service::TlsFileGuard::refused, refused + 1));
  warnings = log.Lines(kNotReloaded);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[1].value("error", ""), HasSubstr("--tls-client-ca:"));
  EXPECT_EQ(ReadText(guard->staged().client_ca_file), material_.ca_cert_pem);
}

}  // namespace tls_file_guard_test
}  // namespace credledger::testing
