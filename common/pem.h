// PEM checks shared by every place that accepts a certificate or a certificate and key pair
// (gRPC TLS files, client-certificate auth of registered clusters): is there a certificate,
// is there a key, do they belong together.
//
// Pure functions over the bytes (OpenSSL 3); they never prompt for a passphrase (an
// encrypted key counts as no key) and leave no OpenSSL error queued on the calling thread
// (libcurl reads the same queue). Thread-safe.
#pragma once

#include "absl/strings/string_view.h"

namespace credledger::common {

// True when `pem` holds at least one PEM certificate ("-----BEGIN CERTIFICATE-----").
bool HoldsPemCertificate(absl::string_view pem);

// What is wrong with a certificate and its key, checked in this order.
enum class PemPairProblem {
  kNone,           // the key belongs to the first certificate
  kNoCertificate,  // `cert_pem` holds no PEM certificate
  kNoKey,          // `key_pem` holds no unencrypted PEM private key
  kMismatch,       // the key is not the first certificate's
};

// Checks that `key_pem` is the private key of the first certificate in `cert_pem`.
PemPairProblem CheckPemKeyPair(absl::string_view cert_pem, absl::string_view key_pem);

}  // namespace credledger::common
