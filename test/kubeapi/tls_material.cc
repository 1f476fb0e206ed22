#include "test/kubeapi/tls_material.h"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/x509v3.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "test/kubeapi/random_ids.h"

namespace credledger::kubeapi {
namespace {

constexpr long kBackdateSeconds = 3600;
constexpr long kValiditySeconds = 365L * 24 * 3600;

absl::Status SetSerialAndValidity(X509* cert) {
  std::string serial_bytes = RandomBytes(16);
  serial_bytes[0] = static_cast<char>(static_cast<uint8_t>(serial_bytes[0]) & 0x7f);
  BIGNUM* bn = BN_bin2bn(reinterpret_cast<const unsigned char*>(serial_bytes.data()),
                         static_cast<int>(serial_bytes.size()), nullptr);
  if (bn == nullptr) return OpenSslError("serial number");
  ASN1_INTEGER* serial = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
  BN_free(bn);
  if (serial == nullptr) return OpenSslError("serial number");
  if (X509_set_version(cert, 2) != 1 ||
      X509_gmtime_adj(X509_getm_notBefore(cert), -kBackdateSeconds) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert), kValiditySeconds) == nullptr) {
    return OpenSslError("certificate validity");
  }
  return absl::OkStatus();
}

absl::Status SetCommonName(X509_NAME* name, const std::string& cn) {
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                 0) != 1) {
    return OpenSslError("certificate name");
  }
  return absl::OkStatus();
}

absl::Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return OpenSslError(absl::StrCat("extension ", value));
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1) return OpenSslError(absl::StrCat("adding extension ", value));
  return absl::OkStatus();
}

absl::StatusOr<X509Ptr> NewCertificate(EVP_PKEY* subject_key, const std::string& cn) {
  X509Ptr cert(X509_new());
  if (!cert) return OpenSslError("X509_new");
  RETURN_IF_ERROR(SetSerialAndValidity(cert.get()));
  RETURN_IF_ERROR(SetCommonName(X509_get_subject_name(cert.get()), cn));
  if (X509_set_pubkey(cert.get(), subject_key) != 1) return OpenSslError("set public key");
  return cert;
}

