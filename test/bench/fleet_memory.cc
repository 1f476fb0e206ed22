#include "test/bench/fleet_memory.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/client/work_queue.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "kubebridge/credentials/identity_caches.h"
#include "projections/credential_projector.h"
#include "projections/status_projector.h"

namespace credledger::bench {
namespace {

constexpr absl::Duration kMemoryDeadline = absl::Minutes(30);

[[noreturn]] void MemoryDie(absl::string_view what, const absl::Status& status) {
  std::fprintf(stderr, "memory breakdown, %.*s: %s\n", static_cast<int>(what.size()), what.data(),
               status.ToString().c_str());
  std::exit(1);
}

// Heap that building and keeping the result of `build` added.
template <typename Build>
int64_t HeapOf(Build build) {
  malloc_trim(0);
  const int64_t before = HeapInUse();
  auto kept = build();
  malloc_trim(0);
  return HeapInUse() - before;
}

template <typename Projector>
std::unique_ptr<Projector> FoldedProjector(store::EventStore* store) {
  typename Projector::Options options;
  options.snapshot_every = 0;  // no snapshot is written here; the Server's are not loaded
  absl::StatusOr<std::unique_ptr<Projector>> projector = Projector::Start(store, options);
  if (!projector.ok()) MemoryDie("projector", projector.status());
  if (!(*projector)->WaitForSeq(store->HeadSeq(), kMemoryDeadline)) {
    MemoryDie("projector", absl::DeadlineExceededError("did not catch up"));
  }
  return *std::move(projector);
}

}  // namespace

int64_t HeapInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

FleetMemory MeasureFleetMemory(store::EventStore* store, const kubeapi::ApiServer& api, int targets,
                               std::string (*namespace_of)(int), std::string (*name_of)(int)) {
  FleetMemory memory;
  memory.credential_projection =
      HeapOf([&] { return FoldedProjector<projections::CredentialProjector>(store); });
  memory.status_projection =
      HeapOf([&] { return FoldedProjector<projections::StatusProjector>(store); });
  common::FakeClock clock;
  memory.queue = HeapOf([&] {
    auto queue = std::make_unique<kubebridge::WorkQueue>(clock, kubebridge::BackoffPolicy{});
    for (int i = 0; i < targets; ++i) {
      // As the bridge holds a Target after its pass: delayed until its rotation is due.
      queue->AddAt(kubebridge::TargetKey(namespace_of(i), name_of(i)),
                   clock.Now() + absl::Hours(18));
    }
    return queue;
  });

  absl::StatusOr<kubebridge::ConnectionConfig> config =
      kubebridge::LoadKubeconfig(api.kubeconfig_path());
  if (!config.ok()) MemoryDie("kubeconfig", config.status());
  kubebridge::KubeClientOptions client_options;
  client_options.rate_limit = {.qps = 0, .burst = 1};
  absl::StatusOr<std::unique_ptr<kubebridge::KubeClient>> client =
      kubebridge::KubeClient::New(*config, client_options);
  if (!client.ok()) MemoryDie("client", client.status());
  memory.caches = HeapOf([&] {
    auto caches = kubebridge::IdentityCaches::Start(client->get(), [](auto&, auto&) {});
    if (!caches->WaitSynced(kMemoryDeadline)) {
      MemoryDie("caches", absl::DeadlineExceededError("did not sync"));
    }
    memory.cached_objects =
        static_cast<int64_t>(caches->service_accounts().size() + caches->roles().size() +
                             caches->role_bindings().size() + caches->target_reports().size());
    return caches;
  });
  (*client)->Stop();
  return memory;
}

}  // namespace credledger::bench
