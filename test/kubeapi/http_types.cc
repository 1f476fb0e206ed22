#include "test/kubeapi/http_types.h"

#include "test/kubeapi/kube_status.h"

namespace credledger::kubeapi {

HttpResponse JsonResponse(int code, const nlohmann::json& body) {
  HttpResponse response;
  response.status = code;
  response.body = body.dump();
  return response;
}

HttpResponse ErrorResponse(const absl::Status& status) {
  StatusReply reply = StatusToReply(status);
  return JsonResponse(reply.code, reply.body);
}

}  // namespace credledger::kubeapi
