#include "common/quote_cut.h"

#include "absl/strings/str_cat.h"

namespace credledger::common {
namespace {

// Appends the escaped form of byte `c` to `out` (QuoteCut's escape rule).
void AppendEscaped(char c, std::string& out) {
  const auto byte = static_cast<unsigned char>(c);
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      break;
  }
  if (byte >= 0x20 && byte < 0x7f) {
    out += c;
    return;
  }
  absl::StrAppend(&out, "\\x", absl::Hex(byte, absl::kZeroPad2));
}

}  // namespace

std::string QuoteCut(absl::string_view value, size_t max_bytes) {
  std::string shown;
  std::string escape;
  for (char c : value) {
    escape.clear();
    AppendEscaped(c, escape);
    if (shown.size() + escape.size() > max_bytes) {
      return absl::StrCat("\"", shown, "...\" (", value.size(), " bytes)");
    }
    shown += escape;
  }
  return absl::StrCat("\"", shown, "\"");
}

}  // namespace credledger::common
