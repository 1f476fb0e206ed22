#include "test/support/ssh_git_server.h"

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "test/support/file_text.h"
#include "test/support/free_port.h"

namespace credledger::testing {
namespace {

constexpr char kSshd[] = "/usr/sbin/sshd";
constexpr char kSshKeygen[] = "/usr/bin/ssh-keygen";
constexpr char kGit[] = "/usr/bin/git";
constexpr int kLaunchAttempts = 5;
constexpr absl::Duration kSetupTimeout = absl::Seconds(30);

absl::StatusOr<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read ", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string CurrentUser() {
  const passwd* entry = getpwuid(geteuid());
  return entry != nullptr ? entry->pw_name : "root";
}

absl::Status GenerateKey(const std::filesystem::path& path, const std::string& passphrase) {
  return RunOk({kSshKeygen, "-q", "-t", "ed25519", "-N", passphrase, "-C", "credledger-test", "-f",
                path.string()},
               kSetupTimeout);
}

}  // namespace

absl::StatusOr<std::unique_ptr<SshGitServer>> SshGitServer::Start() {
  for (const char* tool : {kSshd, kSshKeygen, kGit}) {
    if (access(tool, X_OK) != 0) {
      return absl::NotFoundError(
          absl::StrCat(tool,
                       " is not installed (packages openssh-server, openssh-client and git; "
                       "scripts/install-deps.sh installs them)"));
    }
  }
  auto server = std::unique_ptr<SshGitServer>(new SshGitServer());
  if (absl::Status prepared = server->Prepare(); !prepared.ok()) return prepared;
  if (absl::Status launched = server->Launch(); !launched.ok()) return launched;
  return server;
}

SshGitServer::~SshGitServer() {
  if (sshd_ == nullptr) return;
  sshd_->Signal(SIGTERM);
  (void)sshd_->Wait(absl::Now() + absl::Seconds(10));
}

std::filesystem::path SshGitServer::host_public_key_path() const {
  return dir_.path() / "host_ed25519.pub";
}

absl::Status SshGitServer::Prepare() {
  user_ = CurrentUser();
  const std::filesystem::path& dir = dir_.path();
  for (const char* name : {"host_ed25519", "client", "unauthorized", "encrypted"}) {
    absl::Status generated = GenerateKey(
        dir / name, absl::string_view(name) == "encrypted" ? kEncryptedKeyPassphrase : "");
    if (!generated.ok()) return generated;
  }
  absl::StatusOr<std::string> host_pub = ReadFile(dir / "host_ed25519.pub");
  absl::StatusOr<std::string> client_pub = ReadFile(dir / "client.pub");
  absl::StatusOr<std::string> encrypted_pub = ReadFile(dir / "encrypted.pub");
  absl::StatusOr<std::string> client_key = ReadFile(dir / "client");
  absl::StatusOr<std::string> encrypted_key = ReadFile(dir / "encrypted");
  absl::StatusOr<std::string> other_key = ReadFile(dir / "unauthorized");
  for (const auto* read :
       {&host_pub, &client_pub, &encrypted_pub, &client_key, &encrypted_key, &other_key}) {
    if (!read->ok()) return read->status();
  }
  std::vector<std::string> host_fields = absl::StrSplit(*host_pub, ' ');
  if (host_fields.size() < 2) return absl::InternalError("unexpected host public key file");
  host_public_key_ = absl::StrCat(host_fields[0], " ", host_fields[1]);
  client_private_key_ = *client_key;
  encrypted_private_key_ = *encrypted_key;
  unauthorized_private_key_ = *other_key;
  absl::Status written = WriteTextChecked(dir / "authorized_keys", *client_pub + *encrypted_pub);
  if (!written.ok()) return written;

  const std::string repo = (dir / "repo.git").string();
  const std::string work = (dir / "work").string();
  const std::vector<std::vector<std::string>> git_steps = {
      {kGit, "init", "-q", "--bare", "--initial-branch=main", repo},
      {kGit, "init", "-q", "--initial-branch=main", work},
      {kGit, "-C", work, "-c", "user.name=credledger test", "-c", "user.email=test@invalid",
       "commit", "-q", "--allow-empty", "-m", "initial"},
      {kGit, "-C", work, "push", "-q", repo, "main:main"},
  };
  for (const auto& step : git_steps) {
    if (absl::Status ran = RunOk(step, kSetupTimeout); !ran.ok()) return ran;
  }
  // sshd's privilege separation needs this directory when it runs as root.
  std::error_code ignored;
  if (geteuid() == 0) std::filesystem::create_directories("/run/sshd", ignored);
  return absl::OkStatus();
}

absl::Status SshGitServer::Launch() {
  const std::filesystem::path& dir = dir_.path();
  absl::Status last = absl::InternalError("sshd was not started");
  for (int attempt = 0; attempt < kLaunchAttempts; ++attempt) {
    absl::StatusOr<int> port = PickFreePort();
    if (!port.ok()) return port.status();
    const std::string config = absl::StrCat(
        "Port ", *port, "\nListenAddress 127.0.0.1\nHostKey ", (dir / "host_ed25519").string(),
        "\nPidFile ", (dir / "sshd.pid").string(), "\nAuthorizedKeysFile ",
        (dir / "authorized_keys").string(),
        "\nStrictModes no\nPermitRootLogin yes\nUsePAM no\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nLogLevel VERBOSE\n");
    const std::filesystem::path config_path = dir / "sshd_config";
    if (absl::Status written = WriteTextChecked(config_path, config); !written.ok()) return written;
    // The shell only moves sshd's log (stderr) onto stdout, where WaitForLine reads it; exec
    // keeps the process id, so signals reach sshd itself.
    absl::StatusOr<std::unique_ptr<Subprocess>> sshd = Subprocess::Start(
        {"/bin/sh", "-c",
         absl::StrCat("exec ", kSshd, " -D -e -f '", config_path.string(), "' 2>&1")});
    if (!sshd.ok()) return sshd.status();
    absl::StatusOr<std::string> listening =
        (*sshd)->WaitForLine("Server listening on", absl::Now() + absl::Seconds(20));
    if (listening.ok()) {
      sshd_ = *std::move(sshd);
      port_ = *port;
      url_ = absl::StrCat("ssh://", user_, "@127.0.0.1:", port_, (dir / "repo.git").string());
      return absl::OkStatus();
    }
    if (absl::IsDeadlineExceeded(listening.status())) return listening.status();
    // sshd exited (typically: the port was taken in the meantime); try another port.
    last = absl::InternalError(absl::StrCat("sshd did not start: ", (*sshd)->out()));
  }
  return last;
}

}  // namespace credledger::testing
