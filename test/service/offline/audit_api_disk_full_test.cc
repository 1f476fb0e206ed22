// AuditApi::ExportEvents on a full disk, where writes fail with UNAVAILABLE and reads and
// exports keep working (docs/architecture.md, "Faults"): while appends fail for lack of space,
// an export of the log streams every event and a signed trailer, and it verifies offline like
// any export. The disk is a FaultyVfs under a real SQLite file.
#include <memory>
#include <string>
#include <vector>

#include "audit/export_format.h"
#include "audit/export_verifier.h"
#include "audit/signing_key.h"
#include "credledger/v1/events.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/offline/audit_api.h"
#include "store/sqlite_event_store.h"
#include "test/support/faulty_vfs.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::service {
namespace audit_api_disk_full_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

// A ServiceConfigured event on the "service" stream on behalf of `request_id`.
store::AppendRequest Configured(const std::string& request_id, const std::string& url) {
  v1::ServiceConfigured payload;
  payload.set_agent_apiserver_url(url);
  v1::EventMetadata metadata;
  metadata.set_actor("credledger");
  metadata.set_request_id(request_id);
  return store::AppendRequest{
      request_id,
      {store::StreamAppend{"service",
                           store::ExpectedVersion::Any(),
                           {store::NewEvent{"credledger.v1.ServiceConfigured", 1,
                                            metadata.SerializeAsString(),
                                            payload.SerializeAsString()}}}}};
}

TEST(AuditApiDiskFullTest, AnExportOfALogOnAFullDiskStreamsEveryEventAndVerifies) {
  testing::TempDir dir;
  testing::FaultyVfs vfs("credledger-test-audit-faulty");
  common::FakeClock clock;
  store::SqliteEventStoreOptions options;
  options.path = dir.path() / "events.db";
  options.vfs = vfs.name();
  options.clock = &clock;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<store::SqliteEventStore> log,
                       store::SqliteEventStore::Open(options));
  for (const char* id : {"r1", "r2", "r3"}) {
    ASSERT_OK(log->Append(Configured(id, std::string("https://agents.example/") + id)));
  }
  vfs.SetSpaceLimit(vfs.UsedBytes());
  ASSERT_THAT(log->Append(Configured("r4", "https://agents.example/r4")),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("full")));

  ASSERT_OK_AND_ASSIGN(audit::SigningKey key, audit::SigningKey::Generate());
  AuditApi api(log.get(), &key, &clock);
  std::vector<std::string> lines;
  absl::Status rendering = absl::OkStatus();
  ASSERT_OK(api.ExportEvents(v1::ExportEventsRequest(), [&](const v1::ExportEventsResponse& r) {
    for (const v1::ExportedEvent& e : r.events()) {
      auto line = audit::RenderEvent(audit::ExportFormat::kJsonLines, audit::FromExported(e),
                                     store::EventCodec::Default());
      if (!line.ok()) rendering = line.status();
      if (line.ok()) lines.push_back(*std::move(line));
    }
    if (r.has_trailer()) {
      lines.push_back(audit::RenderTrailer(audit::ExportFormat::kJsonLines, r.trailer()));
    }
    return true;
  }));
  ASSERT_OK(rendering);

  const audit::KeyRing ring(key.public_key());
  audit::ExportVerifier verifier(audit::ExportVerifyOptions{&ring, /*min_seq=*/3});
  for (const std::string& line : lines) verifier.AddLine(line);
  const audit::Verdict verdict = verifier.Finish();
  EXPECT_TRUE(verdict.ok()) << audit::FormatVerdict(verdict);
  EXPECT_EQ(verdict.events, 3);
  EXPECT_EQ(verdict.head_seq, 3);
  EXPECT_GT(vfs.refused_writes(), 0);
}

}  // namespace audit_api_disk_full_test
}  // namespace credledger::service
