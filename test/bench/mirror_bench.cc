// Rotation propagation of credential mirrors (docs/mirrors.md, "How a change propagates"): the
// time from a write of the source Secret to every mirror holding the new data, for an identity
// bound in N namespaces, through the real stack: the test Kubernetes API server over HTTPS,
// SqliteEventStore (synchronous=FULL, WAL), IdentityCommandBus, IdentityProjector,
// BridgeMirrorSink and MirrorBridge with its source Secret watch.
//
//   BM_RotationPropagation/N   one iteration = one rotation: PUT the source with new data,
//                              then wait until the identity's projected state shows all N
//                              mirrors written with the new source hash (each MirrorWritten is
//                              recorded after its PUT returned, so the cluster was updated
//                              first; before each PUT the Job bound in that namespace is read
//                              by uid). Manual time = that wall time.
// Counters: `propagation_s` (mean per rotation), `direct_puts_s` (baseline measured in the same
// run right after each rotation: N Secret updates sent one after the other by a plain
// KubeClient, no log, no watch), `ratio` = propagation / baseline. The baseline updates a
// plain copy of each mirror (same data, annotations and owner reference, without the label
// the bridge watches mirrors by), not the mirrors themselves: the bridge would repair
// mirrors it did not write, during the baseline and into the next rotation. Each timed part
// starts when the bridge is idle.
//
// The client rate limit is off (qps 0): at the service's default of 5 requests/s, N mirror
// writes take at least N / 5 seconds on top of these figures.
//
// Flags: --max-namespaces=N (default 1000): the sizes run are those of 1, 100 and 1000 up to N,
// and N itself; plus the benchmark library's. The test suite runs it with --max-namespaces=3.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "common/clock.h"
#include "common/fingerprint_key.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/mirror_bridge.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "projections/identity_projector.h"
#include "projections/mirror_naming.h"
#include "service/bridge/bridge_mirror_sink.h"
#include "service/bus/identity_command_bus.h"
#include "store/sqlite_event_store.h"
#include "test/bench/size_flag.h"
#include "test/kubeapi/api_server.h"
#include "test/support/bound_jobs.h"
#include "test/support/temp_dir.h"

namespace credledger {
namespace {

constexpr char kIdentity[] = "bench-creds";
constexpr char kSourceNamespace[] = "creds-source";
constexpr char kSourceName[] = "cloud-keys";
// The name of the baseline's plain copy of the mirror in each namespace.
constexpr char kPlainCopy[] = "plain-copy";

[[noreturn]] void Die(absl::string_view what, const absl::Status& status) {
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(what.size()), what.data(),
               status.ToString().c_str());
  std::abort();
}

template <typename T>
T Must(absl::string_view what, absl::StatusOr<T> value) {
  if (!value.ok()) Die(what, value.status());
  return *std::move(value);
}

void Must(absl::string_view what, const absl::Status& status) {
  if (!status.ok()) Die(what, status);
}

kubebridge::ResourceRef NamespaceRef() { return {"", "v1", "namespaces", "", ""}; }

// The source Secret's JSON with one key whose value depends on `version`.
nlohmann::json SourceSecret(int version) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", kSourceName}, {"namespace", kSourceNamespace}}},
          {"type", "Opaque"},
          {"data",
           {{"access_key", absl::Base64Escape(absl::StrCat("AKIA-bench-", version))},
            {"secret_key", absl::Base64Escape(absl::StrCat("bench-secret-value-", version))}}}};
}

// The source fingerprint of version `version` of the source data under `key`.
std::string SourceFingerprintOf(const common::FingerprintKey& key, int version) {
  return projections::SourceFingerprint(
      key, {{"access_key", absl::StrCat("AKIA-bench-", version)},
            {"secret_key", absl::StrCat("bench-secret-value-", version)}});
}

std::string NamespaceName(int64_t i) { return absl::StrCat("team-", i); }

