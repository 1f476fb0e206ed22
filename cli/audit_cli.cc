#include "cli/audit_cli.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "audit/export_format.h"
#include "audit/export_verifier.h"
#include "audit/log_verifier.h"
#include "audit/signing_key.h"
#include "audit/verification.h"
#include "cli/audit_printer.h"
#include "cli/client_command.h"
#include "cli/export_output.h"
#include "cli/framework/file_path_flag.h"
#include "common/clock.h"
#include "common/status_macros.h"
#include "credledger/v1/api.grpc.pb.h"
#include "projections/proto_time.h"
#include "projections/timeline.h"
#include "service/decide/validation.h"
#include "service/decide/validation.h"
#include "service/offline/audit_api.h"
#include "service/wire/request_id.h"
#include "store/sqlite_event_store.h"

namespace credledger::service {
namespace {

using AuditStub = v1::AuditService::Stub;

// Package of the event types; --type accepts names without it.
constexpr char kEventPackage[] = "credledger.v1.";

// Splits the value of a --target flag. Errors: kInvalidArgument unless <namespace>/<name>.
absl::Status SplitTargetFlag(const std::string& value, std::string* target_namespace,
                             std::string* name) {
  if (SplitTarget(value, target_namespace, name)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--target: expected ", kTargetArg, ", got \"", value, "\""));
}

// An RFC 3339 time with any offset and fraction ("2026-01-02T03:04:05Z",
// "2026-01-02T05:04:05.25+02:00"). Errors: kInvalidArgument naming `flag`.
absl::StatusOr<absl::Time> ParseTimeFlag(absl::string_view flag, const std::string& value) {
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, value, &t, &error)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, ": expected an RFC 3339 time such as 2026-01-02T03:04:05Z, got \"", value,
        "\""));
  }
  return t;
}

// The unix microseconds of a time bound: rounded up for a lower bound, down for an upper one,
// so that no event outside [from, to] is included.
int64_t BoundMicros(absl::Time t, bool lower) {
  const int64_t us = absl::ToUnixMicros(t);  // rounds down
  return lower && absl::FromUnixMicros(us) < t ? us + 1 : us;
}

// A point of the log: a value made only of digits is a seq, any other an RFC 3339 time.
// Errors: kInvalidArgument naming `flag`.
absl::StatusOr<v1::LogPoint> ParsePoint(absl::string_view flag, const std::string& value) {
  if (value.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": required (a seq or an RFC 3339 time)"));
  }
  v1::LogPoint point;
  if (std::all_of(value.begin(), value.end(), absl::ascii_isdigit)) {
    int64_t seq = 0;
    if (!absl::SimpleAtoi(value, &seq)) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, ": seq ", value, " is too big"));
    }
    point.set_seq(seq);
    return point;
  }
  absl::StatusOr<absl::Time> t = ParseTimeFlag(flag, value);
  if (!t.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": expected a seq (digits only) or an RFC 3339 time such as "
                     "2026-01-02T03:04:05Z, got \"", value, "\""));
  }
  *point.mutable_time() = projections::ToProto(*t);
  return point;
}

// Which Targets a forensic question is about: --target ns/name, --namespace ns, or all.
struct Scope {
  std::string target;
  std::string target_namespace;

  void Define(FlagSet& flags) {
    flags.Add("target", &target, "only this Target, as <namespace>/<name>");
    flags.Add("namespace", &target_namespace, "only Targets of this namespace");
  }
  // Sets `request`'s namespace and name. Errors: kInvalidArgument for both flags or a
  // malformed --target.
  template <typename Request>
  absl::Status Apply(Request& request) const {
    if (!target.empty() && !target_namespace.empty()) {
      return absl::InvalidArgumentError("--target and --namespace exclude each other");
    }
    if (target.empty()) {
      request.set_namespace_(target_namespace);
      return absl::OkStatus();
    }
    std::string target_namespace_part, name;
    RETURN_IF_ERROR(SplitTargetFlag(target, &target_namespace_part, &name));
    request.set_namespace_(target_namespace_part);
    request.set_name(name);
    return absl::OkStatus();
  }
};

// Opens an existing log file for reading only. Errors: SqliteEventStore::Open's, with the
// message naming `--db`.
absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> OpenReadOnly(const std::string& path) {
  store::SqliteEventStoreOptions options;
  options.path = path;
  options.read_only = true;
  absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> opened =
      store::SqliteEventStore::Open(options);
  if (!opened.ok()) {
    return absl::Status(opened.status().code(),
                        absl::StrCat("--db ", path, ": ", opened.status().message()));
  }
  return opened;
}

