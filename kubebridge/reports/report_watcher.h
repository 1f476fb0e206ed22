// ReportWatcher: follows every TargetReport in the cluster (all namespaces, group
// solar.opendefense.cloud, version v1alpha1) and hands each report an agent wrote to a
// ReportSink (docs/reports.md, "Ingest"; docs/design.md, "Watches").
//
// One thread runs the list+watch loop (watch.h) and calls the sink in the order the watch
// delivers. For each listed, ADDED or MODIFIED object:
//   - undecodable (target_report_codec.h)        -> logged with the decode error, skipped;
//   - no spec.lastReportTime (the empty report
//     credledger pre-creates: "no report yet")   -> skipped;
//   - otherwise                                  -> ReportSink::SubmitReport; an error it
//                                                   returns is logged, and the watch goes on.
// Each object revision is handled once: a re-list (after a 410 or an error) skips objects
// whose resourceVersion was already handled, so only revisions missed while the watch was
// down reach the sink. A report is not resubmitted after a failed SubmitReport; the agent's
// next write (at the latest after its MaxReportAge) delivers a new revision.
//
// One exception: a report the sink refuses with kNotFound (its Target is not registered yet,
// or no longer) waits, the newest revision of each TargetReport replacing an older one. When
// the Target's stream changes in the credential projection (it was registered), a second
// thread submits the waiting report again with its own resourceVersion, so a TargetReport
// written before its Target is applied at registration instead of at the agent's next write.
// A waiting report is dropped when the sink takes it or refuses it otherwise, when a newer
// revision is submitted, and when the TargetReport is deleted.
//
// Logs are JSON lines (common/log.h) naming the TargetReport and its resourceVersion;
// reports hold no secret material.
//
// Thread-safety: Start and Stop from one thread; the sink is called from the watcher's two
// threads, one call at a time.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "credledger/v1/report.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/watch.h"
#include "kubebridge/client/work_queue.h"
#include "projections/credential_projector.h"

namespace credledger::kubebridge {

// Where the watcher delivers reports; service/ implements it (the report command).
class ReportSink {
 public:
  virtual ~ReportSink() = default;
  // Submits a report read from TargetReport <namespace>/<name>. `resource_version`
  // identifies the object's revision. `report` is decoded but not validated
  // (projections/report_validation.h is the sink's job). An error is logged by the watcher;
  // kNotFound means the Target is not registered (the report then waits for it).
  virtual absl::Status SubmitReport(absl::string_view target_namespace, absl::string_view name,
                                    const v1::TargetReportSpec& report,
                                    absl::string_view resource_version) = 0;
};

// Owns the threads described in the file comment.
class ReportWatcher {
 public:
  // Starts the watch thread over `client` with `options` (selectors are not used; the
  // watch timeout and backoff are), and the thread that submits waiting reports when
  // `targets` reports a change of their Target. None of the pointers is owned; all must
  // outlive the watcher.
  static std::unique_ptr<ReportWatcher> Start(KubeClient* client, ReportSink* sink,
                                              projections::CredentialProjector* targets,
                                              ListWatchOptions options = {});
  // Stops and joins (Stop).
  ~ReportWatcher();
  ReportWatcher(const ReportWatcher&) = delete;
  ReportWatcher& operator=(const ReportWatcher&) = delete;

  // Cancels the watch, including a blocked stream or a backoff wait, and joins the threads.
  // A SubmitReport already running finishes first. Idempotent.
  void Stop();

 private:
  class Handler;
  // A report the sink refused with kNotFound, waiting for its Target.
  struct Waiting {
    std::string target_namespace;
    std::string name;
    v1::TargetReportSpec report;
    std::string resource_version;
  };

  ReportWatcher(KubeClient* client, ReportSink* sink, projections::CredentialProjector* targets,
                ListWatchOptions options);

  // Submits `report` of TargetReport <ns>/<name> at `version` and logs a refusal; a kNotFound
  // makes it the TargetReport's waiting report, any other answer drops the waiting one.
  void Submit(const std::string& target_namespace, const std::string& name,
              const v1::TargetReportSpec& report, const std::string& version);
  // Ends the wait of `key` after the sink answered `submitted` (anything but kNotFound) for
  // its revision `version`: drops the waiting report and logs a refusal.
  void Settle(const std::string& key, const std::string& version, const absl::Status& submitted);
  // Drops the waiting report of `key` ("<namespace>/<name>").
  void Forget(const std::string& key);
  // Queues the waiting report of the Target whose stream `stream` changed, if any. Runs on
  // the projector's thread.
  void TargetChanged(const std::string& stream);
  // The loop of the thread that submits waiting reports.
  void Resubmit();

  KubeClient* client_;
  ReportSink* sink_;
  projections::CredentialProjector* targets_;
  const ListWatchOptions options_;
  std::unique_ptr<Handler> handler_;
  // Held across every sink call and every change of waiting_ that follows one, so that the
  // sink sees one call at a time and a waiting report is never older than what it last took.
  absl::Mutex submit_mu_;
  absl::Mutex mu_;
  std::map<std::string, Waiting> waiting_ ABSL_GUARDED_BY(mu_);
  WorkQueue retries_;
  int listener_id_ = -1;
  Cancellation stop_;
  std::thread watch_thread_;
  std::thread retry_thread_;
};

}  // namespace credledger::kubebridge
