// The fingerprint key of `credledger serve` through the real binaries (docs/operations.md, "The
// fingerprint key"; docs/audit.md, "Source fingerprints"): without --fingerprint-key serve makes
// the key beside the database at its first start with a cluster connection and reads it at every
// later one; a read-only start never makes it; a key given by flag must exist; a rotated key
// gives the source's fingerprints a new key id from the next pass on, adopts the mirrors without
// writing them, and the service keeps mirroring.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/fingerprint_key.h"
#include "credledger/v1/events.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/mirror_naming.h"
#include "store/event_codec.h"
#include "test/integration/mirror_processes.h"
#include "test/support/file_mode.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {
namespace fingerprint_key_process_test {

using ::testing::AnyOf;
using ::testing::Contains;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Matcher;
using ::testing::Not;
using ::testing::StartsWith;

const std::map<std::string, std::string> kData = {{"access_key", "AKIA-FP-0001"},
                                                  {"secret_key", "fp-secret-0001"}};
const std::map<std::string, std::string> kRotatedData = {{"access_key", "AKIA-FP-0002"},
                                                         {"secret_key", "fp-secret-0002"}};

class FingerprintKeyProcessTest : public MirrorProcessTest {
 protected:
  std::filesystem::path default_key() const { return db_path().parent_path() / "fingerprint-key"; }

  // The source fingerprints the log records after `after_seq`, in order: of the
  // SourceSecretObserved events in `observed`, of the MirrorWritten events in `written` (with
  // what an UPDATED one changed in `changed`). A source's observation is recorded before any
  // mirror is written from it, so once a mirror holds some data the log holds its observation;
  // the MirrorWritten that follows the write may still be on its way when serve stops.
  struct Recorded {
    std::vector<std::string> observed;
    std::vector<std::string> written;
    std::vector<std::vector<std::string>> changed;
  };
  Recorded RecordedAfter(int64_t after_seq = 0) {
    Recorded recorded;
    for (const store::RecordedEvent& e : ReadLog(after_seq)) {
      absl::StatusOr<v1::Event> event = store::EventCodec::Default().Decode(e);
      EXPECT_OK(event.status());
      if (!event.ok()) continue;
      if (event->has_source_secret_observed()) {
        recorded.observed.push_back(event->source_secret_observed().source_fingerprint());
      }
      if (event->has_mirror_written()) {
        recorded.written.push_back(event->mirror_written().source_fingerprint());
        recorded.changed.push_back(
            {event->mirror_written().changed().begin(), event->mirror_written().changed().end()});
      }
    }
    return recorded;
  }

  // The fingerprint of `data` under `key`.
  static std::string FingerprintOf(const common::FingerprintKey& key,
                                   const std::map<std::string, std::string>& data) {
    return projections::SourceFingerprint(key, {data.begin(), data.end()});
  }

