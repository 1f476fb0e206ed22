#include "kubebridge/clusters/exec_plugin_authenticator.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/rfc3339.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "common/url.h"
#include "kubebridge/client/curl_transport.h"
#include "kubebridge/client/status_mapping.h"
#include "kubebridge/clusters/static_authenticators.h"
#include "kubebridge/model/connection_errors.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {
namespace {

constexpr char kExecCredentialApiVersion[] = "client.authentication.k8s.io/v1";
constexpr char kExecCredentialKind[] = "ExecCredential";

// The provider's URL (common::ParseUrl) split for CurlTransport: `server` is
// "https://host[:port]", `target` the path and query sent ("/" when the URL has no path),
// `display` the URL without its query for messages.
struct ProviderUrl {
  std::string server;
  std::string target;
  std::string display;
};

absl::StatusOr<ProviderUrl> ParseProviderUrl(absl::string_view text) {
  const absl::StatusOr<common::Url> url = common::ParseUrl(text);
  if (!url.ok() || url->scheme != "https" || url->user.has_value() || url->fragment.has_value()) {
    return absl::InvalidArgumentError(
        "execPlugin.url must be https://host[:port][/path][?query] (no user info, fragment "
        "or spaces): credentials are only fetched over TLS");
  }
  ProviderUrl out;
  out.server = absl::StrCat("https://", url->Authority());
  out.display = absl::StrCat(out.server, url->path);
  out.target = url->query.has_value() ? absl::StrCat(url->path, "?", *url->query) : url->path;
  return out;
}

// Hex SHA-256 over each of `parts` as an 8-byte big-endian length followed by its bytes, so
// that no two different input lists hash alike.
std::string InputsSha256(std::initializer_list<absl::string_view> parts) {
  common::Sha256 hash;
  for (absl::string_view part : parts) {
    char length[8];
    for (int i = 0; i < 8; ++i) {
      length[i] = static_cast<char>((static_cast<uint64_t>(part.size()) >> (56 - 8 * i)) & 0xff);
    }
    hash.Update(absl::string_view(length, sizeof(length)));
    hash.Update(part);
  }
  return common::HexEncode(hash.Finish());
}

// The ExecCredential request naming the cluster the credential is for.
std::string RequestBody(const ConnectionConfig& cluster) {
  nlohmann::json spec_cluster = {{"server", cluster.server}};
  if (!cluster.ca_pem.empty()) {
    spec_cluster["certificate-authority-data"] = absl::Base64Escape(cluster.ca_pem);
  }
  return nlohmann::json{{"apiVersion", kExecCredentialApiVersion},
                        {"kind", kExecCredentialKind},
                        {"spec", {{"interactive", false}, {"cluster", spec_cluster}}}}
      .dump();
}

// The credential of an ExecCredential answer.
struct Credential {
  std::string token;
  std::string certificate_pem;
  std::string key_pem;
  std::optional<absl::Time> expires_at;
};

// A string member of `object`: nullopt when absent or null; an error naming `field` when it
// is not a string.
absl::StatusOr<std::optional<std::string>> OptionalString(const nlohmann::json& object,
                                                          const char* key,
                                                          absl::string_view field) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(field, " is not a string"));
  }
  return std::optional<std::string>(it->get<std::string>());
}

