#include "service/wire/request_id.h"

#include <cstdint>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/decide/validation.h"

namespace credledger::service {

bool IsValidCallRequestId(absl::string_view id) {
  return ValidateToken(kRequestIdMetadataKey, id, kMaxCallRequestIdBytes).ok();
}

std::string NewCallRequestId() {
  // One generator per thread, seeded from the operating system: no lock on the call path.
  thread_local absl::InsecureBitGen generator;
  return absl::StrFormat("%016x", absl::Uniform<uint64_t>(generator));
}

absl::Status WithCallRequestId(const absl::Status& status, absl::string_view id) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(status.message(), " (call request id ", id, ")"));
}

}  // namespace credledger::service
