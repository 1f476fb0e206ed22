#include "kubebridge/sources/source_verifier.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kubebridge/model/connection_errors.h"
#include "kubebridge/sources/git_verifier.h"
#include "kubebridge/sources/http_source_check.h"
#include "kubebridge/sources/known_hosts.h"

namespace credledger::kubebridge {
namespace {

constexpr char kSupportedTypes[] = "none, basic, bearer, sshKey";

// Credential data read from the source's namespace; secret values, kept in memory only.
struct AuthData {
  std::string type;  // one of the kSourceAuth* constants
  std::string username;
  std::string password;
  std::string token;
  std::string identity;
  std::string passphrase;
  std::string known_hosts;
  // Names the known_hosts object for messages: `ConfigMap "ns/name" key "known_hosts"`.
  std::string known_hosts_origin;
};

// Reads Secrets and ConfigMaps of one source's namespace.
class SourceSecretReader {
 public:
  SourceSecretReader(SecretResolver* resolver, std::string ns, Cancellation* cancel)
      : resolver_(resolver), ns_(std::move(ns)), cancel_(cancel) {}

  absl::StatusOr<std::string> SecretKey(const std::string& name, absl::string_view key) {
    if (resolver_ == nullptr) return NoHomeCluster("Secret", name);
    return resolver_->ResolveSecretKey(ns_, name, key, cancel_);
  }

  // A ConfigMap or Secret key, `default_key` when ref.key is empty.
  absl::StatusOr<std::string> ObjectKey(const v1::ObjectKeyRef& ref,
                                        absl::string_view default_key) {
    if (resolver_ == nullptr) return NoHomeCluster(ref.kind(), ref.name());
    return resolver_->Resolve(ns_, ref, default_key, cancel_);
  }

  const std::string& ns() const { return ns_; }

  std::string Describe(const v1::ObjectKeyRef& ref, absl::string_view default_key) const {
    return absl::StrCat(ref.kind(), " \"", ns_, "/", ref.name(), "\" key \"",
                        ref.key().empty() ? default_key : ref.key(), "\"");
  }

 private:
  absl::Status NoHomeCluster(absl::string_view kind, absl::string_view name) const {
    return absl::FailedPreconditionError(absl::StrCat(
        "no home cluster connection to read ", kind, " \"", ns_, "/", name, "\""));
  }

