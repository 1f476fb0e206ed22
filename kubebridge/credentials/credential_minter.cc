#include "kubebridge/credentials/credential_minter.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/fault_points.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"

namespace credledger::kubebridge {
namespace {

v1::SecretRef RefOf(const nlohmann::json& secret) {
  v1::SecretRef ref;
  ref.set_name(StringAt(secret, {"metadata", "name"}));
  ref.set_uid(StringAt(secret, {"metadata", "uid"}));
  return ref;
}

// The token stored in a credential Secret, empty when none (data values are base64).
std::string StoredToken(const nlohmann::json& secret) {
  std::string encoded = StringAt(secret, {"data", kTokenKey});
  std::string token;
  if (encoded.empty() || !absl::Base64Unescape(encoded, &token)) return "";
  return token;
}

// The `iat` claim (issued at, unix seconds) of a JWT, read without verifying it: the token
// came from the cluster's own Secret. Returns false when the token is not a readable JWT.
bool JwtIssuedAt(absl::string_view token, absl::Time* issued_at) {
  std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  std::string payload;
  if (parts.size() != 3 || !absl::WebSafeBase64Unescape(parts[1], &payload)) return false;
  nlohmann::json claims = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!claims.is_object() || !claims.contains("iat") || !claims["iat"].is_number_integer()) {
    return false;
  }
  *issued_at = absl::FromUnixSeconds(claims["iat"].get<int64_t>());
  return true;
}

}  // namespace

std::string TokenFingerprint(absl::string_view token) { return common::Sha256HexPrefix(token, 16); }

CredentialMinter::CredentialMinter(KubeClient& client, OutcomeSink& sink, common::Clock& clock,
                                   absl::Duration token_ttl)
    : client_(client), sink_(sink), clock_(clock), token_ttl_(token_ttl) {}

absl::StatusOr<v1::TargetState> CredentialMinter::Record(const v1::TargetState& state,
                                                         const Outcome& outcome,
                                                         absl::string_view step) {
  return sink_.Record(state.namespace_(), state.name(), outcome,
                      OutcomeRequestId(state, absl::StrCat(state.open_attempt().attempt_id(),
                                                           "/", step)));
}

absl::StatusOr<v1::TargetState> CredentialMinter::Run(const v1::TargetState& state,
                                                      Cancellation* cancel) {
  if (state.open_attempt().has_secret()) return Resume(state, cancel);
  return CreateSecret(state, cancel);
}

absl::StatusOr<v1::TargetState> CredentialMinter::CreateSecret(const v1::TargetState& state,
                                                               Cancellation* cancel) {
  const std::string& ns = state.namespace_();
  const std::string& target = state.name();
  const std::string& attempt = state.open_attempt().attempt_id();
  ListOptions by_name;
  by_name.label_selector = absl::StrCat(kCredentialLabel, "=", target);
  ASSIGN_OR_RETURN(ObjectList listed, client_.List(SecretResource(ns), by_name, cancel));

  RecordStaleCredentialsDeleted stale{attempt, {}, {}};
  int64_t highest = 0;
  const nlohmann::json* mine = nullptr;
  for (const nlohmann::json& secret : listed.items) {
    const std::string uid_label =
        StringAt(secret, {"metadata", "labels", kCredentialTargetUidLabel});
    if (uid_label != state.target_uid()) {
      absl::Status deleted =
          client_.Delete(SecretResource(ns, StringAt(secret, {"metadata", "name"})),
                         {.precondition_uid = StringAt(secret, {"metadata", "uid"})}, cancel);
      if (!deleted.ok() && !absl::IsNotFound(deleted)) return deleted;
      stale.secrets.push_back(RefOf(secret));
      stale.secret_target_uids.push_back(uid_label);
      continue;
    }
    highest =
        std::max(highest, CredentialSecretSuffix(target, StringAt(secret, {"metadata", "name"})));
    if (StringAt(secret, {"metadata", "annotations", kAttemptAnnotation}) == attempt) {
      mine = &secret;
    }
  }
  v1::TargetState current = state;
  if (!stale.secrets.empty()) {
    ASSIGN_OR_RETURN(current, Record(current, stale, "stale-deleted"));
  }

  nlohmann::json secret;
  if (mine != nullptr) {
    // Created before a restart, not yet recorded: adopt it.
    secret = *mine;
  } else {
    common::FaultPoint("mint.before_secret_create");
    ASSIGN_OR_RETURN(secret, client_.Create(SecretResource(ns),
                                            CredentialSecretObject(
                                                ns, target, state.target_uid(), highest + 1,
                                                attempt, state.open_attempt().request_value()),
                                            cancel));
    common::FaultPoint("mint.after_secret_create");
  }
  const int64_t suffix = CredentialSecretSuffix(target, StringAt(secret, {"metadata", "name"}));
  ASSIGN_OR_RETURN(current, Record(current, RecordSecretCreated{attempt, RefOf(secret), suffix},
                                   "secret-created"));
  common::FaultPoint("mint.after_secret_recorded");
  if (!current.has_open_attempt() || current.open_attempt().attempt_id() != attempt) {
    return current;  // abandoned meanwhile; the reconciler deletes the released Secret
  }
  std::string token = StoredToken(secret);
  if (!token.empty()) return Adopt(current, secret, token);
  return IssueToken(current, std::move(secret), cancel);
}

