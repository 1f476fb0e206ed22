#include "test/integration/crash_workload_client.h"

#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "service/api/target_api.h"
#include "test/integration/live_processes.h"

namespace credledger::testing::crash_workload_client {
namespace {

// The RPC's name, for the summary and the messages.
const char* RpcName(Rpc rpc) {
  switch (rpc) {
    case Rpc::kRegister:
      return "RegisterTarget";
    case Rpc::kRotate:
      return "RequestRotation";
    case Rpc::kConfirm:
      return "ConfirmRollout";
    case Rpc::kRevoke:
      return "Revoke";
    case Rpc::kLift:
      return "LiftRevocation";
    case Rpc::kDelete:
      return "DeleteTarget";
    case Rpc::kReport:
      return "PushReport";
  }
  return "?";
}

// Whether `code` means the call was cut off by the crash (no answer) rather than answered.
bool CutOff(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::CANCELLED ||
         code == grpc::StatusCode::DEADLINE_EXCEEDED;
}

// The request of `command` with its Target and request id set.
template <typename Request>
Request Addressed(const WorkloadCommand& command) {
  Request request;
  request.set_namespace_(kLiveNamespace);
  request.set_name(TargetName(command.target));
  request.set_request_id(command.request_id);
  return request;
}

// Calls `method` of `stub` with `request` and keeps the status, `replayed` and `seq`.
template <typename Response, typename Stub, typename Request, typename Method>
CommandAnswer Call(Stub& stub, Method method, const Request& request) {
  grpc::ClientContext context;
  Prepare(context, kActor);
  Response response;
  const grpc::Status status = (stub.*method)(&context, request, &response);
  return {status.error_code(), status.error_message(), response.replayed(), response.seq()};
}

// The report of a PushReport command: one release whose revision names the command, so that
// every report differs from the last (a changed report, appended), at the time in its argument.
v1::TargetReportSpec ReportOf(const WorkloadCommand& command) {
  int64_t unix_nanos = 0;
  EXPECT_TRUE(absl::SimpleAtoi(command.argument, &unix_nanos)) << command.argument;
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = projections::ToProto(absl::FromUnixNanos(unix_nanos));
  v1::ReleaseStatus& release = *report.add_releases();
  release.set_name("podinfo");
  release.set_namespace_("apps");
  release.set_phase(v1::RELEASE_PHASE_PROGRESSING);
  release.set_revision(absl::StrCat("1.0.0-", command.request_id));
  return report;
}

// The services the workload calls.
struct Stubs {
  std::unique_ptr<v1::TargetService::Stub> targets;
  std::unique_ptr<v1::ReportService::Stub> reports;
};

// Sends `command` through `stubs`.
CommandAnswer Send(const Stubs& stubs, const WorkloadCommand& command) {
  using Stub = v1::TargetService::Stub;
  Stub& stub = *stubs.targets;
  switch (command.rpc) {
    case Rpc::kRegister:
      return Call<v1::RegisterTargetResponse>(stub, &Stub::RegisterTarget,
                                              Addressed<v1::RegisterTargetRequest>(command));
    case Rpc::kRotate: {
      auto request = Addressed<v1::RequestRotationRequest>(command);
      request.set_value(command.argument);
      return Call<v1::RequestRotationResponse>(stub, &Stub::RequestRotation, request);
    }
    case Rpc::kConfirm: {
      auto request = Addressed<v1::ConfirmRolloutRequest>(command);
      request.set_revision(command.argument);
      return Call<v1::ConfirmRolloutResponse>(stub, &Stub::ConfirmRollout, request);
    }
    case Rpc::kRevoke: {
      auto request = Addressed<v1::RevokeRequest>(command);
      request.set_reason(command.argument);
      return Call<v1::RevokeResponse>(stub, &Stub::Revoke, request);
    }
    case Rpc::kLift:
      return Call<v1::LiftRevocationResponse>(stub, &Stub::LiftRevocation,
                                              Addressed<v1::LiftRevocationRequest>(command));
    case Rpc::kDelete:
      return Call<v1::DeleteTargetResponse>(stub, &Stub::DeleteTarget,
                                            Addressed<v1::DeleteTargetRequest>(command));
    case Rpc::kReport: {
      auto request = Addressed<v1::PushReportRequest>(command);
      *request.mutable_report() = ReportOf(command);
      return Call<v1::PushReportResponse>(*stubs.reports, &v1::ReportService::Stub::PushReport,
                                          request);
    }
  }
  return {};
}

}  // namespace

std::string TargetName(int i) { return absl::StrCat("crash-", i); }

void Prepare(grpc::ClientContext& context, absl::string_view actor) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
  context.AddMetadata(service::kActorMetadataKey, std::string(actor));
}

