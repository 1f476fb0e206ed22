#include "cli/client_connection.h"

#include <cstdlib>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/file_util.h"
#include "common/status_macros.h"
#include "service/decide/validation.h"
#include "service/wire/grpc_tls.h"
#include "service/wire/request_id.h"
#include "service/wire/server_address.h"

namespace credledger::cli {
namespace {

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

}  // namespace

std::string ConnectionHint(absl::string_view message, bool tls, bool client_certificate) {
  // Only a connection that was never made; a call cut off later has other causes.
  if (!absl::StrContains(message, "failed to connect to all addresses")) return "";
  if (absl::StrContains(message, "Connection refused")) {
    return "nothing accepts connections at that address: is credledger serve running and "
           "listening there, and is --server right?";
  }
  // OpenSSL writes the reasons in lower case, BoringSSL in capitals with underscores.
  const std::string reason = absl::StrReplaceAll(absl::AsciiStrToLower(message), {{"_", " "}});
  if (tls && absl::StrContains(reason, "wrong version number")) {
    return "the server does not speak TLS at that address: leave out --tls-ca, --tls-cert and "
           "--tls-key (and unset $CREDLEDGER_TLS_CA, $CREDLEDGER_TLS_CERT and "
           "$CREDLEDGER_TLS_KEY)";
  }
  if (tls && absl::StrContains(reason, "certificate verify failed")) {
    return "the server's certificate did not verify: --tls-ca must hold the CA that signed it, "
           "and the certificate must name the host of --server";
  }
  if (!absl::StrContains(message, "Socket closed") &&
      !absl::StrContains(message, "Connection reset by peer")) {
    return "";
  }
  if (!tls) {
    return "the server closed the connection as it was set up: if it serves TLS, pass "
           "--tls-ca (and --tls-cert and --tls-key if it requires client certificates)";
  }
  if (!client_certificate) {
    return "the server ended the TLS handshake: if it requires client certificates (mutual "
           "TLS), pass --tls-cert and --tls-key";
  }
  return "the server ended the TLS handshake: it may not accept this client certificate "
         "(--tls-cert must be signed by a CA of the server's --tls-client-ca)";
}

std::string DefaultServerAddress() {
  const std::string env = EnvOrEmpty("CREDLEDGER_SERVER");
  return env.empty() ? "127.0.0.1:7443" : env;
}

ClientConnection::ClientConnection()
    : server_(DefaultServerAddress()),
      tls_ca_(EnvOrEmpty("CREDLEDGER_TLS_CA")),
      tls_cert_(EnvOrEmpty("CREDLEDGER_TLS_CERT")),
      tls_key_(EnvOrEmpty("CREDLEDGER_TLS_KEY")),
      token_file_(EnvOrEmpty("CREDLEDGER_TOKEN_FILE")) {}

void ClientConnection::DefineFlags(FlagSet& flags) {
  flags_ = &flags;
  flags.Add("server", &server_,
            absl::StrCat("credledger API address: ", service::kServerAddressForms,
                         " (the default comes from $CREDLEDGER_SERVER when set)"));
  flags.Add("as", &actor_,
            "the identity to act as; honoured on loopback or a unix socket, or when it equals "
            "the client certificate's identity; must not be empty (default: anonymous, or the "
            "certificate's)");
  flags.Add("tls-ca", &tls_ca_,
            "PEM CA bundle that verifies the server; turns TLS on (default $CREDLEDGER_TLS_CA)");
  flags.Add("tls-cert", &tls_cert_,
            "PEM client certificate for mutual TLS; turns TLS on (default $CREDLEDGER_TLS_CERT)");
  flags.Add("tls-key", &tls_key_, "PEM private key of --tls-cert (default $CREDLEDGER_TLS_KEY)");
  flags.Add("token-file", &token_file_,
            "file with a ServiceAccount token to call with (a projected token for the "
            "server's --token-audience); sent only over TLS or to a local server, not with "
            "--tls-cert (default $CREDLEDGER_TOKEN_FILE)");
}

absl::Status ClientConnection::CheckFlags() const {
  RETURN_IF_ERROR(service::CheckServerAddress("--server", server_));
  // An empty value (an unset shell variable, say) would silently mean plaintext or no
  // client certificate.
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"tls-ca", &tls_ca_},
                                    {"tls-cert", &tls_cert_},
                                    {"tls-key", &tls_key_},
                                    {"token-file", &token_file_}}) {
    if (value->empty() && flags_ != nullptr && flags_->Given(flag)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, ": must not be empty; leave the flag out for its default"));
    }
  }
  RETURN_IF_ERROR(service::CheckClientTlsFlags({tls_ca_, tls_cert_, tls_key_}));
  if (!token_file_.empty()) RETURN_IF_ERROR(ReadToken());
  if (actor_.empty()) {
    // An empty --as (an unset shell variable, say) would silently call as someone else.
    if (flags_ != nullptr && flags_->Given("as")) {
      return absl::InvalidArgumentError(
          "--as: must not be empty; leave the flag out to call as the connection's identity "
          "(anonymous, or the client certificate's)");
    }
    return absl::OkStatus();
  }
  return service::ValidateToken("--as", actor_, service::kMaxActorBytes);
}

absl::Status ClientConnection::ReadToken() const {
  if (!tls_cert_.empty()) {
    return absl::InvalidArgumentError(
        "--token-file: not with --tls-cert; a call presents a client certificate or a token");
  }
  if (!tls() && !service::IsLocalServerAddress(server_)) {
    return absl::InvalidArgumentError(
        "--token-file: the token would cross the network in plaintext; give --tls-ca to "
        "call a remote server over TLS");
  }
  absl::StatusOr<std::string> token = common::ReadSmallFile(token_file_);
  if (!token.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--token-file: ", token.status().message()));
  }
  token_ = std::string(absl::StripAsciiWhitespace(*token));
  if (token_.empty() || !service::ValidateToken("", token_, common::kMaxConfigFileBytes).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--token-file: \"", token_file_, "\" holds no token (one line of printable ASCII)"));
  }
  return absl::OkStatus();
}

bool ClientConnection::tls() const { return !tls_ca_.empty() || !tls_cert_.empty(); }

absl::StatusOr<std::shared_ptr<grpc::Channel>> ClientConnection::Channel() const {
  if (!tls()) {
    return grpc::CreateChannel(server_, grpc::InsecureChannelCredentials());
  }
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials,
                   service::ClientTlsCredentials({tls_ca_, tls_cert_, tls_key_}));
  return grpc::CreateChannel(server_, credentials);
}

std::string ClientConnection::Declare(grpc::ClientContext& context) const {
  if (!actor_.empty()) context.AddMetadata(service::kActorMetadataKey, actor_);
  if (!token_.empty()) {
    context.AddMetadata(service::kAuthorizationMetadataKey, absl::StrCat("Bearer ", token_));
  }
  std::string request_id = service::NewCallRequestId();
  context.AddMetadata(service::kRequestIdMetadataKey, request_id);
  return request_id;
}

absl::Status ClientConnection::Explain(const absl::Status& failure) const {
  if (failure.code() != absl::StatusCode::kUnavailable) return failure;
  const std::string hint = ConnectionHint(failure.message(), tls(), !tls_cert_.empty());
  if (hint.empty()) return failure;
  return absl::Status(failure.code(), absl::StrCat(failure.message(), "; hint: ", hint));
}

}  // namespace credledger::cli