// Reads the credential of an ExecCredential answer. Messages name fields, never values.
absl::StatusOr<Credential> ParseExecCredential(absl::string_view body) {
  const nlohmann::json parsed =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return absl::InvalidArgumentError("the answer is not a JSON object");
  }
  ASSIGN_OR_RETURN(std::optional<std::string> api_version,
                   OptionalString(parsed, "apiVersion", "apiVersion"));
  ASSIGN_OR_RETURN(std::optional<std::string> kind, OptionalString(parsed, "kind", "kind"));
  if (api_version != kExecCredentialApiVersion || kind != kExecCredentialKind) {
    return absl::InvalidArgumentError(absl::StrCat("the answer is not an ", kExecCredentialKind,
                                                   " of apiVersion ", kExecCredentialApiVersion));
  }
  const auto status = parsed.find("status");
  if (status == parsed.end() || !status->is_object()) {
    return absl::InvalidArgumentError("the ExecCredential has no status object");
  }
  Credential out;
  ASSIGN_OR_RETURN(std::optional<std::string> token,
                   OptionalString(*status, "token", "status.token"));
  ASSIGN_OR_RETURN(
      std::optional<std::string> certificate,
      OptionalString(*status, "clientCertificateData", "status.clientCertificateData"));
  ASSIGN_OR_RETURN(std::optional<std::string> key,
                   OptionalString(*status, "clientKeyData", "status.clientKeyData"));
  ASSIGN_OR_RETURN(std::optional<std::string> expiration,
                   OptionalString(*status, "expirationTimestamp", "status.expirationTimestamp"));
  out.token = token.value_or("");
  out.certificate_pem = certificate.value_or("");
  out.key_pem = key.value_or("");
  if (out.certificate_pem.empty() != out.key_pem.empty()) {
    return absl::InvalidArgumentError(
        "status.clientCertificateData and status.clientKeyData must be set together");
  }
  if (out.token.empty() && out.certificate_pem.empty()) {
    return absl::InvalidArgumentError(
        "the ExecCredential status has neither a token nor clientCertificateData and "
        "clientKeyData");
  }
  if (!out.certificate_pem.empty() &&
      (!absl::StrContains(out.certificate_pem, "-----BEGIN CERTIFICATE-----") ||
       !absl::StrContains(out.key_pem, "PRIVATE KEY-----"))) {
    return absl::InvalidArgumentError(
        "status.clientCertificateData and status.clientKeyData must be a PEM certificate and "
        "a PEM private key");
  }
  if (expiration.has_value()) {
    out.expires_at = common::ParseRfc3339(*expiration);
    if (!out.expires_at.has_value()) {
      return absl::InvalidArgumentError("status.expirationTimestamp is not an RFC 3339 time");
    }
  }
  return out;
}

// The connection to the provider: the server of `url`, the CA of exec.ca_ref and the
// bearer token of exec.token_ref, both read from namespace `ns`.
// Errors: resolver errors prefixed with the reference's field; kInvalidArgument for an
// empty token.
absl::StatusOr<ConnectionConfig> ProviderConnection(const ProviderUrl& url,
                                                    const v1::ExecPluginAuth& exec,
                                                    const std::string& ns, SecretResolver& resolver,
                                                    Cancellation* cancel) {
  ConnectionConfig provider;
  provider.server = url.server;
  provider.source = absl::StrCat("execPlugin provider ", url.display);
  if (exec.has_ca_ref()) {
    absl::StatusOr<std::string> ca = resolver.Resolve(ns, exec.ca_ref(), kCaDefaultKey, cancel);
    if (!ca.ok()) return Annotate(ca.status(), "execPlugin.caRef");
    provider.ca_pem = *std::move(ca);
  }
  if (exec.has_token_ref()) {
    absl::StatusOr<std::string> token =
        resolver.Resolve(ns, exec.token_ref(), kTokenDefaultKey, cancel);
    if (!token.ok()) return Annotate(token.status(), "execPlugin.tokenRef");
    provider.token = std::string(absl::StripAsciiWhitespace(*token));
    if (provider.token.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("execPlugin.tokenRef: Secret \"", ns, "/",
                                                     exec.token_ref().name(),
                                                     "\" holds an empty token"));
    }
  }
  return provider;
}

// POSTs `body` to the provider at `url` over `provider` (its CA and bearer token) and
// reads the ExecCredential it answers. Errors: as ExecPluginAuthenticator::Authenticate,
// prefixed with the provider URL.
absl::StatusOr<Credential> CallProvider(const ProviderUrl& url, ConnectionConfig provider,
                                        std::string body, const ExecPluginOptions& options,
                                        Cancellation* cancel) {
  const std::string prefix = absl::StrCat("execPlugin provider ", url.display);
  CurlTransportOptions transport_options;
  transport_options.connect_timeout = options.timeout;
  transport_options.max_body_bytes = options.max_response_bytes;
  absl::StatusOr<std::unique_ptr<CurlTransport>> transport =
      CurlTransport::New(std::move(provider), transport_options);
  if (!transport.ok()) return Annotate(transport.status(), prefix);
  HttpRequest call;
  call.method = "POST";
  call.path = url.target;
  call.body = std::move(body);
  call.timeout = options.timeout;
  Cancellation never_cancelled;
  absl::StatusOr<HttpResponse> response =
      (*transport)->RoundTrip(call, cancel != nullptr ? *cancel : never_cancelled, nullptr);
  if (!response.ok()) return Annotate(response.status(), prefix);
  // The body is never quoted: a provider's error page may echo what it was sent.
  if (response->status_code != 200) {
    absl::StatusCode code = CodeForKubernetesError(response->status_code, "");
    if (code == absl::StatusCode::kOk) code = absl::StatusCode::kInvalidArgument;
    return absl::Status(code, absl::StrCat(prefix, ": answered HTTP ", response->status_code,
                                           ", want 200 with an ExecCredential"));
  }
  absl::StatusOr<Credential> credential = ParseExecCredential(response->body);
  if (!credential.ok()) return Annotate(credential.status(), prefix);
  return credential;
}

}  // namespace

