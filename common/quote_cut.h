// QuoteCut: how an error message quotes an input value it refuses. The quoted text is always
// printable ASCII, so a value can neither reach the terminal as control sequences or line
// breaks nor make the message invalid UTF-8; a value too long for a message is cut, and a
// cut says so with the value's length, so it cannot be mistaken for a value ending in "...".
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace credledger::common {

// `value` escaped and in double quotes. Escapes: '"' and '\' get a backslash; newline,
// carriage return and tab are \n, \r and \t; every other byte outside printable ASCII
// (0x20-0x7e) is \xNN with two lowercase hex digits, each byte of a non-ASCII UTF-8 character
// included ("café" is "caf\xc3\xa9"). A value whose escaped form has at most `max_bytes`
// bytes is shown whole. Otherwise the quotes hold the longest run of whole escapes from the
// start that fits in `max_bytes` bytes, then "...", and the value's length in bytes follows
// the quotes: `"edge-aaaaaaaaaaaaaaa..." (200 bytes)`.
// Returns printable ASCII only.
std::string QuoteCut(absl::string_view value, size_t max_bytes);

}  // namespace credledger::common
