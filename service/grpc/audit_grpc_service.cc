#include "service/grpc/audit_grpc_service.h"

#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace credledger::service {
namespace {

constexpr char kAuditServiceName[] = "AuditService";

// An export as a StreamSource: a page of the log per message, then the trailer, then the end.
class ExportSource final : public StreamSource<v1::ExportEventsResponse> {
 public:
  explicit ExportSource(std::unique_ptr<ExportCursor> cursor) : cursor_(std::move(cursor)) {}
  absl::StatusOr<std::optional<v1::ExportEventsResponse>> Next() override {
    return cursor_->Next();
  }
  bool ends_when_empty() const override { return true; }
  bool reads_log() const override { return true; }

 private:
  std::unique_ptr<ExportCursor> cursor_;
};

}  // namespace

grpc::ServerWriteReactor<v1::ExportEventsResponse>* AuditGrpcService::ExportEvents(
    grpc::CallbackServerContext* context, const v1::ExportEventsRequest* request) {
  return ServeStream<TargetCheck::kOneTarget, v1::ExportEventsRequest, v1::ExportEventsResponse>(
      context, env_, kAuditServiceName, "ExportEvents", request,
      [api = api_, request](const AuthorizedCaller&, const std::function<void()>&)
          -> absl::StatusOr<std::unique_ptr<StreamSource<v1::ExportEventsResponse>>> {
        absl::StatusOr<std::unique_ptr<ExportCursor>> cursor = api->StartExport(*request);
        if (!cursor.ok()) return cursor.status();
        return std::make_unique<ExportSource>(*std::move(cursor));
      });
}

grpc::ServerUnaryReactor* AuditGrpcService::GetStateAt(grpc::CallbackServerContext* context,
                                                       const v1::GetStateAtRequest* request,
                                                       v1::GetStateAtResponse* response) {
  return ServeUnary<TargetCheck::kOneTarget>(
      context, env_, env_.log_work, kAuditServiceName, "GetStateAt", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->GetStateAt(*request); });
}

grpc::ServerUnaryReactor* AuditGrpcService::Timeline(grpc::CallbackServerContext* context,
                                                     const v1::TimelineRequest* request,
                                                     v1::TimelineResponse* response) {
  return ServeUnary<TargetCheck::kOneTarget>(
      context, env_, env_.log_work, kAuditServiceName, "Timeline", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->Timeline(*request); });
}

grpc::ServerUnaryReactor* AuditGrpcService::Diff(grpc::CallbackServerContext* context,
                                                 const v1::DiffRequest* request,
                                                 v1::DiffResponse* response) {
  return ServeUnary<TargetCheck::kOneTarget>(
      context, env_, env_.log_work, kAuditServiceName, "Diff", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->Diff(*request); });
}

grpc::ServerUnaryReactor* AuditGrpcService::ValidCredentialsAt(
    grpc::CallbackServerContext* context, const v1::ValidCredentialsAtRequest* request,
    v1::ValidCredentialsAtResponse* response) {
  return ServeUnary<TargetCheck::kOneTarget>(
      context, env_, env_.log_work, kAuditServiceName, "ValidCredentialsAt", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->ValidCredentialsAt(*request); });
}

}  // namespace credledger::service
