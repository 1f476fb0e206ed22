// The fixture of the tests of the Deployment manifests in docs/manifests/ (docs/kubernetes.md,
// "Installing"): one manifest file's objects, its Deployment and that Deployment's one
// container, with the lookups the tests share (a `--flag=value` argument, the volume behind a
// mounted file, an object by kind), and a run of the real `credledger serve` with the
// container's arguments and files in place, which checks that serve accepts them together.
//
// Thread-safety: one test's fixture, used by its thread.
#pragma once

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/support/subprocess.h"

namespace credledger::testing {

class DeploymentManifestFixture : public ::testing::Test {
 protected:
  // Loads docs/manifests/<file_name> into the members below. Fails the test fatally unless
  // the file parses and holds exactly one Deployment with exactly one container.
  void Load(const std::string& file_name);

  // The value of `--<flag>=<value>` among the container's arguments; "" when absent.
  std::string Flag(const std::string& flag) const;

  // The pod volume mounted at the folder holding `file`, and the file's name in it.
  struct MountedFile {
    nlohmann::json volume;  // null when no volume is mounted there
    std::string key;
    bool read_only = false;
  };
  MountedFile Mounted(const std::string& file) const;

  // The first object of `kind` (null, and a failure, when there is none).
  nlohmann::json Object(const std::string& kind) const;

  // The objects of docs/manifests/credledger-rbac.yaml (none, and a failure, when it does not
  // load).
  static std::vector<nlohmann::json> RbacObjects();

  // Runs `credledger serve` with the container's arguments as the pod would (LayOutPod,
  // pod_layout.h), the Secrets being those the installation steps create: credledger-tls (a
  // server certificate, its key and a client CA), credledger-signing-key,
  // credledger-fingerprint-key and credledger-postgres (a password and a CA), all freshly
  // made. The environment holds no cluster connection and no PostgreSQL password, TMPDIR is
  // the folder mounted at /tmp, and --http-listen is moved to a loopback port the kernel
  // picks (the manifest's port would be this machine's). Fails the test when the pod cannot
  // be laid out or serve does not end within 30 s.
  RunResult ServeInPod() const;

  std::vector<nlohmann::json> objects_;
  nlohmann::json deployment_;
  nlohmann::json container_;
};

}  // namespace credledger::testing