void Workload::Run(const std::string& address, int steps) {
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  const Stubs stubs{v1::TargetService::NewStub(channel), v1::ReportService::NewStub(channel)};
  v1::TargetService::Stub& stub = *stubs.targets;
  retry_answer_.reset();
  if (cut_.has_value()) {
    const CommandAnswer answer = Send(stubs, *cut_);
    if (CutOff(answer.code)) return;
    retry_answer_ = answer;
    Record(*cut_, answer);
    cut_.reset();
  }
  for (int i = 0; i < steps; ++i) {
    std::optional<WorkloadCommand> command = Next(stub);
    if (!command.has_value()) return;  // GetTarget was cut off
    const CommandAnswer answer = Send(stubs, *command);
    if (CutOff(answer.code)) {
      cut_ = *command;
      return;
    }
    Record(*command, answer);
  }
}

std::string Workload::Summary() const {
  std::vector<std::string> parts;
  for (const auto& [rpc, counts] : counts_) {
    parts.push_back(absl::StrCat(rpc, " ", counts.first, "/", counts.second));
  }
  return absl::StrJoin(parts, ", ");
}

std::optional<WorkloadCommand> Workload::Next(v1::TargetService::Stub& stub) {
  WorkloadCommand command;
  command.target = static_cast<int>(rng_() % kTargetCount);
  command.request_id = absl::StrCat("w-", ++issued_);
  grpc::ClientContext context;
  Prepare(context, kActor);
  v1::GetTargetRequest request;
  request.set_namespace_(kLiveNamespace);
  request.set_name(TargetName(command.target));
  v1::GetTargetResponse response;
  const grpc::Status status = stub.GetTarget(&context, request, &response);
  if (CutOff(status.error_code())) return std::nullopt;
  if (!status.ok() && status.error_code() != grpc::StatusCode::NOT_FOUND) {
    unexpected_.push_back(absl::StrCat("GetTarget ", TargetName(command.target), ": code ",
                                       static_cast<int>(status.error_code()), " ",
                                       status.error_message()));
    return std::nullopt;
  }
  const v1::Target& target = response.target();
  if (!status.ok() || target.phase() == "Finalized") {
    command.rpc = Rpc::kRegister;
  } else if (target.phase() == "Deleting") {
    command.rpc = Rpc::kRotate;  // refused until it is finalized
  } else if (target.revoked()) {
    const uint64_t pick = rng_() % 4;
    command.rpc = pick == 0 ? Rpc::kDelete : pick == 1 ? Rpc::kReport : Rpc::kLift;
  } else {
    const uint64_t pick = rng_() % 20;
    command.rpc = pick < 7    ? Rpc::kRotate
                  : pick < 13 ? Rpc::kConfirm
                  : pick < 15 ? Rpc::kReport
                  : pick < 18 ? Rpc::kRevoke
                              : Rpc::kDelete;
  }
  if (command.rpc == Rpc::kRotate) command.argument = absl::StrCat("r", issued_);
  if (command.rpc == Rpc::kRevoke) command.argument = "crash test";
  if (command.rpc == Rpc::kReport) command.argument = absl::StrCat(absl::ToUnixNanos(absl::Now()));
  if (command.rpc == Rpc::kConfirm) {
    const std::string suffix = target.current_credential().chart_version_suffix();
    if (suffix.empty()) {
      command.rpc = Rpc::kRotate;
      command.argument = absl::StrCat("r", issued_);
    } else {
      command.argument = absl::StrCat("1.0.", issued_, "-", suffix);
    }
  }
  return command;
}

void Workload::Record(const WorkloadCommand& command, const CommandAnswer& answer) {
  std::pair<int, int>& counts = counts_[RpcName(command.rpc)];
  if (answer.code == grpc::StatusCode::OK) {
    ++counts.first;
    acknowledged_[command.request_id] = answer.seq;
    return;
  }
  ++counts.second;
  // Refusals the Target's state explains (e.g. a rotation of a Target being deleted).
  if (answer.code == grpc::StatusCode::FAILED_PRECONDITION ||
      answer.code == grpc::StatusCode::NOT_FOUND) {
    return;
  }
  unexpected_.push_back(absl::StrCat(RpcName(command.rpc), " ", TargetName(command.target), " (",
                                     command.request_id, "): code ", static_cast<int>(answer.code),
                                     " ", answer.message));
}

}  // namespace credledger::testing::crash_workload_client
