// `credledger exec`: reading a credentials folder laid out as Kubernetes mounts a Secret
// (dotfiles and the ..data indirection), usage and start errors with their exit codes, and
// the real exec (in a death-test child) of /usr/bin/env, whose output shows the environment
// the command got.
#include "cli/exec_cli.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/credledger_main.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::cli {
namespace exec_cli_test {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;
using testing::StatusIs;

void Write(const std::filesystem::path& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

// A Secret volume as the kubelet writes it: the files in a timestamped dot-folder, `..data`
// pointing at it, and one symlink per key through `..data`.
void MountSecret(const std::filesystem::path& dir,
                 const std::vector<std::pair<std::string, std::string>>& data) {
  const std::filesystem::path version = dir / "..2026_01_01_00_00_00.000000001";
  std::filesystem::create_directory(version);
  for (const auto& [key, value] : data) Write(version / key, value);
  std::filesystem::create_directory_symlink(version.filename(), dir / "..data");
  for (const auto& [key, value] : data) {
    std::filesystem::create_symlink(std::filesystem::path("..data") / key, dir / key);
  }
}

class ExecCliTest : public ::testing::Test {
 protected:
  int Run(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    return service::CredledgerMain(args, out_, err_);
  }

  testing::TempDir dir_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(ExecCliTest, ReadsTheKeysOfAMountedSecretAndSkipsItsDotEntries) {
  MountSecret(dir_.path(), {{"TOKEN", "t0k3n"}, {"AWS_REGION", "eu-west-1"}});
  Write(dir_.path() / ".hidden", "not a key");
  std::filesystem::create_directory(dir_.path() / "folder");
  ASSERT_OK_AND_ASSIGN(auto files, ReadCredentialsDir(dir_.path()));
  EXPECT_THAT(files, ElementsAre(Pair("AWS_REGION", "eu-west-1"), Pair("TOKEN", "t0k3n")));
}

TEST_F(ExecCliTest, ReadsPlainFilesToo) {
  Write(dir_.path() / "KEY", "value\nwith newline\n");
  ASSERT_OK_AND_ASSIGN(auto files, ReadCredentialsDir(dir_.path()));
  EXPECT_THAT(files, ElementsAre(Pair("KEY", "value\nwith newline\n")));
}

TEST_F(ExecCliTest, ReadErrorsNameTheFileNeverItsContent) {
  std::filesystem::create_symlink("missing-target", dir_.path() / "DANGLING");
  EXPECT_THAT(ReadCredentialsDir(dir_.path()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("DANGLING")));
  std::filesystem::remove(dir_.path() / "DANGLING");

  Write(dir_.path() / "BIG", std::string(kMaxCredentialFileBytes + 1, 'x'));
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> big =
      ReadCredentialsDir(dir_.path());
  EXPECT_THAT(big, StatusIs(absl::StatusCode::kFailedPrecondition,
                            HasSubstr("BIG\": larger than the limit of 1048576 bytes")));
  EXPECT_THAT(std::string(big.status().message()), Not(HasSubstr("xxxx")));

  EXPECT_THAT(ReadCredentialsDir(dir_.path() / "absent"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("absent")));
}

TEST_F(ExecCliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(Run({"exec", "--", "/usr/bin/env"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("--credentials-dir is required"));
  // The command must follow `--`, so that its flags are never taken for exec's.
  EXPECT_EQ(Run({"exec", "--credentials-dir", dir_.path().string(), "/usr/bin/env"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("the command goes after --"));
  EXPECT_EQ(Run({"exec", "--credentials-dir", dir_.path().string(), "--"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("expected -- <command>"));
}

TEST_F(ExecCliTest, AnUnreadableFolderExitsOneBeforeRunningAnything) {
  EXPECT_EQ(
      Run({"exec", "--credentials-dir", (dir_.path() / "absent").string(), "--", "/usr/bin/env"}),
      1);
  EXPECT_THAT(err_.str(), HasSubstr("error: NOT_FOUND: credentials directory"));
}

TEST_F(ExecCliTest, ACommandThatIsNotFoundExits127LikeAShell) {
  EXPECT_EQ(Run({"exec", "--credentials-dir", dir_.path().string(), "--",
                 "credledger-test-no-such-command"}),
            kExitCommandNotFound);
  EXPECT_THAT(err_.str(), HasSubstr("credledger-test-no-such-command: command not found"));
}

TEST_F(ExecCliTest, AFileThatIsNotExecutableExits126) {
  const std::filesystem::path script = dir_.path() / "script";
  Write(script, "#!/bin/sh\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_read);
  const std::filesystem::path creds = dir_.path() / "creds";
  std::filesystem::create_directory(creds);
  EXPECT_EQ(Run({"exec", "--credentials-dir", creds.string(), "--", script.string()}),
            kExitCommandNotExecutable);
}

// The real exec: the death-test child sets its inherited environment, runs `credledger exec`
// with stdout on a file, and is replaced by /usr/bin/env, which prints what it got.
// Regression: stderr said "exec: dropped keys: TF_INPUT, TF_VAR_region, TF_WORKSPACE",
// listing TF_INPUT although the caller's value was passed on, and mixing inherited variables
// with file keys. Now removed variables are told apart by origin, and ignored files apart.
TEST_F(ExecCliTest, ReplacesTheProcessWithTheCommandAndTheCredentialEnvironment) {
  const std::filesystem::path creds = dir_.path() / "creds";
  std::filesystem::create_directory(creds);
  MountSecret(creds, {{"AWS_ACCESS_KEY_ID", "AKIA123"},
                      {"TF_VAR_region", "us-east-1"},
                      {"TF_INPUT", "1"},
                      {"KUBE_NAMESPACE", "kube-system"},
                      {"SHARED", "from-file"}});
  const std::filesystem::path output = dir_.path() / "env.out";
  EXPECT_EXIT(
      {
        const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0) std::_Exit(90);
        // Exactly this inherited environment, whatever the test runner's holds.
        ::clearenv();
        ::setenv("TF_WORKSPACE", "prod", 1);
        ::setenv("TF_INPUT", "0", 1);
        ::setenv("KUBE_NAMESPACE", "team-a", 1);
        ::setenv("SHARED", "inherited", 1);
        std::_Exit(service::CredledgerMain(
            {"exec", "--credentials-dir", creds.string(), "--", "/usr/bin/env", "--null"},
            std::cout, std::cerr));
      },
      ::testing::ExitedWithCode(0),
      "^exec: not passed to \"/usr/bin/env\" \\(TF_/KUBE_ variables\\): from files: "
      "\"TF_VAR_region\"; inherited: \"TF_WORKSPACE\"\n"
      "exec: files ignored, the caller's value \\(if any\\) is kept: \"KUBE_NAMESPACE\", "
      "\"TF_INPUT\"\n$");

  std::ifstream in(output, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<std::string> env = absl::StrSplit(text, '\0', absl::SkipEmpty());
  EXPECT_THAT(env, Contains("AWS_ACCESS_KEY_ID=AKIA123"));
  EXPECT_THAT(env, Contains("SHARED=from-file"));
  EXPECT_THAT(env, Contains("TF_INPUT=0"));
  EXPECT_THAT(env, Contains("KUBE_NAMESPACE=team-a"));
  EXPECT_THAT(env, Not(Contains(HasSubstr("TF_VAR_region"))));
  EXPECT_THAT(env, Not(Contains(HasSubstr("TF_WORKSPACE"))));
  EXPECT_THAT(env, Not(IsEmpty()));
}

}  // namespace exec_cli_test
}  // namespace credledger::cli
