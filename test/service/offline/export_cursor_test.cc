// Tests of ExportCursor, the export pulled a message at a time (docs/audit.md, "Export"): its
// batches, trailer and end, batches cut by events and by bytes exactly as ExportEvents sends
// them, and the filter errors of AuditApi::StartExport, on a real SQLite log.
#include "service/offline/export_cursor.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "audit/export_format.h"
#include "audit/signed_records.h"
#include "credledger/v1/events.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/offline/audit_api.h"
#include "test/projections/fleet_log.h"
#include "test/support/recorded_events.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace export_cursor_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// The seqs of each batch, in the order sent.
using BatchSeqs = std::vector<std::vector<int64_t>>;

// Everything a cursor gave until its first nullopt.
struct Pulled {
  BatchSeqs batches;
  std::vector<store::RecordedEvent> events;
  std::optional<v1::ExportTrailer> trailer;
};

std::vector<int64_t> SeqsOf(const v1::ExportEventsResponse& batch) {
  std::vector<int64_t> seqs;
  for (const v1::ExportedEvent& e : batch.events()) seqs.push_back(e.seq());
  return seqs;
}

class ExportCursorTest : public testing::FleetLogTest {
 protected:
  void SetUp() override {
    FleetLogTest::SetUp();
    ASSERT_OK_AND_ASSIGN(audit::SigningKey key, audit::SigningKey::Generate());
    key_ = std::make_unique<audit::SigningKey>(std::move(key));
    api_ = std::make_unique<AuditApi>(store_.get(), key_.get(), &clock_);
  }

  // Pulls `cursor` to its end, checking that nothing follows the trailer.
  Pulled PullAll(ExportCursor& cursor) {
    Pulled out;
    while (true) {
      absl::StatusOr<std::optional<v1::ExportEventsResponse>> next = cursor.Next();
      EXPECT_OK(next);
      if (!next.ok() || !next->has_value()) return out;
      const v1::ExportEventsResponse& message = **next;
      EXPECT_FALSE(out.trailer.has_value()) << "a message after the trailer";
      if (message.has_trailer()) {
        EXPECT_EQ(message.events_size(), 0);
        out.trailer = message.trailer();
        continue;
      }
      EXPECT_GT(message.events_size(), 0) << "an empty batch";
      out.batches.push_back(SeqsOf(message));
      for (const v1::ExportedEvent& e : message.events()) {
        out.events.push_back(audit::FromExported(e));
      }
    }
  }

  // The seqs of each batch ExportEvents writes for `request`.
  BatchSeqs WrittenBatches(const v1::ExportEventsRequest& request) {
    BatchSeqs batches;
    EXPECT_OK(api_->ExportEvents(request, [&](const v1::ExportEventsResponse& r) {
      if (!r.has_trailer()) batches.push_back(SeqsOf(r));
      return true;
    }));
    return batches;
  }

  // Appends `count` ServiceConfigured events to stream "bulk", 100 per request; event i's
  // payload is about `payload_bytes(i)` bytes.
  template <typename PayloadBytes>
  void AppendBulk(int count, PayloadBytes payload_bytes) {
    for (int first = 0; first < count; first += 100) {
      store::AppendRequest request{"bulk-" + std::to_string(first), {}};
      request.streams.push_back({"bulk", store::ExpectedVersion::Any(), {}});
      for (int i = first; i < count && i < first + 100; ++i) {
        v1::ServiceConfigured payload;
        payload.set_agent_apiserver_url(std::string(payload_bytes(i), 'u'));
        request.streams[0].events.push_back(
            {"credledger.v1.ServiceConfigured", 1, "", payload.SerializeAsString()});
      }
      ASSERT_OK(store_->Append(request));
    }
  }

  std::unique_ptr<audit::SigningKey> key_;
  std::unique_ptr<AuditApi> api_;
};

TEST_F(ExportCursorTest, GivesTheBatchesThenTheSignedTrailerThenNulloptForever) {
  ASSERT_OK(driver_->RunPhaseOne());
  const std::vector<store::RecordedEvent> all = AllEvents();
  ASSERT_FALSE(all.empty());

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportCursor> cursor,
                       api_->StartExport(v1::ExportEventsRequest()));
  Pulled out = PullAll(*cursor);
  ASSERT_EQ(out.events.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) testing::ExpectSameEvent(out.events[i], all[i]);
  ASSERT_TRUE(out.trailer.has_value());
  EXPECT_EQ(out.trailer->event_count(), static_cast<int64_t>(all.size()));
  EXPECT_EQ(out.trailer->last_seq(), all.back().seq);
  EXPECT_EQ(out.trailer->head_seq(), all.back().seq);
  EXPECT_OK(audit::VerifyTrailer(key_->public_key(), *out.trailer));
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(std::optional<v1::ExportEventsResponse> after, cursor->Next());
    EXPECT_FALSE(after.has_value());
  }

  // A selection past the head: the trailer first, then nullopt.
  v1::ExportEventsRequest past;
  past.mutable_filter()->set_after_seq(all.back().seq);
  ASSERT_OK_AND_ASSIGN(cursor, api_->StartExport(past));
  ASSERT_OK_AND_ASSIGN(std::optional<v1::ExportEventsResponse> first, cursor->Next());
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(first->has_trailer());
  EXPECT_EQ(first->trailer().event_count(), 0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(std::optional<v1::ExportEventsResponse> after, cursor->Next());
    EXPECT_FALSE(after.has_value());
  }
}