// A forensic subcommand: asks the server (the ClientCommand flags) or, with --db, a log file
// opened read-only through AuditApi, so that both answers go through the same printer.
class ForensicCommand : public ClientCommand {
 protected:
  // The subcommand's own flags.
  virtual void DefineQueryFlags(FlagSet&) {}

  // The answer of RPC `rpc`, or with --db of `local` on the log file.
  template <typename Request, typename Response>
  absl::StatusOr<Response> Ask(grpc::Status (AuditStub::*rpc)(grpc::ClientContext*, const Request&,
                                                              Response*),
                               absl::StatusOr<Response> (AuditApi::*local)(const Request&),
                               const Request& request) {
    if (db_.empty()) {
      Response response;
      RETURN_IF_ERROR(Call(rpc, request, &response));
      return response;
    }
    if (api_ == nullptr) {
      ASSIGN_OR_RETURN(store_, OpenReadOnly(db_));
      api_ = std::make_unique<AuditApi>(store_.get(), /*signing_key=*/nullptr,
                                        common::RealClock::Default());
    }
    return (api_.get()->*local)(request);
  }

  // Asks as Ask does and prints the response, with `text(response)` as its text; returns
  // the exit code.
  template <typename Request, typename Response, typename Text>
  int Answer(grpc::Status (AuditStub::*rpc)(grpc::ClientContext*, const Request&, Response*),
             absl::StatusOr<Response> (AuditApi::*local)(const Request&), const Request& request,
             Text text, std::ostream& out, std::ostream& err) {
    absl::StatusOr<Response> response = Ask(rpc, local, request);
    if (!response.ok()) return ReportError(response.status(), err);
    return Print(*response, text(*response), out, err);
  }

 private:
  void DefineOwnFlags(FlagSet& flags) final {
    flags.Add("db", &db_,
              "answer from this log file (a copy of the database), opened read-only, "
              "without a server; --server and --as are then ignored");
    DefineQueryFlags(flags);
  }

  std::string db_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<AuditApi> api_;  // over store_
};

class ReplayCommand final : public ForensicCommand {
 public:
  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    v1::GetStateAtRequest request;
    if (absl::Status s = Build(request); !s.ok()) return ReportUsageError(s.message(), err);
    return Answer(&AuditStub::GetStateAt, &AuditApi::GetStateAt, request, FormatStateAtText, out,
                  err);
  }

 private:
  absl::Status Build(v1::GetStateAtRequest& request) const {
    ASSIGN_OR_RETURN(*request.mutable_as_of(), ParsePoint("as-of", as_of_));
    return scope_.Apply(request);
  }
  void DefineQueryFlags(FlagSet& flags) override {
    flags.Add("as-of", &as_of_, "the point: a seq (digits only) or an RFC 3339 time (required)");
    scope_.Define(flags);
  }
  std::string as_of_;
  Scope scope_;
};

class TimelineCommand final : public ForensicCommand {
 public:
  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    v1::TimelineRequest request;
    if (args.empty() == identity_.empty()) {
      return ReportUsageError("give a Target <namespace>/<name> or --identity NAME (one of them)",
                              err);
    }
    if (!args.empty()) {
      std::string target_namespace, name;
      if (!SplitTarget(args[0], &target_namespace, &name)) return BadTarget(args[0], err);
      request.set_namespace_(target_namespace);
      request.set_name(name);
    }
    request.set_identity(identity_);
    if (after_seq_ < 0) return ReportUsageError("--after-seq: must be 0 or more", err);
    if (limit_ < 0) return ReportUsageError("--limit: must be 1 or more", err);
    request.set_after_seq(after_seq_);
    request.set_limit(limit_);
    while (true) {
      absl::StatusOr<v1::TimelineResponse> page =
          Ask(&AuditStub::Timeline, &AuditApi::Timeline, request);
      if (!page.ok()) return ReportError(page.status(), err);
      for (const v1::TimelineEntry& entry : page->entries()) {
        const int code = Print(entry, projections::FormatTimelineEntry(entry), out, err);
        if (code != kExitOk) return code;
      }
      // With --limit one page is the answer; without, follow every page.
      if (limit_ > 0 || page->next_after_seq() == 0) return kExitOk;
      request.set_after_seq(page->next_after_seq());
    }
  }

 private:
  void DefineQueryFlags(FlagSet& flags) override {
    flags.Add("identity", &identity_,
              "an identity's history instead of a Target's (bindings, source hashes, mirrors)");
    flags.Add("after-seq", &after_seq_, "only entries after this seq");
    flags.Add("limit", &limit_,
              "at most this many entries (1..10000); without it every entry is listed");
  }
  std::string identity_;
  int64_t after_seq_ = 0;
  int32_t limit_ = 0;
};