  SecretResolver* resolver_;
  const std::string ns_;
  Cancellation* cancel_;
};

// "; auth types are case-sensitive; did you mean <known>?" when unknown `type` differs from a
// known type only in case ("SSHKey", "Basic"); "" otherwise.
std::string CaseHint(absl::string_view type) {
  for (const char* known : {kSourceAuthNone, kSourceAuthBasic, kSourceAuthBearer,
                            kSourceAuthSshKey}) {
    if (absl::EqualsIgnoreCase(type, known)) {
      return absl::StrCat("; auth types are case-sensitive; did you mean ", known, "?");
    }
  }
  return "";
}

absl::Status MissingBlock(absl::string_view type, absl::string_view block) {
  return UnsupportedError(
      absl::StrCat("auth.type \"", type, "\" needs the auth.", block, " block"));
}

// Checks the auth type and its block against `kind`; reads nothing.
// Errors: UnsupportedError for an unknown type, sshKey outside Git, a missing block or a
// missing known_hosts reference.
absl::Status CheckAuth(const v1::SourceAuth& auth, v1::SourceKind kind) {
  const std::string& type = auth.type();
  if (type == kSourceAuthNone) return absl::OkStatus();
  if (type == kSourceAuthBasic) {
    return auth.has_basic() ? absl::OkStatus() : MissingBlock(type, "basic");
  }
  if (type == kSourceAuthBearer) {
    return auth.has_bearer() ? absl::OkStatus() : MissingBlock(type, "bearer");
  }
  if (type != kSourceAuthSshKey) {
    return UnsupportedError(absl::StrCat("auth.type \"", type, "\" is not supported (",
                                         kSupportedTypes, ")", CaseHint(type)));
  }
  if (kind != v1::SOURCE_KIND_GIT) {
    return UnsupportedError(absl::StrCat("auth.type \"sshKey\" is not supported for ",
                                         kind == v1::SOURCE_KIND_HELM ? "Helm" : "OCI",
                                         " sources (none, basic, bearer)"));
  }
  if (!auth.has_ssh_key()) return MissingBlock(type, "sshKey");
  if (!auth.ssh_key().has_known_hosts_ref()) {
    return UnsupportedError(
        "auth.sshKey.knownHostsRef is required: there is no mode that skips the host key check");
  }
  return absl::OkStatus();
}

// The kind of Git credentials of a (CheckAuth-checked) auth type.
GitCredentials::Kind GitKind(absl::string_view type) {
  if (type == kSourceAuthBasic) return GitCredentials::Kind::kBasic;
  if (type == kSourceAuthBearer) return GitCredentials::Kind::kBearer;
  if (type == kSourceAuthSshKey) return GitCredentials::Kind::kSshKey;
  return GitCredentials::Kind::kNone;
}

// Checks the URL against the kind and the auth type (scheme, host, port; SSH or not); reads
// nothing. Errors: those of CheckGitRemote, CheckHelmRepositoryUrl and CheckOciRegistryUrl.
absl::Status CheckUrl(const v1::SourceSpec& source) {
  if (source.kind() == v1::SOURCE_KIND_GIT) {
    return CheckGitRemote(source.url(), GitKind(source.auth().type()));
  }
  return source.kind() == v1::SOURCE_KIND_HELM ? CheckHelmRepositoryUrl(source.url())
                                               : CheckOciRegistryUrl(source.url());
}

// Reads the credentials of a (CheckAuth-checked) auth block.
// Errors: the resolver's errors for unreadable Secrets/ConfigMaps; kInvalidArgument when an
// sshKey Secret has no "password" key and its identity is protected by a passphrase.
absl::StatusOr<AuthData> ReadAuth(const v1::SourceAuth& auth, SourceSecretReader& reader) {
  AuthData data;
  data.type = auth.type();
  if (data.type == kSourceAuthBasic) {
    ASSIGN_OR_RETURN(data.username, reader.SecretKey(auth.basic().secret_name(), "username"));
    ASSIGN_OR_RETURN(data.password, reader.SecretKey(auth.basic().secret_name(), "password"));
    return data;
  }
  if (data.type == kSourceAuthBearer) {
    ASSIGN_OR_RETURN(std::string token, reader.SecretKey(auth.bearer().secret_name(), "token"));
    // Secrets made from files often end in a newline, which is no part of the token.
    data.token = std::string(absl::StripAsciiWhitespace(token));
    return data;
  }
  if (data.type != kSourceAuthSshKey) return data;
  const v1::SshKeySourceAuth& ssh = auth.ssh_key();
  ASSIGN_OR_RETURN(data.identity, reader.SecretKey(ssh.secret_name(), "identity"));
  // The Secret was just read, so kNotFound here means it has no "password" key: the
  // identity has no passphrase.
  absl::StatusOr<std::string> passphrase = reader.SecretKey(ssh.secret_name(), "password");
  if (passphrase.ok()) {
    data.passphrase = *std::move(passphrase);
  } else if (!absl::IsNotFound(passphrase.status())) {
    return passphrase.status();
  } else if (SshPrivateKeyIsEncrypted(data.identity)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Secret \"", reader.ns(), "/", ssh.secret_name(),
        "\": key \"identity\" holds a passphrase-protected private key, and the Secret has no "
        "\"password\" key with its passphrase"));
  }
  ASSIGN_OR_RETURN(data.known_hosts,
                   reader.ObjectKey(ssh.known_hosts_ref(), kKnownHostsDefaultKey));
  data.known_hosts_origin = reader.Describe(ssh.known_hosts_ref(), kKnownHostsDefaultKey);
  return data;
}

// The CA bundle of tls.caPublicCertRef, or "" when none is set.
// Errors: the resolver's; kInvalidArgument when the referenced value is empty.
absl::StatusOr<std::string> ReadCa(const v1::SourceTls& tls, SourceSecretReader& reader) {
  if (!tls.has_ca_public_cert_ref()) return std::string();
  ASSIGN_OR_RETURN(std::string ca, reader.ObjectKey(tls.ca_public_cert_ref(), kCaDefaultKey));
  if (ca.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tls.caPublicCertRef: ", reader.Describe(tls.ca_public_cert_ref(), kCaDefaultKey),
        " is empty"));
  }
  return ca;
}

