#include "service/wire/grpc_tls.h"

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/file_util.h"
#include "common/pem.h"
#include "common/status_macros.h"

namespace credledger::service {
namespace {

absl::StatusOr<std::string> ReadFlagFile(absl::string_view flag, const std::string& path) {
  absl::StatusOr<std::string> bytes = common::ReadSmallFile(path);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(), absl::StrCat(flag, ": ", bytes.status().message()));
  }
  return bytes;
}

absl::Status CheckCertificate(absl::string_view flag, const std::string& pem) {
  if (common::HoldsPemCertificate(pem)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(flag, ": the file holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\")"));
}

// Checks that `key_pem` is an unencrypted PEM private key belonging to the first certificate
// of `cert_pem`.
absl::Status CheckKeyPair(absl::string_view cert_flag, const std::string& cert_pem,
                          absl::string_view key_flag, const std::string& key_pem) {
  switch (common::CheckPemKeyPair(cert_pem, key_pem)) {
    case common::PemPairProblem::kNone:
      return absl::OkStatus();
    case common::PemPairProblem::kNoCertificate:
      return CheckCertificate(cert_flag, cert_pem);
    case common::PemPairProblem::kNoKey:
      return absl::InvalidArgumentError(
          absl::StrCat(key_flag, ": the file holds no unencrypted PEM private key"));
    case common::PemPairProblem::kMismatch:
      return absl::InvalidArgumentError(
          absl::StrCat(key_flag, ": the key does not belong to the certificate in ", cert_flag));
  }
  return absl::InternalError("unknown PEM pair problem");
}

// A server that serves TLS needs both its certificate and its key.
absl::Status RequireCertAndKey(const ServerTlsFiles& files) {
  if (!files.cert_file.empty() && !files.key_file.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(files.cert_file.empty()
                                        ? "--tls-cert: required with --tls-key or --tls-client-ca"
                                        : "--tls-key: required with --tls-cert");
}

}  // namespace

bool WantsTls(const ServerTlsFiles& files) {
  return !files.cert_file.empty() || !files.key_file.empty() || !files.client_ca_file.empty();
}

absl::string_view TransportModeName(const ServerTlsFiles& files) {
  if (!WantsTls(files)) return "plaintext";
  return files.client_ca_file.empty() ? "TLS" : "mutual TLS";
}

absl::Status CheckServerTlsFlags(const ServerTlsFiles& files) {
  return WantsTls(files) ? RequireCertAndKey(files) : absl::OkStatus();
}

absl::Status CheckClientTlsFlags(const ClientTlsFiles& files) {
  if (files.cert_file.empty() == files.key_file.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(files.cert_file.empty()
                                        ? "--tls-cert: required with --tls-key"
                                        : "--tls-key: required with --tls-cert");
}

absl::StatusOr<ServerTlsBytes> ReadServerTlsFiles(const ServerTlsFiles& files) {
  RETURN_IF_ERROR(RequireCertAndKey(files));
  ServerTlsBytes bytes;
  ASSIGN_OR_RETURN(bytes.cert, ReadFlagFile("--tls-cert", files.cert_file));
  ASSIGN_OR_RETURN(bytes.key, ReadFlagFile("--tls-key", files.key_file));
  RETURN_IF_ERROR(CheckKeyPair("--tls-cert", bytes.cert, "--tls-key", bytes.key));
  if (!files.client_ca_file.empty()) {
    ASSIGN_OR_RETURN(bytes.client_ca, ReadFlagFile("--tls-client-ca", files.client_ca_file));
    RETURN_IF_ERROR(CheckCertificate("--tls-client-ca", bytes.client_ca));
  }
  return bytes;
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerTlsCredentials(
    const ServerTlsFiles& files) {
  if (files.reload_interval < absl::Seconds(1)) {
    return absl::InvalidArgumentError("TLS reload interval: below 1s");
  }
  RETURN_IF_ERROR(ReadServerTlsFiles(files).status());
  const bool mutual = !files.client_ca_file.empty();
  const unsigned int refresh_seconds =
      static_cast<unsigned int>(absl::ToInt64Seconds(files.reload_interval));
  auto provider = mutual
                      ? std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
                            files.key_file, files.cert_file, files.client_ca_file, refresh_seconds)
                      : std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
                            files.key_file, files.cert_file, refresh_seconds);
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (mutual) {
    options.watch_root_certs();
    options.set_cert_request_type(files.client_certificate_optional
                                      ? GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY
                                      : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  } else {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ClientTlsCredentials(
    const ClientTlsFiles& files) {
  RETURN_IF_ERROR(CheckClientTlsFlags(files));
  grpc::SslCredentialsOptions options;
  if (!files.ca_file.empty()) {
    ASSIGN_OR_RETURN(options.pem_root_certs, ReadFlagFile("--tls-ca", files.ca_file));
    RETURN_IF_ERROR(CheckCertificate("--tls-ca", options.pem_root_certs));
  }
  if (!files.cert_file.empty()) {
    ASSIGN_OR_RETURN(options.pem_cert_chain, ReadFlagFile("--tls-cert", files.cert_file));
    ASSIGN_OR_RETURN(options.pem_private_key, ReadFlagFile("--tls-key", files.key_file));
    RETURN_IF_ERROR(
        CheckKeyPair("--tls-cert", options.pem_cert_chain, "--tls-key", options.pem_private_key));
  }
  return grpc::SslCredentials(options);
}

}  // namespace credledger::service
