// The export formats against their specifications (docs/audit.md, "Export"; CloudEvents
// 1.0; RFC 4180; RFC 3339), on events written by a real store.
#include "audit/export_format.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <openssl/evp.h>

#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/event_codec.h"
#include "store/log_hash.h"
#include "store/sqlite_event_store.h"
#include "test/support/recorded_events.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::audit {
namespace export_format_test {

using ::credledger::testing::ExpectSameEvent;
using ::credledger::testing::StatusIs;
using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr char kRevokeReason[] = "leaked, see \"INC-7\"\r\nby Zoë – 鍵";
constexpr char kOddActor[] = "ops, \"night\"\r\nshift";

// Lowercase hex and standard base64 computed without the code under test.
std::string Hex(absl::string_view bytes) { return absl::BytesToHexString(bytes); }
std::string Base64(absl::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(n);
  return out;
}

Json ParseJson(absl::string_view text) {
  Json json = Json::parse(text.begin(), text.end(), nullptr, false);
  EXPECT_FALSE(json.is_discarded()) << text;
  return json;
}

// RFC 4180, section 2: records end with CRLF; a field is unquoted (no comma, quote, CR or
// LF) or enclosed in quotes with inner quotes doubled. nullopt when `text` breaks a rule.
std::optional<std::vector<std::vector<std::string>>> ReadCsv(absl::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  size_t i = 0;
  while (i < text.size()) {
    std::string field;
    if (text[i] == '"') {
      for (++i;; ++i) {
        if (i >= text.size()) return std::nullopt;
        if (text[i] != '"') {
          field += text[i];
        } else if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          ++i;
          break;
        }
      }
    } else {
      for (; i < text.size() && text[i] != ',' && text[i] != '\r' && text[i] != '\n'; ++i) {
        if (text[i] == '"') return std::nullopt;
        field += text[i];
      }
    }
    record.push_back(std::move(field));
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    if (text.substr(i, 2) != "\r\n") return std::nullopt;
    i += 2;
    records.push_back(std::move(record));
    record.clear();
  }
  return records;
}

// A log of real events: the service configuration, a Target registered, a mint requested
// and issued, and a revocation whose reason and actor hold commas, quotes, CR LF and
// non-ASCII text.
class ExportFormatStoreTest : public ::testing::Test {
 protected:
  static constexpr int64_t kStartUs = int64_t{1767225600} * 1000000;  // 2026-01-01T00:00:00Z

  void SetUp() override {
    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    options.clock = &clock_;
    auto opened = store::SqliteEventStore::Open(options);
    ASSERT_OK(opened);
    store_ = *std::move(opened);

    v1::Event configured;
    configured.mutable_service_configured()->set_agent_apiserver_url("https://10.0.0.1:6443");
    configured.mutable_service_configured()->set_agent_token_ttl_seconds(3600);
    configured.mutable_service_configured()->set_credentials_enabled(true);
    ASSERT_OK(Append("service", configured, "credledger", "start-1", 450));

    v1::Event registered;
    registered.mutable_target_registered()->set_target_uid("6f1c0c7e-1d1b-4c57-9c1e-0d7f3b1d2a01");
    registered.mutable_target_registered()->set_namespace_("demo");
    registered.mutable_target_registered()->set_name("edge-1");
    ASSERT_OK(Append(kStream, registered, "alice", "req-1", 1000001));

    v1::Event mint;
    mint.mutable_credential_mint_requested()->set_target_uid("6f1c0c7e");
    mint.mutable_credential_mint_requested()->set_attempt_id("a1");
    mint.mutable_credential_mint_requested()->set_reason(v1::MINT_REASON_INITIAL);
    ASSERT_OK(Append(kStream, mint, "credledger", "req-2", 2000000));

    v1::Event issued;
    v1::CredentialIssued* i = issued.mutable_credential_issued();
    i->set_target_uid("6f1c0c7e");
    i->set_attempt_id("a1");
    i->mutable_secret()->set_name("solar-agent-edge-1-1");
    i->mutable_secret()->set_uid("uid-1");
    i->set_credential_tag("0123456789");
    i->mutable_issued_at()->set_seconds(1767225603);
    i->mutable_expires_at()->set_seconds(1767229203);
    ASSERT_OK(Append(kStream, issued, "credledger", "req-3", 3000000));

    v1::Event revoked;
    revoked.mutable_target_revoked()->set_target_uid("6f1c0c7e");
    revoked.mutable_target_revoked()->set_reason(kRevokeReason);
    ASSERT_OK(Append(kStream, revoked, kOddActor, "req-4", 4000000));
  }

