#include "test/kubeapi/cut_stream.h"

#include <utility>

namespace credledger::kubeapi {

CutStream::CutStream(std::shared_ptr<StreamBody> inner, int pieces)
    : inner_(std::move(inner)), remaining_(pieces) {}

StreamBody::Step CutStream::Pump(const std::function<bool(absl::string_view)>& write) {
  if (remaining_ <= 0) return Step::kCut;
  bool cut = false;
  Step step = inner_->Pump([&](absl::string_view piece) {
    if (remaining_ <= 0) {
      cut = true;
      return false;
    }
    --remaining_;
    return write(piece);
  });
  return cut ? Step::kCut : step;
}

}  // namespace credledger::kubeapi
