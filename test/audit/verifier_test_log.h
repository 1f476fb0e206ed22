// Shared by the verifier tests: a real SQLite log of several streams with signed checkpoints,
// exports rendered and signed the way the service builds them, and an attacker's tools (the
// hashes of docs/log-format.md recomputed with OpenSSL alone, so a test never borrows the
// code under test to forge or to expect a hash). For tests only.
//
// Thread-safety: not thread-safe; one test thread drives it.
#pragma once

#include <openssl/evp.h>
#include <sqlite3.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "audit/export_format.h"
#include "audit/export_verifier.h"
#include "audit/signed_records.h"
#include "audit/signing_key.h"
#include "common/clock.h"
#include "credledger/v1/events.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::audit {

// Lets gMock print a Problem (and an std::optional<Problem>) readably.
inline void PrintTo(const Problem& problem, std::ostream* out) {
  *out << "problem at seq " << problem.seq << ": " << problem.kind << ": " << problem.detail;
}

}  // namespace credledger::audit

namespace credledger::audit::verifier_testing {

// An std::optional<Problem> holding a problem at `seq` of `kind` whose detail matches
// `detail_matcher`.
MATCHER_P3(IsProblem, seq, kind, detail_matcher, "") {
  if (!arg.has_value()) {
    *result_listener << "no problem";
    return false;
  }
  *result_listener << "problem at seq " << arg->seq << ": " << arg->kind << ": " << arg->detail;
  return arg->seq == seq && arg->kind == std::string(kind) &&
         ::testing::ExplainMatchResult(detail_matcher, arg->detail, result_listener);
}

// An std::optional<Problem> holding none.
MATCHER(NoProblem, "") {
  if (arg.has_value()) {
    *result_listener << "problem at seq " << arg->seq << ": " << arg->kind << ": "
                     << arg->detail;
  }
  return !arg.has_value();
}

// The way problem details name a hash, written here from the header's description.
inline std::string Prefix(const std::string& hash) {
  return absl::BytesToHexString(hash).substr(0, 12) + "...";
}

// --- The attacker's (and the auditor's) hashing, from docs/log-format.md. ---

inline std::string SpecSha256(const std::string& bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), out, &length, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(out), length);
}

inline std::string SpecInt(int64_t n) {
  std::string out;
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((static_cast<uint64_t>(n) >> shift) & 0xff));
  }
  return out;
}

inline std::string SpecLp(const std::string& x) {
  return SpecInt(static_cast<int64_t>(x.size())) + x;
}

inline std::string SpecDigest(const store::RecordedEvent& e) {
  return SpecSha256(SpecLp("credledger/event/v1") + SpecLp(SpecInt(e.seq)) + SpecLp(e.stream) +
                    SpecLp(SpecInt(e.stream_version)) + SpecLp(e.event_id) + SpecLp(e.type) +
                    SpecLp(SpecInt(e.schema_version)) + SpecLp(SpecInt(e.recorded_at_us)) +
                    SpecLp(e.metadata) + SpecLp(e.payload));
}

// The lines_hash of docs/audit.md ("Trailer") over `events` in order.
inline std::string SpecLinesHash(const std::vector<store::RecordedEvent>& events) {
  std::string lines(32, '\0');
  for (const store::RecordedEvent& e : events) {
    lines = SpecSha256(lines + SpecLp(SpecInt(e.seq)) + SpecLp(e.digest) + SpecLp(e.chain_hash) +
                       SpecLp(e.stream_hash));
  }
  return lines;
}

// Recomputes digest, prev_chain_hash, chain_hash and stream_hash of `events` in order, as an
// attacker without the key does after editing: the global chain from the first event's
// prev_chain_hash, each stream from 32 zero bytes at its first event here.
inline void Rehash(std::vector<store::RecordedEvent>& events) {
  if (events.empty()) return;
  std::string chain = events.front().prev_chain_hash;
  std::map<std::string, std::string> streams;
  for (store::RecordedEvent& e : events) {
    e.digest = SpecDigest(e);
    e.prev_chain_hash = chain;
    e.chain_hash = chain = SpecSha256(chain + e.digest);
    auto [it, added] = streams.try_emplace(e.stream, std::string(32, '\0'));
    e.stream_hash = it->second = SpecSha256(it->second + e.digest);
  }
}