// An identity bound in N namespaces, with its mirrors written, and the bridge running.
class Fleet {
 public:
  explicit Fleet(int64_t namespaces) : namespaces_(namespaces) {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    api.worker_threads = 32;
    api_ = Must("start the test API server", kubeapi::ApiServer::Start(api));
    kubebridge::ConnectionConfig connection =
        Must("kubeconfig", kubebridge::LoadKubeconfig(api_->kubeconfig_path()));
    kubebridge::KubeClientOptions client;
    client.rate_limit = {.qps = 0, .burst = 1};
    client_ = Must("client", kubebridge::KubeClient::New(connection, client));
    direct_ = Must("client", kubebridge::KubeClient::New(connection, client));

    Must("namespace", client_->Create(NamespaceRef(), Namespace(kSourceNamespace)).status());
    for (int64_t i = 0; i < namespaces_; ++i) {
      Must("namespace", client_->Create(NamespaceRef(), Namespace(NamespaceName(i))).status());
    }
    Must("source",
         client_->Create(kubebridge::SecretResource(kSourceNamespace), SourceSecret(0)).status());

    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    store_ = Must("open the log", store::SqliteEventStore::Open(options));
    bus_ = std::make_unique<service::IdentityCommandBus>(store_.get());
    projections::IdentityProjector::Options projector;
    projector.change_history = projections::kIdentityChangeHistory;
    projector_ = Must("projector", projections::IdentityProjector::Start(store_.get(), projector));
    sink_ = std::make_unique<service::BridgeMirrorSink>(bus_.get(), common::RealClock::Default());

    service::CreateIdentity create;
    create.spec.mutable_secret_ref()->set_namespace_(kSourceNamespace);
    create.spec.mutable_secret_ref()->set_name(kSourceName);
    create.spec.mutable_allowed_namespaces()->mutable_selector();  // every namespace
    *create.review.mutable_secret() = create.spec.secret_ref();
    create.review.set_user("bench");
    create.review.set_allowed(true);
    Must("create", Run(create, "create").status());
    for (int64_t i = 0; i < namespaces_; ++i) {
      service::BindIdentity bind;
      bind.namespace_name = NamespaceName(i);
      // A Job per namespace that exists: each mirror write reads it by uid first.
      bind.owner = Must("job", testing::CreateJob(*client_, bind.namespace_name, "terraform"));
      Must("bind", Run(bind, absl::StrCat("bind-", i)).status());
    }
    kubebridge::MirrorBridgeOptions bridge;
    bridge_ =
        kubebridge::MirrorBridge::Start(client_.get(), sink_.get(), projector_.get(),
                                        &fingerprint_key_, common::RealClock::Default(), bridge);
    if (!WaitMirrored(SourceFingerprintOf(fingerprint_key_, 0), absl::Minutes(10))) {
      Die("initial mirrors", absl::DeadlineExceededError("not all mirrors were written"));
    }
    for (int64_t i = 0; i < namespaces_; ++i) {
      Must("plain copy", direct_
                             ->Create(kubebridge::SecretResource(NamespaceName(i)),
                                      PlainCopy(Must("get mirror", direct_->Get(MirrorRef(i)))))
                             .status());
    }
  }

  ~Fleet() {
    bridge_->Stop();
    client_->Stop();
    direct_->Stop();
  }

  // Writes source version `version` and waits until every mirror holds it; returns the wall
  // time from the write to the last mirror recorded.
  absl::Duration Rotate(int version) {
    nlohmann::json live =
        Must("get source", client_->Get(kubebridge::SecretResource(kSourceNamespace, kSourceName)));
    nlohmann::json next = SourceSecret(version);
    next["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"];
    WaitBridgeIdle();
    const absl::Time start = absl::Now();
    Must("rotate",
         client_->Update(kubebridge::SecretResource(kSourceNamespace, kSourceName), next).status());
    if (!WaitMirrored(SourceFingerprintOf(fingerprint_key_, version), absl::Minutes(10))) {
      Die("rotation", absl::DeadlineExceededError("not all mirrors were rewritten"));
    }
    return absl::Now() - start;
  }

  // The baseline: N updates of the plain copies' data (PlainCopy) sent one after the other
  // by a plain client.
  absl::Duration DirectPuts(int version) {
    std::vector<nlohmann::json> objects;
    for (int64_t i = 0; i < namespaces_; ++i) {
      objects.push_back(Must("get plain copy", direct_->Get(PlainCopyRef(i))));
      objects.back()["data"]["baseline"] = absl::Base64Escape(absl::StrCat("v", version));
    }
    WaitBridgeIdle();
    const absl::Time start = absl::Now();
    for (int64_t i = 0; i < namespaces_; ++i) {
      Must("put plain copy", direct_->Update(PlainCopyRef(i), objects[i]).status());
    }
    return absl::Now() - start;
  }

 private:
  static nlohmann::json Namespace(const std::string& name) {
    return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  }

  static kubebridge::ResourceRef MirrorRef(int64_t i) {
    return kubebridge::SecretResource(NamespaceName(i), projections::MirrorSecretName(kIdentity));
  }
  static kubebridge::ResourceRef PlainCopyRef(int64_t i) {
    return kubebridge::SecretResource(NamespaceName(i), kPlainCopy);
  }

