// The Prometheus text format pieces: escaping of label values and HELP text, value
// formatting and name rules.
#include "common/metric_text.h"

#include <limits>

#include "gtest/gtest.h"

namespace credledger::common {
namespace metric_text_test {

TEST(MetricTextTest, LabelValuesEscapeBackslashQuoteAndNewlineOnly) {
  EXPECT_EQ(EscapeLabelValue(R"(a\b"c)" "\n" "d\te"), R"(a\\b\"c\nd)" "\te");
  EXPECT_EQ(EscapeLabelValue("plain-value_1"), "plain-value_1");
  EXPECT_EQ(EscapeLabelValue(""), "");
}

TEST(MetricTextTest, HelpEscapesBackslashAndNewlineButNotQuotes) {
  EXPECT_EQ(EscapeHelp("a \"quoted\" \\ line\nnext"), "a \"quoted\" \\\\ line\\nnext");
}

TEST(MetricTextTest, ValuesUseTheShortestExactDecimal) {
  EXPECT_EQ(FormatSampleValue(0), "0");
  EXPECT_EQ(FormatSampleValue(3), "3");
  EXPECT_EQ(FormatSampleValue(123456), "123456");
  EXPECT_EQ(FormatSampleValue(1234567), "1.234567e+06");
  EXPECT_EQ(FormatSampleValue(1234567890123), "1.234567890123e+12");
  EXPECT_EQ(FormatSampleValue(0.25), "0.25");
  EXPECT_EQ(FormatSampleValue(0.1), "0.1");
  EXPECT_EQ(FormatSampleValue(-2.5), "-2.5");
  EXPECT_EQ(FormatSampleValue(0.0005), "0.0005");
  EXPECT_EQ(FormatSampleValue(1.5e-7), "1.5e-07");
  EXPECT_EQ(FormatSampleValue(1e21), "1e+21");
  EXPECT_EQ(FormatSampleValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatSampleValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatSampleValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(MetricTextTest, MetricNamesAllowColonsAndLabelNamesDoNot) {
  EXPECT_TRUE(IsValidMetricName("credledger_log_head_seq"));
  EXPECT_TRUE(IsValidMetricName("job:rate:5m"));
  EXPECT_FALSE(IsValidMetricName(""));
  EXPECT_FALSE(IsValidMetricName("1abc"));
  EXPECT_FALSE(IsValidMetricName("a-b"));
  EXPECT_FALSE(IsValidMetricName("a b"));
  EXPECT_TRUE(IsValidLabelName("verb"));
  EXPECT_TRUE(IsValidLabelName("_x1"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
  EXPECT_FALSE(IsValidLabelName("__name__"));
  EXPECT_FALSE(IsValidLabelName("9"));
}

}  // namespace metric_text_test
}  // namespace credledger::common