class DiffCommand final : public ForensicCommand {
 public:
  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    v1::DiffRequest request;
    if (absl::Status s = Build(request); !s.ok()) return ReportUsageError(s.message(), err);
    return Answer(&AuditStub::Diff, &AuditApi::Diff, request, FormatDiffText, out, err);
  }

 private:
  absl::Status Build(v1::DiffRequest& request) const {
    ASSIGN_OR_RETURN(*request.mutable_from(), ParsePoint("from", from_));
    ASSIGN_OR_RETURN(*request.mutable_to(), ParsePoint("to", to_));
    return scope_.Apply(request);
  }
  void DefineQueryFlags(FlagSet& flags) override {
    flags.Add("from", &from_, "the earlier point: a seq or an RFC 3339 time (required)");
    flags.Add("to", &to_, "the later point: a seq or an RFC 3339 time (required)");
    scope_.Define(flags);
  }
  std::string from_;
  std::string to_;
  Scope scope_;
};

class ValidCredentialsCommand final : public ForensicCommand {
 public:
  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    v1::ValidCredentialsAtRequest request;
    if (absl::Status s = Build(request); !s.ok()) return ReportUsageError(s.message(), err);
    // The time asked, as the request carries it (microseconds).
    const absl::Time at = projections::FromProto(request.time());
    return Answer(
        &AuditStub::ValidCredentialsAt, &AuditApi::ValidCredentialsAt, request,
        [at](const v1::ValidCredentialsAtResponse& r) { return FormatValidCredentialsText(r, at); },
        out, err);
  }

 private:
  absl::Status Build(v1::ValidCredentialsAtRequest& request) const {
    if (at_.empty()) return absl::InvalidArgumentError("--at: required (an RFC 3339 time)");
    ASSIGN_OR_RETURN(const absl::Time at, ParseTimeFlag("at", at_));
    *request.mutable_time() = projections::ToProto(at);
    return scope_.Apply(request);
  }
  void DefineQueryFlags(FlagSet& flags) override {
    flags.Add("at", &at_, "the time: RFC 3339 (required)");
    scope_.Define(flags);
  }
  std::string at_;
  Scope scope_;
};

// The values of a repeatable flag: every occurrence appends its comma-separated values.
// absl's flag marshalling finds AbslParseFlag and AbslUnparseFlag by argument-dependent
// lookup.
struct FlagValueList {
  std::vector<std::string> values;
};

bool AbslParseFlag(absl::string_view text, FlagValueList* list, std::string* error) {
  for (absl::string_view value : absl::StrSplit(text, ',')) {
    if (value.empty()) {
      *error = "empty value in the list";
      return false;
    }
    list->values.emplace_back(value);
  }
  return true;
}

std::string AbslUnparseFlag(const FlagValueList& list) { return absl::StrJoin(list.values, ","); }

class ExportCommand final : public Subcommand {
 public:
  // Not a ClientCommand: its --output names the file, not the text|json choice.
  absl::Status CheckFlags() const override {
    RETURN_IF_ERROR(connection_.CheckFlags());
    if (after_seq_ < 0) return absl::InvalidArgumentError("--after-seq: must be 0 or more");
    if (until_seq_ < 0) {
      return absl::InvalidArgumentError("--until-seq: must be 0 or more (0: up to the head)");
    }
    if (until_seq_ > 0 && until_seq_ < after_seq_) {
      return absl::InvalidArgumentError(
          absl::StrCat("--until-seq: ", until_seq_, " is below --after-seq ", after_seq_));
    }
    if (output_.empty() && flags_->Given("output")) {
      return absl::InvalidArgumentError(
          "--output: must not be empty; leave the flag out (or give -) to write to stdout");
    }
    if (ToStdout()) {
      if (overwrite_) return absl::InvalidArgumentError("--overwrite: needs --output FILE");
      return absl::OkStatus();
    }
    return CheckFilePathFlag("--output", output_);
  }

