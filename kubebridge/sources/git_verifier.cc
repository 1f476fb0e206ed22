// Limits of libgit2 1.5 that shape this file (docs/connections.md, "Git"):
// - No per-call timeout or cancellation: the deadline and the Cancellation are checked in
//   the remote_ready, certificate_check and credentials callbacks, which are the only ones
//   that run while connecting and listing refs. A TCP connect or a read that stalls is
//   bounded only by the kernel's TCP timeouts; a timeout noticed after the call returns is
//   still reported as kUnavailable.
// - TLS (Debian builds libgit2 with mbedTLS): the certificate callback receives only the
//   leaf certificate (DER), so a `ca_pem` bundle must hold every intermediate as well as
//   the root.
// - SSH: libssh2 negotiates the host key type without looking at known_hosts (it prefers
//   ECDSA, then Ed25519, then RSA), so known_hosts must hold the server's key of the type
//   negotiated; a host listed only with other types is a mismatch (the message says so).
#include "kubebridge/sources/git_verifier.h"

#include <arpa/inet.h>
#include <git2.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {
namespace {

void InitLibgit2Once() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

// The parts of a remote URL that the checks and messages need.
struct RemoteUrl {
  bool ssh = false;
  std::string host;      // without IPv6 brackets, as known_hosts and X509 checks want it
  int port = 0;
  std::string user;      // ssh: the URL's user, "git" when it names none
  std::string userinfo;  // as written in the URL
  std::string raw;       // the URL as given (may hold a password)
  // The URL for messages: never a password. An SSH URL keeps its user (`git@host:repo`,
  // `ssh://git@host/repo`): the login is part of the address and no secret. Any other URL
  // loses its whole userinfo, which may be a token given as the user name.
  std::string display;
};

// Finds the userinfo of `url`: sets `start` to where it begins (or would begin) and `end` to
// its '@', and returns whether there is one. For a scheme://authority URL it is the
// authority's part before its last '@'; for an scp-like `user@host:path` the part before the
// first '@' when no '/' precedes it (the rule of the API's URL check, so that a
// `user:password@` is always found).
bool FindUserinfo(absl::string_view url, size_t& start, size_t& end) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == absl::string_view::npos) {
    start = 0;
    end = url.find('@');
    return end != absl::string_view::npos && url.substr(0, end).find('/') == url.npos;
  }
  start = scheme_end + 3;
  const absl::string_view authority = url.substr(start, url.find('/', start) - start);
  const size_t at = authority.rfind('@');
  if (at == absl::string_view::npos) return false;
  end = start + at;
  return true;
}

// `url` for messages (RemoteUrl::display); `ssh` says whether it is an SSH URL.
std::string DisplayUrl(absl::string_view url, bool ssh) {
  size_t start = 0;
  size_t end = 0;
  if (!FindUserinfo(url, start, end)) return std::string(url);
  if (!ssh) return absl::StrCat(url.substr(0, start), url.substr(end + 1));
  const absl::string_view userinfo = url.substr(start, end - start);
  return absl::StrCat(url.substr(0, start), userinfo.substr(0, userinfo.find(':')),
                      url.substr(end));
}

// Splits "host[:port]" or "[v6]:port"; `port` keeps its value when none is given.
absl::Status SplitHostPort(absl::string_view hostport, std::string& host, int& port) {
  absl::string_view port_text;
  if (absl::StartsWith(hostport, "[")) {
    const size_t close = hostport.find(']');
    if (close == absl::string_view::npos) return absl::InvalidArgumentError("unclosed '['");
    host = std::string(hostport.substr(1, close - 1));
    absl::string_view rest = hostport.substr(close + 1);
    if (!rest.empty() && !absl::ConsumePrefix(&rest, ":")) {
      return absl::InvalidArgumentError("unexpected text after ']'");
    }
    port_text = rest;
  } else {
    const size_t colon = hostport.find(':');
    host = std::string(hostport.substr(0, colon));
    if (colon != absl::string_view::npos) port_text = hostport.substr(colon + 1);
  }
  if (host.empty()) return absl::InvalidArgumentError("no host");
  if (!port_text.empty() && (!absl::SimpleAtoi(port_text, &port) || port < 1 || port > 65535)) {
    return absl::InvalidArgumentError("the port is not a number from 1 to 65535");
  }
  return absl::OkStatus();
}

