// The JSON log (common/log.h): every line is one JSON object whatever bytes a value holds,
// and JsonQuote spells valid text as before.
#include "common/log.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace credledger::common {
namespace log_test {

using ::testing::MatchesRegex;

// Keeps the last line written.
class LastLine final : public LogSink {
 public:
  LastLine() { SetLogSinkForTesting(this); }
  ~LastLine() override { SetLogSinkForTesting(nullptr); }
  void Write(absl::string_view line) override { line_ = std::string(line); }
  const std::string& line() const { return line_; }

 private:
  std::string line_;
};

TEST(JsonQuoteTest, InvalidUtf8BecomesReplacementCharactersInParseableJson) {
  const nlohmann::json parsed = nlohmann::json::parse(JsonQuote("bad \xff\xfe"), nullptr, false);
  ASSERT_FALSE(parsed.is_discarded());
  EXPECT_EQ(parsed, "bad \xef\xbf\xbd\xef\xbf\xbd");
}

TEST(JsonQuoteTest, EscapesQuotesBackslashesAndControlCharactersAndKeepsUtf8) {
  EXPECT_EQ(JsonQuote("a\"b\\c\nd\te\x01 caf\xc3\xa9 /"),
            "\"a\\\"b\\\\c\\nd\\te\\u0001 caf\xc3\xa9 /\"");
}

TEST(LogTest, WritesOneJsonObjectPerLineInTheFieldOrderGiven) {
  LastLine sink;
  Log(LogLevel::kWarning, "disk full", {{"path", "/var/lib/credledger"}, {"bytes", "12"}});
  EXPECT_THAT(sink.line(),
              MatchesRegex("\\{\"time\":\"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
                           "\\.[0-9]{6}Z\",\"level\":\"warning\",\"msg\":\"disk full\","
                           "\"path\":\"/var/lib/credledger\",\"bytes\":\"12\"\\}\n"));
}

TEST(LogTest, ALineWithAnInvalidUtf8FieldIsStillAJsonObject) {
  LastLine sink;
  Log(LogLevel::kError, "refused", {{"name", "edge\xc3"}});
  const nlohmann::json parsed = nlohmann::json::parse(sink.line(), nullptr, false);
  ASSERT_TRUE(parsed.is_object()) << sink.line();
  EXPECT_EQ(parsed["name"], "edge\xef\xbf\xbd");
}

}  // namespace log_test
}  // namespace credledger::common