  void DefineFlags(FlagSet& flags) override {
    flags_ = &flags;
    connection_.DefineFlags(flags);
    flags.AddChoice("format", &format_, {"jsonl", "cloudevents", "csv"},
                    "export format; csv cannot be verified");
    flags.Add("output", &output_, "write the export to this file instead of stdout (-: stdout)");
    flags.Add("overwrite", &overwrite_,
              "replace an existing --output file, once the new export is complete");
    flags.Add("after-seq", &after_seq_, "only events after this seq (resume point)");
    flags.Add("until-seq", &until_seq_, "only events up to this seq; 0: up to the head");
    flags.Add("from", &from_, "only events recorded at or after this RFC 3339 time");
    flags.Add("to", &to_, "only events recorded at or before this RFC 3339 time");
    flags.Add("stream", &stream_, "only this stream (target/<namespace>/<name>, ...)");
    flags.Add("stream-prefix", &stream_prefix_,
              "only streams starting with this (target/<namespace>/ for one namespace)");
    flags.Add("target", &target_,
              "only this Target's stream, as <namespace>/<name> (--stream target/<ns>/<name>)");
    flags.Add("type", &types_,
              "only these event types (CredentialIssued or credledger.v1.CredentialIssued); "
              "repeat the flag or separate with commas");
  }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    v1::ExportEventsRequest request;
    if (absl::Status s = BuildFilter(*request.mutable_filter()); !s.ok()) {
      return ReportUsageError(s.message(), err);
    }
    absl::StatusOr<audit::ExportFormat> format = audit::ParseExportFormat(format_);
    if (!format.ok()) return ReportUsageError(format.status().message(), err);
    std::unique_ptr<ExportOutput> file;
    if (!ToStdout()) {
      absl::StatusOr<std::unique_ptr<ExportOutput>> opened =
          ExportOutput::Open(output_, overwrite_);
      if (!opened.ok()) {
        err << "error: " << opened.status().message() << "\n";
        return kExitFailure;
      }
      file = *std::move(opened);
    }
    std::ostream& sink = file == nullptr ? out : file->stream();
    ExportTally tally;
    v1::ExportTrailer trailer;
    const absl::Status status = Stream(request, *format, sink, tally, trailer);
    if (!status.ok()) {
      ReportError(status, err);
      // A .partial with no event in it (a refused request, an unreachable server) is removed;
      // one with events is kept for the resumed export to follow.
      const std::string kept = file == nullptr ? "" : file->Abandon(tally.events > 0);
      // A refused request exported nothing worth resuming; anything else may stop midway.
      if (status.code() != absl::StatusCode::kInvalidArgument) {
        err << "the export is incomplete" << (kept.empty() ? "" : absl::StrCat(" (", kept, ")"))
            << ": resume with --after-seq " << (tally.events > 0 ? tally.last_seq : after_seq_)
            << (kept.empty() ? "" : " into another --output") << "\n";
      }
      return kExitFailure;
    }
    if (file != nullptr) {
      if (absl::Status committed = file->Commit(); !committed.ok()) {
        err << "error: " << committed.message() << "\n";
        return kExitFailure;
      }
    }
    err << FormatExportSummary(*format, tally, trailer) << "\n";
    return kExitOk;
  }

 private:
  absl::Status BuildFilter(v1::ExportFilter& filter) const {
    filter.set_after_seq(after_seq_);
    filter.set_until_seq(until_seq_);
    if (!from_.empty()) {
      ASSIGN_OR_RETURN(const absl::Time from, ParseTimeFlag("from", from_));
      filter.set_from_time_us(BoundMicros(from, /*lower=*/true));
    }
    if (!to_.empty()) {
      ASSIGN_OR_RETURN(const absl::Time to, ParseTimeFlag("to", to_));
      filter.set_to_time_us(BoundMicros(to, /*lower=*/false));
    }
    const int streams = !stream_.empty() + !stream_prefix_.empty() + !target_.empty();
    if (streams > 1) {
      return absl::InvalidArgumentError("--stream, --stream-prefix and --target exclude each "
                                        "other");
    }
    filter.set_stream(stream_);
    filter.set_stream_prefix(stream_prefix_);
    if (!target_.empty()) {
      std::string target_namespace, name;
      RETURN_IF_ERROR(SplitTargetFlag(target_, &target_namespace, &name));
      RETURN_IF_ERROR(ValidateDnsLabel("--target namespace", target_namespace));
      RETURN_IF_ERROR(ValidateDnsLabel("--target name", name));
      filter.set_stream(absl::StrCat("target/", target_namespace, "/", name));
    }
    for (const std::string& type : types_.values) {
      filter.add_types(type.find('.') == std::string::npos ? absl::StrCat(kEventPackage, type)
                                                           : type);
    }
    return absl::OkStatus();
  }

  // Calls ExportEvents and writes every line to `sink` as it arrives; fills `tally` with
  // what is known written (flushed after each message) and `trailer` with the stream's
  // trailer.
  // Errors: the call's (with a connection hint, ClientConnection::Explain, and the call
  // request id); kDataLoss for an event that does not render; kUnavailable when `sink`
  // fails; kDataLoss when the stream ends without a trailer.
  absl::Status Stream(const v1::ExportEventsRequest& request, audit::ExportFormat format,
                      std::ostream& sink, ExportTally& tally, v1::ExportTrailer& trailer) const {
    const store::EventCodec& codec = store::EventCodec::Default();
    // No deadline: an export of a large log streams for as long as it takes.
    ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> channel, connection_.Channel());
    grpc::ClientContext context;
    const std::string request_id = connection_.Declare(context);
    AuditStub stub(channel);
    std::unique_ptr<grpc::ClientReader<v1::ExportEventsResponse>> reader =
        stub.ExportEvents(&context, request);
    const char* const line_end = format == audit::ExportFormat::kCsv ? "" : "\n";
    sink << audit::RenderHeader(format);
    absl::Status failure;
    bool has_trailer = false;
    ExportTally pending;  // what was written, including lines not yet flushed
    v1::ExportEventsResponse response;
    while (reader->Read(&response)) {
      for (const v1::ExportedEvent& exported : response.events()) {
        absl::StatusOr<std::string> line =
            audit::RenderEvent(format, audit::FromExported(exported), codec);
        if (!line.ok()) {
          failure = line.status();
          break;
        }
        sink << *line << line_end;
        pending.last_seq = exported.seq();
        if (pending.events++ == 0) pending.first_seq = exported.seq();
      }
      if (failure.ok() && response.has_trailer()) {
        trailer = response.trailer();
        has_trailer = true;
        if (audit::IsVerifiable(format)) sink << audit::RenderTrailer(format, trailer) << "\n";
      }
      if (!failure.ok()) break;
      if (!sink.flush()) {
        failure = absl::UnavailableError(
            absl::StrCat("writing ", ToStdout() ? std::string("stdout") : output_, " failed"));
        break;
      }
      tally = pending;
    }
    if (!failure.ok()) context.TryCancel();
    const grpc::Status status = reader->Finish();
    if (!failure.ok()) return failure;
    RETURN_IF_ERROR(WithCallRequestId(connection_.Explain(FromGrpcStatus(status)), request_id));
    if (!has_trailer) return absl::DataLossError("the server ended the export without a trailer");
    return absl::OkStatus();
  }

  const FlagSet* flags_ = nullptr;  // the set DefineFlags filled; outlives CheckFlags and Run
  // Whether the export goes to stdout: no --output, or --output -.
  bool ToStdout() const { return output_.empty() || output_ == "-"; }

  ClientConnection connection_;
  std::string format_ = "jsonl";
  std::string output_;
  bool overwrite_ = false;
  int64_t after_seq_ = 0;
  int64_t until_seq_ = 0;
  std::string from_;
  std::string to_;
  std::string stream_;
  std::string stream_prefix_;
  std::string target_;
  FlagValueList types_;
};

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

