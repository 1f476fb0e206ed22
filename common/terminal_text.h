// TerminalSafe: text the CLI prints, made unable to act on the terminal. Text from the server
// can hold words of other systems (a Git server's message, a URL recorded before today's
// rules); a terminal acts on control characters and shows bidirectional overrides out of
// order.
//
// Thread-safety: a pure function.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace credledger::common {

// `text` with every byte sequence a terminal could act on written as \xNN escapes (one per
// byte): ASCII control characters other than newline and tab (0x00-0x08, 0x0b-0x1f, 0x7f),
// C1 controls (U+0080-U+009F), the bidirectional embeddings, overrides and isolates
// (U+202A-U+202E, U+2066-U+2069). Other UTF-8 characters are kept. When `text` is not
// well-formed UTF-8 (protobuf's check), every non-ASCII byte is escaped.
std::string TerminalSafe(absl::string_view text);

}  // namespace credledger::common
