#include "cli/target_cli.h"

#include <grpcpp/grpcpp.h>

#include <functional>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/client_command.h"
#include "cli/target_printer.h"
#include "credledger/v1/api.grpc.pb.h"
#include "service/decide/validation.h"
#include "service/wire/grpc_status.h"

namespace credledger::cli {
namespace {

using TargetStub = v1::TargetService::Stub;

// One mutating subcommand: its RPC, past-tense verb, and extra string flags copied into
// the request.
template <typename Request, typename Response>
class MutationCommand final : public ClientCommand {
 public:
  using Method = grpc::Status (TargetStub::*)(grpc::ClientContext*, const Request&, Response*);
  struct ExtraFlag {
    std::string name;
    std::string help;
    std::function<void(Request&, const std::string&)> set;
    bool required = false;  // refused before anything is sent when left out
  };

  MutationCommand(Method call, std::string verb, std::vector<ExtraFlag> extras)
      : call_(call), verb_(std::move(verb)), extras_(std::move(extras)) {}

  // ClientCommand's checks, then every required extra flag given.
  // Errors: kInvalidArgument "--<flag>: required".
  absl::Status CheckFlags() const override {
    if (absl::Status checked = ClientCommand::CheckFlags(); !checked.ok()) return checked;
    for (const ExtraFlag& extra : extras_) {
      if (extra.required && !flags_->Given(extra.name)) {
        return absl::InvalidArgumentError(absl::StrCat("--", extra.name, ": required"));
      }
    }
    return absl::OkStatus();
  }

  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    Request request;
    std::string target_namespace, name;
    if (!SplitTarget(args[0], &target_namespace, &name)) return BadTarget(args[0], err);
    request.set_namespace_(target_namespace);
    request.set_name(name);
    if (const int checked = CheckRequestIdFlag(flags_->Given("request-id"), request_id_, err);
        checked != kExitOk) {
      return checked;
    }
    // A flag given with an empty value (an unset shell variable, say) is a mistake, not a
    // request for the default: refuse it.
    for (const ExtraFlag* extra : GivenButEmpty()) {
      err << "error: --" << extra->name << " is given but empty; "
          << (extra->required ? "it is required: give a value" : "leave it out for the default")
          << "\n";
      return kExitUsage;
    }
    absl::StatusOr<std::string> request_id = RequestIdOrNew(request_id_, err);
    if (!request_id.ok()) return ReportError(request_id.status(), err);
    request.set_request_id(*request_id);
    for (const ExtraFlag& extra : extras_) extra.set(request, values_[extra.name]);
    return CallAndPrint(
        call_, request, [this](const Response& response) { return Text(response); }, out, err);
  }

 private:
  void DefineOwnFlags(FlagSet& flags) override {
    flags_ = &flags;
    flags.Add("request-id", &request_id_,
              "idempotency key of the call; generated and printed when absent");
    for (const ExtraFlag& extra : extras_) flags.Add(extra.name, &values_[extra.name], extra.help);
  }

  std::vector<const ExtraFlag*> GivenButEmpty() {
    std::vector<const ExtraFlag*> empty;
    for (const ExtraFlag& extra : extras_) {
      if (flags_->Given(extra.name) && values_[extra.name].empty()) empty.push_back(&extra);
    }
    return empty;
  }

  std::string Text(const Response& response) const {
    const v1::Target& t = response.target();
    std::string summary = absl::StrCat(verb_, " ", t.namespace_(), "/", t.name());
    if (response.replayed()) {
      absl::StrAppend(&summary, ": request already answered, nothing appended (seq ",
                      response.seq(), ")");
    } else if (response.seq() == 0) {
      absl::StrAppend(&summary, ": already in that state, nothing appended");
    } else {
      absl::StrAppend(&summary, " (seq ", response.seq(), ")");
    }
    std::string text = absl::StrCat(summary, "\n", FormatTargetText(t));
    if constexpr (std::is_same_v<Response, v1::ConfirmRolloutResponse>) {
      const auto& released = response.released_secrets();
      absl::StrAppend(&text,
                      "  released:    ", released.empty() ? "none" : absl::StrJoin(released, ", "),
                      "\n");
    }
    return text;
  }

  Method call_;
  std::string verb_;
  std::vector<ExtraFlag> extras_;
  std::string request_id_;
  const FlagSet* flags_ = nullptr;  // the set DefineOwnFlags filled; outlives Run
  std::map<std::string, std::string> values_;
};

class TargetGetCommand final : public ClientCommand {
 public:
  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    v1::GetTargetRequest request;
    std::string target_namespace, name;
    if (!SplitTarget(args[0], &target_namespace, &name)) return BadTarget(args[0], err);
    request.set_namespace_(target_namespace);
    request.set_name(name);
    return CallAndPrint(
        &TargetStub::GetTarget, request,
        [](const v1::GetTargetResponse& r) { return FormatTargetText(r.target()); }, out, err);
  }
};

