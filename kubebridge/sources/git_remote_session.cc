// GitSession (git_remote_session.h): the deadline, host key, certificate and credentials
// checks that libgit2 calls back into, and its errors mapped to statuses without secrets.
#include "kubebridge/sources/git_remote_session.h"

#include <arpa/inet.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "kubebridge/sources/known_hosts.h"

namespace credledger::kubebridge {
namespace {

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

int OnRemoteReady(git_remote*, int, void* payload) {
  return static_cast<GitSession*>(payload)->Stopped() ? GIT_EUSER : 0;
}

int OnCertificate(git_cert* cert, int valid, const char*, void* payload) {
  GitSession& s = *static_cast<GitSession*>(payload);
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
  GitSession& s = *static_cast<GitSession*>(payload);
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
  for (const std::string* secret :
       {&remote.password, &c.password, &c.token, &c.passphrase, &c.private_key}) {
    if (!secret->empty()) absl::StrReplaceAll({{*secret, "<redacted>"}}, &message);
  }
  return std::string(absl::StripTrailingAsciiWhitespace(message));
}

}  // namespace

bool GitSession::Stopped() {
  if (cancel != nullptr && cancel->cancelled()) {
    failure = absl::CancelledError("cancelled");
  } else if (absl::Now() >= deadline) {
    failure = absl::UnavailableError(
        absl::StrCat("timed out after ", absl::FormatDuration(options.timeout)));
  }
  return !failure.ok();
}

int GitSession::Fail(absl::Status status) {
  failure = std::move(status);
  return GIT_EUSER;
}

void SetGitSessionCallbacks(GitSession& session, git_remote_callbacks& callbacks) {
  callbacks.remote_ready = OnRemoteReady;
  callbacks.certificate_check = OnCertificate;
  callbacks.credentials = OnCredentials;
  callbacks.payload = &session;
}

absl::Status MapGitError(int rc, const GitSession& s) {
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

}  // namespace credledger::kubebridge
