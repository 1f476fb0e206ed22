// `credledger verify` (verify_cli.h): an export file or a --db database, checked offline
// with the public keys.
#include "cli/verify_cli.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "audit/export_verifier.h"
#include "audit/log_verifier.h"
#include "audit/signing_key.h"
#include "audit/verification.h"
#include "cli/audit_flags.h"
#include "common/status_macros.h"
#include "store/sqlite_event_store.h"

namespace credledger::cli {
namespace {

class AuditVerifyCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override {
    flags.Add("public-key", &public_keys_,
              "the service's public key, PEM (required); after a key rotation give the old "
              "and the new one (repeat the flag or separate with commas)");
    flags.Add("min-seq", &min_seq_,
              "the log must reach at least this seq (the head you saw last); 0: no requirement");
    flags.Add("db", &db_, "verify this database file (opened read-only) instead of an export");
  }

  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    if (public_keys_.values.empty()) return ReportUsageError("--public-key: required", err);
    if (args.empty() == db_.empty()) {
      return ReportUsageError("give exactly one of an export FILE or --db DB", err);
    }
    if (min_seq_ < 0) return ReportUsageError("--min-seq: must be 0 or more", err);
    audit::KeyRing keys;
    for (const std::string& path : public_keys_.values) {
      absl::StatusOr<audit::PublicKey> key = audit::PublicKey::LoadFile(path);
      if (!key.ok()) return ReportError(key.status(), err);
      keys.Add(*key);
    }
    absl::StatusOr<audit::Verdict> verdict = db_.empty() ? VerifyFile(args[0], keys)
                                                         : VerifyDatabase(keys);
    if (!verdict.ok()) return ReportError(verdict.status(), err);
    out << audit::FormatVerdict(*verdict);
    return verdict->ok() ? kExitOk : kExitFailure;
  }

 private:
  // Errors: kNotFound or kFailedPrecondition when `path` cannot be read.
  absl::StatusOr<audit::Verdict> VerifyFile(const std::string& path,
                                            const audit::KeyRing& keys) const {
    audit::ExportVerifyOptions options;
    options.public_key = &keys;
    options.min_seq = min_seq_;
    if (path == "-") return audit::VerifyExport(std::cin, options);
    if (std::filesystem::is_directory(path)) {
      return absl::FailedPreconditionError(absl::StrCat(path, ": is a directory, not an export"));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      const absl::StatusCode code =
          errno == ENOENT ? absl::StatusCode::kNotFound : absl::StatusCode::kFailedPrecondition;
      return absl::Status(code, absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
    }
    audit::Verdict verdict = audit::VerifyExport(in, options);
    if (in.bad()) return absl::FailedPreconditionError(absl::StrCat(path, ": read failed"));
    return verdict;
  }

  // Errors: the store's when the file cannot be opened or read.
  absl::StatusOr<audit::Verdict> VerifyDatabase(const audit::KeyRing& keys) const {
    ASSIGN_OR_RETURN(std::unique_ptr<store::SqliteEventStore> log, OpenReadOnly(db_));
    return audit::VerifyLog(*log, keys, min_seq_);
  }

  FlagValueList public_keys_;
  int64_t min_seq_ = 0;
  std::string db_;
};

constexpr char kAuditVerifyDescription[] =
    "Checks an export file (\"-\" reads stdin) or, with --db, a database file, offline and\n"
    "without a server: every digest from the stored bytes, every link of the global chain and\n"
    "of each stream's chain, that nothing is missing where the export's filter implies\n"
    "completeness, the trailer's and checkpoints' Ed25519 signatures with the public key, and\n"
    "with --min-seq that the log reaches the head you saw before (an old but genuine prefix\n"
    "does not pass). Prints OK with the counts, or FAILED with the first bad seq and what is\n"
    "wrong. Exits 0 only when everything verifies.\n"
    "\n"
    "Example:\n"
    "  credledger verify edge-1.jsonl --public-key signing-key.pub.pem --min-seq 1200\n";

}  // namespace

void AddVerifyCommand(Dispatcher& d) {
  d.Add({"verify", "[FILE]", "verify an export or a database offline with the public key", 0, 1,
         [] { return std::make_unique<AuditVerifyCommand>(); }, kAuditVerifyDescription});
}

}  // namespace credledger::cli
