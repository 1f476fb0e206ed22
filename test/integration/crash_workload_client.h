// The client side of the crash test's workload (docs/testing.md, "Crash test"): commands
// chosen from the Targets' states as GetTarget reports them, sent through the gRPC API of
// `credledger serve` (TargetService, and ReportService for reports), with a record of what
// was acknowledged and of the command a kill cut off.
//
// Thread-safety: a Workload is used by one thread at a time (Run on the client thread, the
// accessors between runs).
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/api.grpc.pb.h"

namespace credledger::testing::crash_workload_client {

// The Targets of the workload: demo/crash-0 to demo/crash-<kTargetCount - 1>.
inline constexpr int kTargetCount = 4;
// The actor of the workload's commands.
inline constexpr char kActor[] = "crash-test";
// The deadline of each call.
inline constexpr absl::Duration kCallDeadline = absl::Seconds(10);

// The name of the workload's Target number `i`.
std::string TargetName(int i);
// Sets the call deadline and the actor metadata of a call made on behalf of `actor`.
void Prepare(grpc::ClientContext& context, absl::string_view actor);

// The mutating RPCs of the workload.
enum class Rpc { kRegister, kRotate, kConfirm, kRevoke, kLift, kDelete, kReport };

// One command: the RPC, its Target, its request id and the argument it needs (rotation value,
// rollout revision, revocation reason, or a report's lastReportTime in unix nanoseconds).
struct WorkloadCommand {
  Rpc rpc = Rpc::kRegister;
  int target = 0;
  std::string request_id;
  std::string argument;
};

// How the service answered a command.
struct CommandAnswer {
  grpc::StatusCode code = grpc::StatusCode::UNKNOWN;
  std::string message;
  bool replayed = false;
  int64_t seq = 0;
};

// Chooses, sends and records the workload's commands; `seed` makes the choices repeatable.
class Workload {
 public:
  explicit Workload(uint64_t seed) : rng_(seed) {}

  // Against serve at `address`: first the command the last crash cut off, again with its
  // request id, then `steps` new ones. Returns early when a call is cut off (UNAVAILABLE,
  // CANCELLED or DEADLINE_EXCEEDED: serve died).
  void Run(const std::string& address, int steps);

  // Request ids of the acknowledged commands and the seq of the last event each appended (0
  // when it was already satisfied and appended nothing).
  const std::map<std::string, int64_t>& acknowledged() const { return acknowledged_; }
  // Answers that were neither an acknowledgement, a refusal the state explains, nor a cut.
  const std::vector<std::string>& unexpected() const { return unexpected_; }
  // The command the last crash cut off, not answered yet.
  const std::optional<WorkloadCommand>& cut() const { return cut_; }
  // The answer to that command's retry in the last Run, when it got one.
  const std::optional<CommandAnswer>& retry_answer() const { return retry_answer_; }
  // Per RPC: "acknowledged/refused" counts, for the summary.
  std::string Summary() const;

 private:
  // A command for a random Target chosen from its state; nullopt when the read failed.
  std::optional<WorkloadCommand> Next(v1::TargetService::Stub& stub);
  // Keeps `answer` to `command` in the counts, the acknowledgements or the unexpected.
  void Record(const WorkloadCommand& command, const CommandAnswer& answer);

  std::mt19937_64 rng_;
  int64_t issued_ = 0;
  std::optional<WorkloadCommand> cut_;
  std::optional<CommandAnswer> retry_answer_;
  std::map<std::string, int64_t> acknowledged_;
  std::vector<std::string> unexpected_;
  std::map<std::string, std::pair<int, int>> counts_;
};

}  // namespace credledger::testing::crash_workload_client
