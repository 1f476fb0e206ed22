// ListRemoteRefs and the checks before it (git_verifier.h). The libgit2 callbacks, and the
// limits of libgit2 that shape them, are in git_remote_session.h; the URL in git_remote_url.h.
#include "kubebridge/sources/git_verifier.h"

#include <git2.h>

#include <memory>
#include <mutex>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kubebridge/model/connection_errors.h"
#include "kubebridge/sources/git_remote_session.h"
#include "kubebridge/sources/git_remote_url.h"

namespace credledger::kubebridge {
namespace {

void InitLibgit2Once() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

// Unsupported combinations of scheme and kind of credentials.
absl::Status CheckCredentialKind(const RemoteUrl& remote, GitCredentials::Kind kind) {
  const std::string prefix = absl::StrCat("git remote ", remote.display, ": ");
  using Kind = GitCredentials::Kind;
  if (!remote.ssh) {
    if (kind == Kind::kSshKey) {
      return UnsupportedError(
          prefix + "auth.type sshKey needs an ssh:// or user@host:path url, not https://");
    }
    return absl::OkStatus();
  }
  if (kind != Kind::kSshKey) {
    return UnsupportedError(
        prefix + "an ssh:// or user@host:path url needs auth.type sshKey with known_hosts "
                 "(none, basic and bearer are for https:// only)");
  }
  return absl::OkStatus();
}

// The base64 text between `begin` and `end` lines of `pem`, decoded; nullopt when absent or
// not base64.
std::optional<std::string> PemBody(absl::string_view pem, absl::string_view begin,
                                   absl::string_view end) {
  const size_t start = pem.find(begin);
  if (start == absl::string_view::npos) return std::nullopt;
  const size_t body_start = start + begin.size();
  const size_t body_end = pem.find(end, body_start);
  if (body_end == absl::string_view::npos) return std::nullopt;
  std::string base64;
  for (char c : pem.substr(body_start, body_end - body_start)) {
    if (!absl::ascii_isspace(c)) base64 += c;
  }
  std::string der;
  if (!absl::Base64Unescape(base64, &der)) return std::nullopt;
  return der;
}

struct RemoteDeleter {
  void operator()(git_remote* remote) const {
    git_remote_disconnect(remote);
    git_remote_free(remote);
  }
};

}  // namespace

bool SshPrivateKeyIsEncrypted(absl::string_view private_key) {
  if (absl::StrContains(private_key, "-----BEGIN ENCRYPTED PRIVATE KEY-----") ||
      absl::StrContains(private_key, "Proc-Type: 4,ENCRYPTED")) {
    return true;
  }
  const std::optional<std::string> blob = PemBody(
      private_key, "-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----");
  // OpenSSH's PROTOCOL.key: "openssh-key-v1\0", then the cipher name as a string (a 32-bit
  // big-endian length and the bytes), "none" for a key without passphrase.
  constexpr absl::string_view kMagic("openssh-key-v1\0", 15);
  if (!blob.has_value() || !absl::StartsWith(*blob, kMagic) ||
      blob->size() < kMagic.size() + 4) {
    return false;
  }
  size_t length = 0;
  for (size_t i = kMagic.size(); i < kMagic.size() + 4; ++i) {
    length = (length << 8) | static_cast<unsigned char>((*blob)[i]);
  }
  const absl::string_view cipher = absl::string_view(*blob).substr(kMagic.size() + 4, length);
  return cipher.size() == length && cipher != "none";
}

absl::Status CheckGitRemote(absl::string_view url, GitCredentials::Kind kind) {
  absl::StatusOr<RemoteUrl> remote = ParseRemoteUrl(url);
  if (!remote.ok()) return remote.status();
  return CheckCredentialKind(*remote, kind);
}

absl::StatusOr<GitVerifyResult> ListRemoteRefs(absl::string_view url,
                                               const GitCredentials& credentials,
                                               const GitVerifyOptions& options,
                                               Cancellation* cancel) {
  absl::StatusOr<RemoteUrl> parsed = ParseRemoteUrl(url);
  if (!parsed.ok()) return parsed.status();
  const RemoteUrl& remote = *parsed;
  const std::string prefix = absl::StrCat("git remote ", remote.display);
  if (absl::Status allowed = CheckCredentialKind(remote, credentials.kind); !allowed.ok()) {
    return allowed;
  }
  if (credentials.kind == GitCredentials::Kind::kSshKey) {
    if (credentials.known_hosts == nullptr) {
      return UnsupportedError(prefix +
                              ": sshKey credentials require known_hosts; host key verification "
                              "cannot be skipped");
    }
    if (credentials.passphrase.empty() && SshPrivateKeyIsEncrypted(credentials.private_key)) {
      return absl::InvalidArgumentError(
          prefix + ": the SSH private key is protected by a passphrase, and none was given");
    }
  }
  if (credentials.kind == GitCredentials::Kind::kBearer &&
      credentials.token.find_first_of("\r\n") != std::string::npos) {
    return absl::InvalidArgumentError(prefix + ": the bearer token contains a line break");
  }
  InitLibgit2Once();

  GitSession session(remote, credentials, options, cancel);
  if (session.Stopped()) return Annotate(session.failure, prefix);
  const std::string url_text(url);
  git_remote* raw_remote = nullptr;
  if (git_remote_create_detached(&raw_remote, url_text.c_str()) != 0) {
    return Annotate(MapGitError(-1, session), prefix);
  }
  std::unique_ptr<git_remote, RemoteDeleter> git_remote_handle(raw_remote);

  git_remote_callbacks callbacks;
  git_remote_init_callbacks(&callbacks, GIT_REMOTE_CALLBACKS_VERSION);
  SetGitSessionCallbacks(session, callbacks);
  git_proxy_options proxy;
  git_proxy_options_init(&proxy, GIT_PROXY_OPTIONS_VERSION);
  std::string authorization = absl::StrCat("Authorization: Bearer ", credentials.token);
  char* header_list[] = {authorization.data()};
  git_strarray headers = {header_list, 0};
  if (credentials.kind == GitCredentials::Kind::kBearer) headers.count = 1;

  const git_remote_head** heads = nullptr;
  size_t count = 0;
  int rc = git_remote_connect(raw_remote, GIT_DIRECTION_FETCH, &callbacks, &proxy, &headers);
  if (rc == 0) rc = git_remote_ls(&heads, &count, raw_remote);
  if (rc != 0) {
    absl::Status failed = MapGitError(rc, session);
    // A call that only returned after the deadline reports the timeout.
    if (session.failure.ok() && session.Stopped()) failed = session.failure;
    return Annotate(failed, prefix);
  }
  if (session.Stopped()) return Annotate(session.failure, prefix);
  GitVerifyResult result;
  result.refs = static_cast<int>(count);
  result.host_key_fingerprint = session.fingerprint;
  return result;
}

}  // namespace credledger::kubebridge
