#include "common/uuid.h"

#include <openssl/rand.h>

#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "common/sha256.h"

namespace credledger::common {

absl::StatusOr<std::string> NewUuidV4() {
  std::array<uint8_t, 16> bytes;
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return absl::UnavailableError("uuid: the random generator failed");
  }
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40);  // version 4
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
  const std::string hex =
      common::HexEncode(absl::string_view(reinterpret_cast<const char*>(bytes.data()), 16));
  return absl::StrCat(hex.substr(0, 8), "-", hex.substr(8, 4), "-", hex.substr(12, 4), "-",
                      hex.substr(16, 4), "-", hex.substr(20, 12));
}

}  // namespace credledger::common