absl::Status VerifyGit(const v1::SourceSpec& source, const AuthData& auth,
                       GitVerifyOptions options, Cancellation* cancel, SourceVerification& out) {
  GitCredentials credentials;
  credentials.kind = GitKind(auth.type);
  KnownHosts known_hosts;
  if (auth.type == kSourceAuthBasic) {
    credentials.username = auth.username;
    credentials.password = auth.password;
  } else if (auth.type == kSourceAuthBearer) {
    credentials.token = auth.token;
  } else if (auth.type == kSourceAuthSshKey) {
    std::vector<std::string> warnings;
    absl::StatusOr<KnownHosts> parsed = KnownHosts::Parse(auth.known_hosts, &warnings);
    for (const std::string& warning : warnings) {
      out.notes.push_back(absl::StrCat("known_hosts: ", warning));
    }
    if (!parsed.ok()) return Annotate(parsed.status(), auth.known_hosts_origin);
    known_hosts = *std::move(parsed);
    credentials.private_key = auth.identity;
    credentials.passphrase = auth.passphrase;
    credentials.known_hosts = &known_hosts;
  }
  ASSIGN_OR_RETURN(GitVerifyResult result,
                   ListRemoteRefs(source.url(), credentials, options, cancel));
  out.message = absl::StrCat("listed ", result.refs, " refs");
  out.host_key_fingerprint = std::move(result.host_key_fingerprint);
  return absl::OkStatus();
}

absl::Status VerifyHttp(const v1::SourceSpec& source, const AuthData& auth,
                        HttpSourceOptions options, Cancellation* cancel,
                        SourceVerification& out) {
  HttpSourceCredentials credentials;
  if (auth.type == kSourceAuthBasic) {
    credentials.kind = HttpSourceCredentials::Kind::kBasic;
    credentials.username = auth.username;
    credentials.password = auth.password;
  } else if (auth.type == kSourceAuthBearer) {
    credentials.kind = HttpSourceCredentials::Kind::kBearer;
    credentials.token = auth.token;
  }
  absl::StatusOr<HttpSourceCheck> check =
      source.kind() == v1::SOURCE_KIND_HELM
          ? VerifyHelmRepository(source.url(), credentials, options, cancel)
          : VerifyOciRegistry(source.url(), credentials, options, cancel);
  if (!check.ok()) return check.status();
  out.message = std::move(check->message);
  for (std::string& note : check->notes) out.notes.push_back(std::move(note));
  return absl::OkStatus();
}

// Resolves the credentials and TLS settings of `source` and runs its verify step.
absl::Status Run(SecretResolver* resolver, const SourceVerifierOptions& verifier_options,
                 const v1::SourceSpec& source, Cancellation* cancel, SourceVerification& out) {
  if (source.kind() != v1::SOURCE_KIND_GIT && source.kind() != v1::SOURCE_KIND_HELM &&
      source.kind() != v1::SOURCE_KIND_OCI) {
    std::string name = v1::SourceKind_Name(source.kind());
    return UnsupportedError(absl::StrCat("source.kind ",
                                         name.empty() ? absl::StrCat(source.kind()) : name,
                                         " is not supported (Git, Helm, OCI)"));
  }
  // Everything the spec alone decides comes before any read, so that a spec that cannot work
  // is Unsupported whether or not its Secrets exist.
  RETURN_IF_ERROR(CheckAuth(source.auth(), source.kind()));
  RETURN_IF_ERROR(CheckUrl(source));
  SourceSecretReader reader(resolver, source.namespace_(), cancel);
  ASSIGN_OR_RETURN(AuthData auth, ReadAuth(source.auth(), reader));
  ASSIGN_OR_RETURN(std::string ca_pem, ReadCa(source.tls(), reader));
  bool insecure = source.tls().insecure_skip_verify();
  if (source.kind() == v1::SOURCE_KIND_GIT) {
    GitVerifyOptions options{insecure, std::move(ca_pem), verifier_options.timeout};
    return VerifyGit(source, auth, std::move(options), cancel, out);
  }
  HttpSourceOptions options;
  options.insecure_skip_tls_verify = insecure;
  options.ca_pem = std::move(ca_pem);
  options.timeout = verifier_options.timeout;
  return VerifyHttp(source, auth, std::move(options), cancel, out);
}

}  // namespace

SourceVerifier::SourceVerifier(SecretResolver* resolver, SourceVerifierOptions options)
    : resolver_(resolver), options_(options) {}

SourceVerification SourceVerifier::Verify(const v1::SourceSpec& source, Cancellation* cancel) {
  SourceVerification out;
  absl::Status status = Run(resolver_, options_, source, cancel, out);
  if (status.ok()) {
    out.reason = kReasonVerified;
  } else {
    out.reason = IsUnsupported(status) ? kReasonUnsupported : kReasonVerifyFailed;
    out.message = std::string(status.message());
  }
  return out;
}

}  // namespace credledger::kubebridge
