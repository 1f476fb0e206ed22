// Server::StartReports and Server::StopReports: the report path of `credledger serve`: the
// report bus, the space reserve, the heartbeats waiting in memory, the ingest every report goes
// through and the scheduler that records heartbeats, appends held reports and marks silent
// Targets stale (docs/reports.md, "Ingest", "Limits", "Liveness and staleness" and "Service
// flags").
#include <memory>

#include "service/server/server.h"
#include "service/server/server_components.h"

namespace credledger::service {

void Server::StartReports() {
  reports_->bus =
      std::make_unique<ReportCommandBus>(log_->store.get(), ReportBusDecider(log_->bus.get()));
  // On PostgreSQL the log's disk is the server's, which credledger cannot measure: no reserve
  // (a full disk there refuses every append, docs/postgres.md, "Errors").
  const bool local_file = !options_.log.location().is_postgres();
  reports_->space = std::make_unique<SpaceReserve>(
      SpaceReserve::FileSystemOf(options_.log.db_path),
      local_file ? static_cast<uint64_t>(options_.reports.space_reserve_bytes) : 0);
  reports_->liveness = std::make_unique<LivenessBuffer>();
  // On PostgreSQL the committed read a heartbeat decided outside the writer needs is a round
  // trip, which the writer's caches save: heartbeats go through the writer there.
  reports_->ingest = std::make_unique<ReportIngest>(
      reports_->bus.get(), reports_->liveness.get(), log_->projector.get(), reports_->space.get(),
      options_.clock, options_.reports.limits,
      local_file ? ReportIngest::HeartbeatPath::kWithoutWriter
                 : ReportIngest::HeartbeatPath::kThroughWriter);
  ReportScheduler::Options scheduler_options;
  scheduler_options.period = options_.reports.liveness_flush_interval;
  scheduler_options.stale_after = options_.reports.stale_after;
  reports_->scheduler = std::make_unique<ReportScheduler>(
      reports_->bus.get(), reports_->liveness.get(), reports_->ingest.get(), reports_->space.get(),
      log_->projector.get(), log_->status_projector.get(), options_.clock, scheduler_options);
  if (!options_.log.read_only) reports_->scheduler->Start();
}

void Server::StopReports() {
  if (reports_->scheduler != nullptr) reports_->scheduler->Stop();
  reports_->scheduler.reset();
  reports_->ingest.reset();
  reports_->liveness.reset();
  reports_->bus.reset();
  reports_->space.reset();
}

}  // namespace credledger::service