ExecPluginAuthenticator::ExecPluginAuthenticator(ExecPluginOptions options)
    : options_(std::move(options)) {}

int ExecPluginAuthenticator::provider_calls() const {
  absl::MutexLock lock(&mu_);
  return provider_calls_;
}

int ExecPluginAuthenticator::waiting_for_provider() const {
  absl::MutexLock lock(&mu_);
  return waiting_;
}

absl::StatusOr<ConnectionConfig> ExecPluginAuthenticator::Authenticate(
    const ClusterAuthRequest& request, SecretResolver& resolver, Cancellation* cancel) {
  const v1::AgentlessConnection& agentless = request.spec.agentless();
  if (!agentless.auth().has_exec_plugin()) {
    return UnsupportedError("auth type execPlugin needs its execPlugin block");
  }
  const v1::ExecPluginAuth& exec = agentless.auth().exec_plugin();
  ASSIGN_OR_RETURN(ProviderUrl url, ParseProviderUrl(exec.url()));
  if (agentless.server().empty()) {
    return absl::InvalidArgumentError(
        "auth type execPlugin needs agentless.server: the provider is asked for a credential "
        "of that server");
  }

  // The provider connection and the cluster's server and CA are read at every call: a
  // rotated Secret changes the inputs and misses the cache.
  ASSIGN_OR_RETURN(ConnectionConfig provider,
                   ProviderConnection(url, exec, request.spec.namespace_(), resolver, cancel));
  ConnectionConfig config;
  config.server = agentless.server();
  config.source = absl::StrCat("cluster \"", request.cluster, "\" (", kAuthExecPlugin, ")");
  RETURN_IF_ERROR(ResolveClusterCa(request, resolver, cancel, config));
  const std::string inputs =
      InputsSha256({exec.url(), provider.ca_pem, provider.token, config.server, config.ca_pem});

  bool calling = false;  // this call is the cluster's provider call in flight
  {
    absl::MutexLock lock(&mu_);
    const auto idle = [this, &request]() { return !in_flight_.contains(request.cluster); };
    if (!idle()) {
      // Another connection is asking the provider for this cluster: wait for its answer.
      // Past the timeout, ask the provider too.
      ++waiting_;
      mu_.AwaitWithTimeout(absl::Condition(&idle), options_.timeout);
      --waiting_;
    }
    const auto it = cache_.find(request.cluster);
    if (it != cache_.end() && it->second.inputs_sha256 == inputs &&
        options_.clock->Now() <= it->second.refresh_at) {
      return it->second.config;
    }
    ++provider_calls_;
    calling = in_flight_.insert(request.cluster).second;
  }
  // Runs at return, after the lock taken below is released: waiters wake to the cache
  // written (or, on an error, to no entry, and ask the provider themselves).
  absl::Cleanup done = [this, calling, &request] {
    if (!calling) return;
    absl::MutexLock lock(&mu_);
    in_flight_.erase(request.cluster);
  };

  ASSIGN_OR_RETURN(Credential credential,
                   CallProvider(url, std::move(provider), RequestBody(config), options_, cancel));
  const absl::Time received_at = options_.clock->Now();
  config.token = std::move(credential.token);
  config.client_certificate_pem = std::move(credential.certificate_pem);
  config.client_key_pem = std::move(credential.key_pem);

  absl::MutexLock lock(&mu_);
  if (!credential.expires_at.has_value()) {
    // Without an expiry there is no safe reuse: every connection asks again.
    cache_.erase(request.cluster);
    return config;
  }
  const absl::Time expires_at = *credential.expires_at;
  const absl::Duration lifetime = std::max(absl::ZeroDuration(), expires_at - received_at);
  const absl::Duration margin =
      std::max(options_.refresh_min_remaining, lifetime * options_.refresh_fraction);
  cache_[request.cluster] = Cached{inputs, config, expires_at - margin};
  return config;
}

}  // namespace credledger::kubebridge