absl::StatusOr<RemoteUrl> ParseRemoteUrl(absl::string_view url) {
  RemoteUrl remote;
  remote.raw = std::string(url);
  const size_t scheme_end = url.find("://");
  const std::string scheme =
      scheme_end == absl::string_view::npos ? "" : absl::AsciiStrToLower(url.substr(0, scheme_end));
  remote.ssh = scheme_end == absl::string_view::npos || scheme == "ssh";
  size_t userinfo_start = 0;
  size_t userinfo_end = 0;
  const bool has_userinfo = FindUserinfo(url, userinfo_start, userinfo_end);
  if (has_userinfo) {
    remote.userinfo = std::string(url.substr(userinfo_start, userinfo_end - userinfo_start));
  }
  const size_t host_start = has_userinfo ? userinfo_end + 1 : userinfo_start;
  // An scp-like URL without a ':' before any '/' is a local path, which is not SSH.
  const size_t scp_colon = url.find(':', host_start);
  const bool local_path =
      scheme_end == absl::string_view::npos &&
      (scp_colon == absl::string_view::npos ||
       url.substr(host_start, scp_colon - host_start).find('/') != absl::string_view::npos);
  if (local_path) remote.ssh = false;
  remote.display = DisplayUrl(url, remote.ssh);
  const std::string prefix = absl::StrCat("git remote ", remote.display, ": ");
  if (local_path) {
    return UnsupportedError(absl::StrCat(
        prefix, "local paths are not supported (https://, ssh:// and user@host:path only)"));
  }
  if (scheme_end == absl::string_view::npos) {
    remote.port = 22;
    absl::string_view host = url.substr(host_start, scp_colon - host_start);
    if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
      host = host.substr(1, host.size() - 2);
    }
    remote.host = std::string(host);
    if (remote.host.empty()) return absl::InvalidArgumentError(prefix + "no host");
  } else {
    if (scheme != "https" && scheme != "ssh") {
      return UnsupportedError(absl::StrCat(prefix, "scheme \"", scheme,
                                           "\" is not supported (https://, ssh:// and "
                                           "user@host:path only)"));
    }
    remote.port = remote.ssh ? 22 : 443;
    const absl::string_view authority =
        url.substr(host_start, url.find('/', host_start) - host_start);
    absl::Status split = SplitHostPort(authority, remote.host, remote.port);
    if (!split.ok()) return absl::InvalidArgumentError(prefix + std::string(split.message()));
  }
  if (remote.ssh) {
    remote.user = remote.userinfo.substr(0, remote.userinfo.find(':'));
    if (remote.user.empty()) remote.user = "git";
  }
  return remote;
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

// Checks a DER leaf certificate against the PEM bundle `ca_pem` and the host name or IP.
absl::Status VerifyLeafCertificate(const void* der, size_t der_length, const std::string& ca_pem,
                                   const std::string& host) {
  const auto* cursor = static_cast<const unsigned char*>(der);
  std::unique_ptr<X509, decltype(&X509_free)> leaf(
      d2i_X509(nullptr, &cursor, static_cast<long>(der_length)), X509_free);
  if (leaf == nullptr) return absl::FailedPreconditionError("the server certificate is not X.509");
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(),
                                                                 X509_STORE_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())), BIO_free);
  int added = 0;
  while (X509* ca = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store.get(), ca) == 1) ++added;
    X509_free(ca);
  }
  if (added == 0) return absl::FailedPreconditionError("the CA bundle holds no PEM certificate");
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(),
                                                                      X509_STORE_CTX_free);
  if (X509_STORE_CTX_init(ctx.get(), store.get(), leaf.get(), nullptr) != 1) {
    return absl::InternalError("cannot set up certificate verification");
  }
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_SERVER);
  if (X509_verify_cert(ctx.get()) != 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("the server certificate does not verify against the CA bundle: ",
                     X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get())),
                     " (intermediate certificates must be in the bundle)"));
  }
  in6_addr address;
  const bool is_ip = inet_pton(AF_INET, host.c_str(), &address) == 1 ||
                     inet_pton(AF_INET6, host.c_str(), &address) == 1;
  const int matched = is_ip ? X509_check_ip_asc(leaf.get(), host.c_str(), 0)
                            : X509_check_host(leaf.get(), host.data(), host.size(), 0, nullptr);
  if (matched != 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("the server certificate is not valid for ", is_ip ? "IP " : "host ", host));
  }
  return absl::OkStatus();
}