absl::StatusOr<v1::TargetState> CredentialMinter::Resume(const v1::TargetState& state,
                                                         Cancellation* cancel) {
  const v1::SecretRef& recorded = state.open_attempt().secret();
  absl::StatusOr<nlohmann::json> secret =
      client_.Get(SecretResource(state.namespace_(), recorded.name()), cancel);
  if (!secret.ok() && !absl::IsNotFound(secret.status())) return secret.status();
  if (!secret.ok() || StringAt(*secret, {"metadata", "uid"}) != recorded.uid()) {
    ASSIGN_OR_RETURN(
        v1::TargetState after,
        Record(state, RecordSecretDeletedExternally{recorded, clock_.Now()}, "secret-vanished"));
    return Record(after,
                  RecordMintFailed{state.open_attempt().attempt_id(), v1::MINT_STAGE_RECOVERY,
                                   absl::StrCat("Secret ", recorded.name(),
                                                " disappeared before its token was stored"),
                                   std::nullopt},
                  "failed");
  }
  std::string token = StoredToken(*secret);
  if (!token.empty()) return Adopt(state, *secret, token);
  return IssueToken(state, *std::move(secret), cancel);
}

absl::StatusOr<v1::TargetState> CredentialMinter::IssueToken(const v1::TargetState& state,
                                                             nlohmann::json secret,
                                                             Cancellation* cancel) {
  const std::string& ns = state.namespace_();
  const nlohmann::json request = {{"apiVersion", "authentication.k8s.io/v1"},
                                  {"kind", "TokenRequest"},
                                  {"spec",
                                   {{"expirationSeconds", absl::ToInt64Seconds(token_ttl_)},
                                    {"boundObjectRef",
                                     {{"kind", "Secret"},
                                      {"apiVersion", "v1"},
                                      {"name", StringAt(secret, {"metadata", "name"})},
                                      {"uid", StringAt(secret, {"metadata", "uid"})}}}}}};
  absl::StatusOr<nlohmann::json> answer = client_.CreateSubresource(
      ServiceAccountResource(ns, AgentIdentityName(state.name())), "token", request, cancel);
  const absl::Time issued_at = clock_.Now();
  if (!answer.ok())
    return Fail(state, v1::MINT_STAGE_TOKEN_REQUEST, answer.status(), &secret, cancel);
  common::FaultPoint("mint.after_token_request");
  const std::string token = StringAt(*answer, {"status", "token"});
  absl::Time expires_at;
  if (token.empty() ||
      !ParseKubeTime(StringAt(*answer, {"status", "expirationTimestamp"}), &expires_at)) {
    return Fail(state, v1::MINT_STAGE_TOKEN_REQUEST,
                absl::InternalError("TokenRequest answer lacks status.token or a valid "
                                    "status.expirationTimestamp"),
                &secret, cancel);
  }

  // A Secret adopted from a list has no apiVersion and kind (list items carry none); the
  // server refuses a PUT without them.
  secret["apiVersion"] = "v1";
  secret["kind"] = "Secret";
  const std::string encoded = absl::Base64Escape(token);
  secret["data"][kTokenKey] = encoded;
  secret["metadata"]["annotations"][kExpiresAtAnnotation] = FormatExpiresAt(expires_at);
  absl::StatusOr<nlohmann::json> updated =
      client_.Update(SecretResource(ns, StringAt(secret, {"metadata", "name"})), secret, cancel);
  if (absl::IsAborted(updated.status())) {
    updated = StoreTokenAfterConflict(ns, secret, token, updated.status(), cancel);
  }
  if (!updated.ok()) {
    // The server may quote the request body, token included, in its message ("Object 'Kind'
    // is missing in '{...}'"); the message goes into the log, which never holds a token
    // (docs/design.md, "Security model").
    const absl::Status scrubbed(
        updated.status().code(),
        absl::StrReplaceAll(updated.status().message(),
                            {{encoded, "<token>"}, {token, "<token>"}}));
    return Fail(state, v1::MINT_STAGE_SECRET_UPDATE, scrubbed, &secret, cancel);
  }
  common::FaultPoint("mint.after_secret_update");
  ASSIGN_OR_RETURN(v1::TargetState after,
                   Record(state,
                          RecordCredentialIssued{state.open_attempt().attempt_id(), RefOf(*updated),
                                                 TokenFingerprint(token), issued_at, expires_at,
                                                 /*adopted=*/false},
                          "issued"));
  common::FaultPoint("mint.after_issued_recorded");
  return after;
}

