// BuildFleetLog: writes a realistic log of a fleet for the audit benchmark (a 1,000,000-event
// log at full size; docs/testing.md, "Benchmarks"). For benchmarks only.
//
// The events are what the service would write: every command is decided by the real pure
// deciders (service::DecideTarget, service::DecideReport, service::DecideLiveness) against
// the Target's state folded so far, encoded with store::EventCodec, and appended with its own
// request id and metadata. Only the transport differs: the commands of up to a few thousand
// Targets are appended inside one store transaction, each by WriteTransaction::Append, on a
// fake clock set to each command's time before its append.
//
// The fleet has events / 50 Targets (at least 2) in 20 namespaces. In every round each
// Target takes one step of its life: registration with the initial mint intent, identity
// objects written, bound releases set, Secret created, credential issued, then status
// reports (a changed capacity each time; the agent's release carries the current
// credentialTag, so the first report after a new credential confirms the rollout), a
// rotation every 12 rounds, and the deletion of each superseded Secret. One Target in 50
// fails its first TokenRequest and mints again once the retry delay has passed; one in 50 is
// revoked in round 20 and lifted three rounds later. Each transaction ends with a
// LivenessObserved batch of the Targets that did not send a report in it. The log holds
// exactly `events` events: the last ones are single-entry LivenessObserved batches when the
// next step would not fit.
//
// A checkpoint is signed and stored every `checkpoint_every` events (audit::SignCheckpoint,
// in the transaction of the event it covers), and credential and status projection
// snapshots every `snapshot_every` events, sealed with the same key (audit::SealSnapshot), as
// the service's projectors write them.
//
// Thread-safety: not thread-safe; one thread builds, and nothing else writes to the store.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "audit/signing_key.h"
#include "common/clock.h"
#include "store/event_store.h"

namespace credledger::bench {

struct FleetLogOptions {
  // Exact number of events of the log. REQUIRES: >= kMinFleetLogEvents.
  int64_t events = 1000000;
  int64_t checkpoint_every = 1000;
  int64_t snapshot_every = 10000;
};

// The smallest log BuildFleetLog writes: enough for two Targets to register and report.
inline constexpr int64_t kMinFleetLogEvents = 100;

// What was written.
struct FleetLogFacts {
  int64_t targets = 0;
  int64_t events = 0;
  int64_t checkpoints = 0;
  // Snapshots written (credential and status snapshots count one each), and the bytes of the
  // newest credential and status snapshot together.
  int64_t snapshots = 0;
  int64_t newest_snapshot_bytes = 0;
  // Bytes SHA-256 reads to compute the digests of all events (docs/log-format.md, "digest":
  // the tag, the length prefixes, the integers, stream, event id, type, metadata, payload).
  int64_t digest_input_bytes = 0;
  // Events per type (fully qualified name).
  std::map<std::string, int64_t> events_by_type;
};

// Namespace and name of Target `index` (0-based) of a fleet log.
std::string FleetTargetNamespace(int64_t index);
std::string FleetTargetName(int64_t index);

// Writes the log into `store` (empty, with `clock` as its clock; both not owned), signing
// checkpoints with `key`. Errors: kFailedPrecondition when the store is not empty; any error
// of a decider (a builder bug: the script asked for a command the state refuses), of the
// store or of signing.
absl::StatusOr<FleetLogFacts> BuildFleetLog(store::EventStore& store, common::FakeClock& clock,
                                            const audit::SigningKey& key,
                                            const FleetLogOptions& options);

}  // namespace credledger::bench
