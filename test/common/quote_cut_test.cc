// QuoteCut: escaping to printable ASCII, cutting between whole escapes, and the length after
// a cut.
#include "common/quote_cut.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::common {
namespace quote_cut_test {

// True when every byte of `text` is printable ASCII (0x20-0x7e).
bool PrintableAscii(const std::string& text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) return false;
  }
  return true;
}

TEST(QuoteCutTest, AShortPlainValueIsQuotedWhole) {
  EXPECT_EQ(QuoteCut("edge-1", 20), "\"edge-1\"");
  EXPECT_EQ(QuoteCut("", 20), "\"\"");
  EXPECT_EQ(QuoteCut(std::string(20, 'a'), 20), "\"" + std::string(20, 'a') + "\"");
}

// Regression: control characters reached the terminal (`$'a\x1b[31mb'` colored it).
TEST(QuoteCutTest, QuotesBackslashesAndControlCharactersAreEscaped) {
  EXPECT_EQ(QuoteCut("a\x1b[31mb", 80), R"("a\x1b[31mb")");
  EXPECT_EQ(QuoteCut("a\nb\r\tc", 80), R"("a\nb\r\tc")");
  EXPECT_EQ(QuoteCut(std::string("a\0b", 3), 80), R"("a\x00b")");
  EXPECT_EQ(QuoteCut("say \"hi\" \\ bye\x7f", 80), R"("say \"hi\" \\ bye\x7f")");
}

// Regression: a cut could split a UTF-8 character, making the message invalid UTF-8.
TEST(QuoteCutTest, NonAsciiBytesAreEscapedSoTheOutputIsPrintableAscii) {
  EXPECT_EQ(QuoteCut("caf\xc3\xa9", 80), R"("caf\xc3\xa9")");
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (size_t max : {size_t{0}, size_t{5}, size_t{80}, size_t{2000}}) {
    EXPECT_TRUE(PrintableAscii(QuoteCut(all, max))) << max;
  }
}

// Regression: a value cut at 80 bytes and followed by "..." looked exactly like a literal
// value ending in "...".
TEST(QuoteCutTest, ACutValueEndsInDotsAndItsLengthInBytes) {
  EXPECT_EQ(QuoteCut("edge-" + std::string(195, 'a'), 20),
            "\"edge-aaaaaaaaaaaaaaa...\" (200 bytes)");
  EXPECT_EQ(QuoteCut("abc...", 20), "\"abc...\"");
}

TEST(QuoteCutTest, ACutNeverSplitsAnEscape) {
  // "ab" then "\x1b" (4 bytes): with room for 5 the escape does not fit whole.
  EXPECT_EQ(QuoteCut("ab\x1b" "cd", 5), "\"ab...\" (5 bytes)");
  EXPECT_EQ(QuoteCut("ab\x1b" "cd", 6), "\"ab\\x1b...\" (5 bytes)");
  // The escaped form is what must fit: 3 raw bytes, 12 escaped.
  EXPECT_EQ(QuoteCut("\xc3\xa9!", 8), R"("\xc3\xa9...")" " (3 bytes)");
  EXPECT_EQ(QuoteCut("\xc3\xa9!", 9), R"("\xc3\xa9!")");
}

}  // namespace quote_cut_test
}  // namespace credledger::common