// Sets the actor in the stored metadata of `e`, its hashes untouched.
inline void SetActor(store::RecordedEvent& e, const std::string& actor) {
  v1::EventMetadata metadata;
  EXPECT_TRUE(metadata.ParseFromString(e.metadata));
  metadata.set_actor(actor);
  e.metadata = store::SerializeDeterministic(metadata);
}

// Recomputes, after an edit of the stored fields of some of `events` (an export's events in
// file order), every hash the export itself shows, as an attacker without the key does to
// hide the edit: each digest; each chain_hash from its prev_chain_hash, which is the line
// before's chain_hash when that line holds the previous seq; each stream_hash from the
// previous version's when the export holds it, or from 32 zero bytes at version 0 (any other
// stream_hash is linked to nothing the export shows and stays). Unedited events keep their
// hashes unless an edit before them reaches them through such a link.
inline void Relink(std::vector<store::RecordedEvent>& events) {
  std::map<std::string, const store::RecordedEvent*> last_of_stream;
  for (size_t i = 0; i < events.size(); ++i) {
    store::RecordedEvent& e = events[i];
    e.digest = SpecDigest(e);
    if (i > 0 && events[i - 1].seq == e.seq - 1) e.prev_chain_hash = events[i - 1].chain_hash;
    e.chain_hash = SpecSha256(e.prev_chain_hash + e.digest);
    auto previous = last_of_stream.find(e.stream);
    if (e.stream_version == 0) {
      e.stream_hash = SpecSha256(std::string(32, '\0') + e.digest);
    } else if (previous != last_of_stream.end() &&
               previous->second->stream_version == e.stream_version - 1) {
      e.stream_hash = SpecSha256(previous->second->stream_hash + e.digest);
    }
    last_of_stream[e.stream] = &e;
  }
}

// --- The log. ---

inline constexpr char kServiceStream[] = "service";
inline constexpr char kEdge1[] = "target/demo/edge-1";
inline constexpr char kEdge2[] = "target/demo/edge-2";
inline constexpr char kCore1[] = "target/prod/core-1";
inline constexpr char kRotationRequested[] = "credledger.v1.RotationRequested";
inline constexpr char kCredentialIssued[] = "credledger.v1.CredentialIssued";

// The payload of the `index`-th event of a test log in `stream` at `version`: the service
// stream holds ServiceConfigured; a target stream starts with TargetRegistered and then
// alternates RotationRequested and TargetRevoked.
inline v1::Event TestEvent(const std::string& stream, int64_t version, int index) {
  v1::Event e;
  if (stream == kServiceStream) {
    e.mutable_service_configured()->set_agent_apiserver_url("https://agents.example:6443");
    e.mutable_service_configured()->set_agent_token_ttl_seconds(3600 + index);
    e.mutable_service_configured()->set_credentials_enabled(true);
  } else if (version == 0) {
    e.mutable_target_registered()->set_target_uid(absl::StrCat("uid-", stream));
    e.mutable_target_registered()->set_namespace_("demo");
    e.mutable_target_registered()->set_name(stream);
  } else if (version % 2 == 1) {
    e.mutable_rotation_requested()->set_target_uid(absl::StrCat("uid-", stream));
    e.mutable_rotation_requested()->set_request_value(absl::StrCat("rotate-", index));
  } else {
    e.mutable_target_revoked()->set_target_uid(absl::StrCat("uid-", stream));
    e.mutable_target_revoked()->set_reason(absl::StrCat("incident ", index));
  }
  return e;
}

