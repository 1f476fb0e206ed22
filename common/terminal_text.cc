#include "common/terminal_text.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/common.h"

namespace credledger::common {
namespace {

void AppendHex(absl::string_view bytes, std::string& out) {
  for (char c : bytes) {
    absl::StrAppend(&out, "\\x", absl::Hex(static_cast<uint8_t>(c), absl::kZeroPad2));
  }
}

bool IsControl(uint8_t byte) { return (byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f; }

// The length of the UTF-8 encoding at the start of well-formed `text` that a terminal acts
// on, or 0: C1 controls are C2 80-9F; U+202A-U+202E are E2 80 AA-AE; U+2066-U+2069 are
// E2 81 A6-A9.
size_t ActingSequence(absl::string_view text) {
  if (text.size() >= 2 && static_cast<uint8_t>(text[0]) == 0xc2 &&
      static_cast<uint8_t>(text[1]) >= 0x80 && static_cast<uint8_t>(text[1]) <= 0x9f) {
    return 2;
  }
  if (text.size() >= 3 && static_cast<uint8_t>(text[0]) == 0xe2) {
    const auto second = static_cast<uint8_t>(text[1]);
    const auto third = static_cast<uint8_t>(text[2]);
    if ((second == 0x80 && third >= 0xaa && third <= 0xae) ||
        (second == 0x81 && third >= 0xa6 && third <= 0xa9)) {
      return 3;
    }
  }
  return 0;
}

}  // namespace

std::string TerminalSafe(absl::string_view text) {
  // Malformed UTF-8 cannot be split into characters safely: every non-ASCII byte is escaped.
  const bool well_formed = google::protobuf::internal::IsStructurallyValidUTF8(
      text.data(), static_cast<int>(text.size()));
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto byte = static_cast<uint8_t>(text[0]);
    size_t escaped = IsControl(byte) || (!well_formed && byte >= 0x80) ? 1 : 0;
    if (escaped == 0 && well_formed) escaped = ActingSequence(text);
    if (escaped > 0) {
      AppendHex(text.substr(0, escaped), out);
      text.remove_prefix(escaped);
    } else {
      out += text[0];
      text.remove_prefix(1);
    }
  }
  return out;
}

}  // namespace credledger::common