  // Appends `event` at kStartUs + `offset_us` and keeps the stored event.
  absl::Status Append(const std::string& stream, const v1::Event& event, const std::string& actor,
                      const std::string& request_id, int64_t offset_us) {
    clock_.Set(absl::FromUnixMicros(kStartUs + offset_us));
    v1::EventMetadata metadata;
    metadata.set_actor(actor);
    metadata.set_request_id(request_id);
    ASSIGN_OR_RETURN(store::NewEvent encoded, codec().Encode(event, metadata));
    store::AppendRequest request;
    request.request_id = request_id;
    request.streams.push_back({stream, store::ExpectedVersion::Any(), {encoded}});
    ASSIGN_OR_RETURN(store::AppendResult result, store_->Append(request));
    events_.push_back(result.events.at(0));
    return absl::OkStatus();
  }

  static const store::EventCodec& codec() { return store::EventCodec::Default(); }

  std::string Render(ExportFormat format, const store::RecordedEvent& event) {
    absl::StatusOr<std::string> line = RenderEvent(format, event, codec());
    EXPECT_OK(line);
    return line.ok() ? *line : "";
  }

  static constexpr char kStream[] = "target/demo/edge-1";
  testing::TempDir dir_;
  common::FakeClock clock_{absl::FromUnixMicros(kStartUs)};
  std::unique_ptr<store::SqliteEventStore> store_;
  std::vector<store::RecordedEvent> events_;
};

TEST_F(ExportFormatStoreTest, JsonLinesAndCloudEventsReconstructEveryStoredField) {
  for (ExportFormat format : {ExportFormat::kJsonLines, ExportFormat::kCloudEvents}) {
    for (const store::RecordedEvent& event : events_) {
      SCOPED_TRACE(absl::StrCat(ExportFormatName(format), " seq ", event.seq));
      ASSERT_OK_AND_ASSIGN(ExportLine line, ParseLine(format, Render(format, event)));
      ASSERT_TRUE(std::holds_alternative<ExportRecord>(line));
      const ExportRecord& record = std::get<ExportRecord>(line);
      ExpectSameEvent(record.event, event);
      EXPECT_EQ(store::EventDigest(record.event), event.digest);
      ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata, store::EventCodec::DecodeMetadata(event));
      EXPECT_EQ(record.actor, metadata.actor());
      EXPECT_EQ(record.request_id, metadata.request_id());
    }
  }
}

TEST_F(ExportFormatStoreTest, JsonLinesListsEveryFieldInTheDocumentedOrder) {
  const OrderedJson line = OrderedJson::parse(Render(ExportFormat::kJsonLines, events_[0]));
  std::vector<std::string> keys;
  for (const auto& [key, value] : line.items()) keys.push_back(key);
  EXPECT_THAT(
      keys, ElementsAre("seq", "stream", "stream_version", "event_id", "type", "schema_version",
                        "recorded_at", "actor", "request_id", "data", "metadata_b64", "payload_b64",
                        "digest", "prev_chain_hash", "chain_hash", "stream_hash"));
}

TEST_F(ExportFormatStoreTest, JsonLinesCarriesStoredBytesAsBase64AndHashesAsHex) {
  const store::RecordedEvent& event = events_[1];
  const Json line = ParseJson(Render(ExportFormat::kJsonLines, event));
  EXPECT_EQ(line["seq"], 2);
  EXPECT_EQ(line["stream"], kStream);
  EXPECT_EQ(line["stream_version"], 0);
  EXPECT_EQ(line["type"], "credledger.v1.TargetRegistered");
  EXPECT_EQ(line["schema_version"], 1);
  EXPECT_EQ(line["actor"], "alice");
  EXPECT_EQ(line["request_id"], "req-1");
  EXPECT_EQ(line["event_id"], Hex(event.event_id));
  EXPECT_EQ(line["metadata_b64"], Base64(event.metadata));
  EXPECT_EQ(line["payload_b64"], Base64(event.payload));
  EXPECT_EQ(line["digest"], Hex(event.digest));
  EXPECT_EQ(line["prev_chain_hash"], Hex(events_[0].chain_hash));
  EXPECT_EQ(line["chain_hash"], Hex(event.chain_hash));
  EXPECT_EQ(line["stream_hash"], Hex(event.stream_hash));
  EXPECT_EQ(line["event_id"].get<std::string>().size(), 32u);
}

TEST_F(ExportFormatStoreTest, RecordedAtIsUtcWithSixFractionalDigits) {
  EXPECT_EQ(ParseJson(Render(ExportFormat::kJsonLines, events_[0]))["recorded_at"],
            "2026-01-01T00:00:00.000450Z");
  EXPECT_EQ(ParseJson(Render(ExportFormat::kJsonLines, events_[1]))["recorded_at"],
            "2026-01-01T00:00:01.000001Z");
  EXPECT_EQ(ParseJson(Render(ExportFormat::kJsonLines, events_[2]))["recorded_at"],
            "2026-01-01T00:00:02.000000Z");
}

