// Tests of the release phase library (docs/reports.md, "Release phases"): each first-match
// rule, their precedence, generation gating, remediation retries (missing, negative, used up or
// not), the flags and the phase names.
#include "projections/release_phase.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::projections {
namespace release_phase_test {

using ::testing::ElementsAre;
using v1::ReportCondition;

ReportCondition Cond(const std::string& type, const std::string& status,
                     int64_t observed_generation = 0, const std::string& reason = "") {
  ReportCondition c;
  c.set_type(type);
  c.set_status(status);
  c.set_reason(reason);
  c.set_observed_generation(observed_generation);
  return c;
}

SourceHalf Source(std::vector<ReportCondition> conditions, int64_t generation = 1) {
  return SourceHalf{generation, std::move(conditions)};
}

HelmReleaseHalf Helm(std::vector<ReportCondition> conditions, int64_t generation = 1) {
  HelmReleaseHalf half;
  half.generation = generation;
  half.conditions = std::move(conditions);
  return half;
}

HelmReleaseHalf WithFailures(HelmReleaseHalf half, int64_t install_failures,
                             std::optional<int64_t> install_retries, int64_t upgrade_failures,
                             std::optional<int64_t> upgrade_retries) {
  half.install_failures = install_failures;
  half.install_retries = install_retries;
  half.upgrade_failures = upgrade_failures;
  half.upgrade_retries = upgrade_retries;
  return half;
}

const ReportCondition kReady = Cond("Ready", "True");
const ReportCondition kNotReady = Cond("Ready", "False");
const ReportCondition kReadyUnknown = Cond("Ready", "Unknown");
const ReportCondition kReconciling = Cond("Reconciling", "True");
const ReportCondition kStalled = Cond("Stalled", "True");
const ReportCondition kRemediated = Cond("Remediated", "True", 0, "RollbackSucceeded");

struct PhaseCase {
  std::string name;
  std::optional<SourceHalf> source;
  std::optional<HelmReleaseHalf> helm;
  v1::ReleasePhase want;
};

class DerivePhaseTest : public ::testing::TestWithParam<PhaseCase> {};

TEST_P(DerivePhaseTest, FirstMatchingRuleWins) {
  EXPECT_EQ(PhaseName(DerivePhase(GetParam().source, GetParam().helm)), PhaseName(GetParam().want));
}

const PhaseCase kPhaseCases[] = {
    // Pending: a half missing, whatever the other half says.
    {"NoHalvesIsPending", std::nullopt, std::nullopt, v1::RELEASE_PHASE_PENDING},
    {"MissingSourceIsPending", std::nullopt, Helm({kReady}), v1::RELEASE_PHASE_PENDING},
    {"MissingHelmReleaseOutranksAStalledSource", Source({kStalled}), std::nullopt,
     v1::RELEASE_PHASE_PENDING},

    // Failed: Stalled=True on either half.
    {"StalledSourceIsFailed", Source({kReady, kStalled}), Helm({kReady}), v1::RELEASE_PHASE_FAILED},
    {"StalledHelmReleaseIsFailed", Source({kReady}),
     Helm({Cond("Stalled", "True", 1, "RetriesExceeded"), kNotReady, kReconciling}),
     v1::RELEASE_PHASE_FAILED},
    {"StalledFalseIsNoFailure", Source({kReady, Cond("Stalled", "False")}), Helm({kReady}),
     v1::RELEASE_PHASE_READY},
    {"StalledUnknownIsNoFailure", Source({kReady}), Helm({kReady, Cond("Stalled", "Unknown")}),
     v1::RELEASE_PHASE_READY},

    // Failed: Remediated=True with failures strictly above the action's retries.
    {"InstallFailuresAboveRetriesAreFailed", Source({kReady}),
     WithFailures(Helm({kRemediated, kNotReady}), 3, 2, 0, std::nullopt), v1::RELEASE_PHASE_FAILED},
    {"InstallFailuresEqualToRetriesAreDegraded", Source({kReady}),
     WithFailures(Helm({kRemediated, kNotReady}), 2, 2, 0, std::nullopt),
     v1::RELEASE_PHASE_DEGRADED},
    {"UpgradeFailuresAboveRetriesAreFailed", Source({kReady}),
     WithFailures(Helm({kRemediated, kReady}), 0, std::nullopt, 4, 3), v1::RELEASE_PHASE_FAILED},
    {"UpgradeFailuresEqualToRetriesAreNotFailed", Source({kReady}),
     WithFailures(Helm({kRemediated, kReady}), 0, std::nullopt, 3, 3), v1::RELEASE_PHASE_READY},
    {"MissingRetriesMeanZeroSoOneFailureIsTooMany", Source({kReady}),
     WithFailures(Helm({kRemediated, kReady}), 0, std::nullopt, 1, std::nullopt),
     v1::RELEASE_PHASE_FAILED},
    {"MissingRetriesWithoutFailuresAreNotFailed", Source({kReady}),
     WithFailures(Helm({kRemediated, kReady}), 0, std::nullopt, 0, std::nullopt),
     v1::RELEASE_PHASE_READY},
    {"NegativeRetriesRetryForever", Source({kReady}),
     WithFailures(Helm({kRemediated, kNotReady}), 0, std::nullopt, 1000, -1),
     v1::RELEASE_PHASE_DEGRADED},
    {"InstallRetriesDoNotCoverUpgradeFailures", Source({kReady}),
     WithFailures(Helm({kRemediated, kReady}), 0, 5, 1, std::nullopt), v1::RELEASE_PHASE_FAILED},
    {"UpgradeRetriesDoNotCoverInstallFailures", Source({kReady}),
     WithFailures(Helm({kRemediated, kNotReady}), 1, std::nullopt, 0, 5), v1::RELEASE_PHASE_FAILED},
    {"FailuresAboveRetriesWithoutRemediationAreDegraded", Source({kReady}),
     WithFailures(Helm({kNotReady}), 5, 0, 0, std::nullopt), v1::RELEASE_PHASE_DEGRADED},
    {"FailuresAboveRetriesWithRemediatedFalseAreDegraded", Source({kReady}),
     WithFailures(Helm({Cond("Remediated", "False"), kNotReady}), 5, 0, 0, std::nullopt),
     v1::RELEASE_PHASE_DEGRADED},
    {"RemediationReasonDoesNotMatterForFailed", Source({kReady}),
     WithFailures(Helm({Cond("Remediated", "True", 0, "UninstallSucceeded"), kNotReady}), 2, 1, 0,
                  std::nullopt),
     v1::RELEASE_PHASE_FAILED},

    // Degraded: Ready=False on either half, above Reconciling.
    {"SourceNotReadyIsDegraded", Source({kNotReady}), Helm({kReady}), v1::RELEASE_PHASE_DEGRADED},
    {"HelmReleaseNotReadyIsDegraded", Source({kReady}), Helm({kNotReady}),
     v1::RELEASE_PHASE_DEGRADED},
    {"NotReadyOutranksReconcilingOnTheSameHalf", Source({kReady}), Helm({kReconciling, kNotReady}),
     v1::RELEASE_PHASE_DEGRADED},
    {"NotReadyOutranksReconcilingOnTheOtherHalf", Source({kReconciling, kReady}), Helm({kNotReady}),
     v1::RELEASE_PHASE_DEGRADED},

    // Progressing: Reconciling=True on either half, above Ready.
    {"ReconcilingSourceIsProgressing", Source({kReconciling, kReady}), Helm({kReady}),
     v1::RELEASE_PHASE_PROGRESSING},
    {"ReconcilingHelmReleaseIsProgressing", Source({kReady}), Helm({kReconciling, kReady}),
     v1::RELEASE_PHASE_PROGRESSING},
    {"ReconcilingFalseIsIgnored", Source({kReady, Cond("Reconciling", "False")}), Helm({kReady}),
     v1::RELEASE_PHASE_READY},

    // Ready: Ready=True on both halves; otherwise Progressing.
    {"BothReadyIsReady", Source({kReady}), Helm({kReady}), v1::RELEASE_PHASE_READY},
    {"ReadyUnknownIsProgressing", Source({kReady}), Helm({kReadyUnknown}),
     v1::RELEASE_PHASE_PROGRESSING},
    {"ReadyOnOneHalfOnlyIsProgressing", Source({}), Helm({kReady}), v1::RELEASE_PHASE_PROGRESSING},
    {"NoConditionsAreProgressing", Source({}), Helm({}), v1::RELEASE_PHASE_PROGRESSING},

    // Generation gating: a condition counts when its observedGeneration is 0 or the half's.
    {"StalledOfAnOldGenerationIsIgnored", Source({kReady}),
     Helm({Cond("Stalled", "True", 3), Cond("Ready", "False", 3)}, 4),
     v1::RELEASE_PHASE_PROGRESSING},
    {"RemediationOfAnOldGenerationIsIgnored", Source({kReady}),
     WithFailures(Helm({Cond("Remediated", "True", 1), Cond("Ready", "True", 2)}, 2), 0,
                  std::nullopt, 1, std::nullopt),
     v1::RELEASE_PHASE_READY},
    {"NotReadyOfAnOldGenerationIsIgnored",
     Source({Cond("Ready", "False", 1), Cond("Ready", "True", 2)}, 2), Helm({kReady}),
     v1::RELEASE_PHASE_READY},
    {"ConditionsOfTheCurrentGenerationCount", Source({Cond("Ready", "True", 7)}, 7),
     Helm({Cond("Ready", "True", 2)}, 2), v1::RELEASE_PHASE_READY},
    {"ObservedGenerationAheadOfTheObjectIsIgnored", Source({Cond("Stalled", "True", 2)}, 1),
     Helm({kReady}), v1::RELEASE_PHASE_PROGRESSING},
    {"EachHalfIsGatedByItsOwnGeneration", Source({Cond("Ready", "True", 5)}, 5),
     Helm({Cond("Ready", "True", 5)}, 6), v1::RELEASE_PHASE_PROGRESSING},

    // A type present twice counts by its first current occurrence.
    {"DuplicateTypeCountsByItsFirstOccurrence", Source({kReady}), Helm({kReady, kNotReady}),
     v1::RELEASE_PHASE_READY},
    {"DuplicateTypeSkipsAnOccurrenceOfAnOldGeneration", Source({kReady}),
     Helm({Cond("Ready", "True", 1), kNotReady}, 2), v1::RELEASE_PHASE_DEGRADED},
};

INSTANTIATE_TEST_SUITE_P(Rules, DerivePhaseTest, ::testing::ValuesIn(kPhaseCases),
                         [](const ::testing::TestParamInfo<PhaseCase>& info) {
                           return info.param.name;
                         });

std::vector<std::string> Types(const std::vector<ReportCondition>& conditions) {
  std::vector<std::string> types;
  for (const ReportCondition& c : conditions) types.push_back(c.type());
  return types;
}

TEST(CurrentConditionsTest, KeepsUnsetAndMatchingGenerationsInTheirOrder) {
  const std::vector<ReportCondition> conditions = {
      Cond("Reconciling", "True", 4), Cond("Released", "True", 3), Cond("Ready", "Unknown", 0),
      Cond("Stalled", "True", 5), Cond("TestSuccess", "True", 4)};
  EXPECT_THAT(Types(CurrentConditions(4, conditions)),
              ElementsAre("Reconciling", "Ready", "TestSuccess"));
}

TEST(CurrentConditionsTest, KeepsEveryFieldOfAKeptCondition) {
  ReportCondition c = Cond("Ready", "False", 2, "InstallFailed");
  c.set_message("Helm install failed");
  c.mutable_last_transition_time()->set_seconds(1772445600);
  const std::vector<ReportCondition> current = CurrentConditions(2, {c});
  ASSERT_EQ(current.size(), 1u);
  EXPECT_EQ(current[0].SerializeAsString(), c.SerializeAsString());
}

TEST(CurrentConditionsTest, AnUntouchedObjectHasNoCurrentConditionsOfAnotherGeneration) {
  EXPECT_TRUE(CurrentConditions(1, {Cond("Ready", "True", 2)}).empty());
  EXPECT_TRUE(CurrentConditions(1, {}).empty());
}

// --- Flags ---

struct FlagsCase {
  std::string name;
  std::vector<ReportCondition> source;
  std::vector<ReportCondition> helm;
  bool verified;
  bool rolled_back;
  bool test_failed;
  bool drifted;
};

class DeriveFlagsTest : public ::testing::TestWithParam<FlagsCase> {};

void ExpectFlags(const v1::ReleaseFlags& flags, const FlagsCase& c) {
  EXPECT_EQ(flags.verified(), c.verified);
  EXPECT_EQ(flags.rolled_back(), c.rolled_back);
  EXPECT_EQ(flags.test_failed(), c.test_failed);
  EXPECT_EQ(flags.drifted(), c.drifted);
}

TEST_P(DeriveFlagsTest, FromVectors) {
  ExpectFlags(DeriveFlags(GetParam().source, GetParam().helm), GetParam());
}

TEST_P(DeriveFlagsTest, FromAReportedReleaseStatus) {
  v1::ReleaseStatus status;
  for (const ReportCondition& c : GetParam().source) *status.add_source_conditions() = c;
  for (const ReportCondition& c : GetParam().helm) *status.add_helm_conditions() = c;
  ExpectFlags(DeriveFlags(status.source_conditions(), status.helm_conditions()), GetParam());
}

const FlagsCase kFlagsCases[] = {
    {"NoConditionsNoFlags", {}, {}, false, false, false, false},
    {"SourceVerified", {Cond("SourceVerified", "True")}, {}, true, false, false, false},
    {"SourceVerificationFailed", {Cond("SourceVerified", "False")}, {}, false, false, false, false},
    {"VerifiedCountsOnlyOnTheSource",
     {},
     {Cond("SourceVerified", "True")},
     false,
     false,
     false,
     false},
    {"RolledBack",
     {},
     {Cond("Remediated", "True", 0, "RollbackSucceeded")},
     false,
     true,
     false,
     false},
    {"UninstallIsNoRollback",
     {},
     {Cond("Remediated", "True", 0, "UninstallSucceeded")},
     false,
     false,
     false,
     false},
    {"RemediatedFalseIsNoRollback",
     {},
     {Cond("Remediated", "False", 0, "RollbackSucceeded")},
     false,
     false,
     false,
     false},
    {"RollbackCountsOnlyOnTheHelmRelease",
     {Cond("Remediated", "True", 0, "RollbackSucceeded")},
     {},
     false,
     false,
     false,
     false},
    {"TestFailed", {}, {Cond("TestSuccess", "False", 0, "TestFailed")}, false, false, true, false},
    {"TestSucceeded", {}, {Cond("TestSuccess", "True")}, false, false, false, false},
    {"TestUnknownIsNoFailure", {}, {Cond("TestSuccess", "Unknown")}, false, false, false, false},
    {"Drifted", {}, {Cond("Drifted", "True", 0, "DriftDetected")}, false, false, false, true},
    {"NotDrifted",
     {},
     {Cond("Drifted", "False", 0, "NoDriftDetected")},
     false,
     false,
     false,
     false},
    {"AllFlagsTogether",
     {Cond("Ready", "True"), Cond("SourceVerified", "True")},
     {Cond("Ready", "True"), Cond("Remediated", "True", 0, "RollbackSucceeded"),
      Cond("TestSuccess", "False"), Cond("Drifted", "True")},
     true,
     true,
     true,
     true},
};

INSTANTIATE_TEST_SUITE_P(Rules, DeriveFlagsTest, ::testing::ValuesIn(kFlagsCases),
                         [](const ::testing::TestParamInfo<FlagsCase>& info) {
                           return info.param.name;
                         });

// --- Phase names ---

TEST(PhaseNameTest, EveryPhaseRoundTripsThroughItsName) {
  const std::vector<std::pair<v1::ReleasePhase, std::string>> names = {
      {v1::RELEASE_PHASE_PENDING, "Pending"}, {v1::RELEASE_PHASE_PROGRESSING, "Progressing"},
      {v1::RELEASE_PHASE_READY, "Ready"},     {v1::RELEASE_PHASE_DEGRADED, "Degraded"},
      {v1::RELEASE_PHASE_FAILED, "Failed"},
  };
  for (const auto& [phase, name] : names) {
    EXPECT_EQ(PhaseName(phase), name);
    EXPECT_EQ(PhaseFromName(name), phase) << name;
  }
}

TEST(PhaseNameTest, UnspecifiedAndUnknownValuesHaveNoName) {
  EXPECT_EQ(PhaseName(v1::RELEASE_PHASE_UNSPECIFIED), "");
  EXPECT_EQ(PhaseName(static_cast<v1::ReleasePhase>(42)), "");
}

TEST(PhaseNameTest, OtherSpellingsAreNoPhase) {
  EXPECT_EQ(PhaseFromName(""), std::nullopt);
  EXPECT_EQ(PhaseFromName("ready"), std::nullopt);
  EXPECT_EQ(PhaseFromName("RELEASE_PHASE_READY"), std::nullopt);
  EXPECT_EQ(PhaseFromName("Ready "), std::nullopt);
}

}  // namespace release_phase_test
}  // namespace credledger::projections