TEST_F(ExportCursorTest, BatchesOfALongExportAreThoseExportEventsWrites) {
  // Small events, and every third one about 6 KB, so that batches are cut by their 512 events
  // and by their 1 MiB, and some run across the end of a 512-event page.
  constexpr int kEvents = 1500;
  AppendBulk(kEvents, [](int i) { return i % 3 == 0 ? 6000 : 10; });
  const std::vector<store::RecordedEvent> all = AllEvents();
  ASSERT_EQ(all.size(), static_cast<size_t>(kEvents));

  // The batches by their rule: one closes at 512 events or once its events' payload and
  // metadata, plus 200 bytes each, reach 1 MiB.
  BatchSeqs expected(1);
  size_t bytes = 0;
  for (const store::RecordedEvent& e : all) {
    expected.back().push_back(e.seq);
    bytes += e.payload.size() + e.metadata.size() + 200;
    if (expected.back().size() == 512 || bytes >= (1u << 20)) {
      expected.emplace_back();
      bytes = 0;
    }
  }
  if (expected.back().empty()) expected.pop_back();
  bool by_bytes = false;
  bool across_pages = false;
  for (const std::vector<int64_t>& batch : expected) {
    by_bytes = by_bytes || (batch.size() < 512 && batch.back() != all.back().seq);
    across_pages = across_pages || (batch.front() - 1) / 512 != (batch.back() - 1) / 512;
  }
  ASSERT_TRUE(by_bytes);
  ASSERT_TRUE(across_pages);

  v1::ExportEventsRequest request;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportCursor> cursor, api_->StartExport(request));
  Pulled out = PullAll(*cursor);
  EXPECT_THAT(out.batches, ElementsAreArray(expected));
  EXPECT_THAT(WrittenBatches(request), ElementsAreArray(out.batches));
  ASSERT_TRUE(out.trailer.has_value());
  EXPECT_EQ(out.trailer->event_count(), kEvents);
  EXPECT_EQ(out.trailer->lines_hash(), [&] {
    audit::LinesHash lines;
    for (const store::RecordedEvent& e : all) lines.Add(e);
    return lines.value();
  }());

  // A seq range of more than a page, starting inside one: the same batches by both paths.
  request.mutable_filter()->set_after_seq(100);
  request.mutable_filter()->set_until_seq(1400);
  ASSERT_OK_AND_ASSIGN(cursor, api_->StartExport(request));
  out = PullAll(*cursor);
  EXPECT_EQ(out.events.size(), 1300u);
  EXPECT_THAT(WrittenBatches(request), ElementsAreArray(out.batches));
}

TEST_F(ExportCursorTest, FullPagesEndingTheSelectionGiveFullBatchesThenTheTrailer) {
  AppendBulk(1024, [](int) { return 10; });
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ExportCursor> cursor,
                       api_->StartExport(v1::ExportEventsRequest()));
  Pulled out = PullAll(*cursor);
  ASSERT_EQ(out.batches.size(), 2u);
  EXPECT_EQ(out.batches[0].size(), 512u);
  EXPECT_EQ(out.batches[1].size(), 512u);
  ASSERT_TRUE(out.trailer.has_value());
  EXPECT_EQ(out.trailer->first_seq(), 1);
  EXPECT_EQ(out.trailer->last_seq(), 1024);
}

TEST_F(ExportCursorTest, StartExportRefusesBadFiltersNamingTheField) {
  ASSERT_OK(driver_->RunPhaseOne());
  struct Case {
    v1::ExportFilter filter;
    std::string field;
  };
  std::vector<Case> cases(5);
  cases[0].filter.set_until_seq(-1);
  cases[0].field = "filter.until_seq: negative";
  cases[1].filter.set_after_seq(5);
  cases[1].filter.set_until_seq(4);
  cases[1].field = "filter.until_seq: 4 is below after_seq 5";
  cases[2].filter.set_to_time_us(-1);
  cases[2].field = "filter.to_time_us: negative";
  cases[3].filter.set_stream("target/demo/a b");
  cases[3].field = "filter.stream";
  cases[4].filter.add_types("credledger.v1.NoSuchEvent");
  cases[4].field = "filter.types[0]: unknown event type";
  for (const Case& c : cases) {
    v1::ExportEventsRequest request;
    *request.mutable_filter() = c.filter;
    EXPECT_THAT(api_->StartExport(request),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.field)))
        << c.filter.ShortDebugString();
  }
}

}  // namespace export_cursor_test
}  // namespace credledger::service