constexpr char kExportDescription[] =
    "Streams the events of the log, in seq order, from the server (ExportEvents) as JSON\n"
    "Lines (one event per line, with the stored bytes and hashes), CloudEvents 1.0 (one\n"
    "structured event per line, for a SIEM) or CSV (for spreadsheets). jsonl and cloudevents\n"
    "end with a trailer signed by the service's key, so that `credledger verify` can check\n"
    "the export offline; csv has no trailer and cannot be verified. A one-line summary goes\n"
    "to stderr. If the export stops midway, it says so and names the --after-seq to resume\n"
    "with; the resumed part has its own trailer. --output never replaces an existing file\n"
    "unless --overwrite is given, and then only once the new export is complete; an\n"
    "interrupted export's <file>.partial is kept, so write the resumed part to another file.\n"
    "\n"
    "Example: one Target's history since the start of the month, for an auditor:\n"
    "  credledger export --target demo/edge-1 --from 2026-03-01T00:00:00Z --output edge-1.jsonl\n";

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

constexpr char kReplayDescription[] =
    "Shows the state exactly as it was at a point of the log (GetStateAt): the service\n"
    "configuration then in force and, per Target, its credential state and conditions and its\n"
    "report rollup. The point is a seq (digits only) or an RFC 3339 time (the state after the\n"
    "last event recorded at or before it). With --db it reads a copy of the database instead\n"
    "of asking a server.\n"
    "\n"
    "Example: what did demo/edge-1 look like at 14:00 UTC?\n"
    "  credledger replay --as-of 2026-03-14T14:00:00Z --target demo/edge-1\n";

