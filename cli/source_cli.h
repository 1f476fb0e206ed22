// The `credledger source verify` subcommand (docs/connections.md, "Sources"): asks the
// service to verify a Git, Helm or OCI source's address and credentials (SourceService
// VerifySource) and prints the recorded outcome; with the client flags of ClientCommand
// (client_command.h: --server, --as, --output).
//
//   source verify --name NAME --kind git|helm|oci --url URL [--namespace NS]
//                 [--auth none|basic|bearer|sshKey|<other>] [--secret NAME]
//                 [--known-hosts-configmap NAME | --known-hosts-secret NAME]
//                 [--known-hosts-key KEY] [--ca-configmap NAME | --ca-secret NAME]
//                 [--ca-key KEY] [--insecure-skip-tls-verify] [--request-id ID]
//   source verify --name NAME -f source.yaml [--request-id ID]
//
// The source file (-f) uses the Kubernetes-style field names:
//   kind: git                       # git, helm or oci
//   url: ssh://git@example.com/org/repo.git
//   namespace: flux-system          # of the Secrets and ConfigMaps; default "default"
//   auth:
//     type: sshKey                  # none, basic, bearer, sshKey (others: Unsupported)
//     basic: {secretName: NAME}     # only with type basic
//     bearer: {secretName: NAME}    # only with type bearer
//     sshKey:                       # only with type sshKey
//       secretName: NAME
//       knownHostsRef: {kind: ConfigMap, name: NAME, key: known_hosts}
//   tls:                            # https:// and oci:// URLs only (the service refuses
//     insecureSkipVerify: false     # them with an SSH URL)
//     caPublicCertRef: {kind: Secret, name: NAME, key: ca.crt}
// Unknown and duplicated keys are refused naming their path; `auth` defaults to type none.
// The spec flags and -f are exclusive; --name and --request-id go with both.
//
// Exit codes (they extend subcommands.h's 0/1/2 and are listed by --help):
//   0 Verified; 1 the call failed ("error: <CODE>: <message>" on stderr: invalid request,
//   no home cluster, server unreachable); 2 usage error (nothing sent); 3 VerifyFailed (a
//   retry may succeed); 4 Unsupported (retrying cannot help until the spec changes).
//
// Thread-safety: not thread-safe; one command per process run.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cli/framework/subcommands.h"
#include "credledger/v1/api.pb.h"
#include "credledger/v1/connection.pb.h"

namespace credledger::cli {

// Adds "source verify" to `dispatcher`.
void AddSourceCommands(Dispatcher& dispatcher);

// The spec flags of `source verify`, as given.
struct SourceFlags {
  std::string kind;                   // --kind: git, helm or oci
  std::string url;                    // --url
  std::string source_namespace;       // --namespace
  std::string auth = "none";          // --auth
  std::string secret;                 // --secret: the Secret of basic, bearer or sshKey
  std::string known_hosts_configmap;  // --known-hosts-configmap
  std::string known_hosts_secret;     // --known-hosts-secret
  std::string known_hosts_key;        // --known-hosts-key
  std::string ca_configmap;           // --ca-configmap
  std::string ca_secret;              // --ca-secret
  std::string ca_key;                 // --ca-key
  bool insecure_skip_tls_verify = false;
};

// The source the flags describe. --secret fills the block of --auth basic, bearer or sshKey;
// the known_hosts flags fill sshKey's knownHostsRef; the CA flags fill tls.caPublicCertRef.
// Any other --auth is sent as given, as from a file, and the service answers Unsupported; a
// type that differs from a known one only in case ("SSHKey") fills that type's block, as the
// file would. Names, keys and the URL are checked by the server.
// Errors: kInvalidArgument naming the flag: --kind missing or not git, helm or oci; --url
// missing; --secret missing for basic, bearer or sshKey, or given with another auth type;
// --auth sshKey without a known_hosts source (no mode skips the host key check); known_hosts
// flags without --auth sshKey; both --known-hosts-configmap and --known-hosts-secret, or
// both --ca-configmap and --ca-secret; --known-hosts-key or --ca-key without its object.
absl::StatusOr<v1::SourceSpec> SourceSpecFromFlags(const SourceFlags& flags);

// Parses a source file (format in the file comment) with the rules of spec_file.h: size
// (1 MiB) checked first, nesting bounded, exactly one non-empty YAML document.
// Errors: kInvalidArgument for ParseSpecDocument's cases (over the limits, malformed YAML,
// no or several documents, an empty one), unknown or duplicated keys (naming the path,
// "auth.sshKey.knownHostsRef.nme"), a kind other than git, helm or oci, insecureSkipVerify
// other than a plain true or false (YamlBool), and values of the wrong shape.
absl::StatusOr<v1::SourceSpec> ParseSourceSpecYaml(absl::string_view yaml);

// The exit code for a verification's answer (subcommands.h): kExitOk for Verified,
// kExitCheckFailed for VerifyFailed, kExitUnsupported for Unsupported, and kExitFailure for
// any other reason.
int VerifySourceExitCode(const v1::VerifySourceResponse& response);

}  // namespace credledger::cli
