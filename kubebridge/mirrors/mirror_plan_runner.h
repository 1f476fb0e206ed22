// Carrying out the plan of one mirror pass (docs/mirrors.md, "How a change propagates" and
// "Bound objects that are gone"): the namespaces are planned and written on several threads
// at once, and their outcomes are recorded in plan order while later writes still run.
//
// Each action of the plan (PlanMirrorNamespace, made by the thread that carries it out): POST, PUT
// with the live resourceVersion, DELETE with the live uid as precondition, or only record. Before a
// POST or PUT, every owner the mirror would reference is checked by uid (OwnerCheck, shared by the
// threads); owners found gone are recorded (RecordBoundObjectGone) and that namespace is not
// written. A Kubernetes error in one namespace (a write, or reading an owner) becomes a
// WRITE_FAILED outcome of that namespace and the others go on.
//
// Up to `writers` actions run at once; each takes a token of the client's rate limit per
// request as any request does, so the limit paces them together. The outcomes of an action
// are recorded once it and every action before it in the plan are done: whenever the
// previous Record call returned, everything ready is recorded in one call when it holds at
// least kMinOutcomesPerRecord outcomes, or whatever is ready once no action runs any more;
// at most kMaxOutcomesPerRecord per call. Each call's request id is derived from the state
// the previous call returned (MirrorOutcomeRequestId with step
// "mirrors/<first namespace of the call>"), so a pass repeated after a crash appends nothing
// twice and the log holds the outcomes in plan order.
//
// Thread-safety: RunMirrorPlan may run concurrently for different identities.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "kubebridge/mirrors/mirror_reconciler.h"
#include "kubebridge/model/mirror_outcomes.h"

namespace credledger::kubebridge {

// A Record call waits for at least this many outcomes while actions still run, so that a
// large pass costs few appends.
inline constexpr size_t kMinOutcomesPerRecord = 256;
// At most this many outcomes per Record call, so one append stays bounded however many
// namespaces an identity is bound in.
inline constexpr size_t kMaxOutcomesPerRecord = 512;

// What a pass's actions are carried out with.
struct MirrorPlanContext {
  // The client of the cluster that holds the mirrors.
  KubeClient& client;
  MirrorOutcomeSink& sink;
  // The identity's state the plan was made from (as the last Record call returned it).
  const v1::IdentityState& state;
  // projections::MirrorSecretName of the identity.
  const std::string& mirror_name;
  // The source fingerprint every RecordMirrorWritten carries.
  const std::string& source_fingerprint;
  // Messages of the mirrors' API server are reduced to ServerFreeMessage (status_mapping.h):
  // a registered cluster's server could echo anything.
  bool server_free = false;
  // Actions carried out at once (at least 1).
  int writers = 1;
  // May be null.
  Cancellation* cancel = nullptr;
};

// Makes the action of the i-th namespace of a pass; called once per namespace, from several
// threads at once.
using MirrorActionPlanner = std::function<MirrorAction(size_t i)>;

// Plans (`plan`, for i in [0, actions)) and carries out the actions of a pass for ctx.state and
// records every outcome. Returns what was done, counted into a copy of `counts` (the pass's
// counts so far).
// Errors: the sink's (the actions running then finish, and their outcomes and any later ones
// are not recorded: the next pass adopts what they wrote); kCancelled when ctx.cancel fired
// (the outcomes of every action begun are recorded first, as far as the sink allows);
// otherwise the first Kubernetes error of a namespace in plan order, returned after every
// other namespace was handled and every outcome recorded.
absl::StatusOr<MirrorReconcileResult> RunMirrorPlan(const MirrorPlanContext& ctx, size_t actions,
                                                    const MirrorActionPlanner& plan,
                                                    MirrorReconcileResult counts);

}  // namespace credledger::kubebridge
