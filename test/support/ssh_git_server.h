// SshGitServer: a real OpenSSH server (`/usr/sbin/sshd` from Debian) on 127.0.0.1 that
// serves one bare Git repository over SSH on a loopback port, for the Git source
// verification tests (docs/connections.md, "Git").
//
// Everything lives in a temp directory removed on destruction: the server's ed25519 host
// key, the sshd config, an authorized_keys file holding two generated client keys (one
// passphrase-protected), a generated key that is not authorized, and `repo.git` (made with `git init --bare` and one
// pushed commit on `main`, so the remote advertises HEAD and refs/heads/main). sshd runs in
// the foreground (-D) with its log on the captured output; the login user is the test's own
// user (root in CI: PermitRootLogin yes, StrictModes no, UsePAM no).
//
// Thread-safety: the accessors may be called from any thread; Start and the destructor
// from one.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "test/support/subprocess.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {

class SshGitServer {
 public:
  // Generates the keys and the repository and starts sshd on a free loopback port (picked by
  // binding port 0; sshd is started again on another port when it cannot bind).
  // Errors: kNotFound when /usr/sbin/sshd, /usr/bin/ssh-keygen or /usr/bin/git is missing
  // (tests GTEST_SKIP with the message; CI installs openssh-server and git); kInternal when
  // a setup command fails; kDeadlineExceeded when sshd does not listen within 20 seconds.
  static absl::StatusOr<std::unique_ptr<SshGitServer>> Start();
  // Stops sshd (SIGTERM, then SIGKILL after 10 seconds) and removes the temp directory.
  ~SshGitServer();
  SshGitServer(const SshGitServer&) = delete;
  SshGitServer& operator=(const SshGitServer&) = delete;

  // "ssh://<user>@127.0.0.1:<port>/<temp dir>/repo.git".
  const std::string& url() const { return url_; }
  int port() const { return port_; }
  // The login user (the test process's user).
  const std::string& user() const { return user_; }
  // Number of refs the repository advertises (HEAD and refs/heads/main).
  static constexpr int kAdvertisedRefs = 2;

  // The host public key as known_hosts writes it: "ssh-ed25519 <base64>" (no comment).
  const std::string& host_public_key() const { return host_public_key_; }
  // The host public key file (for `ssh-keygen -l -f`).
  std::filesystem::path host_public_key_path() const;
  // OpenSSH-format private key text of the authorized client key.
  const std::string& client_private_key() const { return client_private_key_; }
  // OpenSSH-format private key text of an authorized key encrypted with
  // kEncryptedKeyPassphrase.
  const std::string& encrypted_private_key() const { return encrypted_private_key_; }
  static constexpr char kEncryptedKeyPassphrase[] = "correct horse battery";
  // OpenSSH-format private key text of a key that is NOT in authorized_keys.
  const std::string& unauthorized_private_key() const { return unauthorized_private_key_; }

  // The sshd process (its output holds sshd's log).
  Subprocess& process() { return *sshd_; }

 private:
  SshGitServer() = default;
  absl::Status Prepare();
  absl::Status Launch();

  TempDir dir_;
  std::string user_;
  int port_ = 0;
  std::string url_;
  std::string host_public_key_;
  std::string client_private_key_;
  std::string encrypted_private_key_;
  std::string unauthorized_private_key_;
  std::unique_ptr<Subprocess> sshd_;
};

}  // namespace credledger::testing
