#include "cli/keygen_cli.h"

#include <openssl/crypto.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "audit/signing_key.h"
#include "cli/framework/file_path_flag.h"
#include "common/atomic_file.h"
#include "common/fingerprint_key.h"
#include "common/status_macros.h"

namespace credledger::cli {
namespace {

constexpr mode_t kPrivateKeyMode = 0600;
constexpr mode_t kPublicKeyMode = 0644;

absl::Status ExistsError(absl::string_view flag, const std::string& path) {
  return absl::AlreadyExistsError(
      absl::StrCat(flag, ": ", path, " exists; remove it or choose another path"));
}

// Whether anything, a dangling symbolic link included, is at `path` (as the writer sees it).
bool Exists(const std::string& path) {
  std::error_code error;
  return std::filesystem::exists(std::filesystem::symlink_status(path, error));
}

// Writes `text` as the new file `path` with exactly `mode` (never more permissive, even before
// the write), through the shared writer: a file that appears meanwhile is refused, and a
// failure leaves no file behind.
// Errors: kAlreadyExists when `path` exists; kFailedPrecondition when it cannot be created;
// kUnavailable when it cannot be written. Messages name `flag` and the path.
absl::Status WriteNewFile(absl::string_view flag, const std::string& path,
                          absl::string_view text, mode_t mode) {
  absl::Status written = common::WriteFileAtomically(
      path, text, {.label = flag, .mode = mode, .exact_mode = true, .replace = false});
  if (absl::IsAlreadyExists(written)) return ExistsError(flag, path);
  return written;
}

class KeygenCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override {
    flags_ = &flags;
    flags.Add("private-key", &private_key_,
              "file for the private key (PEM, mode 0600); must not exist");
    flags.Add("public-key", &public_key_,
              "file for the public key (PEM, mode 0644); must not exist");
    flags.Add("fingerprint-key", &fingerprint_key_,
              "file for a new fingerprint key (64 hex digits, mode 0600; serve "
              "--fingerprint-key); must not exist. Alone it writes no signing key pair");
  }

  absl::Status CheckFlags() const override {
    if (!fingerprint_key_.empty()) {
      RETURN_IF_ERROR(CheckFilePathFlag("--fingerprint-key", fingerprint_key_));
    } else if (flags_->Given("fingerprint-key")) {
      return absl::InvalidArgumentError("--fingerprint-key: names no file");
    }
    if (!WantsPair()) return absl::OkStatus();
    if (private_key_.empty()) return absl::InvalidArgumentError("--private-key: required");
    if (public_key_.empty()) return absl::InvalidArgumentError("--public-key: required");
    if (SameFile(public_key_, private_key_)) {
      return absl::InvalidArgumentError("--public-key: must name another file than --private-key");
    }
    if (!fingerprint_key_.empty() &&
        (SameFile(fingerprint_key_, private_key_) || SameFile(fingerprint_key_, public_key_))) {
      return absl::InvalidArgumentError(
          "--fingerprint-key: must name another file than --private-key and --public-key");
    }
    RETURN_IF_ERROR(CheckFilePathFlag("--private-key", private_key_));
    return CheckFilePathFlag("--public-key", public_key_);
  }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    absl::StatusOr<std::string> fingerprint_key_id = std::string();
    if (!fingerprint_key_.empty()) {
      fingerprint_key_id = WriteFingerprintKey();
      if (!fingerprint_key_id.ok()) return ReportError(fingerprint_key_id.status(), err);
    }
    if (WantsPair()) {
      absl::StatusOr<std::string> key_id = WriteKeyPair();
      if (!key_id.ok()) {
        // Nothing is left half done: the fingerprint key written before goes too.
        if (!fingerprint_key_.empty()) unlink(fingerprint_key_.c_str());
        return ReportError(key_id.status(), err);
      }
      out << "key id: " << *key_id << "\n"
          << "private key: " << private_key_ << "\n"
          << "public key: " << public_key_ << "\n";
    }
    if (!fingerprint_key_.empty()) {
      out << "fingerprint key id: " << *fingerprint_key_id << "\n"
          << "fingerprint key: " << fingerprint_key_ << "\n";
    }
    return kExitOk;
  }