TEST_F(ExportFormatStoreTest, DataIsTheEventMessageWithPrimitiveFieldsAlwaysPrinted) {
  const Json configured = ParseJson(Render(ExportFormat::kJsonLines, events_[0]))["data"];
  EXPECT_EQ(configured["agent_token_ttl_seconds"], "3600");  // int64 as a string
  EXPECT_EQ(configured["agent_ca_sha256"], "");
  EXPECT_EQ(configured["credentials_enabled"], true);

  const Json mint = ParseJson(Render(ExportFormat::kJsonLines, events_[2]))["data"];
  EXPECT_EQ(mint, ParseJson(R"({"target_uid":"6f1c0c7e","attempt_id":"a1",
                                "reason":"MINT_REASON_INITIAL","request_value":""})"));

  const Json issued = ParseJson(Render(ExportFormat::kJsonLines, events_[3]))["data"];
  EXPECT_EQ(issued["adopted"], false);
  EXPECT_EQ(issued["token_fingerprint"], "");
  EXPECT_EQ(issued["issued_at"], "2026-01-01T00:00:03Z");
  EXPECT_EQ(issued["secret"], ParseJson(R"({"name":"solar-agent-edge-1-1","uid":"uid-1"})"));

  const Json revoked = ParseJson(Render(ExportFormat::kJsonLines, events_[4]))["data"];
  EXPECT_EQ(revoked["reason"], kRevokeReason);
}

TEST_F(ExportFormatStoreTest, ParsedRecordCarriesTheLinesData) {
  for (ExportFormat format : {ExportFormat::kJsonLines, ExportFormat::kCloudEvents}) {
    const std::string text = Render(format, events_[4]);
    ASSERT_OK_AND_ASSIGN(ExportLine line, ParseLine(format, text));
    EXPECT_EQ(std::get<ExportRecord>(line).data, ParseJson(text)["data"]);
    EXPECT_EQ(std::get<ExportRecord>(line).actor, kOddActor);
  }
}

TEST_F(ExportFormatStoreTest, RecordedAtParsesBackToExactMicroseconds) {
  Json line = ParseJson(Render(ExportFormat::kJsonLines, events_[0]));
  line["recorded_at"] = "2026-12-01T10:02:03.000450Z";
  ASSERT_OK_AND_ASSIGN(ExportLine parsed, ParseLine(ExportFormat::kJsonLines, line.dump()));
  const absl::Time want =
      absl::FromCivil(absl::CivilSecond(2026, 12, 1, 10, 2, 3), absl::UTCTimeZone()) +
      absl::Microseconds(450);
  EXPECT_EQ(std::get<ExportRecord>(parsed).event.recorded_at_us, absl::ToUnixMicros(want));
}

TEST_F(ExportFormatStoreTest, RecordedAtOfAnotherShapeIsRejected) {
  for (const char* bad :
       {"2026-12-01T10:02:03.00045Z", "2026-12-01T10:02:03.0004500Z", "2026-12-01T10:02:03Z",
        "2026-12-01T10:02:03.000450+00:00", "2026-12-01 10:02:03.000450Z",
        "2026-12-01t10:02:03.000450z", "2026-13-01T10:02:03.000450Z", "2026-12-01T10:02:60.000000Z",
        " 2026-12-01T10:02:03.000450Z"}) {
    SCOPED_TRACE(bad);
    Json line = ParseJson(Render(ExportFormat::kJsonLines, events_[0]));
    line["recorded_at"] = bad;
    EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, line.dump()),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("field \"recorded_at\": expected an RFC 3339 UTC time")));
  }
}

