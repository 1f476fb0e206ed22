#include "service/grpc/access_log_interceptor.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_interceptor.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/repeat_log.h"
#include "credledger/v1/api.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "service/api/target_api.h"
#include "service/grpc/access_log.h"
#include "service/grpc/auth/call_authorizer.h"
#include "service/grpc/auth/caller_identity.h"
#include "service/wire/grpc_status.h"
#include "service/wire/request_id.h"

namespace credledger::service {
namespace {

using grpc::experimental::InterceptionHookPoints;

// Method path ("/credledger.v1.TargetService/Revoke") -> the `request_id` field of its
// request type, for every RPC of api.proto whose request has a singular string `request_id`.
using CommandIdFields = absl::flat_hash_map<std::string, const google::protobuf::FieldDescriptor*>;

CommandIdFields FindCommandIdFields() {
  CommandIdFields fields;
  const google::protobuf::FileDescriptor* api = v1::RegisterTargetRequest::descriptor()->file();
  for (int s = 0; s < api->service_count(); ++s) {
    const google::protobuf::ServiceDescriptor* service = api->service(s);
    for (int m = 0; m < service->method_count(); ++m) {
      const google::protobuf::MethodDescriptor* method = service->method(m);
      const google::protobuf::FieldDescriptor* field =
          method->input_type()->FindFieldByName("request_id");
      if (field == nullptr || field->is_repeated() ||
          field->type() != google::protobuf::FieldDescriptor::TYPE_STRING) {
        continue;
      }
      fields.emplace(absl::StrCat("/", service->full_name(), "/", method->name()), field);
    }
  }
  return fields;
}

// The identity a call is logged under: the caller CallAuthorizer establishes, as its events
// record it ("declared:<name>" for a declared name), and for a call it refuses as
// unauthenticated, the one it counts the refusal under.
std::string LoggedIdentity(const CallerEvidence& evidence) {
  absl::StatusOr<Caller> caller = ResolveCaller(evidence);
  if (caller.ok()) return RecordedActor(*caller);
  std::optional<Caller> certified = CertifiedCaller(evidence);
  if (certified.has_value()) return std::move(certified->identity);
  return kAnonymousActor;
}

class AccessLogInterceptor final : public grpc::experimental::Interceptor {
 public:
  // `command_id_field`: the request's `request_id` field; null when the RPC has none.
  // `refusals`, `authorizer`: as NewAccessLogInterceptorFactory's.
  AccessLogInterceptor(grpc::experimental::ServerRpcInfo* info,
                       const google::protobuf::FieldDescriptor* command_id_field,
                       common::RepeatLog* refusals, const CallAuthorizer* authorizer)
      : info_(info),
        command_id_field_(command_id_field),
        refusals_(refusals),
        authorizer_(authorizer),
        start_(std::chrono::steady_clock::now()) {
    record_.rpc = info->method();
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      Started(*methods->GetRecvInitialMetadata());
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      Received(methods->GetRecvMessage());
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace(kRequestIdMetadataKey, record_.request_id);
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      methods->GetSendTrailingMetadata()->emplace(kRequestIdMetadataKey, record_.request_id);
      const absl::Status status = FromGrpcStatus(methods->GetSendStatus());
      record_.code = status.code();
      record_.error = std::string(status.message());
      record_.duration = absl::FromChrono(std::chrono::steady_clock::now() - start_);
      // Now, not at the start: a bearer token has been reviewed by the time the call ends.
      record_.identity = LoggedIdentity(authorizer_->Evidence(*info_->server_context()));
      record_.unparsed_request = unparsed_request_;
      if (!IsRefusal(record_.code) || refusals_ == nullptr ||
          refusals_->Count(
              PeerAddress(record_.peer),
              absl::StrCat(record_.rpc, " ", absl::StatusCodeToString(record_.code)))) {
        LogCall(record_);
      }
    }
    methods->Proceed();
  }

 private:
  void Started(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata) {
    if (auto it = metadata.find(kRequestIdMetadataKey); it != metadata.end()) {
      const absl::string_view sent(it->second.data(), it->second.size());
      if (IsValidCallRequestId(sent)) record_.request_id = std::string(sent);
    }
    if (record_.request_id.empty()) record_.request_id = NewCallRequestId();
    record_.peer = info_->server_context()->peer();
  }

  // `message`: the received request, of the RPC's generated request type (see the factory's
  // REQUIRES); only the first of a stream is read. A missing first message is one gRPC could
  // not parse (the only message of a unary or server-streaming RPC).
  void Received(void* message) {
    if (read_message_) return;
    read_message_ = true;
    if (message == nullptr) {
      unparsed_request_ = true;
      return;
    }
    if (command_id_field_ == nullptr) return;
    const auto* request = static_cast<const google::protobuf::Message*>(message);
    record_.command_request_id = request->GetReflection()->GetString(*request, command_id_field_);
  }

  grpc::experimental::ServerRpcInfo* const info_;
  const google::protobuf::FieldDescriptor* const command_id_field_;
  common::RepeatLog* const refusals_;
  const CallAuthorizer* const authorizer_;
  const std::chrono::steady_clock::time_point start_;
  bool read_message_ = false;
  bool unparsed_request_ = false;
  CallRecord record_;
};

class AccessLogInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  AccessLogInterceptorFactory(common::RepeatLog* refusals, const CallAuthorizer* authorizer)
      : command_id_fields_(FindCommandIdFields()), refusals_(refusals), authorizer_(authorizer) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    const auto it = command_id_fields_.find(absl::string_view(info->method()));
    return new AccessLogInterceptor(info, it == command_id_fields_.end() ? nullptr : it->second,
                                    refusals_, authorizer_);
  }

 private:
  const CommandIdFields command_id_fields_;
  common::RepeatLog* const refusals_;
  const CallAuthorizer* const authorizer_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewAccessLogInterceptorFactory(common::RepeatLog* refusals, const CallAuthorizer* authorizer) {
  return std::make_unique<AccessLogInterceptorFactory>(refusals, authorizer);
}

}  // namespace credledger::service
