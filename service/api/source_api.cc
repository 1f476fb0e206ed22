#include "service/api/source_api.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/dns_label.h"
#include "common/field_error.h"
#include "common/status_macros.h"
#include "common/url.h"
#include "kubebridge/model/connection_errors.h"
#include "service/api/target_api.h"
#include "service/bus/prior_request.h"
#include "service/decide/reference_validation.h"
#include "service/decide/source_decider.h"
#include "service/decide/validation.h"
#include "store/event_codec.h"

namespace credledger::service {
namespace {

constexpr char kPasswordMessage[] =
    "source.url: must not contain a password; put credentials in auth";

bool IsSshScheme(absl::string_view scheme) {
  return scheme == "ssh" || scheme == "git+ssh" || scheme == "ssh+git";
}

// Whether `url` is an SSH address: an ssh:// (git+ssh://, ssh+git://) URL, or an scp-like
// "[user@]host:path" (anything else without a scheme is a local path; common::ScpAddress).
// REQUIRES: `url` passed ValidateSourceUrl.
bool IsSshUrl(absl::string_view url) {
  const absl::StatusOr<common::Url> parsed = common::ParseUrl(url);
  return parsed.ok() ? IsSshScheme(parsed->scheme) : !common::SplitScpAddress(url).local_path;
}

// A Secret or ConfigMap the source names, by the field that names it.
struct Reference {
  std::string field;
  std::string kind;
  std::string name;
  // The reference when the field is an ObjectKeyRef; null for a secret_name.
  const v1::ObjectKeyRef* object_ref = nullptr;
};

// Every Secret and ConfigMap `source` names: the Secret of each auth block present (a
// present block must name one) and each set ObjectKeyRef.
std::vector<Reference> References(const v1::SourceSpec& source) {
  std::vector<Reference> refs;
  const v1::SourceAuth& auth = source.auth();
  if (auth.has_basic()) {
    refs.push_back({"source.auth.basic.secret_name", "Secret", auth.basic().secret_name()});
  }
  if (auth.has_bearer()) {
    refs.push_back({"source.auth.bearer.secret_name", "Secret", auth.bearer().secret_name()});
  }
  if (auth.has_ssh_key()) {
    refs.push_back({"source.auth.ssh_key.secret_name", "Secret", auth.ssh_key().secret_name()});
    const v1::ObjectKeyRef& known_hosts = auth.ssh_key().known_hosts_ref();
    if (IsSet(known_hosts)) {
      refs.push_back({"source.auth.ssh_key.known_hosts_ref", known_hosts.kind(), known_hosts.name(),
                      &known_hosts});
    }
  }
  if (const v1::ObjectKeyRef& ca = source.tls().ca_public_cert_ref(); IsSet(ca)) {
    refs.push_back({"source.tls.ca_public_cert_ref", ca.kind(), ca.name(), &ca});
  }
  return refs;
}

// The auth blocks of SourceAuth: the proto field and the type that uses it.
struct SourceAuthBlock {
  const char* field;
  const char* type;
  bool (v1::SourceAuth::*is_set)() const;
};
constexpr SourceAuthBlock kSourceAuthBlocks[] = {
    {"basic", kubebridge::kSourceAuthBasic, &v1::SourceAuth::has_basic},
    {"bearer", kubebridge::kSourceAuthBearer, &v1::SourceAuth::has_bearer},
    {"ssh_key", kubebridge::kSourceAuthSshKey, &v1::SourceAuth::has_ssh_key},
};

// The blocks of `auth` against its type: a known type needs its own block and no other
// ("none" needs none). An unknown type may carry any block: it is recorded as Unsupported,
// and a type that differs from a known one only in case comes with that type's block
// (source_cli.h, SourceSpecFromFlags).
absl::Status ValidateSourceAuthBlocks(const v1::SourceAuth& auth) {
  bool known = auth.type() == kubebridge::kSourceAuthNone;
  for (const SourceAuthBlock& block : kSourceAuthBlocks) known = known || auth.type() == block.type;
  if (!known) return absl::OkStatus();
  for (const SourceAuthBlock& block : kSourceAuthBlocks) {
    const bool set = (auth.*(block.is_set))();
    if (auth.type() == block.type && !set) {
      return common::FieldError(absl::StrCat("source.auth.", block.field),
                                absl::StrCat("required for auth type ", block.type));
    }
    if (auth.type() != block.type && set) {
      return common::FieldError(
          absl::StrCat("source.auth.", block.field),
          absl::StrCat("only for auth type ", block.type, " (type is ", auth.type(), ")"));
    }
  }
  return absl::OkStatus();
}

// SSH has no TLS: the tls fields of a source with an SSH URL would be silently ignored.
absl::Status ValidateTlsFitsUrl(const v1::SourceSpec& source) {
  if (!IsSshUrl(source.url())) return absl::OkStatus();
  constexpr char kRule[] =
      "only for https:// and oci:// URLs; an SSH URL (ssh:// or user@host:path) has no TLS, "
      "its host key is checked against known_hosts";
  if (source.tls().insecure_skip_verify())
    return common::FieldError("source.tls.insecure_skip_verify", kRule);
  if (IsSet(source.tls().ca_public_cert_ref())) {
    return common::FieldError("source.tls.ca_public_cert_ref", kRule);
  }
  return absl::OkStatus();
}

absl::Status ValidateSource(const v1::SourceSpec& source) {
  if (source.kind() == v1::SOURCE_KIND_UNSPECIFIED) {
    return absl::InvalidArgumentError("source.kind: required (git, helm or oci)");
  }
  if (!v1::SourceKind_IsValid(source.kind())) {
    return absl::InvalidArgumentError(
        absl::StrCat("source.kind: unknown value ", source.kind(), " (git, helm or oci)"));
  }
  RETURN_IF_ERROR(ValidateSourceUrl(source.url()));
  if (!source.namespace_().empty()) {
    RETURN_IF_ERROR(ValidateDnsLabel("source.namespace", source.namespace_()));
  }
  if (source.auth().type().empty()) {
    return absl::InvalidArgumentError("source.auth.type: required (none, basic, bearer or sshKey)");
  }
  RETURN_IF_ERROR(ValidateToken("source.auth.type", source.auth().type(), kMaxSourceAuthTypeBytes));
  RETURN_IF_ERROR(ValidateSourceAuthBlocks(source.auth()));
  for (const Reference& ref : References(source)) {
    RETURN_IF_ERROR(ref.object_ref != nullptr ? ValidateObjectKeyRef(ref.field, *ref.object_ref)
                                              : common::ValidateDnsSubdomain(ref.field, ref.name));
  }
  return ValidateTlsFitsUrl(source);
}

// The answer to a request from the event it appended.
absl::StatusOr<v1::VerifySourceResponse> ResponseFrom(
    const std::vector<store::RecordedEvent>& events, bool replayed) {
  if (events.size() != 1) {
    return absl::DataLossError(absl::StrCat("a VerifySource request appended ", events.size(),
                                            " events; expected one SourceVerified"));
  }
  ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(events.front()));
  if (!event.has_source_verified()) {
    return absl::DataLossError(absl::StrCat("event seq ", events.front().seq, " of stream ",
                                            events.front().stream, " is a ", events.front().type,
                                            ", not a SourceVerified"));
  }
  v1::VerifySourceResponse response;
  *response.mutable_result() = std::move(*event.mutable_source_verified());
  response.set_retryable(response.result().reason() == kubebridge::kReasonVerifyFailed);
  response.set_seq(events.front().seq);
  response.set_replayed(replayed);
  return response;
}

// `request` with the documented defaults of its source spelled out, so that a request that
// leaves a default out and one that gives it have one RequestDigest (and replay each other):
// namespace "default"; the key "known_hosts" of auth.ssh_key.known_hosts_ref and "ca.crt" of
// tls.ca_public_cert_ref when empty. An all-empty reference is unset (IsSet), and a tls
// block that sets nothing is removed.
v1::VerifySourceRequest WithDefaults(const v1::VerifySourceRequest& request) {
  v1::VerifySourceRequest defaulted = request;
  v1::SourceSpec& source = *defaulted.mutable_source();
  if (source.namespace_().empty()) source.set_namespace_(kDefaultSourceNamespace);
  if (source.auth().has_ssh_key()) {
    v1::SshKeySourceAuth& ssh_key = *source.mutable_auth()->mutable_ssh_key();
    if (!IsSet(ssh_key.known_hosts_ref())) {
      ssh_key.clear_known_hosts_ref();
    } else if (ssh_key.known_hosts_ref().key().empty()) {
      ssh_key.mutable_known_hosts_ref()->set_key(kubebridge::kKnownHostsDefaultKey);
    }
  }
  v1::SourceTls& tls = *source.mutable_tls();
  if (!IsSet(tls.ca_public_cert_ref())) {
    tls.clear_ca_public_cert_ref();
  } else if (tls.ca_public_cert_ref().key().empty()) {
    tls.mutable_ca_public_cert_ref()->set_key(kubebridge::kCaDefaultKey);
  }
  if (!tls.insecure_skip_verify() && !tls.has_ca_public_cert_ref()) source.clear_tls();
  return defaulted;
}

RecordSourceVerified SourceVerifiedOf(const v1::SourceSpec& source,
                                      kubebridge::SourceVerification verification) {
  RecordSourceVerified command;
  v1::SourceVerified& verified = command.verified;
  verified.set_kind(source.kind());
  verified.set_url(RecordedSourceUrl(source.url()));
  verified.set_auth_type(source.auth().type());
  verified.set_reason(std::move(verification.reason));
  verified.set_message(std::move(verification.message));
  for (std::string& note : verification.notes) verified.add_notes(std::move(note));
  verified.set_host_key_fingerprint(std::move(verification.host_key_fingerprint));
  verified.set_insecure_skip_verify(source.tls().insecure_skip_verify());
  return command;
}

}  // namespace