// The `n`-th credential issued to the Target of `stream`.
inline v1::Event TestIssued(const std::string& stream, int n) {
  v1::Event e;
  v1::CredentialIssued& issued = *e.mutable_credential_issued();
  issued.set_target_uid(absl::StrCat("uid-", stream));
  issued.set_attempt_id(absl::StrCat("attempt-", n));
  issued.mutable_secret()->set_name(absl::StrCat("solar-agent-", n));
  issued.mutable_secret()->set_uid(absl::StrCat("secret-uid-", n));
  issued.set_credential_tag("0a1b2c3d4e");
  issued.set_token_fingerprint(absl::StrCat("fedcba987654321", n));
  issued.mutable_issued_at()->set_seconds(1'790'000'000 + n);
  issued.mutable_expires_at()->set_seconds(1'790'003'600 + n);
  return e;
}

// A fixture with a SQLite log of kEvents events over four streams on a fake clock, one
// second apart, checkpoints at seq 10 and 20 signed with key(), and helpers to export it.
class VerifierLogTest : public ::testing::Test {
 protected:
  static constexpr int kEvents = 30;

  void SetUp() override {
    auto key = SigningKey::Generate();
    ASSERT_OK(key);
    key_ = std::make_unique<SigningKey>(*std::move(key));
    auto other = SigningKey::Generate();
    ASSERT_OK(other);
    other_key_ = std::make_unique<SigningKey>(*std::move(other));
    OpenStore();
    ASSERT_NO_FATAL_FAILURE(AppendEvents(10));
    ASSERT_NO_FATAL_FAILURE(SaveCheckpointAt(10, *key_));
    ASSERT_NO_FATAL_FAILURE(AppendEvents(10));
    ASSERT_NO_FATAL_FAILURE(SaveCheckpointAt(20, *key_));
    ASSERT_NO_FATAL_FAILURE(AppendEvents(kEvents - 20));
  }

  std::filesystem::path db_path() const { return dir_.path() / "events.db"; }

  void OpenStore() {
    store_.reset();
    store::SqliteEventStoreOptions options;
    options.path = db_path();
    options.clock = &clock_;
    options.synchronous = store::SqliteEventStoreOptions::Synchronous::kNormal;
    auto store = store::SqliteEventStore::Open(options);
    ASSERT_OK(store);
    store_ = *std::move(store);
  }

  // Appends `count` events, one request each, cycling irregularly over the four streams.
  void AppendEvents(int count) {
    static const char* const kStreams[] = {kServiceStream, kEdge1, kEdge2, kCore1};
    for (int i = 0; i < count; ++i) {
      const std::string stream = kStreams[(appended_ % 5) % 4];
      ASSERT_NO_FATAL_FAILURE(
          AppendEvent(stream, TestEvent(stream, NextVersion(stream), appended_)));
    }
  }

  // Appends seven CredentialIssued over three Targets, each followed by another event
  // (AppendEvents): every one but the last of each Target is followed by another of its
  // Target, and no two are next to each other. 14 events.
  void AppendCredentials() {
    const char* const streams[] = {kEdge1, kEdge2, kCore1, kEdge1, kEdge2, kCore1, kEdge1};
    for (int n = 0; n < 7; ++n) {
      ASSERT_NO_FATAL_FAILURE(AppendEvent(streams[n], TestIssued(streams[n], n)));
      ASSERT_NO_FATAL_FAILURE(AppendEvents(1));
    }
  }

  // The stream_version the next event of `stream` gets.
  int64_t NextVersion(const std::string& stream) const {
    auto it = versions_.find(stream);
    return it == versions_.end() ? 0 : it->second + 1;
  }

  // Appends `event` to `stream` as one request, a second after the event before.
  void AppendEvent(const std::string& stream, const v1::Event& event) {
    v1::EventMetadata metadata;
    metadata.set_actor(appended_ % 3 == 0 ? "credledger" : "alice");
    metadata.set_request_id(absl::StrCat("req-", appended_));
    metadata.set_command("Test");
    auto encoded = store::EventCodec::Default().Encode(event, metadata);
    ASSERT_OK(encoded);
    clock_.Advance(absl::Seconds(1));
    ASSERT_OK(store_->Append(store::AppendRequest{
        metadata.request_id(),
        {store::StreamAppend{stream, store::ExpectedVersion::Any(), {*std::move(encoded)}}}}));
    versions_[stream] = NextVersion(stream);
    ++appended_;
  }

  // Closes the log, copies its files to <dir>/<name>/ and opens the log again; returns the
  // copy's database path.
  std::filesystem::path CopyLog(const std::string& name) {
    store_.reset();
    const std::filesystem::path copy = dir_.path() / name;
    std::filesystem::create_directories(copy);
    for (const char* suffix : {"", "-wal"}) {
      const std::filesystem::path from = db_path().string() + suffix;
      if (std::filesystem::exists(from)) {
        std::filesystem::copy_file(from, copy / ("events.db" + std::string(suffix)));
      }
    }
    OpenStore();
    return copy / "events.db";
  }

  // Replaces the log by the copy at `path` (CopyLog's) and opens it.
  void RestoreLog(const std::filesystem::path& path) {
    store_.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::filesystem::remove(db_path().string() + suffix);
    }
    for (const char* suffix : {"", "-wal"}) {
      const std::filesystem::path from = path.string() + suffix;
      if (std::filesystem::exists(from)) {
        std::filesystem::copy_file(from, db_path().string() + suffix);
      }
    }
    OpenStore();
  }

  // Lets the log fork after its last event: appends one event, calls `seen` on that history
  // (to copy or export it), then puts the log back as it was and appends `count` others.
  void Fork(const std::function<void()>& seen, int count) {
    const std::filesystem::path common_past = CopyLog("before-fork");
    ASSERT_NO_FATAL_FAILURE(AppendEvents(1));
    seen();
    RestoreLog(common_past);
    ASSERT_NO_FATAL_FAILURE(AppendEvents(count));
  }

  // The copy at `path` opened for reading only, as `verify --db` opens it.
  static std::unique_ptr<store::SqliteEventStore> OpenCopy(const std::filesystem::path& path) {
    store::SqliteEventStoreOptions options;
    options.path = path;
    options.read_only = true;
    auto opened = store::SqliteEventStore::Open(options);
    EXPECT_OK(opened);
    return opened.ok() ? *std::move(opened) : nullptr;
  }

  // Every event of the log, or those `filter` selects, in seq order.
  std::vector<store::RecordedEvent> Events(const store::EventFilter& filter = {}) {
    auto events = store_->ReadFiltered(filter, 0, 100000);
    EXPECT_OK(events);
    return events.ok() ? *std::move(events) : std::vector<store::RecordedEvent>{};
  }

  // The stored event at `seq`.
  store::RecordedEvent EventAt(int64_t seq) {
    auto events = store_->ReadAll(seq - 1, 1);
    EXPECT_OK(events);
    if (!events.ok() || events->empty()) return {};
    return events->front();
  }

  v1::Checkpoint SignedCheckpoint(int64_t seq, const SigningKey& key) {
    auto checkpoint =
        SignCheckpoint(key, seq, EventAt(seq).chain_hash, absl::ToUnixMicros(clock_.Now()));
    EXPECT_OK(checkpoint);
    return checkpoint.ok() ? *checkpoint : v1::Checkpoint();
  }

  void SaveCheckpointAt(int64_t seq, const SigningKey& key) {
    ASSERT_OK(store_->SaveCheckpoint(SignedCheckpoint(seq, key)));
  }

  // --- The attacker's edits, on a separate SQLite connection. ---

  // Runs `sql` on a separate connection. Returns SQLite's error message, empty on success.
  std::string RawExec(const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open(db_path().c_str(), &db);
    sqlite3_busy_timeout(db, 5000);
    char* error = nullptr;
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    std::string message = error == nullptr ? "" : error;
    sqlite3_free(error);
    sqlite3_close(db);
    return message;
  }

  // Overwrites the blob `column` of the event at `seq` on a separate connection.
  void SetBlob(int64_t seq, const std::string& column, const std::string& bytes) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* stmt = nullptr;
    const std::string sql = "UPDATE events SET " + column + " = ?1 WHERE seq = ?2";
    ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_bind_blob(stmt, 1, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 2, seq);
    EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE) << sqlite3_errmsg(db);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
  }

  // Overwrites the stored bytes and hashes of the event at `e.seq` with those of `e`.
  void WriteRow(const store::RecordedEvent& e) {
    ASSERT_NO_FATAL_FAILURE(SetBlob(e.seq, "payload", e.payload));
    ASSERT_NO_FATAL_FAILURE(SetBlob(e.seq, "digest", e.digest));
    ASSERT_NO_FATAL_FAILURE(SetBlob(e.seq, "prev_chain_hash", e.prev_chain_hash));
    ASSERT_NO_FATAL_FAILURE(SetBlob(e.seq, "chain_hash", e.chain_hash));
    ASSERT_NO_FATAL_FAILURE(SetBlob(e.seq, "stream_hash", e.stream_hash));
  }

  void DropEventTriggers() {
    ASSERT_EQ(RawExec("DROP TRIGGER events_refuse_update; DROP TRIGGER events_refuse_delete;"),
              "");
  }

  // The trailer the service writes after exporting `events` under `filter` when the log's
  // head was `head_seq` and its newest checkpoint `checkpoint`, signed with `key`, as a
  // trailer of `version` (1: without the version field and lines_hash).
  v1::ExportTrailer MakeTrailer(const v1::ExportFilter& filter,
                                const std::vector<store::RecordedEvent>& events, int64_t head_seq,
                                std::optional<v1::Checkpoint> checkpoint, const SigningKey& key,
                                uint32_t version = 2) {
    v1::ExportTrailer trailer;
    if (version != 1) {
      trailer.set_version(version);
      trailer.set_lines_hash(SpecLinesHash(events));
    }
    *trailer.mutable_filter() = filter;
    if (!events.empty()) {
      trailer.set_first_seq(events.front().seq);
      trailer.set_last_seq(events.back().seq);
    }
    trailer.set_event_count(static_cast<int64_t>(events.size()));
    trailer.set_head_seq(head_seq);
    trailer.set_head_chain_hash(head_seq == 0 ? std::string(32, '\0')
                                              : EventAt(head_seq).chain_hash);
    std::map<std::string, const store::RecordedEvent*> last_of_stream;
    for (const store::RecordedEvent& e : events) last_of_stream[e.stream] = &e;
    for (const auto& [stream, e] : last_of_stream) {
      v1::StreamHead* head = trailer.add_streams();
      head->set_stream(stream);
      head->set_stream_version(e->stream_version);
      head->set_stream_hash(e->stream_hash);
    }
    trailer.set_exported_at_us(absl::ToUnixMicros(clock_.Now()));
    if (checkpoint.has_value()) *trailer.mutable_checkpoint() = *checkpoint;
    EXPECT_OK(SignTrailer(key, trailer));
    return trailer;
  }

  // The export of the whole log today, as the service writes it.
  v1::ExportTrailer FullTrailer(const std::vector<store::RecordedEvent>& events) {
    return MakeTrailer({}, events, kEvents, SignedCheckpointFromStore(), *key_);
  }

  std::optional<v1::Checkpoint> SignedCheckpointFromStore() {
    auto latest = store_->LatestCheckpoint();
    EXPECT_OK(latest);
    return latest.ok() ? *latest : std::nullopt;
  }

  // The lines of an export of `events` closed by `trailer`.
  std::vector<std::string> Render(ExportFormat format,
                                  const std::vector<store::RecordedEvent>& events,
                                  const v1::ExportTrailer& trailer) {
    std::vector<std::string> lines;
    for (const store::RecordedEvent& e : events) {
      auto line = RenderEvent(format, e, store::EventCodec::Default());
      EXPECT_OK(line);
      lines.push_back(line.ok() ? *line : "");
    }
    lines.push_back(RenderTrailer(format, trailer));
    return lines;
  }

  // Verifies `lines` as one file, with key() unless `key` is given.
  Verdict Verify(const std::vector<std::string>& lines, int64_t min_seq = 0,
                 const PublicKey* key = nullptr) {
    const KeyRing keys(key != nullptr ? *key : key_->public_key());
    ExportVerifyOptions options;
    options.public_key = &keys;
    options.min_seq = min_seq;
    return VerifyWith(lines, options);
  }

  // Verifies `lines` as one file with `options`, whose keys are key()'s unless it names some.
  Verdict VerifyWith(const std::vector<std::string>& lines, ExportVerifyOptions options) {
    std::stringstream file;
    for (const std::string& line : lines) file << line << "\n";
    const KeyRing keys(key_->public_key());
    if (options.public_key == nullptr) options.public_key = &keys;
    absl::StatusOr<Verdict> verdict = VerifyExport(file, options);
    EXPECT_OK(verdict);
    return verdict.ok() ? *std::move(verdict) : Verdict();
  }

  credledger::testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<SigningKey> key_;
  std::unique_ptr<SigningKey> other_key_;
  int appended_ = 0;
  std::map<std::string, int64_t> versions_;
};

// --- Editing export lines. ---

// The JSON object of an event or trailer line; null when it does not parse.
inline nlohmann::json ParseJson(const std::string& line) {
  return nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
}

// The key under which `format` stores the payload bytes (base64).
inline const char* PayloadKey(ExportFormat format) {
  return format == ExportFormat::kCloudEvents ? "payloadb64" : "payload_b64";
}

// The stored payload bytes of an event line.
inline std::string PayloadOf(ExportFormat format, const std::string& line) {
  std::string bytes;
  absl::Base64Unescape(ParseJson(line)[PayloadKey(format)].get<std::string>(), &bytes);
  return bytes;
}

// The event line with its payload bytes replaced by `payload` (its `data` untouched).
inline std::string WithPayload(ExportFormat format, const std::string& line,
                               const std::string& payload) {
  nlohmann::json json = ParseJson(line);
  json[PayloadKey(format)] = absl::Base64Escape(payload);
  return json.dump();
}

}  // namespace credledger::audit::verifier_testing