TEST_F(ExportFormatStoreTest, MalformedFieldsAreRejectedNamingTheField) {
  const std::string upper_hash(64, 'A');
  struct Case {
    const char* key;
    Json value;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"chain_hash", upper_hash, "field \"chain_hash\": expected 64 lowercase hex characters"},
      {"digest", std::string(62, 'a'), "field \"digest\": expected 64 lowercase hex"},
      {"stream_hash", std::string(63, 'a') + "g", "field \"stream_hash\": expected 64"},
      {"event_id", std::string(64, 'a'), "field \"event_id\": expected 32 lowercase hex"},
      {"prev_chain_hash", 7, "field \"prev_chain_hash\": expected a string"},
      {"metadata_b64", "not base64!", "field \"metadata_b64\": expected standard base64"},
      {"payload_b64", "YWI", "field \"payload_b64\": expected standard base64"},
      {"payload_b64", "YWJ=", "field \"payload_b64\": expected standard base64"},
      {"payload_b64", "YW I=", "field \"payload_b64\": expected standard base64"},
      {"seq", Json::object(), "field \"seq\": expected a 64-bit integer"},
      {"seq", "12a", "field \"seq\": expected a 64-bit integer"},
      {"seq", 1.5, "field \"seq\": expected a 64-bit integer"},
      {"seq", "99999999999999999999", "field \"seq\": expected a 64-bit integer"},
      {"schema_version", -1, "field \"schema_version\": expected an unsigned 32-bit"},
      {"data", "{}", "field \"data\": expected an object"},
      {"actor", nullptr, "field \"actor\": expected a string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key);
    Json line = ParseJson(Render(ExportFormat::kJsonLines, events_[1]));
    line[c.key] = c.value;
    EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, line.dump()),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
  Json missing = ParseJson(Render(ExportFormat::kJsonLines, events_[1]));
  missing.erase("stream");
  EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, missing.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("field \"stream\": missing")));
}

TEST_F(ExportFormatStoreTest, IntegersMayBeDecimalStrings) {
  Json line = ParseJson(Render(ExportFormat::kJsonLines, events_[1]));
  line["seq"] = "2";
  line["stream_version"] = "0";
  ASSERT_OK_AND_ASSIGN(ExportLine parsed, ParseLine(ExportFormat::kJsonLines, line.dump()));
  ExpectSameEvent(std::get<ExportRecord>(parsed).event, events_[1]);
}

