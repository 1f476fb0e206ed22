#include "test/kubeapi/random_ids.h"

#include <openssl/rand.h>

#include <cstdio>
#include <cstdlib>

#include "common/sha256.h"

namespace credledger::kubeapi {

std::string RandomBytes(size_t count) {
  std::string out(count, '\0');
  if (count > 0 &&
      RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(count)) != 1) {
    std::fputs("kubeapi: RAND_bytes failed\n", stderr);
    std::abort();
  }
  return out;
}

std::string NewUuidV4() {
  std::string b = RandomBytes(16);
  b[6] = static_cast<char>((static_cast<uint8_t>(b[6]) & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<char>((static_cast<uint8_t>(b[8]) & 0x3f) | 0x80);  // RFC 4122 variant
  std::string hex = common::HexEncode(b);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

std::string NewBearerToken() { return common::HexEncode(RandomBytes(32)); }

}  // namespace credledger::kubeapi
