// ClientConnection: how a `credledger` subcommand reaches the API (docs/api.md, "Transport"
// and "RPCs and subcommands"). Flags:
//   --server    address (server_address.h: host:port, [IPv6]:port, dns:///host:port,
//               unix:path, ...; default $CREDLEDGER_SERVER, else 127.0.0.1:7443)
//   --as        the identity declared to the server (metadata credledger-actor); honoured by
//               the server only on loopback or a unix socket, or when it equals the client
//               certificate's identity; when left out none is sent (the connection's
//               identity: anonymous, or the client certificate's); given empty, refused
//   --tls-ca    PEM CA bundle that verifies the server; turns TLS on ($CREDLEDGER_TLS_CA)
//   --tls-cert  PEM client certificate for mutual TLS; turns TLS on ($CREDLEDGER_TLS_CERT)
//   --tls-key   its PEM private key ($CREDLEDGER_TLS_KEY)
//   --token-file a file holding a Kubernetes ServiceAccount token, sent as
//               "authorization: Bearer <token>" ($CREDLEDGER_TOKEN_FILE; docs/api.md,
//               "ServiceAccount tokens"); only over TLS or to a server on this machine, and
//               not with --tls-cert
// Without --tls-ca and --tls-cert the connection is plaintext (the server accepts that only
// on loopback or a unix socket).
// Every call carries a new call request id (metadata x-request-id, request_id.h), which the
// server logs with the call; a command prints it when the call fails.
//
// Thread-safety: not thread-safe; one per command run.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cli/framework/flag_set.h"

namespace credledger::cli {

// The server address used when --server is not given: $CREDLEDGER_SERVER when set and
// non-empty, else "127.0.0.1:7443".
std::string DefaultServerAddress();

// What to check when a call failed to connect with `message` (an UNAVAILABLE status's, gRPC's
// "failed to connect to all addresses; ..."), on a connection with TLS on (`tls`) and
// presenting a client certificate or not: a one-sentence hint naming the flags to look at,
// for a refused connection, a server that does not speak TLS, a server certificate that does
// not verify, or a server that closed the connection while it was set up (no TLS against a
// TLS server; no or an untrusted client certificate under mutual TLS). Empty for any other
// message, a call cut off after it connected included. gRPC does not tell the last cases
// apart, so the hint follows the flags the call was made with (docs/api.md, "Transport").
std::string ConnectionHint(absl::string_view message, bool tls, bool client_certificate);

class ClientConnection {
 public:
  ClientConnection();
  // Defines --server, --as, --tls-ca, --tls-cert and --tls-key in `flags`, which must
  // outlive this object's CheckFlags.
  void DefineFlags(FlagSet& flags);
  // Errors: kInvalidArgument "--server: ..." when --server is not an address
  // CheckServerAddress accepts (empty included: an unset shell variable, say); "--as: ..."
  // when --as is given empty, or is not 1-128 bytes of printable ASCII without spaces (the
  // server's rule for credledger-actor; other bytes could not even be sent as gRPC
  // metadata); "--tls-ca: must not be empty ..." (and --tls-cert, --tls-key) when given
  // empty; "--tls-key: ..." / "--tls-cert: ..." when only one of the two is given;
  // "--token-file: ..." when it cannot be read, is empty, comes with --tls-cert, or would go
  // over plaintext to another machine. Reads the token.
  absl::Status CheckFlags() const;
  // A channel to --server, over TLS when TLS is on.
  // Errors: the TLS files' (grpc_tls.h ClientTlsCredentials: unreadable, no PEM, key not of
  // the certificate), naming the flag.
  absl::StatusOr<std::shared_ptr<grpc::Channel>> Channel() const;
  // Declares --as on `context` when given, the --token-file token when given, and a new call
  // request id (NewCallRequestId) as x-request-id. Returns that id, for WithCallRequestId on
  // the call's error.
  std::string Declare(grpc::ClientContext& context) const;
  // `failure` with "; hint: <ConnectionHint>" appended to its message when it is UNAVAILABLE
  // and ConnectionHint has one for this connection's flags; else `failure` unchanged.
  absl::Status Explain(const absl::Status& failure) const;

 private:
  const FlagSet* flags_ = nullptr;  // the set DefineFlags filled
  std::string server_;
  std::string actor_;
  std::string tls_ca_;
  std::string tls_cert_;
  std::string tls_key_;
  std::string token_file_;
  mutable std::string token_;  // read from token_file_ by CheckFlags; never printed

  // Reads --token-file into token_. Errors: as CheckFlags's for --token-file.
  absl::Status ReadToken() const;
  // Whether TLS is on: --tls-ca or --tls-cert given (or from the environment).
  bool tls() const;
};

}  // namespace credledger::cli
