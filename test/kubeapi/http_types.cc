#include "test/kubeapi/http_types.h"

#include <poll.h>

#include "test/kubeapi/kube_status.h"

namespace credledger::kubeapi {

bool PeerClosed(int socket_fd) {
  if (socket_fd < 0) return false;
  pollfd p{socket_fd, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

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
