#include "kubebridge/agent/quantity.h"

#include <cstdint>
#include <limits>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace credledger::kubebridge {
namespace {

constexpr int kMaxSignificantDigits = 36;
constexpr int kNanoExponent = 9;
// 2^63-1 units in nanos.
const absl::uint128 kMaxNanos = absl::uint128(std::numeric_limits<int64_t>::max()) * 1000000000u;

struct Suffix {
  absl::string_view text;
  QuantityFormat format;
  int exponent;  // power of 10 for decimal SI, power of 2 for binary SI
};

constexpr Suffix kSuffixes[] = {
    {"n", QuantityFormat::kDecimalSI, -9}, {"u", QuantityFormat::kDecimalSI, -6},
    {"m", QuantityFormat::kDecimalSI, -3}, {"", QuantityFormat::kDecimalSI, 0},
    {"k", QuantityFormat::kDecimalSI, 3},  {"M", QuantityFormat::kDecimalSI, 6},
    {"G", QuantityFormat::kDecimalSI, 9},  {"T", QuantityFormat::kDecimalSI, 12},
    {"P", QuantityFormat::kDecimalSI, 15}, {"E", QuantityFormat::kDecimalSI, 18},
    {"Ki", QuantityFormat::kBinarySI, 10}, {"Mi", QuantityFormat::kBinarySI, 20},
    {"Gi", QuantityFormat::kBinarySI, 30}, {"Ti", QuantityFormat::kBinarySI, 40},
    {"Pi", QuantityFormat::kBinarySI, 50}, {"Ei", QuantityFormat::kBinarySI, 60},
};

absl::Status Invalid(absl::string_view text, absl::string_view rule) {
  return absl::InvalidArgumentError(absl::StrCat("quantity \"", text, "\": ", rule));
}

absl::uint128 Pow10(int n) {
  absl::uint128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// *value *= factor; false (value unchanged) on overflow past kMaxNanos.
bool MultiplyBounded(absl::uint128* value, absl::uint128 factor) {
  if (*value != 0 && factor > kMaxNanos / *value) return false;
  *value *= factor;
  return *value <= kMaxNanos;
}

// The decimal exponent after "e"/"E": an optional sign and 1-4 digits.
bool ParseExponent(absl::string_view digits, int* exponent) {
  absl::string_view body = digits;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) body.remove_prefix(1);
  if (body.empty() || body.size() > 4) return false;
  for (char c : body) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(digits, exponent);
}

// The format and exponent named by `suffix`; false when it names none.
bool InterpretSuffix(absl::string_view suffix, QuantityFormat* format, int* exponent) {
  for (const Suffix& s : kSuffixes) {
    if (s.text == suffix) {
      *format = s.format;
      *exponent = s.exponent;
      return true;
    }
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    *format = QuantityFormat::kDecimalExponent;
    return ParseExponent(suffix.substr(1), exponent);
  }
  return false;
}

absl::uint128 Magnitude(absl::int128 v) { return v < 0 ? absl::uint128(-v) : absl::uint128(v); }

std::string Signed(bool negative, absl::uint128 mantissa, absl::string_view suffix) {
  std::ostringstream digits;
  digits << mantissa;
  return absl::StrCat(negative ? "-" : "", digits.str(), suffix);
}

// Decimal canonical form: mantissa * 10^exponent with the exponent a multiple of 3 and as
// large as keeps the mantissa integral.
std::string FormatDecimal(bool negative, absl::uint128 nanos, QuantityFormat format) {
  int exponent = -kNanoExponent;
  while (nanos % 10 == 0) {
    nanos /= 10;
    ++exponent;
  }
  while (exponent % 3 != 0) {  // exponent >= -9, so this lowers it to the multiple below
    nanos *= 10;
    --exponent;
  }
  if (format == QuantityFormat::kDecimalSI) {
    for (const Suffix& s : kSuffixes) {
      if (s.format == QuantityFormat::kDecimalSI && s.exponent == exponent) {
        return Signed(negative, nanos, s.text);
      }
    }
  }
  return Signed(negative, nanos, exponent == 0 ? "" : absl::StrCat("e", exponent));
}

}  // namespace

