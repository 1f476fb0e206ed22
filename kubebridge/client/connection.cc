#include "kubebridge/client/connection.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/file_util.h"
#include "common/url.h"

namespace credledger::kubebridge {
namespace {

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

absl::Status InClusterError(const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("in-cluster: ", status.message()));
}

}  // namespace

std::string ConnectionConfig::DebugString() const {
  std::string credentials;
  if (!token_file.empty()) absl::StrAppend(&credentials, " token-file=", token_file.string());
  if (!token.empty()) absl::StrAppend(&credentials, " token=<redacted>");
  if (!basic_username.empty() || !basic_password.empty()) {
    absl::StrAppend(&credentials, " basic=<redacted>");
  }
  if (!client_certificate_pem.empty()) absl::StrAppend(&credentials, " client-cert=<redacted>");
  if (credentials.empty()) credentials = " anonymous";
  return absl::StrCat("server=", server, " source=", source,
                      ca_pem.empty() ? " ca=system" : " ca=inline",
                      insecure_skip_tls_verify ? " insecure-skip-tls-verify" : "", credentials);
}

InClusterEnvironment InClusterEnvironment::FromProcess() {
  InClusterEnvironment env;
  env.service_host = EnvOrEmpty("KUBERNETES_SERVICE_HOST");
  env.service_port = EnvOrEmpty("KUBERNETES_SERVICE_PORT");
  return env;
}

absl::StatusOr<ConnectionConfig> LoadInClusterConfig(const InClusterEnvironment& env) {
  if (env.service_host.empty() || env.service_port.empty()) {
    return absl::FailedPreconditionError(
        "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  }
  int port = 0;
  if (!absl::SimpleAtoi(env.service_port, &port) || port < 1 || port > 65535) {
    return absl::FailedPreconditionError(absl::StrCat("in-cluster: KUBERNETES_SERVICE_PORT \"",
                                                      env.service_port, "\" is not a port number"));
  }
  ConnectionConfig config;
  config.source = "in-cluster";
  config.server = absl::StrCat("https://", common::JoinHostPort(env.service_host, port));

  absl::StatusOr<std::string> ca = common::ReadSmallFile(env.service_account_dir / "ca.crt");
  if (!ca.ok()) return InClusterError(ca.status());
  if (ca->empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "in-cluster: \"", (env.service_account_dir / "ca.crt").string(), "\" is empty"));
  }
  config.ca_pem = *std::move(ca);

  config.token_file = env.service_account_dir / "token";
  absl::StatusOr<std::string> token = common::ReadSmallFile(config.token_file);
  if (!token.ok()) return InClusterError(token.status());
  config.token = std::string(absl::StripAsciiWhitespace(*token));
  if (config.token.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("in-cluster: \"", config.token_file.string(), "\" is empty"));
  }

  absl::StatusOr<std::string> ns = common::ReadSmallFile(env.service_account_dir / "namespace");
  if (ns.ok()) {
    config.default_namespace = std::string(absl::StripAsciiWhitespace(*ns));
  } else if (!absl::IsNotFound(ns.status())) {
    return InClusterError(ns.status());
  }
  if (config.default_namespace.empty()) config.default_namespace = "default";
  return config;
}

}  // namespace credledger::kubebridge
