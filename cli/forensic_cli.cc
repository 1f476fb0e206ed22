// The forensic subcommands (forensic_cli.h): replay, timeline, diff and valid-credentials, over
// the server or a --db file.
#include "cli/forensic_cli.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cli/audit_flags.h"
#include "cli/audit_printer.h"
#include "cli/client_command.h"
#include "common/clock.h"
#include "common/status_macros.h"
#include "credledger/v1/api.grpc.pb.h"
#include "projections/proto_time.h"
#include "projections/timeline.h"
#include "service/offline/audit_api.h"
#include "store/sqlite_event_store.h"

namespace credledger::cli {
namespace {

using service::AuditApi;
using AuditStub = v1::AuditService::Stub;

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
        absl::StrCat("--", flag,
                     ": expected a seq (digits only) or an RFC 3339 time such as "
                     "2026-01-02T03:04:05Z, got \"",
                     value, "\""));
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

// A forensic subcommand: asks the server (the ClientCommand flags) or, with --db or --store, a log
// opened read-only through AuditApi, so that both answers go through the same printer.
class ForensicCommand : public ClientCommand {
 protected:
  // The subcommand's own flags.
  virtual void DefineQueryFlags(FlagSet&) {}

  // The answer of RPC `rpc`, or with --db or --store of `local` on that log.
  template <typename Request, typename Response>
  absl::StatusOr<Response> Ask(grpc::Status (AuditStub::*rpc)(grpc::ClientContext*, const Request&,
                                                              Response*),
                               absl::StatusOr<Response> (AuditApi::*local)(const Request&),
                               const Request& request) {
    if (!log_.given()) {
      Response response;
      RETURN_IF_ERROR(Call(rpc, request, &response));
      return response;
    }
    if (api_ == nullptr) {
      ASSIGN_OR_RETURN(store_, log_.OpenReadOnly());
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
    log_.Define(flags,
                "answer from this log file (a copy of the database), opened read-only, "
                "without a server (or from --store); --server and --as are then ignored");
    DefineQueryFlags(flags);
  }

  OfflineLogFlags log_;
  std::unique_ptr<store::EventLog> store_;
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
    flags.Add(
        "identity", &identity_,
        "an identity's history instead of a Target's (bindings, source fingerprints, mirrors)");
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

constexpr char kReplayDescription[] =
    "Shows the state exactly as it was at a point of the log (GetStateAt): the service\n"
    "configuration then in force and, per Target, its credential state and conditions and its\n"
    "report rollup. The point is a seq (digits only) or an RFC 3339 time (the state after the\n"
    "last event recorded at or before it). With --db (a copy of the SQLite database) or --store\n"
    "(the PostgreSQL log) it reads the log itself instead of asking a server.\n"
    "\n"
    "Example: what did demo/edge-1 look like at 14:00 UTC?\n"
    "  credledger replay --as-of 2026-03-14T14:00:00Z --target demo/edge-1\n";

constexpr char kTimelineDescription[] =
    "Lists a Target's history in seq order (Timeline): when, which seq, who, what happened,\n"
    "and which Secret and credentialTag it concerned, including reports and liveness gaps.\n"
    "Every entry is listed (page after page) unless --limit is given. With --output json each\n"
    "entry is one JSON object per line, ready for jq. With --db (a copy of the SQLite\n"
    "database) or --store (the PostgreSQL log) it reads the log itself instead of asking a\n"
    "server.\n"
    "\n"
    "\n"
    "With --identity NAME instead of a Target it lists an identity's history: who created,\n"
    "changed and bound it, every source fingerprint observed, and every mirror written or "
    "deleted,\n"
    "in which namespace: which namespaces held a copy of which credential, and when.\n"
    "\n"
    "Examples:\n"
    "  credledger timeline demo/edge-1 --output json | jq -r .summary\n"
    "  credledger timeline --identity aws-prod\n";

constexpr char kDiffDescription[] =
    "Shows what changed between two points of the log (Diff): Targets added or removed,\n"
    "credentials issued or deleted, revocations and lifts (each with the seq of its event),\n"
    "and condition and configuration changes (comparing the state at both points). Points are\n"
    "seqs (digits only) or RFC 3339 times. With --db (a copy of the SQLite database) or --store\n"
    "(the PostgreSQL log) it reads the log itself instead of asking a server.\n"
    "\n"
    "Example: what changed in namespace demo during the incident window?\n"
    "  credledger diff --from 2026-03-14T13:00:00Z --to 2026-03-14T15:00:00Z --namespace demo\n";

constexpr char kValidCredentialsDescription[] =
    "Lists the credentials whose tokens could authenticate at a time (ValidCredentialsAt):\n"
    "issued, not expired, and whose Secret had not been deleted yet, by credledger or, as\n"
    "observed through the watch, by anyone else. Answered from the log alone. Shows each\n"
    "token's fingerprint, never the token. With --db (a copy of the SQLite database) or --store\n"
    "(the PostgreSQL log) it reads the log itself instead of asking a server.\n"
    "\n"
    "Example: which tokens of demo could have been used when the laptop was stolen?\n"
    "  credledger valid-credentials --at 2026-03-14T13:37:00Z --namespace demo\n";

}  // namespace

void AddForensicCommands(Dispatcher& d) {
  d.Add({"replay", "", "show state, conditions and rollups as of a time or seq", 0, 0,
         [] { return std::make_unique<ReplayCommand>(); }, kReplayDescription});
  d.Add({"timeline", absl::StrCat("[", kTargetArg, "]"),
         "list a Target's (or, with --identity, an identity's) history", 0, 1,
         [] { return std::make_unique<TimelineCommand>(); }, kTimelineDescription});
  d.Add({"diff", "", "show what changed between two points of the log", 0, 0,
         [] { return std::make_unique<DiffCommand>(); }, kDiffDescription});
  d.Add({"valid-credentials", "", "list the credentials that could authenticate at a time", 0, 0,
         [] { return std::make_unique<ValidCredentialsCommand>(); }, kValidCredentialsDescription});
}

}  // namespace credledger::cli
