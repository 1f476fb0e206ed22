// FieldReader (export_field_reader.h): the typed, exactly spelled fields of an export line.
#include "audit/export_field_reader.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/sha256.h"

namespace credledger::audit {
namespace {

bool IsLowerHex(absl::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
  });
}

// Standard base64 with padding, in its one canonical spelling (no whitespace, no missing
// padding, zero spare bits).
bool DecodeBase64(absl::string_view text, std::string* out) {
  return absl::Base64Unescape(text, out) && absl::Base64Escape(*out) == text;
}

// An optional '-' and 1 to 19 decimal digits within the int64 range.
bool ParseDecimal(absl::string_view text, int64_t* out) {
  absl::string_view digits = text;
  if (!digits.empty() && digits.front() == '-') digits.remove_prefix(1);
  return !digits.empty() && digits.size() <= 19 &&
         std::all_of(digits.begin(), digits.end(),
                     [](char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); }) &&
         absl::SimpleAtoi(text, out);
}

}  // namespace

FieldReader::FieldReader(const Json& object, std::string prefix)
    : object_(object), prefix_(std::move(prefix)) {}

std::string FieldReader::String(const char* key) {
  const Json* value = Find(key);
  if (value == nullptr) return "";
  if (value->is_string()) return value->get<std::string>();
  Fail(key, "expected a string");
  return "";
}

int64_t FieldReader::Int64(const char* key) {
  const Json* value = Find(key);
  if (value == nullptr) return 0;
  int64_t out = 0;
  if (value->is_number_unsigned()) {
    if (value->get<uint64_t>() <= uint64_t{std::numeric_limits<int64_t>::max()}) {
      return value->get<int64_t>();
    }
  } else if (value->is_number_integer()) {
    return value->get<int64_t>();
  } else if (value->is_string() && ParseDecimal(value->get<std::string>(), &out)) {
    return out;
  }
  Fail(key, "expected a 64-bit integer (a number or a decimal string)");
  return 0;
}

uint32_t FieldReader::Uint32(const char* key) {
  const int64_t value = Int64(key);
  if (value < 0 || value > int64_t{std::numeric_limits<uint32_t>::max()}) {
    Fail(key, "expected an unsigned 32-bit integer");
    return 0;
  }
  return static_cast<uint32_t>(value);
}

std::string FieldReader::Hex(const char* key, size_t bytes) {
  const std::string text = String(key);
  std::string out;
  const bool length_ok = bytes == 0 ? text.size() % 2 == 0 : text.size() == 2 * bytes;
  if (length_ok && IsLowerHex(text) && common::HexDecode(text, &out)) return out;
  Fail(key, bytes == 0 ? std::string("expected lowercase hex")
                       : absl::StrCat("expected ", 2 * bytes, " lowercase hex characters"));
  return "";
}

std::string FieldReader::Base64(const char* key) {
  const std::string text = String(key);
  std::string out;
  if (DecodeBase64(text, &out)) return out;
  Fail(key, "expected standard base64 with padding");
  return "";
}

int64_t FieldReader::TimeMicros(const char* key) {
  const std::string text = String(key);
  int64_t out = 0;
  if (ParseTime(text, &out)) return out;
  Fail(key, "expected an RFC 3339 UTC time with 6 fractional digits");
  return 0;
}

const Json* FieldReader::Object(const char* key) {
  return Typed(key, Json::value_t::object, "an object");
}

const Json* FieldReader::Array(const char* key) {
  return Typed(key, Json::value_t::array, "an array");
}

void FieldReader::Expect(const char* key, absl::string_view expected) {
  if (String(key) != expected && status_.ok()) {
    Fail(key, absl::StrCat("expected \"", expected, "\""));
  }
}

void FieldReader::Fail(absl::string_view key, absl::string_view rule) {
  if (!status_.ok()) return;
  status_ = absl::InvalidArgumentError(absl::StrCat("field \"", prefix_, key, "\": ", rule));
}

const Json* FieldReader::Find(const char* key) {
  if (!status_.ok()) return nullptr;
  auto it = object_.find(key);
  if (it != object_.end()) return &*it;
  Fail(key, "missing");
  return nullptr;
}

const Json* FieldReader::Typed(const char* key, Json::value_t type, const char* expected) {
  const Json* value = Find(key);
  if (value == nullptr || value->type() == type) return value;
  Fail(key, absl::StrCat("expected ", expected));
  return nullptr;
}

}  // namespace credledger::audit
