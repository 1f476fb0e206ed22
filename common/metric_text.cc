#include "common/metric_text.h"

#include <charconv>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace credledger::common {
namespace {

// Replaces backslash and newline, and the double quote when `quote`.
std::string Escape(absl::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

bool IsNameChar(char c, bool colon) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || (colon && c == ':');
}

bool IsValidName(absl::string_view name, bool colon) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!IsNameChar(c, colon)) return false;
  }
  return true;
}

}  // namespace

std::string EscapeLabelValue(absl::string_view value) { return Escape(value, /*quote=*/true); }

std::string EscapeHelp(absl::string_view help) { return Escape(help, /*quote=*/false); }

std::string FormatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  // The fewest digits that round-trip, laid out as %g does (exponent notation below 1e-4 and
  // from 1e6 on): "0.0005", not "5e-04".
  const std::to_chars_result result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::general);
  return std::string(buffer, result.ptr);
}

bool IsValidMetricName(absl::string_view name) { return IsValidName(name, /*colon=*/true); }

bool IsValidLabelName(absl::string_view name) {
  return IsValidName(name, /*colon=*/false) && !absl::StartsWith(name, "__");
}

}  // namespace credledger::common
