#include "kubebridge/clusters/static_authenticators.h"

#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/pem.h"
#include "common/status_macros.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {
namespace {

// `<kind> "<ns>/<name>" key "<key>"` for messages about one value.
std::string ValueLabel(absl::string_view kind, absl::string_view ns, absl::string_view name,
                       absl::string_view key) {
  return absl::StrCat(kind, " \"", ns, "/", name, "\" key \"", key, "\"");
}

std::string Source(const ClusterAuthRequest& request, absl::string_view type) {
  return absl::StrCat("cluster \"", request.cluster, "\" (", type, ")");
}

absl::Status BlockUnset(absl::string_view type, absl::string_view block) {
  return UnsupportedError(absl::StrCat("auth type \"", type, "\" needs spec.agentless.auth.", block,
                                       ", which is not set"));
}

// A ConnectionConfig with the cluster's server (https://, trailing slashes dropped) and CA.
absl::StatusOr<ConnectionConfig> ServerAndCa(const ClusterAuthRequest& request,
                                             absl::string_view type, SecretResolver& resolver,
                                             Cancellation* cancel) {
  ConnectionConfig config;
  config.server = request.spec.agentless().server();
  if (config.server.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("auth type \"", type, "\" needs spec.agentless.server, which is not set"));
  }
  if (!absl::StartsWithIgnoreCase(config.server, "https://")) {  // a scheme has no case
    return absl::InvalidArgumentError(
        absl::StrCat("spec.agentless.server \"", config.server, "\" must start with https://"));
  }
  while (absl::EndsWith(config.server, "/")) config.server.pop_back();
  RETURN_IF_ERROR(ResolveClusterCa(request, resolver, cancel, config));
  config.source = Source(request, type);
  return config;
}

}  // namespace

absl::Status ResolveClusterCa(const ClusterAuthRequest& request, SecretResolver& resolver,
                              Cancellation* cancel, ConnectionConfig& config) {
  if (!request.spec.agentless().has_ca_ref()) return absl::OkStatus();
  const v1::ObjectKeyRef& ref = request.spec.agentless().ca_ref();
  ASSIGN_OR_RETURN(std::string pem,
                   resolver.Resolve(request.spec.namespace_(), ref, kCaDefaultKey, cancel));
  if (!common::HoldsPemCertificate(pem)) {
    return absl::InvalidArgumentError(
        absl::StrCat(ValueLabel(ref.kind(), request.spec.namespace_(), ref.name(),
                                ref.key().empty() ? kCaDefaultKey : ref.key()),
                     " (spec.agentless.ca_ref) holds no PEM certificate"));
  }
  config.ca_pem = std::move(pem);
  return absl::OkStatus();
}

absl::StatusOr<ConnectionConfig> KubeconfigAuthenticator::Authenticate(
    const ClusterAuthRequest& request, SecretResolver& resolver, Cancellation* cancel) {
  const v1::ClusterAuth& auth = request.spec.agentless().auth();
  if (!auth.has_kubeconfig()) return BlockUnset(kAuthKubeconfig, "kubeconfig");
  const v1::SecretKeyRef& ref = auth.kubeconfig().secret_ref();
  const std::string& ns = request.spec.namespace_();
  ASSIGN_OR_RETURN(std::string yaml, resolver.Resolve(ns, ref, kKubeconfigDefaultKey, cancel));
  std::string label =
      ValueLabel("Secret", ns, ref.name(), ref.key().empty() ? kKubeconfigDefaultKey : ref.key());
  absl::StatusOr<ConnectionConfig> config =
      ParseKubeconfig(yaml, label, "", KubeconfigFiles::kRefuse);
  if (config.status().code() == absl::StatusCode::kUnimplemented) {
    return UnsupportedError(config.status().message());
  }
  if (!config.ok()) return config.status();
  config->source = Source(request, kAuthKubeconfig);
  return config;
}

absl::StatusOr<ConnectionConfig> TokenAuthenticator::Authenticate(const ClusterAuthRequest& request,
                                                                  SecretResolver& resolver,
                                                                  Cancellation* cancel) {
  const v1::ClusterAuth& auth = request.spec.agentless().auth();
  if (!auth.has_token()) return BlockUnset(kAuthToken, "token");
  ASSIGN_OR_RETURN(ConnectionConfig config, ServerAndCa(request, kAuthToken, resolver, cancel));
  const v1::SecretKeyRef& ref = auth.token().secret_ref();
  const std::string& ns = request.spec.namespace_();
  ASSIGN_OR_RETURN(std::string token, resolver.Resolve(ns, ref, kTokenDefaultKey, cancel));
  config.token = std::string(absl::StripAsciiWhitespace(token));
  if (config.token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ValueLabel("Secret", ns, ref.name(), ref.key().empty() ? kTokenDefaultKey : ref.key()),
        " holds an empty token"));
  }
  return config;
}

absl::StatusOr<ConnectionConfig> ClientCertAuthenticator::Authenticate(
    const ClusterAuthRequest& request, SecretResolver& resolver, Cancellation* cancel) {
  const v1::ClusterAuth& auth = request.spec.agentless().auth();
  if (!auth.has_client_cert()) return BlockUnset(kAuthClientCert, "client_cert");
  ASSIGN_OR_RETURN(ConnectionConfig config,
                   ServerAndCa(request, kAuthClientCert, resolver, cancel));
  const std::string& ns = request.spec.namespace_();
  const std::string& name = auth.client_cert().secret_name();
  ASSIGN_OR_RETURN(std::string cert_pem, resolver.ResolveSecretKey(ns, name, kTlsCertKey, cancel));
  ASSIGN_OR_RETURN(std::string key_pem, resolver.ResolveSecretKey(ns, name, kTlsKeyKey, cancel));
  switch (common::CheckPemKeyPair(cert_pem, key_pem)) {
    case common::PemPairProblem::kNone:
      break;
    case common::PemPairProblem::kNoCertificate:
      return absl::InvalidArgumentError(
          absl::StrCat(ValueLabel("Secret", ns, name, kTlsCertKey), " holds no PEM certificate"));
    case common::PemPairProblem::kNoKey:
      return absl::InvalidArgumentError(
          absl::StrCat(ValueLabel("Secret", ns, name, kTlsKeyKey), " holds no PEM private key"));
    case common::PemPairProblem::kMismatch:
      return absl::InvalidArgumentError(
          absl::StrCat("Secret \"", ns, "/", name, "\": the key in \"", kTlsKeyKey,
                       "\" does not match the certificate in \"", kTlsCertKey, "\""));
  }
  config.client_certificate_pem = std::move(cert_pem);
  config.client_key_pem = std::move(key_pem);
  return config;
}

}  // namespace credledger::kubebridge