TEST(ExportFormatTest, LinesThatAreNotJsonObjectsAreRejected) {
  for (const char* bad : {"", "not json", "[1,2]", "\"text\"", "{\"seq\":1"}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON object")));
    EXPECT_THAT(ParseLine(ExportFormat::kCloudEvents, bad),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST_F(ExportFormatStoreTest, UndecodableStoredBytesAreDataLoss) {
  store::RecordedEvent bad_payload = events_[1];
  bad_payload.payload = "\xff\xff\xff";
  store::RecordedEvent bad_metadata = events_[1];
  bad_metadata.metadata = "\xff\xff\xff";
  for (ExportFormat format :
       {ExportFormat::kJsonLines, ExportFormat::kCloudEvents, ExportFormat::kCsv}) {
    EXPECT_THAT(RenderEvent(format, bad_payload, codec()), StatusIs(absl::StatusCode::kDataLoss));
    EXPECT_THAT(RenderEvent(format, bad_metadata, codec()), StatusIs(absl::StatusCode::kDataLoss));
  }
}

TEST_F(ExportFormatStoreTest, StreamThatIsNotUtf8IsDataLossNotAnException) {
  store::RecordedEvent event = events_[1];
  event.stream = "target/demo/\xc3";
  EXPECT_THAT(RenderEvent(ExportFormat::kJsonLines, event, codec()),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not valid UTF-8")));
}

// ---- CloudEvents ----

TEST_F(ExportFormatStoreTest, CloudEventsUseCoreAttributesAndShortLowercaseExtensions) {
  const store::RecordedEvent& event = events_[3];
  const Json line = ParseJson(Render(ExportFormat::kCloudEvents, event));
  EXPECT_EQ(line["specversion"], "1.0");
  EXPECT_EQ(line["id"], Hex(event.event_id));
  EXPECT_EQ(line["source"], "/credledger");
  EXPECT_EQ(line["type"], "credledger.v1.CredentialIssued");
  EXPECT_EQ(line["time"], "2026-01-01T00:00:03.000000Z");
  EXPECT_EQ(line["subject"], kStream);
  EXPECT_EQ(line["datacontenttype"], "application/json");
  EXPECT_EQ(line["data"], ParseJson(Render(ExportFormat::kJsonLines, event))["data"]);
  EXPECT_EQ(line["seq"], "4");
  EXPECT_EQ(line["streamversion"], "2");
  EXPECT_EQ(line["schemaversion"], "1");
  EXPECT_EQ(line["actor"], "credledger");
  EXPECT_EQ(line["requestid"], "req-3");
  EXPECT_EQ(line["metadatab64"], Base64(event.metadata));
  EXPECT_EQ(line["payloadb64"], Base64(event.payload));
  EXPECT_EQ(line["digest"], Hex(event.digest));
  EXPECT_EQ(line["prevchainhash"], Hex(event.prev_chain_hash));
  EXPECT_EQ(line["chainhash"], Hex(event.chain_hash));
  EXPECT_EQ(line["streamhash"], Hex(event.stream_hash));

  const std::set<std::string> core = {"specversion", "id",      "source",          "type",
                                      "time",        "subject", "datacontenttype", "data"};
  const std::regex extension_name("^[a-z0-9]{1,20}$");
  for (const auto& [key, value] : line.items()) {
    if (core.count(key) == 0) {
      EXPECT_TRUE(std::regex_match(key, extension_name)) << key;
      EXPECT_TRUE(value.is_string()) << key;
    }
  }
}

TEST_F(ExportFormatStoreTest, CloudEventsOfAnotherSpecVersionAreRejected) {
  Json line = ParseJson(Render(ExportFormat::kCloudEvents, events_[0]));
  line["specversion"] = "0.3";
  EXPECT_THAT(ParseLine(ExportFormat::kCloudEvents, line.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field \"specversion\": expected \"1.0\"")));
}

// ---- CSV ----

TEST_F(ExportFormatStoreTest, CsvIsRfc4180WithAHeaderRow) {
  std::string text = RenderHeader(ExportFormat::kCsv);
  for (const store::RecordedEvent& event : events_) text += Render(ExportFormat::kCsv, event);
  std::optional<std::vector<std::vector<std::string>>> records = ReadCsv(text);
  ASSERT_TRUE(records.has_value()) << text;
  ASSERT_EQ(records->size(), events_.size() + 1);
  EXPECT_THAT((*records)[0], ElementsAre("seq", "recorded_at", "stream", "stream_version", "type",
                                         "actor", "request_id", "data", "chain_hash"));
  const std::vector<std::string>& revoked = (*records)[5];
  ASSERT_EQ(revoked.size(), 9u);
  EXPECT_EQ(revoked[0], "5");
  EXPECT_EQ(revoked[1], "2026-01-01T00:00:04.000000Z");
  EXPECT_EQ(revoked[2], kStream);
  EXPECT_EQ(revoked[3], "3");
  EXPECT_EQ(revoked[4], "credledger.v1.TargetRevoked");
  EXPECT_EQ(revoked[5], kOddActor);
  EXPECT_EQ(revoked[6], "req-4");
  EXPECT_EQ(ParseJson(revoked[7])["reason"], kRevokeReason);
  EXPECT_EQ(revoked[8], Hex(events_[4].chain_hash));
  // Plain fields stay unquoted.
  EXPECT_TRUE(absl::StartsWith(Render(ExportFormat::kCsv, events_[4]),
                               "5,2026-01-01T00:00:04.000000Z,target/demo/edge-1,3,"));
}

TEST(ExportFormatTest, OnlyCsvHasAHeaderAndOnlyVerifiableFormatsATrailer) {
  EXPECT_EQ(RenderHeader(ExportFormat::kJsonLines), "");
  EXPECT_EQ(RenderHeader(ExportFormat::kCloudEvents), "");
  EXPECT_EQ(RenderTrailer(ExportFormat::kCsv, v1::ExportTrailer()), "");
  EXPECT_TRUE(absl::EndsWith(RenderHeader(ExportFormat::kCsv), "chain_hash\r\n"));
}

TEST(ExportFormatTest, CsvCannotBeParsed) {
  EXPECT_THAT(ParseLine(ExportFormat::kCsv, "1,2"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not verifiable")));
}

// ---- Names, detection, conversions ----

TEST(ExportFormatTest, NamesRoundTripAndUnknownNamesListTheAcceptedOnes) {
  for (ExportFormat format :
       {ExportFormat::kJsonLines, ExportFormat::kCloudEvents, ExportFormat::kCsv}) {
    ASSERT_OK_AND_ASSIGN(ExportFormat parsed, ParseExportFormat(ExportFormatName(format)));
    EXPECT_EQ(parsed, format);
  }
  EXPECT_EQ(ExportFormatName(ExportFormat::kJsonLines), "jsonl");
  EXPECT_EQ(ExportFormatName(ExportFormat::kCloudEvents), "cloudevents");
  EXPECT_EQ(ExportFormatName(ExportFormat::kCsv), "csv");
  EXPECT_THAT(ParseExportFormat("json"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"jsonl\", \"cloudevents\", \"csv\"")));
}

TEST(ExportFormatTest, OnlyCsvIsNotVerifiable) {
  EXPECT_TRUE(IsVerifiable(ExportFormat::kJsonLines));
  EXPECT_TRUE(IsVerifiable(ExportFormat::kCloudEvents));
  EXPECT_FALSE(IsVerifiable(ExportFormat::kCsv));
}

TEST_F(ExportFormatStoreTest, FormatIsDetectedFromTheFirstLine) {
  ASSERT_OK_AND_ASSIGN(ExportFormat jsonl,
                       DetectFormat(Render(ExportFormat::kJsonLines, events_[0])));
  EXPECT_EQ(jsonl, ExportFormat::kJsonLines);
  ASSERT_OK_AND_ASSIGN(ExportFormat cloudevents,
                       DetectFormat(Render(ExportFormat::kCloudEvents, events_[0])));
  EXPECT_EQ(cloudevents, ExportFormat::kCloudEvents);
  EXPECT_THAT(DetectFormat(RenderHeader(ExportFormat::kCsv)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON object")));
  EXPECT_THAT(DetectFormat("[{}]"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ExportFormatStoreTest, ExportedEventConversionsCopyEveryField) {
  const v1::ExportedEvent exported = ToExported(events_[3]);
  EXPECT_EQ(exported.seq(), events_[3].seq);
  EXPECT_EQ(exported.stream(), events_[3].stream);
  EXPECT_EQ(exported.event_id(), events_[3].event_id);
  EXPECT_EQ(exported.payload(), events_[3].payload);
  EXPECT_EQ(exported.stream_hash(), events_[3].stream_hash);
  // Every field of ExportedEvent is set (non-default) for this event, so none is forgotten.
  std::vector<const google::protobuf::FieldDescriptor*> set_fields;
  exported.GetReflection()->ListFields(exported, &set_fields);
  EXPECT_EQ(static_cast<int>(set_fields.size()), exported.GetDescriptor()->field_count());
  ExpectSameEvent(FromExported(exported), events_[3]);
}

// ---- Trailer ----

// Whether every field of `message`, and of every sub-message, is set (non-default).
bool EveryFieldSet(const google::protobuf::Message& message) {
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  const google::protobuf::Reflection* reflection = message.GetReflection();
  reflection->ListFields(message, &fields);
  if (static_cast<int>(fields.size()) != message.GetDescriptor()->field_count()) return false;
  for (const google::protobuf::FieldDescriptor* field : fields) {
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!field->is_repeated()) {
      if (!EveryFieldSet(reflection->GetMessage(message, field))) return false;
      continue;
    }
    for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
      if (!EveryFieldSet(reflection->GetRepeatedMessage(message, field, i))) return false;
    }
  }
  return true;
}

std::string Bytes(int size, int first) {
  std::string out;
  for (int i = 0; i < size; ++i) out.push_back(static_cast<char>((first + 37 * i) & 0xff));
  return out;
}

v1::ExportTrailer FullTrailer() {
  v1::ExportTrailer t;
  v1::ExportFilter* f = t.mutable_filter();
  f->set_after_seq(4);
  f->set_until_seq(90);
  f->set_from_time_us(1767225600000000);
  f->set_to_time_us(1767312000000000);
  f->set_stream("target/demo/edge-1");
  f->set_stream_prefix("target/demo/");
  f->add_types("credledger.v1.CredentialIssued");
  f->add_types("credledger.v1.TargetRevoked");
  t.set_first_seq(5);
  t.set_last_seq(90);
  t.set_event_count(12);
  t.set_head_seq(120);
  t.set_head_chain_hash(Bytes(32, 0));
  for (const char* stream : {"target/demo/edge-1", "target/demo/edge-2"}) {
    v1::StreamHead* head = t.add_streams();
    head->set_stream(stream);
    head->set_stream_version(7);
    head->set_stream_hash(Bytes(32, stream[17]));
  }
  t.set_exported_at_us(1767398400000123);
  v1::Checkpoint* c = t.mutable_checkpoint();
  c->set_seq(100);
  c->set_chain_hash(Bytes(32, 200));
  c->set_signed_at_us(1767398399000000);
  c->set_key_id("0123456789abcdef");
  c->set_signature(Bytes(64, 255));
  t.set_key_id("0123456789abcdef");
  t.set_signature(Bytes(64, 1));
  t.set_version(2);
  t.set_lines_hash(Bytes(32, 90));
  return t;
}

absl::StatusOr<v1::ExportTrailer> ParseTrailerLine(ExportFormat format, const std::string& text) {
  ASSIGN_OR_RETURN(ExportLine line, ParseLine(format, text));
  if (!std::holds_alternative<v1::ExportTrailer>(line)) {
    return absl::InternalError("parsed as an event");
  }
  return std::get<v1::ExportTrailer>(line);
}

TEST(ExportTrailerTest, TrailerRoundTripsExactlyInBothFormats) {
  const v1::ExportTrailer full = FullTrailer();
  ASSERT_TRUE(EveryFieldSet(full));
  v1::ExportTrailer empty_filter_no_checkpoint = full;
  empty_filter_no_checkpoint.mutable_filter()->Clear();
  empty_filter_no_checkpoint.clear_checkpoint();
  for (const v1::ExportTrailer& trailer : {full, empty_filter_no_checkpoint, v1::ExportTrailer()}) {
    for (ExportFormat format : {ExportFormat::kJsonLines, ExportFormat::kCloudEvents}) {
      SCOPED_TRACE(ExportFormatName(format));
      ASSERT_OK_AND_ASSIGN(v1::ExportTrailer parsed,
                           ParseTrailerLine(format, RenderTrailer(format, trailer)));
      EXPECT_TRUE(MessageDifferencer::Equals(parsed, trailer)) << parsed.DebugString();
    }
  }
}

TEST(ExportTrailerTest, TrailerIsTheProtobufJsonMappingWithBytesAsHex) {
  const v1::ExportTrailer trailer = FullTrailer();
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string protobuf_json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(trailer, &protobuf_json, options).ok());
  Json want = ParseJson(protobuf_json);
  // Protobuf prints bytes as base64; the export prints them as lowercase hex.
  want["head_chain_hash"] = Hex(trailer.head_chain_hash());
  want["signature"] = Hex(trailer.signature());
  want["lines_hash"] = Hex(trailer.lines_hash());
  want["checkpoint"]["chain_hash"] = Hex(trailer.checkpoint().chain_hash());
  want["checkpoint"]["signature"] = Hex(trailer.checkpoint().signature());
  for (int i = 0; i < trailer.streams_size(); ++i) {
    want["streams"][i]["stream_hash"] = Hex(trailer.streams(i).stream_hash());
  }
  const Json line = ParseJson(RenderTrailer(ExportFormat::kJsonLines, trailer));
  EXPECT_EQ(line, Json({{"trailer", want}}));
  EXPECT_EQ(line["trailer"]["first_seq"], "5");
}

TEST(ExportTrailerTest, EmptyTrailerPrintsPrimitiveFieldsAndOmitsUnsetMessages) {
  const Json trailer = ParseJson(RenderTrailer(ExportFormat::kJsonLines, v1::ExportTrailer()));
  EXPECT_EQ(trailer, ParseJson(R"({"trailer": {"first_seq": "0", "last_seq": "0",
      "event_count": "0", "head_seq": "0", "head_chain_hash": "", "streams": [],
      "exported_at_us": "0", "key_id": "", "signature": ""}})"));
}

TEST(ExportTrailerTest, VersionOneTrailerHasNeitherVersionNorLinesHash) {
  v1::ExportTrailer version_1 = FullTrailer();
  version_1.clear_version();
  version_1.clear_lines_hash();
  const std::string text = RenderTrailer(ExportFormat::kJsonLines, version_1);
  const Json line = ParseJson(text);
  EXPECT_FALSE(line["trailer"].contains("version"));
  EXPECT_FALSE(line["trailer"].contains("lines_hash"));
  ASSERT_OK_AND_ASSIGN(v1::ExportTrailer parsed, ParseTrailerLine(ExportFormat::kJsonLines, text));
  EXPECT_TRUE(MessageDifferencer::Equals(parsed, version_1));
  // A later version is printed first, as a number.
  EXPECT_THAT(RenderTrailer(ExportFormat::kJsonLines, FullTrailer()),
              ::testing::StartsWith("{\"trailer\":{\"version\":2,"));
}

TEST(ExportTrailerTest, LinesHashBelongsToVersionTwoOnly) {
  Json version_1 = ParseJson(RenderTrailer(ExportFormat::kJsonLines, FullTrailer()));
  version_1["trailer"].erase("version");
  EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, version_1.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field \"trailer.lines_hash\": not part of a version 1 trailer")));
  Json without_lines = ParseJson(RenderTrailer(ExportFormat::kJsonLines, FullTrailer()));
  without_lines["trailer"].erase("lines_hash");
  EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, without_lines.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field \"trailer.lines_hash\": missing")));
  Json short_lines = ParseJson(RenderTrailer(ExportFormat::kCloudEvents, FullTrailer()));
  short_lines["data"]["lines_hash"] = "abcd";
  EXPECT_THAT(ParseLine(ExportFormat::kCloudEvents, short_lines.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("field \"data.lines_hash\"")));
  Json version_0 = ParseJson(RenderTrailer(ExportFormat::kJsonLines, FullTrailer()));
  version_0["trailer"]["version"] = 0;
  EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, version_0.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field \"trailer.version\": must be 1 or more")));
}

