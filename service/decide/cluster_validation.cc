#include "service/decide/cluster_validation.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/dns_label.h"
#include "common/field_error.h"
#include "common/quote_cut.h"
#include "common/status_macros.h"
#include "common/url.h"
#include "kubebridge/model/cluster_auth_names.h"
#include "service/decide/reference_validation.h"

namespace credledger::service {
namespace {

// Longest auth type accepted.
constexpr size_t kMaxAuthTypeBytes = 63;
// Why a URL must be ASCII: it is shown to operators, and terminals act on some non-ASCII
// characters (C1 controls, bidirectional overrides).
constexpr char kAsciiUrlRule[] =
    "must be ASCII: write an international host name in punycode (xn--...) and percent-encode "
    "other characters";
// Longest part of a refused value quoted in an error.
constexpr size_t kMaxShownClusterBytes = 80;

// The auth types credledger knows by name (built or not): a type that equals one of them
// but for case is refused as a misspelling.
constexpr const char* kKnownAuthTypes[] = {kubebridge::kAuthKubeconfig, kubebridge::kAuthToken,
                                           kubebridge::kAuthClientCert,
                                           kubebridge::kAuthExecPlugin, kubebridge::kAuthOidc};

absl::Status ValidateAuthType(absl::string_view field, absl::string_view type) {
  if (type.empty()) return common::FieldError(field, "required");
  bool ok = type.size() <= kMaxAuthTypeBytes && absl::ascii_isalpha(type[0]);
  for (char c : type) ok = ok && absl::ascii_isalnum(c);
  if (!ok) {
    return common::FieldError(field,
                              absl::StrCat(common::QuoteCut(type, kMaxShownClusterBytes),
                                           " is not an auth type (1-63 ASCII letters and digits, "
                                           "starting with a letter)"));
  }
  return ValidateAuthTypeCase(field, type);
}

// A SecretKeyRef; an empty key means the reference's documented default.
absl::Status ValidateSecretKeyRef(absl::string_view field, const v1::SecretKeyRef& ref) {
  RETURN_IF_ERROR(common::ValidateDnsSubdomain(absl::StrCat(field, ".name"), ref.name()));
  if (ref.key().empty()) return absl::OkStatus();
  return ValidateDataKey(absl::StrCat(field, ".key"), ref.key());
}

constexpr char kAuthField[] = "spec.agentless.auth";

// The shape of each auth block (which is set).
absl::Status ValidateKubeconfigBlock(const v1::ClusterAuth& auth) {
  return ValidateSecretKeyRef(absl::StrCat(kAuthField, ".kubeconfig.secret_ref"),
                              auth.kubeconfig().secret_ref());
}
absl::Status ValidateTokenBlock(const v1::ClusterAuth& auth) {
  return ValidateSecretKeyRef(absl::StrCat(kAuthField, ".token.secret_ref"),
                              auth.token().secret_ref());
}
absl::Status ValidateClientCertBlock(const v1::ClusterAuth& auth) {
  return common::ValidateDnsSubdomain(absl::StrCat(kAuthField, ".client_cert.secret_name"),
                                      auth.client_cert().secret_name());
}
absl::Status ValidateExecPluginBlock(const v1::ClusterAuth& auth) {
  const v1::ExecPluginAuth& exec = auth.exec_plugin();
  RETURN_IF_ERROR(ValidateHttpsUrl(absl::StrCat(kAuthField, ".exec_plugin.url"), exec.url()));
  if (exec.has_ca_ref()) {
    RETURN_IF_ERROR(
        ValidateObjectKeyRef(absl::StrCat(kAuthField, ".exec_plugin.ca_ref"), exec.ca_ref()));
  }
  if (exec.has_token_ref()) {
    RETURN_IF_ERROR(ValidateSecretKeyRef(absl::StrCat(kAuthField, ".exec_plugin.token_ref"),
                                         exec.token_ref()));
  }
  return absl::OkStatus();
}

// The auth blocks of ClusterAuth: the proto field, the type that uses it, whether it is set
// and its shape.
struct ClusterAuthBlock {
  const char* field;
  const char* type;
  bool (v1::ClusterAuth::*is_set)() const;
  absl::Status (*validate)(const v1::ClusterAuth&);
};
constexpr ClusterAuthBlock kClusterAuthBlocks[] = {
    {"kubeconfig", kubebridge::kAuthKubeconfig, &v1::ClusterAuth::has_kubeconfig,
     &ValidateKubeconfigBlock},
    {"token", kubebridge::kAuthToken, &v1::ClusterAuth::has_token, &ValidateTokenBlock},
    {"client_cert", kubebridge::kAuthClientCert, &v1::ClusterAuth::has_client_cert,
     &ValidateClientCertBlock},
    {"exec_plugin", kubebridge::kAuthExecPlugin, &v1::ClusterAuth::has_exec_plugin,
     &ValidateExecPluginBlock},
};

// The blocks of `auth` against its (well-formed) type: a known type needs its own block and
// no other; an unknown type may have none of the known blocks.
absl::Status ValidateClusterAuthBlocks(const v1::ClusterAuth& auth) {
  const ClusterAuthBlock* selected = nullptr;
  for (const ClusterAuthBlock& block : kClusterAuthBlocks) {
    if (auth.type() == block.type) selected = &block;
  }
  if (selected != nullptr && !(auth.*(selected->is_set))()) {
    return common::FieldError(absl::StrCat(kAuthField, ".", selected->field),
                              absl::StrCat("required for auth type ", selected->type));
  }
  for (const ClusterAuthBlock& block : kClusterAuthBlocks) {
    if (&block != selected && (auth.*(block.is_set))()) {
      return common::FieldError(
          absl::StrCat(kAuthField, ".", block.field),
          absl::StrCat("only for auth type ", block.type, " (type is ", auth.type(), ")"));
    }
  }
  return selected == nullptr ? absl::OkStatus() : selected->validate(auth);
}

absl::Status ValidateAgentless(const v1::ClusterSpec& spec) {
  RETURN_IF_ERROR(common::ValidateDnsLabel("spec.namespace", spec.namespace_()));
  if (!spec.has_agentless())
    return common::FieldError("spec.agentless", "required for connection mode agentless");
  const v1::AgentlessConnection& agentless = spec.agentless();
  const std::string& type = agentless.auth().type();
  RETURN_IF_ERROR(ValidateAuthType("spec.agentless.auth.type", type));
  if (AuthTypeNeedsServer(type) || !agentless.server().empty()) {
    RETURN_IF_ERROR(ValidateHttpsUrl("spec.agentless.server", agentless.server()));
  }
  if (agentless.has_ca_ref()) {
    RETURN_IF_ERROR(ValidateObjectKeyRef("spec.agentless.ca_ref", agentless.ca_ref()));
  }
  return ValidateClusterAuthBlocks(agentless.auth());
}

// Sets `*key` to `default_key` when it is empty.
void DefaultKey(std::string* key, absl::string_view default_key) {
  if (key->empty()) *key = std::string(default_key);
}

}  // namespace

bool AuthTypeNeedsServer(absl::string_view type) {
  return type == kubebridge::kAuthToken || type == kubebridge::kAuthClientCert ||
         type == kubebridge::kAuthExecPlugin;
}

absl::Status ValidateAuthTypeCase(absl::string_view field, absl::string_view type) {
  for (absl::string_view known : kKnownAuthTypes) {
    if (type != known && absl::EqualsIgnoreCase(type, known)) {
      return common::FieldError(
          field, absl::StrCat("\"", type,
                              "\" is not an auth type; auth types are case-sensitive: "
                              "did you mean ",
                              known, "?"));
    }
  }
  return absl::OkStatus();
}

v1::ClusterSpec NormalizedClusterSpec(v1::ClusterSpec spec) {
  if (!spec.has_agentless()) return spec;
  v1::AgentlessConnection& agentless = *spec.mutable_agentless();
  v1::ClusterAuth& auth = *agentless.mutable_auth();
  if (auth.type() == kubebridge::kAuthKubeconfig) {
    agentless.clear_server();
    agentless.clear_ca_ref();
  }
  if (agentless.has_ca_ref()) {
    DefaultKey(agentless.mutable_ca_ref()->mutable_key(), kubebridge::kCaDefaultKey);
  }
  if (auth.has_kubeconfig()) {
    DefaultKey(auth.mutable_kubeconfig()->mutable_secret_ref()->mutable_key(),
               kubebridge::kKubeconfigDefaultKey);
  }
  if (auth.has_token()) {
    DefaultKey(auth.mutable_token()->mutable_secret_ref()->mutable_key(),
               kubebridge::kTokenDefaultKey);
  }
  if (auth.has_exec_plugin()) {
    v1::ExecPluginAuth& exec = *auth.mutable_exec_plugin();
    if (exec.has_ca_ref()) {
      DefaultKey(exec.mutable_ca_ref()->mutable_key(), kubebridge::kCaDefaultKey);
    }
    if (exec.has_token_ref()) {
      DefaultKey(exec.mutable_token_ref()->mutable_key(), kubebridge::kTokenDefaultKey);
    }
  }
  return spec;
}

absl::Status ValidateClusterName(absl::string_view field, absl::string_view name) {
  return common::ValidateDnsLabel(field, name);
}

absl::Status ValidateHttpsUrl(absl::string_view field, absl::string_view value) {
  if (value.empty()) return common::FieldError(field, "required");
  if (value.size() > kMaxClusterUrlBytes) {
    return common::FieldError(
        field, absl::StrCat(value.size(), " bytes; at most ", kMaxClusterUrlBytes, " allowed"));
  }
  for (char c : value) {
    if (absl::ascii_isspace(c) || absl::ascii_iscntrl(c)) {
      return common::FieldError(field, "must not contain whitespace or control characters");
    }
    if (!absl::ascii_isascii(c)) return common::FieldError(field, kAsciiUrlRule);
  }
  // Checked before anything quotes the value, and never quoted: a query, a fragment or a
  // userinfo may hold a credential, and the spec is recorded in the log.
  if (const size_t at = value.find_first_of("?#"); at != absl::string_view::npos) {
    return common::FieldError(
        field,
        absl::StrCat("must not contain a ", value[at] == '?' ? "query (?...)" : "fragment (#...)",
                     ": it could carry a credential, and the spec is "
                     "recorded in the log"));
  }
  const absl::StatusOr<common::Url> url = common::ParseUrl(value);
  if (!url.ok() && common::UrlFaultOf(url.status()) != common::UrlFault::kNoScheme) {
    return common::FieldError(field, url.status().message());
  }
  if (url.ok() && url->user.has_value()) {
    return common::FieldError(field, "must not contain userinfo (user@ or user:password@)");
  }
  if (!url.ok() || url->scheme != "https") {
    return common::FieldError(
        field, absl::StrCat(common::QuoteCut(url.ok() ? value : common::RedactUnparsedUrl(value),
                                             kMaxShownClusterBytes),
                            " is not an https:// URL"));
  }
  return absl::OkStatus();
}

absl::Status ValidateClusterSpec(const v1::ClusterSpec& spec) {
  switch (spec.connection_mode()) {
    case v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER:
      if (!spec.namespace_().empty()) {
        RETURN_IF_ERROR(common::ValidateDnsLabel("spec.namespace", spec.namespace_()));
      }
      if (spec.has_agentless()) {
        return common::FieldError("spec.agentless", "must be unset for connection mode inCluster");
      }
      return absl::OkStatus();
    case v1::CLUSTER_CONNECTION_MODE_AGENTLESS:
      return ValidateAgentless(spec);
    case v1::CLUSTER_CONNECTION_MODE_UNSPECIFIED:
      return common::FieldError("spec.connection_mode", "required: inCluster or agentless");
    default:  // a number the enum does not define (proto3 enums are open)
      return common::FieldError("spec.connection_mode",
                                absl::StrCat(static_cast<int>(spec.connection_mode()),
                                             " is not a connection mode (inCluster or agentless)"));
  }
}

}  // namespace credledger::service
