// TLS for the gRPC API (docs/api.md, "Transport" and "Caller identity"; docs/operations.md,
// "TLS certificates"): the server's credentials from
// `serve --tls-cert/--tls-key[/--tls-client-ca]` and the client's from the CLI's
// --tls-ca/--tls-cert/--tls-key.
//
// The server reloads its certificate, key and client CA bundle from the files while it runs
// (every `reload_interval`), so certificates renewed in place take effect without a restart;
// `serve` hands gRPC the checked copies of a TlsFileGuard (tls_file_guard.h), so that files
// that fail the checks never reach a handshake.
// With a client CA bundle, every client must present a certificate that bundle verifies
// (mutual TLS); without one, no client certificate is asked for.
//
// Thread-safety: pure functions over the files.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace grpc {
class ChannelCredentials;
class ServerCredentials;
}  // namespace grpc

namespace credledger::service {

struct ServerTlsFiles {
  std::string cert_file;       // PEM certificate chain, leaf first (--tls-cert)
  std::string key_file;        // PEM private key of the leaf (--tls-key)
  std::string client_ca_file;  // PEM CA bundle that verifies clients (--tls-client-ca); "" = none
  absl::Duration reload_interval = absl::Minutes(1);  // >= 1s
  // With a client CA: a client may connect without a certificate (it then presents a bearer
  // token, or is refused by the caller rules); one it presents is still verified.
  bool client_certificate_optional = false;
};

struct ClientTlsFiles {
  std::string ca_file;    // PEM CA bundle that verifies the server (--tls-ca); "" = system roots
  std::string cert_file;  // PEM client certificate chain (--tls-cert); "" = none
  std::string key_file;   // its PEM private key (--tls-key)
};

// Whether the server flags ask for TLS (any of the three files given).
bool WantsTls(const ServerTlsFiles& files);

// How the gRPC API is served, for the start-up line: "plaintext", "TLS" or "mutual TLS" (a
// client CA given).
absl::string_view TransportModeName(const ServerTlsFiles& files);

// The flag pairing rules alone, without reading any file.
// Errors: kInvalidArgument "--tls-cert: required with --tls-key or --tls-client-ca" /
// "--tls-key: required with --tls-cert" (server), "--tls-cert: required with --tls-key" /
// "--tls-key: required with --tls-cert" (client).
absl::Status CheckServerTlsFlags(const ServerTlsFiles& files);
absl::Status CheckClientTlsFlags(const ClientTlsFiles& files);

// The bytes of the server's TLS files; client_ca is "" without a client CA file.
struct ServerTlsBytes {
  std::string cert;
  std::string key;
  std::string client_ca;
};

// Reads the server's TLS files and checks them: certificate and key required, the key
// unencrypted and belonging to the first certificate, the client CA bundle holding a PEM
// certificate.
// Errors: kInvalidArgument naming the flag (--tls-cert, --tls-key, --tls-client-ca) and the
// problem; kNotFound / kFailedPrecondition naming the flag when a file cannot be read. The
// messages never hold file content.
absl::StatusOr<ServerTlsBytes> ReadServerTlsFiles(const ServerTlsFiles& files);

// Checks the files now (so a bad file fails the start with a clear error instead of every
// handshake) and returns credentials that keep reading them.
// Errors: kInvalidArgument naming the flag for a missing partner flag (--tls-key without
// --tls-cert, ...), a file that holds no PEM certificate or key, or a key that does not belong
// to the certificate; kNotFound / kFailedPrecondition when a file cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerTlsCredentials(
    const ServerTlsFiles& files);

// Channel credentials over TLS with the given files, read once.
// Errors: as ServerTlsCredentials, naming the client flags.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ClientTlsCredentials(
    const ClientTlsFiles& files);

}  // namespace credledger::service