TEST(ExportTrailerTest, UnknownVersionParsesAsItsVersionAlone) {
  // A later release may lay its trailer out otherwise: the verifier refuses it by version.
  const Json line = ParseJson(R"({"trailer": {"version": 3, "lines": "elsewhere"}})");
  ASSERT_OK_AND_ASSIGN(v1::ExportTrailer parsed,
                       ParseTrailerLine(ExportFormat::kJsonLines, line.dump()));
  v1::ExportTrailer want;
  want.set_version(3);
  EXPECT_TRUE(MessageDifferencer::Equals(parsed, want)) << parsed.DebugString();
}

TEST(ExportTrailerTest, TrailerIntegersMayBeNumbers) {
  Json line = ParseJson(RenderTrailer(ExportFormat::kJsonLines, FullTrailer()));
  line["trailer"]["first_seq"] = 5;
  line["trailer"]["checkpoint"]["seq"] = 100;
  line["trailer"]["streams"][1]["stream_version"] = 7;
  ASSERT_OK_AND_ASSIGN(v1::ExportTrailer parsed,
                       ParseTrailerLine(ExportFormat::kJsonLines, line.dump()));
  EXPECT_TRUE(MessageDifferencer::Equals(parsed, FullTrailer()));
}

TEST(ExportTrailerTest, TrailerFieldsAreCheckedNamingTheirPath) {
  struct Case {
    Json::json_pointer pointer;
    Json value;
    const char* message;
  };
  const std::vector<Case> cases = {
      {Json::json_pointer("/checkpoint/chain_hash"), "ABCD",
       "field \"trailer.checkpoint.chain_hash\": expected lowercase hex"},
      {Json::json_pointer("/streams/1/stream_hash"), "abc",
       "field \"trailer.streams[1].stream_hash\": expected lowercase hex"},
      {Json::json_pointer("/streams/0"), "x", "field \"trailer.streams[0]\": expected an object"},
      {Json::json_pointer("/streams"), Json::object(),
       "field \"trailer.streams\": expected an array"},
      {Json::json_pointer("/filter/types/0"), 1,
       "field \"trailer.filter.types[0]\": expected a string"},
      {Json::json_pointer("/filter/until_seq"), "ninety", "field \"trailer.filter.until_seq\""},
      {Json::json_pointer("/key_id"), false, "field \"trailer.key_id\": expected a string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    Json line = ParseJson(RenderTrailer(ExportFormat::kJsonLines, FullTrailer()));
    line["trailer"][c.pointer] = c.value;
    EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, line.dump()),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
  Json missing = ParseJson(RenderTrailer(ExportFormat::kJsonLines, FullTrailer()));
  missing["trailer"].erase("head_chain_hash");
  EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, missing.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field \"trailer.head_chain_hash\": missing")));
  Json cloud_event = ParseJson(RenderTrailer(ExportFormat::kCloudEvents, FullTrailer()));
  cloud_event["data"]["checkpoint"]["signature"] = "zz";
  EXPECT_THAT(ParseLine(ExportFormat::kCloudEvents, cloud_event.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field \"data.checkpoint.signature\"")));
}