std::string RecordedSourceUrl(absl::string_view url) {
  const absl::StatusOr<common::Url> parsed = common::ParseUrl(url);
  if (!parsed.ok() || !parsed->user.has_value() || IsSshScheme(parsed->scheme)) {
    return std::string(url);
  }
  return parsed->without_userinfo;
}

absl::Status ValidateSourceUrl(absl::string_view url) {
  if (url.empty()) return absl::InvalidArgumentError("source.url: required");
  if (url.size() > kMaxSourceUrlBytes) {
    return absl::InvalidArgumentError(absl::StrCat("source.url: ", url.size(), " bytes; at most ",
                                                   kMaxSourceUrlBytes, " allowed"));
  }
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          "source.url: must not contain whitespace or control characters");
    }
    if (!absl::ascii_isascii(c)) {
      return absl::InvalidArgumentError(
          "source.url: must be ASCII: write an international host name in punycode (xn--...) "
          "and percent-encode other characters");
    }
  }
  // A URL libcurl cannot read is refused unquoted: where its userinfo ends is unknown.
  const absl::StatusOr<common::Url> parsed = common::ParseUrl(url);
  if (!parsed.ok() && common::UrlFaultOf(parsed.status()) != common::UrlFault::kNoScheme) {
    return common::FieldError("source.url", parsed.status().message());
  }
  if (parsed.ok() ? parsed->password.has_value()
                  : common::SplitScpAddress(url).password.has_value()) {
    return absl::InvalidArgumentError(kPasswordMessage);
  }
  // Not quoted: a query may hold a token.
  if (url.find_first_of("?#") != absl::string_view::npos) {
    return common::FieldError(
        "source.url",
        "must not contain a query ('?') or a fragment ('#'): a query can carry a "
        "credential; put credentials in auth");
  }
  return absl::OkStatus();
}