  // Replaces the source's data with `data`.
  void RotateSource(const std::map<std::string, std::string>& data) {
    ASSERT_OK_AND_ASSIGN(nlohmann::json live,
                         admin_->Get(kubebridge::SecretResource(kLiveNamespace, "aws-keys")));
    nlohmann::json rotated = Source(data);
    rotated["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"];
    ASSERT_OK(
        admin_->Update(kubebridge::SecretResource(kLiveNamespace, "aws-keys"), rotated).status());
  }
};

TEST_F(FingerprintKeyProcessTest, ServeMakesTheKeyBesideTheDatabaseOnceAndKeepsUsingIt) {
  CreateSource(kData);
  StartServe();
  CreateAndBindIdentity();
  ASSERT_TRUE(WaitForMirror("team-a", projections::SourceHash({kData.begin(), kData.end()})));
  StopServe();
  EXPECT_EQ(ModeOf(default_key()), mode_t{0600});
  ASSERT_OK_AND_ASSIGN(common::FingerprintKey key, common::FingerprintKey::LoadFile(default_key()));
  const std::string fingerprint = FingerprintOf(key, kData);
  const Recorded first = RecordedAfter();
  EXPECT_THAT(first.observed, ElementsAre(fingerprint));
  EXPECT_THAT(first.written, Each(fingerprint));
  ASSERT_EQ(serve_outputs_.size(), 2u);
  EXPECT_THAT(serve_outputs_[1], HasSubstr("made a new fingerprint key beside the database"));
  EXPECT_THAT(serve_outputs_[1], HasSubstr(key.key_id()));
  EXPECT_THAT(serve_outputs_[1], Not(HasSubstr(key.Text().substr(0, 16))));

  // A later start reads the same key: the source is not observed again until it changes.
  const int64_t seq = ReadLog().back().seq;
  StartServe();
  RotateSource(kRotatedData);
  ASSERT_TRUE(
      WaitForMirror("team-a", projections::SourceHash({kRotatedData.begin(), kRotatedData.end()})));
  StopServe();
  const std::string rotated = FingerprintOf(key, kRotatedData);
  const Recorded later = RecordedAfter(seq);
  EXPECT_THAT(later.observed, ElementsAre(rotated));
  EXPECT_THAT(later.written, Each(AnyOf(fingerprint, rotated)));
  EXPECT_THAT(serve_outputs_[3], Not(HasSubstr("made a new fingerprint key")));
  EXPECT_THAT(serve_outputs_[3], HasSubstr("fingerprinting source Secrets"));

  // A read-only start neither reads nor makes the key.
  std::filesystem::remove(default_key());
  StartServe("", {"--read-only"});
  StopServe();
  EXPECT_FALSE(std::filesystem::exists(default_key()));
}

TEST_F(FingerprintKeyProcessTest, AKeyGivenByFlagMustExist) {
  const std::filesystem::path missing = dir_.path() / "no-such-key";
  LaunchServe("", {"--fingerprint-key", missing.string()});
  ASSERT_NE(serve_, nullptr);
  EXPECT_FALSE(AwaitServeReady());
  ASSERT_OK_AND_ASSIGN(int code, serve_->Wait(absl::Now() + kLiveWait));
  EXPECT_EQ(code, 1);
  EXPECT_THAT(serve_->err(),
              HasSubstr("--fingerprint-key: fingerprint key file \"" + missing.string() + "\""));
  EXPECT_THAT(serve_->err(), HasSubstr("make one with `credledger keygen --fingerprint-key FILE`"));
  EXPECT_FALSE(std::filesystem::exists(missing));
  EXPECT_FALSE(std::filesystem::exists(default_key()));
  // Refused before the Lease is waited for and the log opened: nothing was created.
  EXPECT_FALSE(std::filesystem::exists(db_path()));
  serve_.reset();
}

// Rotation: stop, make a new key, start with it (docs/audit.md, "Source fingerprints").
TEST_F(FingerprintKeyProcessTest, ARotatedKeyGivesANewKeyIdAdoptsTheMirrorsAndKeepsMirroring) {
  const std::filesystem::path old_key = dir_.path() / "fingerprint-key-1";
  const std::filesystem::path new_key = dir_.path() / "fingerprint-key-2";
  for (const std::filesystem::path& path : {old_key, new_key}) {
    RunResult made = OfflineCli({"keygen", "--fingerprint-key", path.string()});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  ASSERT_OK_AND_ASSIGN(common::FingerprintKey first, common::FingerprintKey::LoadFile(old_key));
  ASSERT_OK_AND_ASSIGN(common::FingerprintKey second, common::FingerprintKey::LoadFile(new_key));
  ASSERT_NE(first.key_id(), second.key_id());

  CreateSource(kData);
  StartServe("", {"--fingerprint-key", old_key.string()});
  CreateAndBindIdentity();
  ASSERT_TRUE(WaitForMirror("team-a", projections::SourceHash({kData.begin(), kData.end()})));
  StopServe();
  EXPECT_FALSE(std::filesystem::exists(default_key()));
  EXPECT_THAT(RecordedAfter().observed, ElementsAre(FingerprintOf(first, kData)));

  // The new key: every observation and mirror record from now on names it, and a rotation of
  // the source reaches the mirror as before. The first pass under the new key adopts the
  // mirror, or, when the source's rotation reaches it first, rewrites it for the new data:
  // the key alone never causes a write (the reconciler's tests pin the adoption down).
  const int64_t seq = ReadLog().back().seq;
  StartServe("", {"--fingerprint-key", new_key.string()});
  RotateSource(kRotatedData);
  ASSERT_TRUE(
      WaitForMirror("team-a", projections::SourceHash({kRotatedData.begin(), kRotatedData.end()})));
  StopServe();
  const Recorded after = RecordedAfter(seq);
  const Matcher<std::string> under_new_key = StartsWith("hmac-sha256:" + second.key_id() + ":");
  EXPECT_THAT(after.observed, Each(under_new_key));
  EXPECT_THAT(after.written, Each(under_new_key));
  ASSERT_FALSE(after.observed.empty());
  EXPECT_EQ(after.observed.back(), FingerprintOf(second, kRotatedData));
  for (const std::vector<std::string>& changed : after.changed) {
    if (!changed.empty()) {
      EXPECT_THAT(changed, Contains("data"));
    }
  }
  EXPECT_THAT(serve_outputs_.back(), HasSubstr(second.key_id()));
}

}  // namespace fingerprint_key_process_test
}  // namespace credledger::testing
