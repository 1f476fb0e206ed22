// `credledger export` (export_cli.h): the filter flags, the stream of ExportEvents rendered
// line by line, and the --output file kept, committed or abandoned.
#include "cli/export_cli.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "audit/export_format.h"
#include "cli/audit_flags.h"
#include "cli/audit_printer.h"
#include "cli/client_connection.h"
#include "cli/export_output.h"
#include "cli/framework/file_path_flag.h"
#include "common/status_macros.h"
#include "credledger/v1/api.grpc.pb.h"
#include "service/decide/validation.h"
#include "service/wire/grpc_status.h"
#include "service/wire/request_id.h"
#include "store/event_codec.h"

namespace credledger::cli {
namespace {

// Package of the event types; --type accepts names without it.
constexpr char kEventPackage[] = "credledger.v1.";

// The unix microseconds of a time bound: rounded up for a lower bound, down for an upper one,
// so that no event outside [from, to] is included.
int64_t BoundMicros(absl::Time t, bool lower) {
  const int64_t us = absl::ToUnixMicros(t);  // rounds down
  return lower && absl::FromUnixMicros(us) < t ? us + 1 : us;
}

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
      // A refused request (bad input, a refused caller, a stream limit) exported nothing worth
      // resuming; anything else may stop midway.
      const bool refused = status.code() == absl::StatusCode::kInvalidArgument ||
                           status.code() == absl::StatusCode::kPermissionDenied ||
                           status.code() == absl::StatusCode::kUnauthenticated ||
                           status.code() == absl::StatusCode::kResourceExhausted;
      if (!refused || tally.events > 0) {
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
      return absl::InvalidArgumentError(
          "--stream, --stream-prefix and --target exclude each other");
    }
    filter.set_stream(stream_);
    filter.set_stream_prefix(stream_prefix_);
    if (!target_.empty()) {
      std::string target_namespace, name;
      RETURN_IF_ERROR(SplitTargetFlag(target_, &target_namespace, &name));
      RETURN_IF_ERROR(service::ValidateDnsLabel("--target namespace", target_namespace));
      RETURN_IF_ERROR(service::ValidateDnsLabel("--target name", name));
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
    v1::AuditService::Stub stub(channel);
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
    RETURN_IF_ERROR(service::WithCallRequestId(connection_.Explain(service::FromGrpcStatus(status)),
                                               request_id));
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

}  // namespace

void AddExportCommand(Dispatcher& d) {
  d.Add({"export", "", "export events of the log as JSON Lines, CloudEvents or CSV", 0, 0,
         [] { return std::make_unique<ExportCommand>(); }, kExportDescription});
}

}  // namespace credledger::cli