class TargetListCommand final : public ClientCommand {
 public:
  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    v1::ListTargetsRequest request;
    request.set_namespace_(namespace_);
    request.set_include_finalized(include_finalized_);
    return CallAndPrint(
        &TargetStub::ListTargets, request,
        [](const v1::ListTargetsResponse& r) {
          std::string text = FormatTargetTableHeader();
          for (const v1::Target& t : r.targets()) absl::StrAppend(&text, FormatTargetRow(t));
          return text;
        },
        out, err);
  }

 private:
  void DefineOwnFlags(FlagSet& flags) override {
    flags.Add("namespace", &namespace_, "only Targets of this namespace");
    flags.Add("include-finalized", &include_finalized_, "also list finalized Targets");
  }
  std::string namespace_;
  bool include_finalized_ = false;
};

class WatchCommand final : public ClientCommand {
 public:
  absl::Status CheckFlags() const override {
    if (absl::Status checked = ClientCommand::CheckFlags(); !checked.ok()) return checked;
    if (after_seq_ < 0) return absl::InvalidArgumentError("--after-seq: must be 0 or more");
    return absl::OkStatus();
  }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    v1::WatchTargetsRequest request;
    request.set_namespace_(namespace_);
    request.set_after_seq(after_seq_);
    return PrintStream(&TargetStub::WatchTargets, request, FormatWatchItem, out, err);
  }

 private:
  void DefineOwnFlags(FlagSet& flags) override {
    flags.Add("namespace", &namespace_, "only Targets of this namespace");
    flags.Add("after-seq", &after_seq_,
              "resume after this seq without a snapshot; 0 starts with a snapshot");
  }
  std::string namespace_;
  int64_t after_seq_ = 0;
};

template <typename Request, typename Response>
std::function<std::unique_ptr<Subcommand>()> Mutation(
    grpc::Status (TargetStub::*call)(grpc::ClientContext*, const Request&, Response*),
    std::string verb,
    std::vector<typename MutationCommand<Request, Response>::ExtraFlag> extras = {}) {
  return [=]() { return std::make_unique<MutationCommand<Request, Response>>(call, verb, extras); };
}

}  // namespace

void AddTargetCommands(Dispatcher& d) {
  d.Add({"target register", kTargetArg, "register a Target (and request its first credential)", 1,
         1,
         Mutation(&TargetStub::RegisterTarget, "registered",
                  {{"uid", "uid of the Target (lowercase RFC 4122); generated when absent",
                    [](v1::RegisterTargetRequest& r, const std::string& v) { r.set_uid(v); }}})});
  d.Add({"target delete", kTargetArg, "delete a Target and its credentials", 1, 1,
         Mutation(&TargetStub::DeleteTarget, "deletion requested for")});
  d.Add(
      {"target rotate", kTargetArg, "request a new credential", 1, 1,
       Mutation(&TargetStub::RequestRotation, "rotation requested for",
                {{"value", "rotation request value; defaults to the request id",
                  [](v1::RequestRotationRequest& r, const std::string& v) { r.set_value(v); }}})});
  d.Add({"target revoke", kTargetArg, "revoke a Target's credentials", 1, 1,
         Mutation(&TargetStub::Revoke, "revoked",
                  {{"reason", "why, recorded with the revocation",
                    [](v1::RevokeRequest& r, const std::string& v) { r.set_reason(v); }}})});
  d.Add({"target lift", kTargetArg, "lift a revocation (a fresh credential is minted)", 1, 1,
         Mutation(&TargetStub::LiftRevocation, "revocation lifted for")});
  d.Add({"target confirm", kTargetArg,
         "confirm a rolled-out chart version (releases older credentials)", 1, 1,
         Mutation(&TargetStub::ConfirmRollout, "rollout confirmed for",
                  {{"revision", "the chart version that rolled out (required)",
                    [](v1::ConfirmRolloutRequest& r, const std::string& v) { r.set_revision(v); },
                    /*required=*/true}})});
  d.Add({"target get", kTargetArg, "show a Target and its current credential", 1, 1,
         [] { return std::make_unique<TargetGetCommand>(); }});
  d.Add({"target list", "", "list Targets", 0, 0,
         [] { return std::make_unique<TargetListCommand>(); }});
  d.Add({"target watch", "", "stream Targets: a snapshot, then every change", 0, 0,
         [] { return std::make_unique<WatchCommand>(); }});
}

}  // namespace credledger::cli
