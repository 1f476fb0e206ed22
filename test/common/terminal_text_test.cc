// TerminalSafe: what the CLI prints cannot act on the terminal, and ordinary text, line
// breaks and non-ASCII letters stay as they are.
#include "common/terminal_text.h"

#include <string>

#include "gtest/gtest.h"

namespace credledger::common {
namespace terminal_text_test {

TEST(TerminalSafeTest, OrdinaryTextLineBreaksTabsAndLettersAreKept) {
  EXPECT_EQ(TerminalSafe("cluster edge-1\n  reachable:\tTrue\n"),
            "cluster edge-1\n  reachable:\tTrue\n");
  EXPECT_EQ(TerminalSafe("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91");
  EXPECT_EQ(TerminalSafe(""), "");
}

TEST(TerminalSafeTest, AsciiControlCharactersAreEscaped) {
  EXPECT_EQ(TerminalSafe("a\x1b[2Jb\rc\x7f" + std::string(1, '\0')), R"(a\x1b[2Jb\x0dc\x7f\x00)");
}

// The 8-bit CSI (U+009B) starts an escape sequence on some terminals; bidirectional
// overrides and isolates reorder what is shown ("exe.gpj" shown as "jpg.exe").
TEST(TerminalSafeTest, C1ControlsAndBidirectionalControlsAreEscapedWhole) {
  EXPECT_EQ(TerminalSafe("https://h/\xc2\x9b" "2J"), R"(https://h/\xc2\x9b2J)");
  EXPECT_EQ(TerminalSafe("x\xe2\x80\xaegpj.exe"), R"(x\xe2\x80\xaegpj.exe)");
  EXPECT_EQ(TerminalSafe("\xe2\x81\xa6" "a" "\xe2\x81\xa9"), R"(\xe2\x81\xa6a\xe2\x81\xa9)");
  // Neighbours of the escaped ranges are letters and stay.
  EXPECT_EQ(TerminalSafe("\xc2\xa0\xe2\x80\xa9\xe2\x81\xa5"), "\xc2\xa0\xe2\x80\xa9\xe2\x81\xa5");
}

TEST(TerminalSafeTest, MalformedUtf8HasEveryNonAsciiByteEscaped) {
  EXPECT_EQ(TerminalSafe("ok \xff\xfe caf\xc3\xa9"), R"(ok \xff\xfe caf\xc3\xa9)");
}

}  // namespace terminal_text_test
}  // namespace credledger::common
