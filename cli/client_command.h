// ClientCommand: the base of every `credledger` subcommand that calls the API (docs/api.md,
// "RPCs and subcommands"). Each dials --server with the connection flags of client_connection.h
// (--as, TLS), and prints text or, with --output json, the protobuf JSON mapping. Unary calls
// get a 30 s deadline.
//
// Thread-safety: not thread-safe; one command per process run.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cli/client_connection.h"
#include "cli/framework/flag_set.h"
#include "cli/framework/subcommands.h"
#include "google/protobuf/message.h"
#include "service/wire/grpc_status.h"
#include "service/wire/request_id.h"

namespace credledger::cli {

// The positional argument that names one Target.
inline constexpr char kTargetArg[] = "<namespace>/<name>";

// Splits "<namespace>/<name>"; false when the argument has another shape: no '/' or more
// than one, or an empty namespace or name (the parts' DNS rules are checked by the server).
bool SplitTarget(const std::string& arg, std::string* target_namespace, std::string* name);
// Prints "error: expected <namespace>/<name>, got \"<arg>\"" (with " (neither part may be
// empty)" when `arg` has one '/') and returns kExitUsage. `arg` is quoted by common::QuoteCut:
// escaped to printable ASCII, and cut after 160 bytes.
int BadTarget(const std::string& arg, std::ostream& err);

// Checks a mutating subcommand's --request-id before any call, with the server's rule
// (validation.h ValidateClientRequestId: 1-128 bytes of printable ASCII without spaces, not
// starting with "credledger:"). `given`: whether the flag was on the command line.
// Returns kExitOk when it was left out or is valid; otherwise prints "error: --request-id
// ..." (given but empty, or the rule it breaks) and returns kExitUsage.
int CheckRequestIdFlag(bool given, const std::string& value, std::ostream& err);

// The request id of a mutating call: `given` when non-empty, else a new random UUID, which is
// printed to `err` as "request-id: <id>" so that the caller can retry with it.
// Errors: NewUuidV4's (kInternal when no randomness is available).
absl::StatusOr<std::string> RequestIdOrNew(const std::string& given, std::ostream& err);

class ClientCommand : public Subcommand {
 public:
  // Defines the connection flags (ClientConnection) and --output, then the subcommand's own
  // flags.
  void DefineFlags(FlagSet& flags) final;
  // ClientConnection::CheckFlags.
  absl::Status CheckFlags() const override;

 protected:
  // The subcommand's own flags.
  virtual void DefineOwnFlags(FlagSet&) {}

