// Recomputes every hash of a real log from docs/log-format.md with code of its own: raw SQLite
// and OpenSSL calls only, none of store/ or common/. A store that drifts from the document
// fails here.
#include <openssl/evp.h>
#include <sqlite3.h>

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace log_format_test {

// --- The auditor's side, written from the document. ---

std::string Sha256(const std::string& bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), out, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string Int(int64_t n) {
  std::string out;
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((static_cast<uint64_t>(n) >> shift) & 0xff));
  }
  return out;
}

std::string Lp(const std::string& x) { return Int(static_cast<int64_t>(x.size())) + x; }

struct Row {
  int64_t seq, stream_version, schema_version, recorded_at_us;
  std::string stream, event_id, type, metadata, payload, digest, prev_chain_hash, chain_hash,
      stream_hash;
};

std::string Blob(sqlite3_stmt* stmt, int column) {
  const void* data = sqlite3_column_blob(stmt, column);
  return std::string(static_cast<const char*>(data), sqlite3_column_bytes(stmt, column));
}

std::vector<Row> ReadRows(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT seq, stream, stream_version, event_id, type, schema_version, "
                     "recorded_at_us, metadata, payload, digest, prev_chain_hash, chain_hash, "
                     "stream_hash FROM events ORDER BY seq",
                     -1, &stmt, nullptr);
  std::vector<Row> rows;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    Row r;
    r.seq = sqlite3_column_int64(stmt, 0);
    r.stream = Blob(stmt, 1);
    r.stream_version = sqlite3_column_int64(stmt, 2);
    r.event_id = Blob(stmt, 3);
    r.type = Blob(stmt, 4);
    r.schema_version = sqlite3_column_int64(stmt, 5);
    r.recorded_at_us = sqlite3_column_int64(stmt, 6);
    r.metadata = Blob(stmt, 7);
    r.payload = Blob(stmt, 8);
    r.digest = Blob(stmt, 9);
    r.prev_chain_hash = Blob(stmt, 10);
    r.chain_hash = Blob(stmt, 11);
    r.stream_hash = Blob(stmt, 12);
    rows.push_back(r);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

std::string Digest(const Row& r) {
  return Sha256(Lp("credledger/event/v1") + Lp(Int(r.seq)) + Lp(r.stream) +
                Lp(Int(r.stream_version)) + Lp(r.event_id) + Lp(r.type) +
                Lp(Int(r.schema_version)) + Lp(Int(r.recorded_at_us)) + Lp(r.metadata) +
                Lp(r.payload));
}

std::string EventId(const std::string& request_id, int64_t index) {
  return Sha256(Lp("credledger/event-id/v1") + Lp(request_id) + Lp(Int(index))).substr(0, 16);
}

// --- The log under test, written by the store. ---

TEST(LogFormatTest, IndependentRecomputationMatchesEveryStoredHash) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "events.db").string();
  {
    SqliteEventStoreOptions options;
    options.path = path;
    auto store = SqliteEventStore::Open(options);
    ASSERT_OK(store);
    auto event = [](std::string payload) {
      return NewEvent{"credledger.v1.ServiceConfigured", 1, std::string("\x0a\x02op", 4),
                      std::move(payload)};
    };
    ASSERT_OK((*store)->Append(AppendRequest{
        "req-a",
        {StreamAppend{"target/demo/edge-1", ExpectedVersion::NoStream(),
                      {event("one"), event(std::string("\0two", 4))}},
         StreamAppend{"service", ExpectedVersion::Any(), {event("")}}}}));
    ASSERT_OK((*store)->Append(AppendRequest{
        "req-b", {StreamAppend{"target/demo/edge-1", ExpectedVersion::Exactly(1),
                               {event("three")}}}}));
  }

  std::vector<Row> rows = ReadRows(path);
  ASSERT_EQ(rows.size(), 4u);
  const std::string zero(32, '\0');
  std::string chain = zero;
  std::map<std::string, std::string> streams;
  std::map<std::string, int64_t> next_version;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    SCOPED_TRACE("seq " + std::to_string(r.seq));
    EXPECT_EQ(r.seq, static_cast<int64_t>(i + 1));
    EXPECT_EQ(r.stream_version, next_version[r.stream]++);
    EXPECT_EQ(r.digest, Digest(r));
    EXPECT_EQ(r.prev_chain_hash, chain);
    chain = Sha256(chain + r.digest);
    EXPECT_EQ(r.chain_hash, chain);
    auto [it, fresh] = streams.try_emplace(r.stream, zero);
    it->second = Sha256(it->second + r.digest);
    EXPECT_EQ(r.stream_hash, it->second);
    if (i > 0) {
      EXPECT_GT(r.recorded_at_us, rows[i - 1].recorded_at_us);
    }
  }
  EXPECT_EQ(rows[0].event_id, EventId("req-a", 0));
  EXPECT_EQ(rows[2].event_id, EventId("req-a", 2));
  EXPECT_EQ(rows[3].event_id, EventId("req-b", 0));
  EXPECT_EQ(rows[1].payload, std::string("\0two", 4));
}

}  // namespace log_format_test
}  // namespace credledger::store
