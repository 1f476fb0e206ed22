// The environment `credledger exec` gives the command it starts: the inherited environment
// plus one variable per file of a mounted credentials Secret, minus the variables that
// could steer Terraform or the Kubernetes client (domain/captf-credentials.md, "Delivery to
// the runtime": the runner drops keys starting with TF_ or KUBE_, except the three the Job
// sets itself; docs/mirrors.md, "Delivery to workloads").
//
// Rules, in order:
//   1. Start from the inherited "NAME=value" entries (an entry without '=' is left out; of
//      two entries with one name the first wins, as getenv(3) reads it).
//   2. Every credential file becomes a variable and wins over an inherited one of the same
//      name, unless its name is not usable as a variable name (empty, or containing '=' or
//      NUL) or its value holds a NUL byte (a C environment string cannot carry one): then
//      it is skipped and listed in `skipped`.
//   3. Every variable whose name starts with "TF_" or "KUBE_" is removed, inherited or
//      from a file, and listed in `dropped`, except TF_IN_AUTOMATION, TF_INPUT and
//      KUBE_NAMESPACE: these keep their inherited value only (a file of that name is
//      ignored and listed in `dropped`).
//
// Thread-safety: pure function.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace credledger::service {

// The variables the caller sets itself; their values come only from the inherited
// environment.
inline constexpr const char* kCallerSetVariables[] = {"TF_IN_AUTOMATION", "TF_INPUT",
                                                      "KUBE_NAMESPACE"};

struct CredentialsEnvironment {
  // "NAME=value" entries ordered by name, names unique.
  std::vector<std::string> env;
  // Names removed by rule 3, in byte order, unique. Names only: never values.
  std::vector<std::string> dropped;
  // Credential file names left out by rule 2, in byte order.
  std::vector<std::string> skipped;
};

// Builds the environment of the command from `inherited` ("NAME=value" entries, as in
// environ(7)) and `files` ((name, content) pairs of the credentials directory, any order,
// names unique) by the rules in the file comment.
CredentialsEnvironment BuildCredentialsEnvironment(
    const std::vector<std::string>& inherited,
    const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace credledger::service
