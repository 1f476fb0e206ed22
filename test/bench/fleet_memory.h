// The memory of a fleet_bench Server, component by component (docs/performance.md, "Fleet
// scale"). Each component is built a second time, alone, in the benchmark's process, on the
// Server's own log and API server, and measured as the heap it holds (glibc's mallinfo2:
// chunks in use plus mapped blocks) once built; then it is destroyed. The Server's threads
// are idle meanwhile (after its start pass), so the difference is the component's.
#pragma once

#include <cstdint>
#include <string>

#include "store/event_store.h"
#include "test/kubeapi/api_server.h"

namespace credledger::bench {

// Heap held by each component, in bytes.
struct FleetMemory {
  int64_t credential_projection = 0;  // CredentialProjector folded to the log's head
  int64_t status_projection = 0;      // StatusProjector folded to the log's head
  int64_t queue = 0;                  // the credential bridge's WorkQueue holding every Target
  int64_t caches = 0;                 // the credential bridge's IdentityCaches, synced
  int64_t cached_objects = 0;         // objects the caches hold
};

// Measures the components over `store` (the Server's log, folded from its events without
// snapshots), `api` (where the caches list) and `targets` Targets in namespaces
// `namespace_of(i)` named `name_of(i)`. Errors end the process (a benchmark).
FleetMemory MeasureFleetMemory(store::EventStore* store, const kubeapi::ApiServer& api, int targets,
                               std::string (*namespace_of)(int), std::string (*name_of)(int));

// Heap in use now (mallinfo2: uordblks + hblkhd), in bytes.
int64_t HeapInUse();

}  // namespace credledger::bench