constexpr char kTimelineDescription[] =
    "Lists a Target's history in seq order (Timeline): when, which seq, who, what happened,\n"
    "and which Secret and credentialTag it concerned, including reports and liveness gaps.\n"
    "Every entry is listed (page after page) unless --limit is given. With --output json each\n"
    "entry is one JSON object per line, ready for jq. With --db it reads a copy of the\n"
    "database instead of asking a server.\n"
    "\n"
    "\n"
    "With --identity NAME instead of a Target it lists an identity's history: who created,\n"
    "changed and bound it, every source hash observed, and every mirror written or deleted,\n"
    "in which namespace: which namespaces held a copy of which credential, and when.\n"
    "\n"
    "Examples:\n"
    "  credledger timeline demo/edge-1 --output json | jq -r .summary\n"
    "  credledger timeline --identity aws-prod\n";

constexpr char kDiffDescription[] =
    "Shows what changed between two points of the log (Diff): Targets added or removed,\n"
    "credentials issued or deleted, revocations and lifts (each with the seq of its event),\n"
    "and condition and configuration changes (comparing the state at both points). Points are\n"
    "seqs (digits only) or RFC 3339 times. With --db it reads a copy of the database instead\n"
    "of asking a server.\n"
    "\n"
    "Example: what changed in namespace demo during the incident window?\n"
    "  credledger diff --from 2026-03-14T13:00:00Z --to 2026-03-14T15:00:00Z --namespace demo\n";

constexpr char kValidCredentialsDescription[] =
    "Lists the credentials whose tokens could authenticate at a time (ValidCredentialsAt):\n"
    "issued, not expired, and whose Secret had not been deleted yet, by credledger or, as\n"
    "observed through the watch, by anyone else. Answered from the log alone. Shows each\n"
    "token's fingerprint, never the token. With --db it reads a copy of the database instead\n"
    "of asking a server.\n"
    "\n"
    "Example: which tokens of demo could have been used when the laptop was stolen?\n"
    "  credledger valid-credentials --at 2026-03-14T13:37:00Z --namespace demo\n";

}  // namespace

void AddAuditCommands(Dispatcher& d) {
  d.Add({"export", "", "export events of the log as JSON Lines, CloudEvents or CSV", 0, 0,
         [] { return std::make_unique<ExportCommand>(); }, kExportDescription});
  d.Add({"verify", "[FILE]", "verify an export or a database offline with the public key", 0, 1,
         [] { return std::make_unique<AuditVerifyCommand>(); }, kAuditVerifyDescription});
  d.Add({"replay", "", "show state, conditions and rollups as of a time or seq", 0, 0,
         [] { return std::make_unique<ReplayCommand>(); }, kReplayDescription});
  d.Add({"timeline", absl::StrCat("[", kTargetArg, "]"),
         "list a Target's (or, with --identity, an identity's) history", 0, 1,
         [] { return std::make_unique<TimelineCommand>(); }, kTimelineDescription});
  d.Add({"diff", "", "show what changed between two points of the log", 0, 0,
         [] { return std::make_unique<DiffCommand>(); }, kDiffDescription});
  d.Add({"valid-credentials", "", "list the credentials that could authenticate at a time", 0,
         0, [] { return std::make_unique<ValidCredentialsCommand>(); },
         kValidCredentialsDescription});
}

}  // namespace credledger::service
