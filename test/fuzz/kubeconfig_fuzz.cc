// Fuzz target: ParseKubeconfig (kubebridge/client/kubeconfig.h) on arbitrary text. Every input
// gives a connection or a documented error (kInvalidArgument, kUnimplemented); nothing
// crashes, hangs or grows without bound. File fields are refused (KubeconfigFiles::kRefuse),
// so the target reads no files.
#include <cstddef>
#include <cstdint>

#include "kubebridge/client/kubeconfig.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using credledger::kubebridge::KubeconfigFiles;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = credledger::kubebridge::ParseKubeconfig(text, "/fuzz/kubeconfig", "",
                                                        KubeconfigFiles::kRefuse);
  credledger::fuzz::CheckDocumentedError(
      config.status(), {absl::StatusCode::kInvalidArgument, absl::StatusCode::kUnimplemented},
      "ParseKubeconfig");
  return 0;
}
