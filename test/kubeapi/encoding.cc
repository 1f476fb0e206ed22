#include "test/kubeapi/encoding.h"

#include <array>
#include <cstdint>

namespace credledger::kubeapi {
namespace {

constexpr absl::string_view kStdAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr absl::string_view kUrlAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode(absl::string_view bytes, absl::string_view alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                 (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                 uint32_t{static_cast<uint8_t>(bytes[i + 2])};
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    out.push_back(alphabet[(v >> 6) & 63]);
    out.push_back(alphabet[v & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest == 0) return out;
  uint32_t v = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
  if (rest == 2) v |= uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8;
  out.push_back(alphabet[(v >> 18) & 63]);
  out.push_back(alphabet[(v >> 12) & 63]);
  if (rest == 2) out.push_back(alphabet[(v >> 6) & 63]);
  if (pad) out.append(rest == 1 ? "==" : "=");
  return out;
}

// Decodes `text` (no padding characters) with `alphabet`; nullopt on a foreign character,
// an impossible length or non-zero trailing bits.
std::optional<std::string> DecodeUnpadded(absl::string_view text, absl::string_view alphabet) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::array<int, 256> table;
  table.fill(-1);
  for (size_t i = 0; i < alphabet.size(); ++i) {
    table[static_cast<uint8_t>(alphabet[i])] = static_cast<int>(i);
  }
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = table[static_cast<uint8_t>(c)];
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace

std::string Base64Encode(absl::string_view bytes) { return Encode(bytes, kStdAlphabet, true); }

std::optional<std::string> Base64Decode(absl::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
    ++padding;
  }
  return DecodeUnpadded(text.substr(0, text.size() - padding), kStdAlphabet);
}

std::string Base64UrlEncode(absl::string_view bytes) {
  return Encode(bytes, kUrlAlphabet, false);
}

std::optional<std::string> Base64UrlDecode(absl::string_view text) {
  return DecodeUnpadded(text, kUrlAlphabet);
}

}  // namespace credledger::kubeapi
