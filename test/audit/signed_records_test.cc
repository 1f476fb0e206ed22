// Signed checkpoints and export trailers: their signing bytes against independent
// constructions of docs/audit.md's definitions, and that every field is covered by the
// signature.
#include "audit/signed_records.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::audit {
namespace signed_records_test {

using namespace std::string_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::StatusIs;

// INT(n) and LP(x) of docs/log-format.md, written independently of the library: 8 bytes
// big-endian two's complement, and INT(length) followed by the bytes.
std::string Int(int64_t n) {
  const auto value = static_cast<uint64_t>(n);
  std::string out;
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
  return out;
}
std::string Lp(const std::string& bytes) {
  return Int(static_cast<int64_t>(bytes.size())) + bytes;
}

std::string Hash(char fill) { return std::string(32, fill); }

class SignedRecordsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<SigningKey> key = SigningKey::Generate();
    absl::StatusOr<SigningKey> other = SigningKey::Generate();
    ASSERT_OK(key);
    ASSERT_OK(other);
    key_.emplace(*std::move(key));
    other_.emplace(*std::move(other));
  }

  // A signed trailer with every field set, holding a checkpoint signed by `checkpoint_key`.
  v1::ExportTrailer SignedTrailer(const SigningKey& checkpoint_key) {
    v1::ExportTrailer trailer;
    v1::ExportFilter& filter = *trailer.mutable_filter();
    filter.set_after_seq(10);
    filter.set_until_seq(99);
    filter.set_from_time_us(1'700'000'000'000'000);
    filter.set_to_time_us(1'700'000'900'000'000);
    filter.set_stream_prefix("target/demo/");
    filter.add_types("credledger.v1.CredentialIssued");
    filter.add_types("credledger.v1.CredentialRevoked");
    trailer.set_first_seq(11);
    trailer.set_last_seq(42);
    trailer.set_event_count(7);
    trailer.set_head_seq(57);
    trailer.set_head_chain_hash(Hash('\x11'));
    v1::StreamHead* a = trailer.add_streams();
    a->set_stream("target/demo/a");
    a->set_stream_version(3);
    a->set_stream_hash(Hash('\x22'));
    v1::StreamHead* b = trailer.add_streams();
    b->set_stream("target/demo/b");
    b->set_stream_version(4);
    b->set_stream_hash(Hash('\x33'));
    trailer.set_exported_at_us(1'700'000'950'000'000);
    absl::StatusOr<v1::Checkpoint> checkpoint =
        SignCheckpoint(checkpoint_key, 40, Hash('\x44'), 1'700'000'940'000'000);
    EXPECT_OK(checkpoint);
    if (checkpoint.ok()) *trailer.mutable_checkpoint() = *checkpoint;
    trailer.set_version(2);
    trailer.set_lines_hash(Hash('\x55'));
    EXPECT_OK(SignTrailer(*key_, trailer));
    return trailer;
  }

  std::optional<SigningKey> key_;
  std::optional<SigningKey> other_;
};

TEST_F(SignedRecordsTest, TestEncodingsMatchTheSpecExamples) {
  // docs/log-format.md, "Encodings".
  EXPECT_EQ(Int(1), "\x00\x00\x00\x00\x00\x00\x00\x01"s);
  EXPECT_EQ(Lp("ab"), "\x00\x00\x00\x00\x00\x00\x00\x02"s "ab");
  EXPECT_EQ(Int(-1), "\xff\xff\xff\xff\xff\xff\xff\xff"s);
}

TEST_F(SignedRecordsTest, CheckpointSigningBytesAreSpelledOutBytes) {
  v1::Checkpoint checkpoint;
  checkpoint.set_seq(258);
  checkpoint.set_chain_hash(Hash('\xab'));
  checkpoint.set_signed_at_us(1'700'000'000'000'000);  // 0x00060a24181e4000
  checkpoint.set_key_id("0123456789abcdef");
  checkpoint.set_signature("ignored");
  const std::string expected =
      "\x00\x00\x00\x00\x00\x00\x00\x18"s "credledger-checkpoint-v1"
      "\x00\x00\x00\x00\x00\x00\x00\x08" "\x00\x00\x00\x00\x00\x00\x01\x02"
      "\x00\x00\x00\x00\x00\x00\x00\x20"
      "\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab"
      "\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab\xab"
      "\x00\x00\x00\x00\x00\x00\x00\x08" "\x00\x06\x0a\x24\x18\x1e\x40\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x10" "0123456789abcdef";
  EXPECT_EQ(CheckpointSigningBytes(checkpoint), expected);
}

// The fields of SignedTrailer's trailer between the tag and lines_hash, as the spec lays
// them out: LP(filter) up to LP(checkpoint).
std::string SignedTrailerBody(const v1::ExportTrailer& trailer) {
  const std::string filter = Lp(Int(10)) + Lp(Int(99)) + Lp(Int(1'700'000'000'000'000)) +
                             Lp(Int(1'700'000'900'000'000)) + Lp("") + Lp("target/demo/") +
                             Lp(Int(2)) + Lp("credledger.v1.CredentialIssued") +
                             Lp("credledger.v1.CredentialRevoked");
  const std::string embedded_checkpoint = Lp("credledger-checkpoint-v1") + Lp(Int(40)) +
                                          Lp(Hash('\x44')) + Lp(Int(1'700'000'940'000'000)) +
                                          Lp(trailer.checkpoint().key_id()) +
                                          Lp(trailer.checkpoint().signature());
  return Lp(filter) + Lp(Int(11)) + Lp(Int(42)) + Lp(Int(7)) + Lp(Int(57)) + Lp(Hash('\x11')) +
         Lp(Int(2)) + Lp("target/demo/a") + Lp(Int(3)) + Lp(Hash('\x22')) + Lp("target/demo/b") +
         Lp(Int(4)) + Lp(Hash('\x33')) + Lp(Int(1'700'000'950'000'000)) + Lp(embedded_checkpoint);
}

TEST_F(SignedRecordsTest, TrailerSigningBytesFollowTheSpec) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  const std::string expected = Lp("credledger-export-trailer-v2") + SignedTrailerBody(trailer) +
                               Lp(Hash('\x55')) + Lp(key_->key_id());
  EXPECT_EQ(TrailerSigningBytes(trailer), expected);
  EXPECT_TRUE(key_->public_key().Verify(expected, trailer.signature()));
}

TEST_F(SignedRecordsTest, VersionOneTrailerSigningBytesHaveNoLinesHash) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  trailer.clear_version();
  trailer.clear_lines_hash();
  ASSERT_OK(SignTrailer(*key_, trailer));
  const std::string expected =
      Lp("credledger-export-trailer-v1") + SignedTrailerBody(trailer) + Lp(key_->key_id());
  EXPECT_EQ(TrailerSigningBytes(trailer), expected);
  EXPECT_TRUE(key_->public_key().Verify(expected, trailer.signature()));
  EXPECT_OK(VerifyTrailer(key_->public_key(), trailer));
  trailer.set_version(1);  // the same version, spelled out
  EXPECT_OK(VerifyTrailer(key_->public_key(), trailer));
}

TEST_F(SignedRecordsTest, UnknownTrailerVersionIsNeitherSignedNorVerified) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  trailer.set_version(3);
  const std::string refusal =
      "export trailer version 3 is not known here (versions 1 and 2 are); verify it with a "
      "credledger release that knows it";
  EXPECT_THAT(VerifyTrailer(key_->public_key(), trailer),
              StatusIs(absl::StatusCode::kUnimplemented, refusal));
  EXPECT_THAT(SignTrailer(*key_, trailer), StatusIs(absl::StatusCode::kUnimplemented, refusal));
}

TEST_F(SignedRecordsTest, LinesHashMustHaveItsVersionsShape) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  trailer.set_lines_hash("short");
  EXPECT_THAT(SignTrailer(*key_, trailer),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "export trailer version 2: lines_hash must be 32 bytes, got 5"));
  trailer.clear_version();
  EXPECT_THAT(VerifyTrailer(key_->public_key(), trailer),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("lines_hash is not part of a version 1 trailer")));
}

TEST_F(SignedRecordsTest, LinesHashFoldsEveryEventsSeqAndHashes) {
  store::RecordedEvent first;
  first.seq = 7;
  first.digest = Hash('\x01');
  first.chain_hash = Hash('\x02');
  first.stream_hash = Hash('\x03');
  store::RecordedEvent second = first;
  second.seq = 300;
  second.stream_hash = Hash('\x04');
  const auto sha256 = [](const std::string& bytes) {
    return std::string(common::AsBytes(common::Sha256Of(bytes)));
  };
  const std::string l1 =
      sha256(Hash('\0') + Lp(Int(7)) + Lp(Hash('\x01')) + Lp(Hash('\x02')) + Lp(Hash('\x03')));
  const std::string l2 =
      sha256(l1 + Lp(Int(300)) + Lp(Hash('\x01')) + Lp(Hash('\x02')) + Lp(Hash('\x04')));

  LinesHash lines;
  EXPECT_EQ(lines.value(), Hash('\0'));
  lines.Add(first);
  EXPECT_EQ(lines.value(), l1);
  lines.Add(second);
  EXPECT_EQ(lines.value(), l2);
}

TEST_F(SignedRecordsTest, AnUnsetCheckpointIsEmbeddedAsTheEmptyString) {
  const v1::ExportTrailer trailer;
  const std::string zero = Lp(Int(0));
  const std::string empty_filter = zero + zero + zero + zero + Lp("") + Lp("") + zero;
  const std::string expected = Lp("credledger-export-trailer-v1") + Lp(empty_filter) + zero +
                               zero + zero + zero + Lp("") + zero + zero + Lp("") + Lp("");
  EXPECT_EQ(TrailerSigningBytes(trailer), expected);
}

TEST_F(SignedRecordsTest, SignCheckpointSignsTheSpecBytes) {
  ASSERT_OK_AND_ASSIGN(v1::Checkpoint checkpoint,
                       SignCheckpoint(*key_, 5, Hash('\x55'), 1'700'000'000'000'123));
  EXPECT_EQ(checkpoint.seq(), 5);
  EXPECT_EQ(checkpoint.chain_hash(), Hash('\x55'));
  EXPECT_EQ(checkpoint.signed_at_us(), 1'700'000'000'000'123);
  EXPECT_EQ(checkpoint.key_id(), key_->key_id());
  const std::string bytes = Lp("credledger-checkpoint-v1") + Lp(Int(5)) + Lp(Hash('\x55')) +
                            Lp(Int(1'700'000'000'000'123)) + Lp(key_->key_id());
  EXPECT_TRUE(key_->public_key().Verify(bytes, checkpoint.signature()));
  EXPECT_OK(VerifyCheckpoint(key_->public_key(), checkpoint));
}

TEST_F(SignedRecordsTest, SignCheckpointRejectsBadSeqAndHash) {
  EXPECT_THAT(SignCheckpoint(*key_, 0, Hash('\x01'), 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("seq")));
  EXPECT_THAT(SignCheckpoint(*key_, -3, Hash('\x01'), 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("seq")));
  EXPECT_THAT(SignCheckpoint(*key_, 1, std::string(31, '\x01'), 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("chain_hash")));
  EXPECT_THAT(SignCheckpoint(*key_, 1, std::string(33, '\x01'), 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("chain_hash")));
}

using CheckpointChange = std::pair<const char*, std::function<void(v1::Checkpoint&)>>;
std::vector<CheckpointChange> CheckpointChanges() {
  return {
      {"seq", [](v1::Checkpoint& c) { c.set_seq(c.seq() + 1); }},
      {"chain_hash", [](v1::Checkpoint& c) { (*c.mutable_chain_hash())[31] ^= 0x01; }},
      {"signed_at_us", [](v1::Checkpoint& c) { c.set_signed_at_us(c.signed_at_us() + 1); }},
      {"key_id", [](v1::Checkpoint& c) { (*c.mutable_key_id())[0] ^= 0x01; }},
      {"signature", [](v1::Checkpoint& c) { (*c.mutable_signature())[0] ^= 0x01; }},
  };
}

TEST_F(SignedRecordsTest, EveryCheckpointFieldIsCoveredBySignature) {
  ASSERT_OK_AND_ASSIGN(const v1::Checkpoint signed_checkpoint,
                       SignCheckpoint(*key_, 9, Hash('\x09'), 1'700'000'000'000'000));
  ASSERT_OK(VerifyCheckpoint(key_->public_key(), signed_checkpoint));
  for (const auto& [field, change] : CheckpointChanges()) {
    SCOPED_TRACE(field);
    v1::Checkpoint checkpoint = signed_checkpoint;
    change(checkpoint);
    EXPECT_THAT(VerifyCheckpoint(key_->public_key(), checkpoint),
                StatusIs(absl::StatusCode::kPermissionDenied));
  }
}

TEST_F(SignedRecordsTest, CheckpointOfAnotherKeyNamesBothKeyIds) {
  ASSERT_OK_AND_ASSIGN(v1::Checkpoint checkpoint, SignCheckpoint(*other_, 9, Hash('\x09'), 1));
  EXPECT_THAT(VerifyCheckpoint(key_->public_key(), checkpoint),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       AllOf(HasSubstr("checkpoint at seq 9"), HasSubstr(other_->key_id()),
                             HasSubstr(key_->key_id()))));
}

TEST_F(SignedRecordsTest, CheckpointRelabelledWithTheVerifiersKeyIdHasABadSignature) {
  ASSERT_OK_AND_ASSIGN(v1::Checkpoint checkpoint, SignCheckpoint(*other_, 9, Hash('\x09'), 1));
  checkpoint.set_key_id(key_->key_id());
  EXPECT_THAT(VerifyCheckpoint(key_->public_key(), checkpoint),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("checkpoint at seq 9: bad signature")));
}

TEST_F(SignedRecordsTest, SignedTrailerVerifies) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  EXPECT_EQ(trailer.key_id(), key_->key_id());
  EXPECT_EQ(trailer.signature().size(), 64u);
  EXPECT_OK(VerifyTrailer(key_->public_key(), trailer));
}

TEST_F(SignedRecordsTest, TrailerWithoutCheckpointVerifies) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  trailer.clear_checkpoint();
  ASSERT_OK(SignTrailer(*key_, trailer));
  EXPECT_OK(VerifyTrailer(key_->public_key(), trailer));
}

using TrailerChange = std::pair<std::string, std::function<void(v1::ExportTrailer&)>>;
std::vector<TrailerChange> TrailerChanges() {
  std::vector<TrailerChange> changes = {
      {"filter.after_seq", [](v1::ExportTrailer& t) { t.mutable_filter()->set_after_seq(11); }},
      {"filter.until_seq", [](v1::ExportTrailer& t) { t.mutable_filter()->set_until_seq(0); }},
      {"filter.from_time_us",
       [](v1::ExportTrailer& t) { t.mutable_filter()->set_from_time_us(1); }},
      {"filter.to_time_us", [](v1::ExportTrailer& t) { t.mutable_filter()->set_to_time_us(0); }},
      {"filter.stream",
       [](v1::ExportTrailer& t) { t.mutable_filter()->set_stream("target/demo/a"); }},
      {"filter.stream_prefix",
       [](v1::ExportTrailer& t) { t.mutable_filter()->set_stream_prefix("target/other/"); }},
      {"a byte moved from filter.stream_prefix to filter.stream",
       [](v1::ExportTrailer& t) {
         t.mutable_filter()->set_stream_prefix("target/demo");
         t.mutable_filter()->set_stream("/");
       }},
      {"filter.types[0]",
       [](v1::ExportTrailer& t) { t.mutable_filter()->set_types(0, "credledger.v1.X"); }},
      {"filter.types added",
       [](v1::ExportTrailer& t) { t.mutable_filter()->add_types("credledger.v1.X"); }},
      {"filter.types removed",
       [](v1::ExportTrailer& t) { t.mutable_filter()->mutable_types()->RemoveLast(); }},
      {"filter.types reordered",
       [](v1::ExportTrailer& t) { t.mutable_filter()->mutable_types()->SwapElements(0, 1); }},
      {"first_seq", [](v1::ExportTrailer& t) { t.set_first_seq(12); }},
      {"last_seq", [](v1::ExportTrailer& t) { t.set_last_seq(41); }},
      {"event_count", [](v1::ExportTrailer& t) { t.set_event_count(8); }},
      {"head_seq", [](v1::ExportTrailer& t) { t.set_head_seq(58); }},
      {"head_chain_hash", [](v1::ExportTrailer& t) { (*t.mutable_head_chain_hash())[0] ^= 1; }},
      {"streams added", [](v1::ExportTrailer& t) { *t.add_streams() = t.streams(1); }},
      {"streams removed", [](v1::ExportTrailer& t) { t.mutable_streams()->RemoveLast(); }},
      {"streams reordered",
       [](v1::ExportTrailer& t) { t.mutable_streams()->SwapElements(0, 1); }},
      {"exported_at_us", [](v1::ExportTrailer& t) { t.set_exported_at_us(1); }},
      {"checkpoint cleared", [](v1::ExportTrailer& t) { t.clear_checkpoint(); }},
      {"key_id", [](v1::ExportTrailer& t) { (*t.mutable_key_id())[15] ^= 0x01; }},
      {"signature", [](v1::ExportTrailer& t) { (*t.mutable_signature())[63] ^= 0x01; }},
      {"lines_hash", [](v1::ExportTrailer& t) { (*t.mutable_lines_hash())[31] ^= 0x01; }},
      {"version 1 with lines_hash cleared",
       [](v1::ExportTrailer& t) {
         t.clear_version();
         t.clear_lines_hash();
       }},
  };
  for (int i = 0; i < 2; ++i) {
    const std::string head = "streams[" + std::to_string(i) + "].";
    changes.push_back({head + "stream", [i](v1::ExportTrailer& t) {
                         t.mutable_streams(i)->mutable_stream()->push_back('x');
                       }});
    changes.push_back({head + "stream_version", [i](v1::ExportTrailer& t) {
                         t.mutable_streams(i)->set_stream_version(9);
                       }});
    changes.push_back({head + "stream_hash", [i](v1::ExportTrailer& t) {
                         (*t.mutable_streams(i)->mutable_stream_hash())[5] ^= 0x01;
                       }});
  }
  for (const auto& [field, change] : CheckpointChanges()) {
    changes.push_back({std::string("checkpoint.") + field,
                       [change = change](v1::ExportTrailer& t) {
                         change(*t.mutable_checkpoint());
                       }});
  }
  return changes;
}

TEST_F(SignedRecordsTest, EveryTrailerFieldIsCoveredBySignature) {
  const v1::ExportTrailer signed_trailer = SignedTrailer(*key_);
  ASSERT_OK(VerifyTrailer(key_->public_key(), signed_trailer));
  for (const auto& [field, change] : TrailerChanges()) {
    SCOPED_TRACE(field);
    v1::ExportTrailer trailer = signed_trailer;
    change(trailer);
    EXPECT_NE(TrailerSigningBytes(trailer) + trailer.signature(),
              TrailerSigningBytes(signed_trailer) + signed_trailer.signature());
    EXPECT_THAT(VerifyTrailer(key_->public_key(), trailer),
                StatusIs(absl::StatusCode::kPermissionDenied));
  }
}

TEST_F(SignedRecordsTest, TrailerVerifiesItsCheckpointsSignature) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  (*trailer.mutable_checkpoint()->mutable_chain_hash())[0] ^= 0x01;
  // Re-signed: the trailer's own signature is good, its checkpoint's is not.
  ASSERT_OK(SignTrailer(*key_, trailer));
  EXPECT_THAT(VerifyTrailer(key_->public_key(), trailer),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("checkpoint at seq 40: bad signature")));
}

TEST_F(SignedRecordsTest, TrailerWithACheckpointOfAnotherKeyFails) {
  v1::ExportTrailer trailer = SignedTrailer(*other_);
  EXPECT_THAT(VerifyTrailer(key_->public_key(), trailer),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       AllOf(HasSubstr("checkpoint at seq 40"), HasSubstr(other_->key_id()),
                             HasSubstr(key_->key_id()))));
}

TEST_F(SignedRecordsTest, TrailerSignedByAnotherKeyNamesBothKeyIds) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  EXPECT_THAT(VerifyTrailer(other_->public_key(), trailer),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       AllOf(HasSubstr("export trailer is signed by key \"" + key_->key_id() +
                                       "\", "),
                             HasSubstr(other_->key_id()))));
}

TEST_F(SignedRecordsTest, TrailerRelabelledWithTheVerifiersKeyIdHasABadSignature) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  trailer.clear_checkpoint();
  ASSERT_OK(SignTrailer(*other_, trailer));
  trailer.set_key_id(key_->key_id());
  EXPECT_THAT(VerifyTrailer(key_->public_key(), trailer),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("the export trailer: bad signature")));
}

TEST_F(SignedRecordsTest, UnsignedTrailerFails) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  trailer.clear_signature();
  trailer.clear_key_id();
  EXPECT_THAT(VerifyTrailer(key_->public_key(), trailer),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("the export trailer is not signed")));
}

TEST_F(SignedRecordsTest, ForeignKeyIdIsQuotedEscaped) {
  v1::ExportTrailer trailer = SignedTrailer(*key_);
  trailer.set_key_id("evil\nline");
  absl::Status status = VerifyTrailer(key_->public_key(), trailer);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kPermissionDenied,
                               HasSubstr("signed by key \"evil\\nline\", ")));
  EXPECT_THAT(std::string(status.message()), ::testing::Not(HasSubstr("\n")));
}

TEST_F(SignedRecordsTest, ALongForeignKeyIdIsCutWithItsLength) {
  ASSERT_OK_AND_ASSIGN(v1::Checkpoint checkpoint, SignCheckpoint(*key_, 9, Hash('\x09'), 1));
  checkpoint.set_key_id("\xff" + std::string(200, 'a'));
  EXPECT_THAT(VerifyCheckpoint(other_->public_key(), checkpoint),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("is signed by key \"\\xff" + std::string(60, 'a') +
                                 "...\" (201 bytes), ")));
}

}  // namespace signed_records_test
}  // namespace credledger::audit
