// ConnectionConfig: everything the kube bridge needs to reach one Kubernetes API server
// (docs/kubernetes.md, "serve: cluster connection and flags"), from a kubeconfig (kubeconfig.h)
// or from the in-cluster service-account files (LoadInClusterConfig below).
//
// The struct holds credentials (bearer token, basic auth, client key): never log it, never
// put its fields into an error message; use DebugString(), which redacts them.
//
// Thread-safety: a plain value; copies are independent.
#pragma once

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace credledger::kubebridge {

struct ConnectionConfig {
  // Base URL of the API server: "https://host:port" with an optional path prefix, no
  // trailing slash.
  std::string server;
  // PEM bundle of the cluster CA; empty means the system's default trust store.
  std::string ca_pem;
  // Skip server certificate verification (kubeconfig insecure-skip-tls-verify). Tests only.
  bool insecure_skip_tls_verify = false;
  // Static bearer token (secret). Used when token_file is empty or has never been read.
  std::string token;
  // Absolute path of a file holding the bearer token; re-read whenever its modification
  // time, size or inode changes, and preferred over `token` once read.
  std::filesystem::path token_file;
  // HTTP basic auth (secret), sent when either is non-empty; used by source checks
  // (http_source_check.h), never by kubeconfigs.
  std::string basic_username;
  std::string basic_password;
  // PEM client certificate and key (secret) for mutual TLS; both empty or both set.
  std::string client_certificate_pem;
  std::string client_key_pem;
  // The namespace of the context (kubeconfig) or of the service account (in-cluster);
  // empty when the source names none.
  std::string default_namespace;
  // Where this config came from, for messages: "kubeconfig /x/config context \"a\"" or
  // "in-cluster". Holds no secret.
  std::string source;

  // A one-line description for logs: server, source, which credentials are present (never
  // their values).
  std::string DebugString() const;
};

// Where the in-cluster configuration is read from; the defaults are the ones every pod
// sees. Tests point `service_account_dir` at a temp folder and set the host and port.
struct InClusterEnvironment {
  // Value of KUBERNETES_SERVICE_HOST (an IPv4/IPv6 address or a name).
  std::string service_host;
  // Value of KUBERNETES_SERVICE_PORT (decimal TCP port).
  std::string service_port;
  // Folder with the files `token`, `ca.crt` and (optionally) `namespace`.
  std::filesystem::path service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";

  // The environment of this process: the two variables (empty when unset) and the default
  // folder.
  static InClusterEnvironment FromProcess();
};

// Builds the in-cluster ConnectionConfig: server https://<host>:<port> (IPv6 hosts
// bracketed), CA from ca.crt, token_file = <dir>/token (re-read on change; also read once
// now into `token`), default_namespace from the `namespace` file ("default" when absent).
// Errors (messages start with "in-cluster: " and name the file, never its content):
// kFailedPrecondition when the host or port is unset or the port is not a number in
// 1..65535; kNotFound when ca.crt or token does not exist; kFailedPrecondition when one of
// the files cannot be read, is larger than 1 MiB, or ca.crt/token is empty.
absl::StatusOr<ConnectionConfig> LoadInClusterConfig(const InClusterEnvironment& env);

}  // namespace credledger::kubebridge
