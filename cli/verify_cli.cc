// `credledger verify` (verify_cli.h): an export file, a --db database, or the export against
// the database, checked offline with the public keys, and optionally against the trailer of
// an earlier export (--previous).
#include "cli/verify_cli.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "audit/earlier_export.h"
#include "audit/export_verifier.h"
#include "audit/file_witness.h"
#include "audit/log_anchors.h"
#include "audit/log_verifier.h"
#include "audit/signing_key.h"
#include "audit/verification.h"
#include "audit/witness.h"
#include "cli/audit_flags.h"
#include "common/status_macros.h"
#include "store/sqlite_event_store.h"

namespace credledger::cli {
namespace {

// Opens the file at `path` for reading; `label` names it in errors ("x.jsonl", "--previous
// x.jsonl"). Errors: kNotFound when it does not exist, kFailedPrecondition when it is a
// directory or cannot be opened.
absl::StatusOr<std::ifstream> OpenInput(const std::string& path, const std::string& label) {
  if (std::filesystem::is_directory(path)) {
    return absl::FailedPreconditionError(absl::StrCat(label, ": is a directory, not an export"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const absl::StatusCode code =
        errno == ENOENT ? absl::StatusCode::kNotFound : absl::StatusCode::kFailedPrecondition;
    return absl::Status(code, absl::StrCat(label, ": cannot open: ", std::strerror(errno)));
  }
  return in;
}

class AuditVerifyCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override {
    flags.Add("public-key", &public_keys_,
              "the service's public key, PEM (required); after a key rotation give the old "
              "and the new one (repeat the flag or separate with commas)");
    flags.Add("min-seq", &min_seq_,
              "the log must reach at least this seq (the head you saw last); 0: no requirement");
    log_.Define(flags,
                "a copy of the database (opened read-only), or the log of --store: verified on "
                "its own without FILE; with FILE, every exported event is compared with it");
    flags.Add("previous", &previous_,
              "an earlier export, or a file holding just its trailer line: its signed head "
              "must still be in the log (implies --min-seq at that head)");
    flags.Add(
        "witness", &witness_,
        "with --db or --store: file:<path> of the service's witness (a copy of its ConfigMap's "
        "checkpoints, docs/audit.md \"Witnesses\"): every checkpoint in it must be in "
        "the log");
    flags.Add("max-unsigned-events", &max_unsigned_events_,
              "with --db or --store: events that may follow the newest checkpoint of a given key "
              "(the service's --checkpoint-every plus 1024)");
  }

  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    if (absl::Status usage = CheckInputs(args); !usage.ok()) {
      return ReportUsageError(usage.message(), err);
    }
    absl::StatusOr<audit::Verdict> verdict = Verify(args);
    if (!verdict.ok()) return ReportError(verdict.status(), err);
    out << audit::FormatVerdict(*verdict);
    return verdict->ok() ? kExitOk : kExitFailure;
  }

 private:
  // The combination of FILE and flags. Errors: kInvalidArgument naming the flags.
  absl::Status CheckInputs(const std::vector<std::string>& args) const {
    if (public_keys_.values.empty()) return absl::InvalidArgumentError("--public-key: required");
    if (args.empty() && !log_.given()) {
      return absl::InvalidArgumentError(
          previous_.empty() ? "give an export FILE, --db DB, or both"
                            : "--previous: needs an export FILE or --db DB to check it against");
    }
    if (min_seq_ < 0) return absl::InvalidArgumentError("--min-seq: must be 0 or more");
    if (!witness_.empty()) {
      ASSIGN_OR_RETURN(audit::WitnessSpec spec, audit::ParseWitnessSpec("--witness", witness_));
      if (spec.kind != audit::WitnessSpec::Kind::kFile) {
        return absl::InvalidArgumentError(
            "--witness: give file:<path>; copy a ConfigMap witness first with kubectl get "
            "configmap <name> -o jsonpath='{.data.checkpoints}' (docs/audit.md, \"Witnesses\")");
      }
      if (!log_.given()) return absl::InvalidArgumentError("--witness: needs --db DB or --store");
    }
    if (max_unsigned_events_ < 0) {
      return absl::InvalidArgumentError("--max-unsigned-events: must be 0 or more");
    }
    if (previous_ == "-") {
      return absl::InvalidArgumentError(
          "--previous: give the earlier export's file; stdin (-) is not read for it");
    }
    return absl::OkStatus();
  }

  // Errors: the keys', the --previous file's and the database's, and VerifyFile's.
  absl::StatusOr<audit::Verdict> Verify(const std::vector<std::string>& args) const {
    audit::KeyRing keys;
    for (const std::string& path : public_keys_.values) {
      ASSIGN_OR_RETURN(audit::PublicKey key, audit::PublicKey::LoadFile(path));
      keys.Add(key);
    }
    std::optional<v1::ExportTrailer> earlier;
    if (!previous_.empty()) {
      ASSIGN_OR_RETURN(earlier, ReadEarlierTrailer());
    }
    std::unique_ptr<store::EventLog> log;
    if (log_.given()) {
      ASSIGN_OR_RETURN(log, log_.OpenReadOnly());
    }
    const v1::ExportTrailer* earlier_trailer = earlier.has_value() ? &*earlier : nullptr;
    if (!args.empty()) return VerifyFile(args[0], keys, log.get(), earlier_trailer);
    ASSIGN_OR_RETURN(audit::Verdict verdict, audit::VerifyLog(*log, keys, min_seq_));
    if (earlier_trailer != nullptr) {
      RETURN_IF_ERROR(audit::CheckEarlierInLog(*log, keys, *earlier_trailer, verdict));
    }
    std::optional<std::vector<v1::Checkpoint>> witnessed;
    if (!witness_.empty()) {
      ASSIGN_OR_RETURN(audit::WitnessSpec spec, audit::ParseWitnessSpec("--witness", witness_));
      ASSIGN_OR_RETURN(witnessed, audit::FileWitness(spec.path, spec.text).ReadAll());
    }
    RETURN_IF_ERROR(audit::CheckAnchorsOffline(*log, keys, max_unsigned_events_,
                                               witnessed.has_value() ? &*witnessed : nullptr,
                                               witness_, verdict));
    return verdict;
  }

  // The trailer of the --previous file. Errors: OpenInput's; kInvalidArgument naming the
  // flag when its last line is not a trailer.
  absl::StatusOr<v1::ExportTrailer> ReadEarlierTrailer() const {
    const std::string label = absl::StrCat("--previous ", previous_);
    ASSIGN_OR_RETURN(std::ifstream in, OpenInput(previous_, label));
    absl::StatusOr<v1::ExportTrailer> trailer = audit::ReadLastTrailer(in);
    if (in.bad()) return absl::FailedPreconditionError(absl::StrCat(label, ": read failed"));
    if (!trailer.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": ", trailer.status().message(),
                       " (give an earlier export, or a file holding just its trailer line)"));
    }
    return trailer;
  }