std::string HostKeyTypeName(git_cert_ssh_raw_type_t type) {
  switch (type) {
    case GIT_CERT_SSH_RAW_TYPE_RSA: return "ssh-rsa";
    case GIT_CERT_SSH_RAW_TYPE_DSS: return "ssh-dss";
    case GIT_CERT_SSH_RAW_TYPE_KEY_ECDSA_256: return "ecdsa-sha2-nistp256";
    case GIT_CERT_SSH_RAW_TYPE_KEY_ECDSA_384: return "ecdsa-sha2-nistp384";
    case GIT_CERT_SSH_RAW_TYPE_KEY_ECDSA_521: return "ecdsa-sha2-nistp521";
    case GIT_CERT_SSH_RAW_TYPE_KEY_ED25519: return "ssh-ed25519";
    case GIT_CERT_SSH_RAW_TYPE_UNKNOWN: break;
  }
  return "unknown";
}

// State shared with the libgit2 callbacks of one ListRemoteRefs call.
struct Session {
  Session(const RemoteUrl& r, const GitCredentials& c, const GitVerifyOptions& o,
          Cancellation* cancellation)
      : remote(r),
        credentials(c),
        options(o),
        cancel(cancellation),
        deadline(absl::Now() + o.timeout) {}

  const RemoteUrl& remote;
  const GitCredentials& credentials;
  const GitVerifyOptions& options;
  Cancellation* cancel;
  absl::Time deadline;
  int attempts = 0;       // credentials handed to libgit2
  absl::Status failure;   // why a callback stopped the operation
  std::string fingerprint;

  // Sets `failure` when cancelled or past the deadline; returns true then.
  bool Stopped() {
    if (cancel != nullptr && cancel->cancelled()) {
      failure = absl::CancelledError("cancelled");
    } else if (absl::Now() >= deadline) {
      failure = absl::UnavailableError(
          absl::StrCat("timed out after ", absl::FormatDuration(options.timeout)));
    }
    return !failure.ok();
  }
  int Fail(absl::Status status) {
    failure = std::move(status);
    return GIT_EUSER;
  }
};

int OnRemoteReady(git_remote*, int, void* payload) {
  return static_cast<Session*>(payload)->Stopped() ? GIT_EUSER : 0;
}

int OnCertificate(git_cert* cert, int valid, const char*, void* payload) {
  Session& s = *static_cast<Session*>(payload);
  if (s.Stopped()) return GIT_EUSER;
  if (cert->cert_type == GIT_CERT_HOSTKEY_LIBSSH2) {
    const auto* hostkey = reinterpret_cast<const git_cert_hostkey*>(cert);
    if ((hostkey->type & GIT_CERT_SSH_RAW) == 0) {
      return s.Fail(absl::PermissionDeniedError("libgit2 did not provide the raw SSH host key"));
    }
    const HostKey key{HostKeyTypeName(hostkey->raw_type),
                      std::string(hostkey->hostkey, hostkey->hostkey_len)};
    s.fingerprint = HostKeyFingerprint(key);
    const HostKeyCheck check = s.credentials.known_hosts->Check(s.remote.host, s.remote.port, key);
    if (check.verdict == HostKeyVerdict::kMatch) return 0;
    return s.Fail(absl::PermissionDeniedError(check.message));
  }
  if (cert->cert_type != GIT_CERT_X509) {
    return s.Fail(absl::FailedPreconditionError("the server presented no X.509 certificate"));
  }
  if (s.options.insecure_skip_tls_verify) return 0;
  if (!s.options.ca_pem.empty()) {
    const auto* x509 = reinterpret_cast<const git_cert_x509*>(cert);
    absl::Status verified = VerifyLeafCertificate(x509->data, x509->len, s.options.ca_pem,
                                                  s.remote.host);
    return verified.ok() ? 0 : s.Fail(std::move(verified));
  }
  if (valid) return 0;
  return s.Fail(absl::FailedPreconditionError(
      "the server certificate is not trusted by the system store"));
}

