// Kubernetes resource quantities: parsing, exact addition and the canonical form. Expected
// texts are Kubernetes' canonical forms (resource.Quantity's String()), checked by hand.
#include "kubebridge/agent/quantity.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace quantity_test {

using ::testing::HasSubstr;
using testing::StatusIs;

constexpr int64_t kNano = 1000000000;

absl::int128 Nanos(absl::string_view text) {
  absl::StatusOr<Quantity> q = ParseQuantity(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status();
  return q.ok() ? q->nanos : absl::int128(-1);
}

std::string Canonical(absl::string_view text) {
  absl::StatusOr<Quantity> q = ParseQuantity(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status();
  return q.ok() ? FormatQuantity(*q) : "<error>";
}

std::string Sum(absl::string_view a, absl::string_view b) {
  absl::StatusOr<Quantity> qa = ParseQuantity(a);
  absl::StatusOr<Quantity> qb = ParseQuantity(b);
  EXPECT_TRUE(qa.ok() && qb.ok());
  if (!qa.ok() || !qb.ok()) return "<error>";
  absl::StatusOr<Quantity> sum = AddQuantities(*qa, *qb);
  EXPECT_TRUE(sum.ok()) << sum.status();
  return sum.ok() ? FormatQuantity(*sum) : "<error>";
}

TEST(QuantityTest, ParsesEverySuffixFamilyExactly) {
  EXPECT_EQ(Nanos("3800m"), absl::int128(3800) * 1000000);
  EXPECT_EQ(Nanos("4"), absl::int128(4) * kNano);
  EXPECT_EQ(Nanos("250u"), absl::int128(250) * 1000);
  EXPECT_EQ(Nanos("7n"), 7);
  EXPECT_EQ(Nanos("1.5k"), absl::int128(1500) * kNano);
  EXPECT_EQ(Nanos("2M"), absl::int128(2000000) * kNano);
  EXPECT_EQ(Nanos("1E"), absl::int128(1000000000000000000) * kNano);
  EXPECT_EQ(Nanos("16Gi"), (absl::int128(16) << 30) * kNano);
  EXPECT_EQ(Nanos("1.5Ki"), absl::int128(1536) * kNano);
  EXPECT_EQ(Nanos("1e3"), absl::int128(1000) * kNano);
  EXPECT_EQ(Nanos("5E-3"), absl::int128(5000000));
  EXPECT_EQ(Nanos("1e+2"), absl::int128(100) * kNano);
}

TEST(QuantityTest, AcceptsSignsAndBareFractions) {
  EXPECT_EQ(Nanos("-2"), absl::int128(-2) * kNano);
  EXPECT_EQ(Nanos("+2"), absl::int128(2) * kNano);
  EXPECT_EQ(Nanos(".5"), kNano / 2);
  EXPECT_EQ(Nanos("1."), kNano);
  EXPECT_EQ(Nanos("007"), absl::int128(7) * kNano);
  EXPECT_EQ(Nanos("0.000Mi"), 0);
}

TEST(QuantityTest, PrecisionBeyondNanoRoundsAwayFromZero) {
  EXPECT_EQ(Nanos("0.1n"), 1);
  EXPECT_EQ(Nanos("-0.1n"), -1);
  EXPECT_EQ(Nanos("1.0000000001"), kNano + 1);
  EXPECT_EQ(Nanos("1e-40"), 1);
  EXPECT_EQ(Canonical("0.1n"), "1n");
}

TEST(QuantityTest, RejectsMalformedTextNamingTheRule) {
  EXPECT_THAT(ParseQuantity(""), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
  for (const char* text : {"-", ".", "+.", "Gi", "four"}) {
    EXPECT_THAT(ParseQuantity(text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs digits")))
        << text;
  }
  for (const char* text : {"1K", "1e", "1Mi3", "1 Gi", "1KI", "1e1.5", "1e12345", "1mm"}) {
    EXPECT_THAT(ParseQuantity(text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown suffix")))
        << text;
  }
  EXPECT_THAT(ParseQuantity("1234567890123456789012345678901234567"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("significant digits")));
}

TEST(QuantityTest, MagnitudeIsBoundedBy2To63Minus1) {
  EXPECT_EQ(Canonical("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(Canonical("7Ei"), "7Ei");
  for (const char* text : {"9223372036854775808", "8Ei", "-8Ei", "10E", "1e19", "1e9999"}) {
    EXPECT_THAT(ParseQuantity(text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2^63-1")))
        << text;
  }
}

TEST(QuantityTest, FormatsInKubernetesCanonicalForm) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"1500m", "1500m"},
      {"1.5", "1500m"},
      {"2000m", "2"},
      {"1000", "1k"},
      {"1000k", "1M"},
      {"100u", "100u"},
      {"1000000000n", "1"},
      {"0.5m", "500u"},
      {"-1500m", "-1500m"},
      {"0", "0"},
      {"0Mi", "0"},
      {"1e3", "1e3"},
      {"1.5e3", "1500"},
      {"12e6", "12e6"},
      {"1e-3", "1e-3"},
      {"1Gi", "1Gi"},
      {"1024Mi", "1Gi"},
      {"1536Mi", "1536Mi"},
      {"512Ki", "512Ki"},
      {"0.5Ki", "512"},
      {"1.5Ki", "1536"},
      {"-1Gi", "-1Gi"},
      {"1Ki", "1Ki"},
      {"0.5Gi", "512Mi"},
      {"15766420Ki", "15766420Ki"},
      {"94580335255", "94580335255"},
      {"110", "110"},
  };
  for (const auto& [text, canonical] : cases) EXPECT_EQ(Canonical(text), canonical) << text;
}

TEST(QuantityTest, CanonicalTextParsesBackToTheSameValue) {
  for (const char* text : {"3800m", "1.5Ki", "0.5Gi", "1e-3", "123456789n", "-7Ei", "5E",
                           "1073741824500m", "0.000000001"}) {
    absl::StatusOr<Quantity> q = ParseQuantity(text);
    ASSERT_TRUE(q.ok()) << text;
    EXPECT_EQ(Nanos(FormatQuantity(*q)), q->nanos) << text;
  }
}

TEST(QuantityTest, AdditionIsExactAndKeepsTheFirstNonZeroFormat) {
  EXPECT_EQ(Sum("100m", "250m"), "350m");
  EXPECT_EQ(Sum("128Mi", "64Mi"), "192Mi");
  EXPECT_EQ(Sum("4", "3800m"), "7800m");
  EXPECT_EQ(Sum("0", "1Gi"), "1Gi");
  EXPECT_EQ(Sum("1Gi", "1G"), "2073741824");
  EXPECT_EQ(Sum("1Gi", "500m"), "1073741824500m");
  EXPECT_EQ(Sum("1e3", "1"), "1001");
  EXPECT_EQ(Sum("1e3", "1e3"), "2e3");
  EXPECT_EQ(Sum("1", "-1"), "0");
}

TEST(QuantityTest, AdditionPastTheBoundIsOutOfRange) {
  absl::StatusOr<Quantity> a = ParseQuantity("5Ei");
  ASSERT_TRUE(a.ok());
  EXPECT_THAT(AddQuantities(*a, *a),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("5Ei + 5Ei exceeds 2^63-1")));
}

}  // namespace quantity_test
}  // namespace credledger::kubebridge