  // The export at `path` ("-": stdin), against `log` and `earlier` when set.
  // Errors: OpenInput's; kFailedPrecondition when reading fails; the database's read errors.
  absl::StatusOr<audit::Verdict> VerifyFile(const std::string& path, const audit::KeyRing& keys,
                                            store::EventStore* log,
                                            const v1::ExportTrailer* earlier) const {
    audit::ExportVerifyOptions options;
    options.public_key = &keys;
    options.min_seq = min_seq_;
    options.log = log;
    options.earlier = earlier;
    if (path == "-") return audit::VerifyExport(std::cin, options);
    ASSIGN_OR_RETURN(std::ifstream in, OpenInput(path, path));
    ASSIGN_OR_RETURN(audit::Verdict verdict, audit::VerifyExport(in, options));
    if (in.bad()) return absl::FailedPreconditionError(absl::StrCat(path, ": read failed"));
    return verdict;
  }

  FlagValueList public_keys_;
  int64_t min_seq_ = 0;
  OfflineLogFlags log_;
  std::string previous_;
  std::string witness_;
  // A service's default --checkpoint-every (1000) plus one writer batch (1024).
  int64_t max_unsigned_events_ = 2024;
};

constexpr char kAuditVerifyDescription[] =
    "Checks, offline and without a server, an export FILE (\"-\" reads stdin), a copy of the\n"
    "database (--db), or both:\n"
    "  FILE          every digest from the stored bytes, every link of the global chain and of\n"
    "                each stream's chain, that nothing is missing where the export's filter\n"
    "                implies completeness, and the trailer's Ed25519 signature, whose\n"
    "                lines_hash commits to every line (an edited, dropped, added or moved line\n"
    "                fails) and whose checkpoint is checked too.\n"
    "  --db DB       the whole database: every event, every checkpoint and its signature,\n"
    "                a checkpoint at most --max-unsigned-events behind the head, and with\n"
    "                --witness every checkpoint the witness holds.\n"
    "  FILE --db DB  the export as above, and each exported event against the database's\n"
    "                event at its seq (naming the first line and field that differ), and the\n"
    "                trailer's head against the database. The database itself is not verified:\n"
    "                run --db DB alone for that.\n"
    "With --min-seq the log must reach the head you saw before (an old but genuine prefix does\n"
    "not pass). With --previous EARLIER (an earlier export, or a file holding just its trailer\n"
    "line, signed by the same keys) the log must reach the earlier head and still hold its\n"
    "chain hash at its seq, as a line of FILE, FILE's signed head or checkpoint, or the\n"
    "database shows it; a different chain hash is a fork. Prints OK with the counts (and with\n"
    "--previous which holder confirmed the earlier head), or FAILED with the first bad seq and\n"
    "what is wrong. Exits 0 only when everything verifies.\n"
    "\n"
    "Examples:\n"
    "  credledger verify edge-1.jsonl --public-key signing-key.pub.pem --min-seq 1200\n"
    "  credledger verify fleet-june.jsonl --previous fleet-may.jsonl --public-key key.pub.pem\n"
    "  credledger verify fleet.jsonl --db credledger-copy.db --public-key key.pub.pem\n"
    "  credledger verify --db credledger-copy.db --witness file:witness.jsonl --public-key "
    "key.pub.pem\n"
    "  credledger verify --store postgresql://auditor@db/credledger --public-key key.pub.pem\n"
    "\n"
    "A log on PostgreSQL is named with --store (and --store-password-file) wherever this text\n"
    "says --db DB; it is read in pages, each one statement, while the service keeps writing.\n";

}  // namespace

void AddVerifyCommand(Dispatcher& d) {
  d.Add({"verify", "[FILE]",
         "verify an export, a database, or an export against a database, offline", 0, 1,
         [] { return std::make_unique<AuditVerifyCommand>(); }, kAuditVerifyDescription});
}

}  // namespace credledger::cli