absl::StatusOr<Quantity> ParseQuantity(absl::string_view text) {
  if (text.empty()) return Invalid(text, "empty");
  absl::string_view rest = text;
  const bool negative = rest[0] == '-';
  if (rest[0] == '-' || rest[0] == '+') rest.remove_prefix(1);
  size_t i = 0;
  while (i < rest.size() && absl::ascii_isdigit(static_cast<unsigned char>(rest[i]))) ++i;
  absl::string_view whole = rest.substr(0, i);
  absl::string_view fraction;
  if (i < rest.size() && rest[i] == '.') {
    size_t start = ++i;
    while (i < rest.size() && absl::ascii_isdigit(static_cast<unsigned char>(rest[i]))) ++i;
    fraction = rest.substr(start, i - start);
  }
  if (whole.empty() && fraction.empty()) return Invalid(text, "a number needs digits");
  absl::string_view suffix = rest.substr(i);
  Quantity q;
  int exponent = 0;
  if (!InterpretSuffix(suffix, &q.format, &exponent)) {
    return Invalid(text, absl::StrCat("unknown suffix \"", suffix,
                                      "\" (want n u m k M G T P E, Ki Mi Gi Ti Pi Ei or "
                                      "e<exponent>)"));
  }
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  std::string digits = absl::StrCat(whole, fraction);
  digits.erase(0, digits.find_first_not_of('0'));
  if (digits.empty()) return q;  // zero, in the parsed format
  if (digits.size() > kMaxSignificantDigits) {
    return Invalid(text, absl::StrCat("more than ", kMaxSignificantDigits, " significant digits"));
  }
  absl::uint128 value = 0;
  for (char c : digits) value = value * 10 + static_cast<uint64_t>(c - '0');
  const absl::Status too_big = Invalid(text, "magnitude above 2^63-1");
  int decimal_exponent = kNanoExponent - static_cast<int>(fraction.size());
  if (q.format == QuantityFormat::kBinarySI) {
    if (!MultiplyBounded(&value, absl::uint128(1) << exponent)) return too_big;
  } else {
    decimal_exponent += exponent;
  }
  if (decimal_exponent >= 0) {
    if (decimal_exponent > 38 || !MultiplyBounded(&value, Pow10(decimal_exponent))) {
      return too_big;
    }
  } else if (-decimal_exponent > 38) {
    value = 1;  // below one nano: rounded up
  } else {
    const absl::uint128 divisor = Pow10(-decimal_exponent);
    value = value / divisor + (value % divisor != 0 ? 1 : 0);
  }
  if (value > kMaxNanos) return too_big;
  q.nanos = negative ? -absl::int128(value) : absl::int128(value);
  return q;
}

absl::StatusOr<Quantity> AddQuantities(const Quantity& a, const Quantity& b) {
  Quantity sum;
  sum.format = a.nanos == 0 ? b.format : a.format;
  sum.nanos = a.nanos + b.nanos;  // both within +-kMaxNanos: no int128 overflow
  if (Magnitude(sum.nanos) > kMaxNanos) {
    return absl::OutOfRangeError(absl::StrCat("quantity sum ", FormatQuantity(a), " + ",
                                              FormatQuantity(b), " exceeds 2^63-1"));
  }
  return sum;
}

std::string FormatQuantity(const Quantity& q) {
  if (q.nanos == 0) return "0";
  const bool negative = q.nanos < 0;
  const absl::uint128 nanos = Magnitude(q.nanos);
  const absl::uint128 unit = Pow10(kNanoExponent);
  if (q.format != QuantityFormat::kBinarySI || nanos < 1024 * unit || nanos % unit != 0) {
    return FormatDecimal(negative, nanos,
                         q.format == QuantityFormat::kDecimalExponent
                             ? QuantityFormat::kDecimalExponent
                             : QuantityFormat::kDecimalSI);
  }
  absl::uint128 units = nanos / unit;
  int power = 0;
  while (units % 1024 == 0 && power < 60) {
    units /= 1024;
    power += 10;
  }
  for (const Suffix& s : kSuffixes) {
    if (s.format == QuantityFormat::kBinarySI && s.exponent == power) {
      return Signed(negative, units, s.text);
    }
  }
  return Signed(negative, units, "");
}

}  // namespace credledger::kubebridge
