// The environment `credledger exec` gives the command it starts: the inherited environment plus
// one variable per file of a mounted credentials Secret, minus the variables that could steer
// Terraform or the Kubernetes client: keys starting with TF_ or KUBE_ are dropped, except the
// three the runner's Job sets itself (docs/mirrors.md, "Delivery to workloads").
//
// Rules, in order:
//   1. Start from the inherited "NAME=value" entries (an entry without '=' is left out; of
//      two entries with one name the first wins, as getenv(3) reads it).
//   2. Every credential file becomes a variable and wins over an inherited one of the same
//      name, unless its name is not usable as a variable name (empty, or containing '=' or
//      NUL) or its value holds a NUL byte (a C environment string cannot carry one): then
//      it is skipped and listed in `skipped`.
//   3. Every variable whose name starts with "TF_" or "KUBE_" is removed, inherited or
//      from a file, and listed in `removed_from_files` when a file held it and in
//      `removed_inherited` when it was inherited (a name can be in both), except
//      TF_IN_AUTOMATION, TF_INPUT and KUBE_NAMESPACE: these keep their inherited value, or
//      stay unset; a file of one of those names is ignored and listed in `ignored_files`.
//
// Thread-safety: pure function.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace credledger::cli {

// The variables the caller sets itself; their values come only from the inherited
// environment.
inline constexpr const char* kCallerSetVariables[] = {"TF_IN_AUTOMATION", "TF_INPUT",
                                                      "KUBE_NAMESPACE"};

// The result of BuildCredentialsEnvironment. The name lists hold names only, never values.
struct CredentialsEnvironment {
  // "NAME=value" entries ordered by name, names unique.
  std::vector<std::string> env;
  // Names removed by rule 3 that a credential file held, in byte order, unique.
  std::vector<std::string> removed_from_files;
  // Names removed by rule 3 that the inherited environment held, in byte order, unique.
  std::vector<std::string> removed_inherited;
  // Caller-set names (kCallerSetVariables) that a credential file also held: the file was
  // ignored and the inherited value, if any, kept. In byte order.
  std::vector<std::string> ignored_files;
  // Credential file names left out by rule 2, in byte order.
  std::vector<std::string> skipped;
};

// Builds the environment of the command from `inherited` ("NAME=value" entries, as in
// environ(7)) and `files` ((name, content) pairs of the credentials directory, any order,
// names unique) by the rules in the file comment.
CredentialsEnvironment BuildCredentialsEnvironment(
    const std::vector<std::string>& inherited,
    const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace credledger::cli
