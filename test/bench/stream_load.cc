#include "test/bench/stream_load.h"

#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "credledger/v1/api.grpc.pb.h"
#include "test/support/process_stats.h"

namespace credledger::bench {
namespace {

using ::credledger::testing::ResidentMib;
using ::credledger::testing::ThreadCount;

constexpr absl::Duration kStreamDeadline = absl::Minutes(10);

struct Watch {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::WatchTargetsResponse>> reader;
};

}  // namespace

absl::StatusOr<StreamLoadFigures> RunStreamLoad(const std::string& address,
                                                const std::string& target_namespace, int streams) {
  v1::WatchTargetsRequest request;
  request.set_namespace_(target_namespace);
  StreamLoadFigures figures;
  figures.streams = streams;
  figures.threads_before = ThreadCount();
  figures.rss_mib_before = ResidentMib();
  auto stub =
      v1::TargetService::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  std::vector<std::unique_ptr<Watch>> watches;
  const absl::Time start = absl::Now();
  for (int i = 0; i < streams; ++i) {
    auto watch = std::make_unique<Watch>();
    watch->context.AddMetadata("credledger-actor", "bench");
    watch->context.set_deadline(absl::ToChronoTime(absl::Now() + kStreamDeadline));
    watch->reader = stub->WatchTargets(&watch->context, request);
    v1::WatchTargetsResponse item;
    bool snapshot = false;
    while (!snapshot && watch->reader->Read(&item)) {
      snapshot = item.kind() == v1::WatchTargetsResponse::KIND_SNAPSHOT_END;
    }
    if (!snapshot) {
      const grpc::Status ended = watch->reader->Finish();
      return absl::UnavailableError(
          absl::StrCat("watch ", i, " ended before its snapshot: ", ended.error_message()));
    }
    watches.push_back(std::move(watch));
  }
  figures.open_time = absl::Now() - start;
  figures.threads_open = ThreadCount();
  figures.rss_mib_open = ResidentMib();

  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", "bench");
  v1::ListTargetsResponse listed;
  const absl::Time list_start = absl::Now();
  const grpc::Status status = stub->ListTargets(&context, v1::ListTargetsRequest(), &listed);
  figures.list_time = absl::Now() - list_start;
  if (!status.ok())
    return absl::InternalError(absl::StrCat("ListTargets: ", status.error_message()));

  for (auto& watch : watches) watch->context.TryCancel();
  for (auto& watch : watches) {
    v1::WatchTargetsResponse item;
    while (watch->reader->Read(&item)) {
    }
    watch->reader->Finish();
  }
  watches.clear();
  stub.reset();
  figures.threads_after = ThreadCount();
  figures.rss_mib_after = ResidentMib();
  return figures;
}

std::string Describe(const StreamLoadFigures& f) {
  return absl::StrFormat(
      "%d watch streams of one namespace on one channel: threads %d -> %d open -> %d after; "
      "resident %.0f -> "
      "%.0f open -> %.0f MiB after; opened with their snapshots in %s; ListTargets while open "
      "took %s",
      f.streams, f.threads_before, f.threads_open, f.threads_after, f.rss_mib_before,
      f.rss_mib_open, f.rss_mib_after, absl::FormatDuration(f.open_time),
      absl::FormatDuration(f.list_time));
}

}  // namespace credledger::bench