  // A Secret like `mirror` (its data, annotations but the identity's, labels but the one the
  // bridge watches mirrors by, owner references) named kPlainCopy: no bridge acts on it.
  static nlohmann::json PlainCopy(const nlohmann::json& mirror) {
    nlohmann::json copy = {{"apiVersion", "v1"},
                           {"kind", "Secret"},
                           {"type", mirror["type"]},
                           {"data", mirror["data"]},
                           {"metadata", {{"name", kPlainCopy}}}};
    for (const char* field : {"labels", "annotations", "ownerReferences"}) {
      copy["metadata"][field] = mirror["metadata"][field];
    }
    copy["metadata"]["labels"].erase(kubebridge::kMirroredLabel);
    copy["metadata"]["annotations"].erase(kubebridge::kIdentityAnnotation);
    return copy;
  }

  void WaitBridgeIdle() {
    if (!bridge_->WaitIdle(absl::Minutes(1))) {
      Die("bridge", absl::DeadlineExceededError("the bridge did not become idle"));
    }
  }

  absl::StatusOr<service::IdentityCommandResult> Run(const service::IdentityCommand& command,
                                                     const std::string& request_id) {
    return bus_->Execute(command, {kIdentity, absl::Now(), "bench", request_id});
  }

  // True once the projected identity shows a mirror with source fingerprint `fingerprint` in
  // every namespace. Checks
  // each time the projector has caught up with the log (counting under its lock, no copy).
  bool WaitMirrored(const std::string& fingerprint, absl::Duration timeout) {
    const absl::Time give_up = absl::Now() + timeout;
    while (absl::Now() < give_up) {
      const int64_t head = store_->HeadSeq();
      projector_->WaitForSeq(head, absl::Milliseconds(200));
      int64_t current = 0;
      projector_->VisitActive([&](const v1::IdentityState& identity) {
        for (const v1::IdentityNamespaceState& ns : identity.namespaces()) {
          if (ns.has_mirror() && ns.mirror().source_fingerprint() == fingerprint) ++current;
        }
      });
      if (current == namespaces_) return true;
      projector_->WaitForSeq(head + 1, absl::Milliseconds(200));
    }
    return false;
  }

  const int64_t namespaces_;
  testing::TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> api_;
  std::unique_ptr<kubebridge::KubeClient> client_;
  std::unique_ptr<kubebridge::KubeClient> direct_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<service::IdentityCommandBus> bus_;
  std::unique_ptr<projections::IdentityProjector> projector_;
  std::unique_ptr<service::BridgeMirrorSink> sink_;
  const common::FingerprintKey fingerprint_key_ = *common::FingerprintKey::Generate();
  std::unique_ptr<kubebridge::MirrorBridge> bridge_;
};

}  // namespace

void BM_RotationPropagation(benchmark::State& state) {
  Fleet fleet(state.range(0));
  int version = 0;
  absl::Duration propagation, direct;
  for (auto _ : state) {
    const absl::Duration took = fleet.Rotate(++version);
    state.SetIterationTime(absl::ToDoubleSeconds(took));
    propagation += took;
    state.PauseTiming();
    direct += fleet.DirectPuts(version);
    state.ResumeTiming();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["propagation_s"] = absl::ToDoubleSeconds(propagation) / n;
  state.counters["direct_puts_s"] = absl::ToDoubleSeconds(direct) / n;
  state.counters["ratio"] = absl::ToDoubleSeconds(propagation) / absl::ToDoubleSeconds(direct);
}

}  // namespace credledger

int main(int argc, char** argv) {
  const int64_t max_namespaces =
      credledger::bench::TakeSizeFlag("max-namespaces", 1000, 1, argc, argv);
  if (max_namespaces < 0) {
    std::fprintf(stderr, "--max-namespaces must be an integer >= 1\n");
    return 2;
  }
  std::vector<int64_t> sizes;
  for (int64_t n : {int64_t{1}, int64_t{100}, int64_t{1000}}) {
    if (n <= max_namespaces) sizes.push_back(n);
  }
  if (sizes.back() != max_namespaces && max_namespaces < 1000) sizes.push_back(max_namespaces);
  for (int64_t n : sizes) {
    benchmark::RegisterBenchmark("BM_RotationPropagation", credledger::BM_RotationPropagation)
        ->Arg(n)
        ->Iterations(5)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
