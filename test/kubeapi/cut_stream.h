// CutStream: a response body that passes another one through and then cuts the connection
// after a number of written pieces, the drop_watch_after_events fault of fault_injector.h
// (a watch stream lost to a network drop or an API server restart).
//
// A WatchStream writes one event line per write call, so pieces are events.
//
// Thread-safety: as StreamBody (Pump from one worker at a time).
#pragma once

#include <functional>
#include <memory>

#include "absl/strings/string_view.h"
#include "test/kubeapi/http_types.h"

namespace credledger::kubeapi {

class CutStream final : public StreamBody {
 public:
  // Passes `inner` through until `pieces` writes went out, then returns kCut at once (0:
  // on the first Pump, so the client gets the response headers only).
  // REQUIRES: inner != nullptr, pieces >= 0.
  CutStream(std::shared_ptr<StreamBody> inner, int pieces);

  Step Pump(const std::function<bool(absl::string_view)>& write) override;

 private:
  const std::shared_ptr<StreamBody> inner_;
  int remaining_;
};

}  // namespace credledger::kubeapi
