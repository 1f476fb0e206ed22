#include "kubebridge/client/http_transport.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

std::string RequestLabel(const HttpRequest& request) {
  absl::string_view path = request.path;
  path = path.substr(0, path.find('?'));
  return absl::StrCat(request.method, " ", path);
}

}  // namespace credledger::kubebridge