// A self-signed CA certificate on `key` with common name `cn`.
absl::StatusOr<X509Ptr> NewCa(EVP_PKEY* key, const std::string& cn) {
  ASSIGN_OR_RETURN(X509Ptr cert, NewCertificate(key, cn));
  X509* ca = cert.get();
  if (X509_set_issuer_name(ca, X509_get_subject_name(ca)) != 1) return OpenSslError("issuer");
  RETURN_IF_ERROR(AddExtension(ca, ca, NID_basic_constraints, "critical,CA:TRUE"));
  RETURN_IF_ERROR(AddExtension(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign"));
  RETURN_IF_ERROR(AddExtension(ca, ca, NID_subject_key_identifier, "hash"));
  if (X509_sign(ca, key, EVP_sha256()) == 0) return OpenSslError("signing CA");
  return cert;
}

absl::Status CheckIpAddresses(const std::vector<std::string>& ips) {
  for (const std::string& ip : ips) {
    unsigned char buf[16];
    if (inet_pton(AF_INET, ip.c_str(), buf) != 1 && inet_pton(AF_INET6, ip.c_str(), buf) != 1) {
      return absl::InvalidArgumentError(absl::StrCat("tls: \"", ip, "\" is not an IP address"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TlsMaterial> GenerateTlsMaterial(const std::vector<std::string>& dns_names,
                                                const std::vector<std::string>& ip_addresses) {
  RETURN_IF_ERROR(CheckIpAddresses(ip_addresses));
  TlsMaterial m;
  ASSIGN_OR_RETURN(m.ca_key, GenerateP256Key());
  ASSIGN_OR_RETURN(m.server_key, GenerateP256Key());

  ASSIGN_OR_RETURN(m.ca_cert, NewCa(m.ca_key.get(), "credledger-test-apiserver-ca"));
  X509* ca = m.ca_cert.get();

  ASSIGN_OR_RETURN(m.server_cert, NewCertificate(m.server_key.get(), "kube-apiserver"));
  X509* srv = m.server_cert.get();
  if (X509_set_issuer_name(srv, X509_get_subject_name(ca)) != 1) return OpenSslError("issuer");
  std::vector<std::string> sans;
  for (const std::string& d : dns_names) sans.push_back(absl::StrCat("DNS:", d));
  for (const std::string& ip : ip_addresses) sans.push_back(absl::StrCat("IP:", ip));
  RETURN_IF_ERROR(AddExtension(srv, ca, NID_basic_constraints, "critical,CA:FALSE"));
  RETURN_IF_ERROR(AddExtension(srv, ca, NID_key_usage, "critical,digitalSignature"));
  RETURN_IF_ERROR(AddExtension(srv, ca, NID_ext_key_usage, "serverAuth"));
  RETURN_IF_ERROR(AddExtension(srv, ca, NID_authority_key_identifier, "keyid:always"));
  if (!sans.empty()) {
    RETURN_IF_ERROR(AddExtension(srv, ca, NID_subject_alt_name, absl::StrJoin(sans, ",")));
  }
  if (X509_sign(srv, m.ca_key.get(), EVP_sha256()) == 0) return OpenSslError("signing cert");

  ASSIGN_OR_RETURN(m.ca_cert_pem, CertificatePem(ca));
  ASSIGN_OR_RETURN(m.server_cert_pem, CertificatePem(srv));
  ASSIGN_OR_RETURN(m.server_key_pem, PrivateKeyPem(m.server_key.get()));

  ASSIGN_OR_RETURN(m.client_ca_key, GenerateP256Key());
  ASSIGN_OR_RETURN(m.client_ca_cert,
                   NewCa(m.client_ca_key.get(), "credledger-test-apiserver-client-ca"));
  return m;
}

absl::StatusOr<ClientCertificate> IssueClientCertificate(X509* ca_cert, EVP_PKEY* ca_key,
                                                         const std::string& user,
                                                         const std::vector<std::string>& groups,
                                                         const std::vector<std::string>& uris) {
  ASSIGN_OR_RETURN(EvpPkeyPtr key, GenerateP256Key());
  ASSIGN_OR_RETURN(X509Ptr cert, NewCertificate(key.get(), user));
  X509* c = cert.get();
  for (const std::string& group : groups) {
    if (X509_NAME_add_entry_by_txt(X509_get_subject_name(c), "O", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(group.c_str()), -1,
                                   -1, 0) != 1) {
      return OpenSslError("certificate organization");
    }
  }
  if (X509_set_issuer_name(c, X509_get_subject_name(ca_cert)) != 1) return OpenSslError("issuer");
  RETURN_IF_ERROR(AddExtension(c, ca_cert, NID_basic_constraints, "critical,CA:FALSE"));
  RETURN_IF_ERROR(AddExtension(c, ca_cert, NID_key_usage, "critical,digitalSignature"));
  RETURN_IF_ERROR(AddExtension(c, ca_cert, NID_ext_key_usage, "clientAuth"));
  RETURN_IF_ERROR(AddExtension(c, ca_cert, NID_authority_key_identifier, "keyid:always"));
  if (!uris.empty()) {
    std::string sans;
    for (const std::string& uri : uris) {
      absl::StrAppend(&sans, sans.empty() ? "" : ",", "URI:", uri);
    }
    RETURN_IF_ERROR(AddExtension(c, ca_cert, NID_subject_alt_name, sans));
  }
  if (X509_sign(c, ca_key, EVP_sha256()) == 0) return OpenSslError("signing client cert");
  ClientCertificate issued;
  ASSIGN_OR_RETURN(issued.certificate_pem, CertificatePem(c));
  ASSIGN_OR_RETURN(issued.key_pem, PrivateKeyPem(key.get()));
  return issued;
}

}  // namespace credledger::kubeapi
