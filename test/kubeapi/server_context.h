// ServerContext: the state every request handler of the test API server shares (resource
// registry, object store, token signer, authenticator, authorizer, faults, the request
// recorder, the snapshots of paged lists, settings).
//
// Thread-safety: every member is safe for concurrent use; `config` is immutable.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/clock.h"
#include "test/kubeapi/authenticator.h"
#include "test/kubeapi/fault_injector.h"
#include "test/kubeapi/jwt.h"
#include "test/kubeapi/list_pages.h"
#include "test/kubeapi/object_store.h"
#include "test/kubeapi/rbac.h"
#include "test/kubeapi/request_recorder.h"
#include "test/kubeapi/resource_registry.h"

namespace credledger::kubeapi {

struct ServerConfig {
  common::Clock* clock = nullptr;  // token iat/exp, creationTimestamp
  absl::Duration max_token_expiration = absl::Hours(48);
  absl::Duration bookmark_interval = absl::Seconds(10);  // real time between bookmarks
  absl::Duration default_watch_timeout = absl::Minutes(30);
  absl::Duration list_continue_ttl = absl::Minutes(5);  // on `clock`: a continue token's life
  bool require_namespace = true;  // namespaced creates need an existing Namespace
  std::string issuer;
  std::vector<std::string> api_audiences;
  std::string server_address;  // "127.0.0.1:<port>", advertised by /api
  std::string admin_token;
};

// Paged lists open at once; a token of an older one is answered 410 Expired.
inline constexpr size_t kMaxOpenListSnapshots = 256;

struct ServerContext {
  // REQUIRES: config.clock is non-null and outlives the context.
  ServerContext(ServerConfig config_in, JwtSigner signer_in, int64_t watch_history,
                absl::Duration watch_history_window)
      : config(std::move(config_in)),
        store(watch_history, watch_history_window),
        signer(std::move(signer_in)),
        authenticator(config.admin_token, config.issuer, config.api_audiences, &signer, &store,
                      config.clock),
        authorizer(&store),
        pages(config.clock, config.list_continue_ttl, kMaxOpenListSnapshots) {}

  const ServerConfig config;
  ResourceRegistry registry;
  ObjectStore store;
  const JwtSigner signer;
  const Authenticator authenticator;
  const RbacAuthorizer authorizer;
  FaultInjector faults;
  RequestRecorder requests;
  ListPages pages;
};

}  // namespace credledger::kubeapi