  // Calls unary RPC `method` of a new `Stub` on the connection's channel, prepared as a
  // unary call. Returns the call's status, mapped by FromGrpcStatus, with a connection hint
  // (ClientConnection::Explain) and the call request id appended to the message of a failure
  // (WithCallRequestId), or the channel's error.
  template <typename Stub, typename Request, typename Response>
  absl::Status Call(grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                                 Response*),
                    const Request& request, Response* response) const {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = connection_.Channel();
    if (!channel.ok()) return channel.status();
    grpc::ClientContext context;
    const std::string request_id = Prepare(context, /*unary=*/true);
    Stub stub(*channel);
    return service::WithCallRequestId(
        connection_.Explain(service::FromGrpcStatus((stub.*method)(&context, request, response))),
        request_id);
  }
  // Calls server-streaming RPC `method` and prints every item as Print does, with
  // `format(item)` as its text, flushing `out` after each, until the stream ends.
  // Returns kExitOk when the stream ended OK; otherwise prints "error: ..." (with a
  // connection hint, ClientConnection::Explain, and ending in the call request id when the
  // call failed) and returns kExitFailure.
  template <typename Stub, typename Request, typename Response, typename Format>
  int PrintStream(std::unique_ptr<grpc::ClientReader<Response>> (Stub::*method)(
                      grpc::ClientContext*, const Request&),
                  const Request& request, Format format, std::ostream& out,
                  std::ostream& err) const {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = connection_.Channel();
    if (!channel.ok()) return ReportError(channel.status(), err);
    grpc::ClientContext context;
    const std::string request_id = Prepare(context, /*unary=*/false);
    Stub stub(*channel);
    std::unique_ptr<grpc::ClientReader<Response>> reader = (stub.*method)(&context, request);
    Response item;
    while (reader->Read(&item)) {
      if (Print(item, format(item), out, err) != kExitOk) {
        context.TryCancel();
        break;
      }
      out.flush();
    }
    const grpc::Status status = reader->Finish();
    if (!status.ok()) {
      return ReportError(service::WithCallRequestId(
                             connection_.Explain(service::FromGrpcStatus(status)), request_id),
                         err);
    }
    return kExitOk;
  }
  // Calls unary RPC `method` with `request` and prints the answer as Print does, with
  // `text(response)` as its text. Returns the exit code: kExitFailure with "error: ..." when
  // the call fails.
  template <typename Stub, typename Request, typename Response, typename Text>
  int CallAndPrint(grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                                Response*),
                   const Request& request, Text text, std::ostream& out,
                   std::ostream& err) const {
    Response response;
    const absl::Status status = Call(method, request, &response);
    if (!status.ok()) return ReportError(status, err);
    return Print(response, text(response), out, err);
  }
  // Prints `message` as one line of JSON, or `text` in text mode (through
  // common::TerminalSafe: server text cannot act on the terminal); returns the exit code
  // (kExitFailure with "error: ..." when the JSON conversion fails).
  int Print(const google::protobuf::Message& message, const std::string& text,
            std::ostream& out, std::ostream& err) const;

 private:
  // Declares --as and a new call request id, which it returns (ClientConnection::Declare),
  // and, for unary calls, sets the deadline.
  std::string Prepare(grpc::ClientContext& context, bool unary) const;

  ClientConnection connection_;
  std::string output_ = "text";
};

// A mutating subcommand on one named object (`<verb> <name>`): builds its request from the
// positional argument and the flags (Prepare), sends it under --request-id (generated and
// printed when absent, RequestIdOrNew) through unary RPC `method` of `Stub`, and prints the
// answer with `format(verb, response)` as its text. Exit codes: kExitUsage for a bad
// --request-id (CheckRequestIdFlag) or when Prepare refuses; kExitFailure with "error: ..." when
// the call fails.
template <typename Stub, typename Request, typename Response>
class MutationCommand : public ClientCommand {
 public:
  using Method = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&, Response*);
  using Format = std::string (*)(absl::string_view verb, const Response& response);
  MutationCommand(Method method, std::string verb, Format format)
      : method_(method), verb_(std::move(verb)), format_(format) {}

  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) final {
    if (const int checked = CheckRequestIdFlag(flags_->Given("request-id"), request_id_, err);
        checked != kExitOk) {
      return checked;
    }
    Request request;
    if (const int prepared = Prepare(args[0], request, err); prepared != kExitOk) return prepared;
    absl::StatusOr<std::string> request_id = RequestIdOrNew(request_id_, err);
    if (!request_id.ok()) return ReportError(request_id.status(), err);
    request.set_request_id(*request_id);
    return CallAndPrint(
        method_, request, [this](const Response& r) { return format_(verb_, r); }, out, err);
  }

 protected:
  // Fills `request` for the object named `name` from the flags; kExitOk, or the exit code
  // after printing why not.
  virtual int Prepare(const std::string& name, Request& request, std::ostream& err) = 0;
  // The subcommand's own flags besides --request-id.
  virtual void DefineMutationFlags(FlagSet&) {}

  const FlagSet* flags_ = nullptr;  // the set DefineOwnFlags filled; outlives Run

 private:
  void DefineOwnFlags(FlagSet& flags) final {
    flags_ = &flags;
    flags.Add("request-id", &request_id_,
              "idempotency key of the call; generated and printed when absent");
    DefineMutationFlags(flags);
  }

  Method method_;
  std::string verb_;
  Format format_;
  std::string request_id_;
};

}  // namespace credledger::cli
