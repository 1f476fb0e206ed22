// Fuzz target: KnownHosts::Parse (kubebridge/sources/known_hosts.h) on arbitrary text, then a host
// key check against what was parsed. Parse gives entries or the documented Unsupported error
// (nothing usable); a successful parse has at least one entry and every check answers with a
// message naming the host; nothing crashes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kubebridge/model/connection_errors.h"
#include "kubebridge/sources/known_hosts.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using credledger::fuzz::FuzzCheck;
  using credledger::kubebridge::HostKey;
  using credledger::kubebridge::KnownHosts;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  auto hosts = KnownHosts::Parse(text, &warnings);
  if (!hosts.ok()) {
    FuzzCheck(credledger::kubebridge::IsUnsupported(hosts.status()),
              "KnownHosts::Parse: error not marked Unsupported", hosts.status());
    return 0;
  }
  FuzzCheck(hosts->size() > 0, "KnownHosts::Parse: OK without a usable entry");
  // The key of the seed corpus's entries, and a key no entry holds.
  const HostKey keys[] = {
      {"ssh-ed25519", std::string("\0\0\0\x0bssh-ed25519\0\0\0\x20", 19) + std::string(32, 'k')},
      {"ssh-rsa", "not a key blob"}};
  for (const char* host : {"git.example", "10.0.0.1", "::1", "*"}) {
    for (const HostKey& key : keys) {
      const auto check = hosts->Check(host, 22, key);
      FuzzCheck(
          !check.message.empty() || check.verdict == credledger::kubebridge::HostKeyVerdict::kMatch,
          "KnownHosts::Check: a refusal without a message");
      hosts->Check(host, 2222, key);
    }
  }
  return 0;
}