int OnCredentials(git_credential** out, const char*, const char*, unsigned int allowed,
                  void* payload) {
  Session& s = *static_cast<Session*>(payload);
  if (s.Stopped()) return GIT_EUSER;
  const GitCredentials& c = s.credentials;
  if (allowed & GIT_CREDENTIAL_USERNAME) {
    return git_credential_username_new(out, s.remote.user.c_str());
  }
  if (s.attempts > 0) {
    return s.Fail(absl::UnauthenticatedError(
        s.remote.ssh ? absl::StrCat("the server refused the SSH key for user ", s.remote.user)
                     : std::string("the server refused the credentials")));
  }
  ++s.attempts;
  switch (c.kind) {
    case GitCredentials::Kind::kSshKey:
      if ((allowed & GIT_CREDENTIAL_SSH_MEMORY) == 0) {
        return s.Fail(absl::UnauthenticatedError(
            "the server does not offer public key authentication"));
      }
      return git_credential_ssh_key_memory_new(out, s.remote.user.c_str(), nullptr,
                                               c.private_key.c_str(), c.passphrase.c_str());
    case GitCredentials::Kind::kBasic:
      if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) == 0) break;
      return git_credential_userpass_plaintext_new(out, c.username.c_str(), c.password.c_str());
    case GitCredentials::Kind::kBearer:
      return s.Fail(absl::UnauthenticatedError("the server refused the bearer token"));
    case GitCredentials::Kind::kNone:
      return s.Fail(absl::UnauthenticatedError(
          "the server requires credentials and none are configured"));
  }
  return s.Fail(absl::UnauthenticatedError("the server offers no usable authentication method"));
}

// `message` with the URL's userinfo and every secret of the call removed, and without the
// trailing line break (and blanks) that server messages end in.
std::string Scrub(std::string message, const RemoteUrl& remote, const GitCredentials& c) {
  absl::StrReplaceAll({{remote.raw, remote.display}}, &message);
  const size_t colon = remote.userinfo.find(':');
  const std::string url_password =
      colon == std::string::npos ? "" : remote.userinfo.substr(colon + 1);
  for (const std::string* secret :
       {&url_password, &c.password, &c.token, &c.passphrase, &c.private_key}) {
    if (!secret->empty()) absl::StrReplaceAll({{*secret, "<redacted>"}}, &message);
  }
  return std::string(absl::StripTrailingAsciiWhitespace(message));
}

// The status of a failed libgit2 call `rc` (after the callbacks had their say).
absl::Status MapGitError(int rc, const Session& s) {
  if (!s.failure.ok()) return s.failure;
  const git_error* last = git_error_last();
  const std::string detail = Scrub(last != nullptr && last->message != nullptr
                                       ? last->message
                                       : absl::StrCat("libgit2 error ", rc),
                                   s.remote, s.credentials);
  if (rc == GIT_EAUTH) {
    return absl::UnauthenticatedError(absl::StrCat("the server refused the credentials: ", detail));
  }
  if (rc == GIT_ECERTIFICATE) return absl::FailedPreconditionError(detail);
  const int klass = last != nullptr ? last->klass : GIT_ERROR_NONE;
  // libssh2 could not load the key handed out (bad format or passphrase): the server never
  // saw it, so this is the configuration's fault, not a refusal.
  if (s.remote.ssh && s.attempts > 0 && klass == GIT_ERROR_SSH &&
      absl::StartsWith(detail, "Failed to authenticate SSH session")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the SSH private key could not be used (unreadable, unsupported or wrong passphrase): ",
        detail));
  }
  if (klass == GIT_ERROR_NET || klass == GIT_ERROR_OS || klass == GIT_ERROR_SSL ||
      klass == GIT_ERROR_HTTP || klass == GIT_ERROR_SSH) {
    return absl::UnavailableError(detail);
  }
  return absl::UnknownError(detail);
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

  Session session(remote, credentials, options, cancel);
  if (session.Stopped()) return Annotate(session.failure, prefix);
  const std::string url_text(url);
  git_remote* raw_remote = nullptr;
  if (git_remote_create_detached(&raw_remote, url_text.c_str()) != 0) {
    return Annotate(MapGitError(-1, session), prefix);
  }
  std::unique_ptr<git_remote, RemoteDeleter> git_remote_handle(raw_remote);

  git_remote_callbacks callbacks;
  git_remote_init_callbacks(&callbacks, GIT_REMOTE_CALLBACKS_VERSION);
  callbacks.remote_ready = OnRemoteReady;
  callbacks.certificate_check = OnCertificate;
  callbacks.credentials = OnCredentials;
  callbacks.payload = &session;
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
