#include "store/event_codec.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::store {
namespace event_codec_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kType[] = "credledger.v1.ServiceConfigured";

RecordedEvent Stored(const NewEvent& e) {
  RecordedEvent r;
  r.seq = 7;
  r.type = e.type;
  r.schema_version = e.schema_version;
  r.metadata = e.metadata;
  r.payload = e.payload;
  return r;
}

TEST(EventCodecTest, KnownTypesComeFromTheEventOneofWithTheirSchemaVersions) {
  EXPECT_EQ(EventCodec::Default().known_types().at(kType), 1u);
}

TEST(EventCodecTest, EncodeThenDecodeRoundTrips) {
  v1::Event event;
  event.mutable_service_configured()->set_agent_apiserver_url("https://127.0.0.1:6443");
  event.mutable_service_configured()->set_agent_token_ttl_seconds(86400);
  v1::EventMetadata metadata;
  metadata.set_actor("operator");
  metadata.set_request_id("r1");
  ASSERT_OK_AND_ASSIGN(NewEvent encoded, EventCodec::Default().Encode(event, metadata));
  EXPECT_EQ(encoded.type, kType);
  EXPECT_EQ(encoded.schema_version, 1u);
  ASSERT_OK_AND_ASSIGN(v1::Event decoded, EventCodec::Default().Decode(Stored(encoded)));
  EXPECT_EQ(decoded.service_configured().agent_apiserver_url(), "https://127.0.0.1:6443");
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata meta, EventCodec::DecodeMetadata(Stored(encoded)));
  EXPECT_EQ(meta.actor(), "operator");
}

TEST(EventCodecTest, EncodingAnEmptyEventIsRejected) {
  EXPECT_THAT(EventCodec::Default().Encode(v1::Event(), v1::EventMetadata()),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(EventCodecTest, UnknownTypesAndNewerVersionsAreDataLoss) {
  RecordedEvent unknown;
  unknown.seq = 3;
  unknown.type = "credledger.v1.Nope";
  unknown.schema_version = 1;
  EXPECT_THAT(EventCodec::Default().Decode(unknown),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("unknown event type")));
  RecordedEvent newer = unknown;
  newer.type = kType;
  newer.schema_version = 2;
  EXPECT_THAT(EventCodec::Default().Decode(newer),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("newer than this binary's 1")));
  RecordedEvent garbage = newer;
  garbage.schema_version = 1;
  garbage.payload = "\xff\xff\xff";
  EXPECT_THAT(EventCodec::Default().Decode(garbage),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("does not parse")));
}

TEST(EventCodecTest, OlderVersionsAreUpcastStepByStep) {
  EventCodec codec({{kType, 3}});
  codec.RegisterUpcaster(kType, 1, [](absl::string_view payload) -> absl::StatusOr<std::string> {
    v1::ServiceConfigured c;
    c.ParseFromString(std::string(payload));
    c.set_agent_apiserver_url(c.agent_apiserver_url() + "/v2");
    return c.SerializeAsString();
  });
  RecordedEvent old;
  v1::ServiceConfigured v1_payload;
  v1_payload.set_agent_apiserver_url("https://a");
  old.type = kType;
  old.schema_version = 1;
  old.payload = v1_payload.SerializeAsString();
  // No step from 2 to 3 yet.
  EXPECT_THAT(codec.Decode(old),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("no upcaster")));
  codec.RegisterUpcaster(kType, 2, [](absl::string_view payload) -> absl::StatusOr<std::string> {
    v1::ServiceConfigured c;
    c.ParseFromString(std::string(payload));
    c.set_agent_apiserver_url(c.agent_apiserver_url() + "/v3");
    return c.SerializeAsString();
  });
  ASSERT_OK_AND_ASSIGN(v1::Event decoded, codec.Decode(old));
  EXPECT_EQ(decoded.service_configured().agent_apiserver_url(), "https://a/v2/v3");
}

// Logs written with plain source hashes stay readable (docs/mirrors.md, "Logs with plain
// source hashes"): version 1 of both events decodes with its source_hash, and a log holding
// them passes the start-up type check; version 2 is what is written.
TEST(EventCodecTest, Version1SourceHashEventsDecodeAndVersion2IsWritten) {
  const std::string hash(64, 'a');
  v1::SourceSecretObserved observed;
  observed.set_found(true);
  observed.set_source_hash(hash);
  v1::MirrorWritten written;
  written.set_namespace_("team-a");
  written.set_source_hash(hash);
  for (const auto& [type, payload] : std::vector<std::pair<std::string, std::string>>{
           {"credledger.v1.SourceSecretObserved", observed.SerializeAsString()},
           {"credledger.v1.MirrorWritten", written.SerializeAsString()}}) {
    EXPECT_EQ(EventCodec::Default().known_types().at(type), 2u) << type;
    RecordedEvent old;
    old.type = type;
    old.schema_version = 1;
    old.payload = payload;
    ASSERT_OK_AND_ASSIGN(v1::Event decoded, EventCodec::Default().Decode(old));
    EXPECT_EQ(decoded.has_source_secret_observed() ? decoded.source_secret_observed().source_hash()
                                                   : decoded.mirror_written().source_hash(),
              hash)
        << type;
    EXPECT_OK(EventCodec::Default().CheckStoredTypes({{type, 1}}));
  }
  v1::Event event;
  event.mutable_mirror_written()->set_source_fingerprint("hmac-sha256:x");
  ASSERT_OK_AND_ASSIGN(NewEvent encoded, EventCodec::Default().Encode(event, v1::EventMetadata()));
  EXPECT_EQ(encoded.schema_version, 2u);
}

TEST(EventCodecTest, StoredTypeCheckNamesTheOffendingType) {
  EXPECT_OK(EventCodec::Default().CheckStoredTypes({{kType, 1}}));
  EXPECT_THAT(EventCodec::Default().CheckStoredTypes({{"x.Unknown", 1}}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("\"x.Unknown\"")));
}

}  // namespace event_codec_test
}  // namespace credledger::store