absl::Status ValidateVerifySourceRequest(const v1::VerifySourceRequest& request) {
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  RETURN_IF_ERROR(ValidateDnsLabel("name", request.name()));
  return ValidateSource(request.source());
}

SourceApi::SourceApi(store::EventStore* store, SourceVerifyFunction verify, bool has_home_cluster)
    : bus_(store), verify_(std::move(verify)), has_home_cluster_(has_home_cluster) {}

absl::StatusOr<v1::VerifySourceResponse> SourceApi::VerifySource(
    const v1::VerifySourceRequest& request, absl::string_view actor,
    kubebridge::Cancellation* cancel) {
  RETURN_IF_ERROR(ValidateVerifySourceRequest(request));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  const v1::VerifySourceRequest defaulted = WithDefaults(request);
  const v1::SourceSpec& source = defaulted.source();
  const RequestKey key = KeyOf(defaulted);
  const SourceCommandContext context{source.namespace_(), request.name(), resolved, key.id,
                                     key.digest};
  ASSIGN_OR_RETURN(const auto prior, bus_.FindAnswer(RecordSourceVerified(), context));
  if (prior.has_value()) return ResponseFrom(*prior, /*replayed=*/true);

  if (const std::vector<Reference> refs = References(source); !has_home_cluster_ && !refs.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        refs.front().field, ": ", refs.front().kind, " \"", source.namespace_(), "/",
        refs.front().name,
        "\" is read from the home cluster, and this service has no home cluster connection "
        "(--kubeconfig or in-cluster)"));
  }

  ASSIGN_OR_RETURN(SourceCommandBus::Result result,
                   bus_.Execute(SourceVerifiedOf(source, verify_(source, cancel)), context));
  return ResponseFrom(result.events, result.replayed);
}

}  // namespace credledger::service