TEST(ExportTrailerTest, JsonLinesTrailerLineHoldsOnlyTheTrailer) {
  Json line = ParseJson(RenderTrailer(ExportFormat::kJsonLines, FullTrailer()));
  line["seq"] = 1;
  EXPECT_THAT(ParseLine(ExportFormat::kJsonLines, line.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("only the field")));
}

TEST(ExportTrailerTest, CloudEventsTrailerIsADeterministicEventOfItsOwnType) {
  const v1::ExportTrailer trailer = FullTrailer();
  const std::string text = RenderTrailer(ExportFormat::kCloudEvents, trailer);
  const Json line = ParseJson(text);
  EXPECT_EQ(line["specversion"], "1.0");
  EXPECT_EQ(line["source"], "/credledger");
  EXPECT_EQ(line["type"], "credledger.v1.ExportTrailer");
  EXPECT_EQ(line["time"], "2026-01-03T00:00:00.000123Z");
  EXPECT_EQ(line["datacontenttype"], "application/json");
  EXPECT_EQ(line["data"], ParseJson(RenderTrailer(ExportFormat::kJsonLines, trailer))["trailer"]);
  EXPECT_THAT(line["id"].get<std::string>(), ::testing::MatchesRegex("trailer-[0-9a-f]{32}"));
  EXPECT_EQ(line.size(), 7u);  // core attributes only

  EXPECT_EQ(RenderTrailer(ExportFormat::kCloudEvents, trailer), text);
  v1::ExportTrailer other_filter = trailer;
  other_filter.mutable_filter()->add_types("credledger.v1.TargetRegistered");
  EXPECT_NE(ParseJson(RenderTrailer(ExportFormat::kCloudEvents, other_filter))["id"], line["id"]);
}

}  // namespace export_format_test
}  // namespace credledger::audit