absl::StatusOr<nlohmann::json> CredentialMinter::StoreTokenAfterConflict(
    const std::string& ns, const nlohmann::json& filled, const std::string& token,
    const absl::Status& conflict, Cancellation* cancel) {
  const std::string name = StringAt(filled, {"metadata", "name"});
  ASSIGN_OR_RETURN(nlohmann::json live, client_.Get(SecretResource(ns, name), cancel));
  if (StringAt(live, {"metadata", "uid"}) != StringAt(filled, {"metadata", "uid"})) {
    return conflict;
  }
  const std::string stored = StoredToken(live);
  if (stored == token) return live;  // an earlier try of this PUT landed; its answer was lost
  if (!stored.empty()) return conflict;
  live["apiVersion"] = "v1";
  live["kind"] = "Secret";
  live["data"][kTokenKey] = filled["data"][kTokenKey];
  live["metadata"]["annotations"][kExpiresAtAnnotation] =
      filled["metadata"]["annotations"][kExpiresAtAnnotation];
  return client_.Update(SecretResource(ns, name), live, cancel);
}

absl::StatusOr<v1::TargetState> CredentialMinter::Adopt(const v1::TargetState& state,
                                                        const nlohmann::json& secret,
                                                        const std::string& token) {
  absl::Time issued_at, expires_at;
  if (!JwtIssuedAt(token, &issued_at) ||
      !ParseKubeTime(StringAt(secret, {"metadata", "annotations", kExpiresAtAnnotation}),
                     &expires_at) ||
      expires_at <= issued_at) {
    return Fail(state, v1::MINT_STAGE_RECOVERY,
                absl::InternalError("the attempt's Secret holds a token whose issue or expiry "
                                    "time cannot be read"),
                &secret, nullptr);
  }
  return Record(state,
                RecordCredentialIssued{state.open_attempt().attempt_id(), RefOf(secret),
                                       TokenFingerprint(token), issued_at, expires_at,
                                       /*adopted=*/true},
                "issued");
}

absl::StatusOr<v1::TargetState> CredentialMinter::Fail(const v1::TargetState& state,
                                                       v1::MintStage stage,
                                                       const absl::Status& error,
                                                       const nlohmann::json* secret,
                                                       Cancellation* cancel) {
  if (absl::IsCancelled(error)) return error;  // shutting down: resume after the restart
  std::optional<v1::SecretRef> deleted;
  if (secret != nullptr) {
    v1::SecretRef ref = RefOf(*secret);
    absl::Status removed = client_.Delete(SecretResource(state.namespace_(), ref.name()),
                                          {.precondition_uid = ref.uid()}, cancel);
    if (!removed.ok() && !absl::IsNotFound(removed)) return removed;
    deleted = ref;
  }
  return Record(state,
                RecordMintFailed{state.open_attempt().attempt_id(), stage,
                                 std::string(error.message()), deleted},
                "failed");
}

}  // namespace credledger::kubebridge