 private:
  static bool SameFile(const std::string& a, const std::string& b) {
    return std::filesystem::path(a).lexically_normal() ==
           std::filesystem::path(b).lexically_normal();
  }

  // The signing key pair is written unless --fingerprint-key is given without --private-key
  // and --public-key.
  bool WantsPair() const {
    return fingerprint_key_.empty() || flags_->Given("private-key") || flags_->Given("public-key");
  }

  // Checks every file of this run up front, so that none is written when another exists (the
  // writers still refuse a file that appears in between); then writes a new fingerprint key.
  // Returns its key id. REQUIRES: CheckFlags passed, --fingerprint-key given.
  absl::StatusOr<std::string> WriteFingerprintKey() const {
    if (WantsPair()) {
      if (Exists(private_key_)) return ExistsError("--private-key", private_key_);
      if (Exists(public_key_)) return ExistsError("--public-key", public_key_);
    }
    if (Exists(fingerprint_key_)) return ExistsError("--fingerprint-key", fingerprint_key_);
    absl::StatusOr<common::FingerprintKey> key =
        common::WriteNewFingerprintKey(fingerprint_key_, "--fingerprint-key");
    if (absl::IsAlreadyExists(key.status())) {
      return ExistsError("--fingerprint-key", fingerprint_key_);
    }
    if (!key.ok()) return key.status();
    return key->key_id();
  }

  // Generates a key and writes both files; returns the key id. On failure no file of the
  // pair is left behind. REQUIRES: CheckFlags passed.
  absl::StatusOr<std::string> WriteKeyPair() const {
    // Checked up front so that neither file is written when the other one exists; the
    // writer below still refuses a file that appears in between.
    if (Exists(private_key_)) return ExistsError("--private-key", private_key_);
    if (Exists(public_key_)) return ExistsError("--public-key", public_key_);
    absl::StatusOr<audit::SigningKey> key = audit::SigningKey::Generate();
    if (!key.ok()) return key.status();
    std::string private_pem = key->PrivatePem();
    absl::Status written =
        WriteNewFile("--private-key", private_key_, private_pem, kPrivateKeyMode);
    OPENSSL_cleanse(private_pem.data(), private_pem.size());
    if (!written.ok()) return written;
    written = WriteNewFile("--public-key", public_key_, key->public_key().Pem(), kPublicKeyMode);
    if (!written.ok()) {
      unlink(private_key_.c_str());
      return written;
    }
    return key->key_id();
  }

  std::string private_key_ = "signing-key.pem";
  std::string public_key_ = "signing-key.pub.pem";
  std::string fingerprint_key_;
  const FlagSet* flags_ = nullptr;  // the flags DefineFlags declared, to ask which were given
};

constexpr char kKeygenDescription[] =
    "Writes a new Ed25519 key pair for the audit trail. The service signs checkpoints of the\n"
    "event log and the trailers of exports with the private key (serve --signing-key);\n"
    "an auditor checks exports and databases offline with the public key alone\n"
    "(verify --public-key). The printed key id (the first 16 hex characters of SHA-256 over\n"
    "the public key) is the one every signed record names.\n"
    "\n"
    "The private key must stay on the service host: whoever holds it can sign a forged\n"
    "history. It is written with mode 0600; the public key, with mode 0644, can be handed to\n"
    "auditors. Existing files are never overwritten.\n"
    "\n"
    "With --fingerprint-key FILE it also writes a fingerprint key (32 random bytes as 64 hex\n"
    "digits, mode 0600; alone, without --private-key and --public-key, only that). The\n"
    "service records source Secrets under it (serve --fingerprint-key), so that nobody\n"
    "holding an export can check a guessed password against the log. It stays on the\n"
    "service host like the private key; its key id, which every fingerprint names, is\n"
    "printed.\n";

}  // namespace

void AddKeygenCommands(Dispatcher& dispatcher) {
  dispatcher.Add({"keygen", "",
                  "write a new Ed25519 key pair for signing the audit trail, or a fingerprint key",
                  0, 0, [] { return std::make_unique<KeygenCommand>(); }, kKeygenDescription});
}

}  // namespace credledger::cli
