#include "service/grpc/unparsed_request_interceptor.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_interceptor.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace credledger::service {
namespace {

using grpc::experimental::InterceptionHookPoints;

class UnparsedRequestInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit UnparsedRequestInterceptor(grpc::experimental::ServerRpcInfo* info)
      : method_(info->method()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    // gRPC hands the hook no message when the bytes did not parse.
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE) &&
        !received_) {
      received_ = true;
      unparsed_ = methods->GetRecvMessage() == nullptr;
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS) && unparsed_ &&
        !methods->GetSendStatus().ok()) {
      methods->ModifySendStatus(grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("request: the bytes do not parse as the request of ", method_,
                       " (a truncated field, a field number 0, invalid UTF-8 in a string "
                       "field, ...)")));
    }
    methods->Proceed();
  }

 private:
  const std::string method_;
  bool received_ = false;
  bool unparsed_ = false;
};

class UnparsedRequestInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new UnparsedRequestInterceptor(info);
  }
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewUnparsedRequestInterceptorFactory() {
  return std::make_unique<UnparsedRequestInterceptorFactory>();
}

}  // namespace credledger::service
