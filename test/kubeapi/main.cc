// credledger-test-apiserver: runs the test Kubernetes API server (api_server.h) as a
// process, for integration tests and manual use with kubectl.
//
// Flags: --state-dir (default ./var/kubeapi), --port (default 0 = any free port),
// --port-file (written with the bound port once serving), --max-token-expiration
// (default 48h), --namespaces (created at start), --garbage-collection-period (default 1s; 0
// turns garbage collection off; docs/testing.md, "Garbage collection"). Dashes and
// underscores are interchangeable in flag names. Prints one ready line
//   credledger-test-apiserver listening on https://127.0.0.1:<port> kubeconfig=<path>
// to stdout, then serves until SIGINT or SIGTERM and exits 0. Exits 1 when start-up fails.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "test/kubeapi/api_server.h"

ABSL_FLAG(std::string, state_dir, "./var/kubeapi",
          "folder for ca.crt, server.crt/key, admin-token, sa.pub and kubeconfig");
ABSL_FLAG(int, port, 0, "TCP port on 127.0.0.1; 0 picks a free port");
ABSL_FLAG(std::string, port_file, "", "if set, the bound port is written to this file");
ABSL_FLAG(absl::Duration, max_token_expiration, absl::Hours(48),
          "TokenRequest expirationSeconds above this are clamped to it");
ABSL_FLAG(std::vector<std::string>, namespaces, {},
          "comma-separated namespaces to create at start (besides default and kube-*)");
ABSL_FLAG(absl::Duration, garbage_collection_period, absl::Seconds(1),
          "time between garbage collection sweeps, which delete objects whose owners "
          "(ownerReferences) are all gone; 0 turns garbage collection off");

namespace {

// absl flag names are identifiers; accept the documented dashed spelling ("--state-dir")
// by rewriting dashes in the name part of each "--flag[=value]" argument.
std::vector<char*> NormalizeFlagNames(int argc, char** argv, std::vector<std::string>& storage) {
  storage.assign(argv, argv + argc);
  for (size_t i = 1; i < storage.size(); ++i) {
    std::string& arg = storage[i];
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0) continue;
    size_t end = std::min(arg.find('='), arg.size());
    std::replace(arg.begin() + 2, arg.begin() + static_cast<long>(end), '-', '_');
  }
  std::vector<char*> out;
  for (std::string& arg : storage) out.push_back(arg.data());
  return out;
}

// Writes `port` to `path` through a temporary file and a rename, so readers never see a
// partial number.
bool WritePortFile(const std::string& path, int port) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << "\n";
    if (!out) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Runs a Kubernetes API server for tests on https://127.0.0.1.\n"
      "Usage: credledger-test-apiserver [--state-dir=DIR] [--port=N] [--port-file=FILE] "
      "[--max-token-expiration=48h] [--namespaces=a,b] [--garbage-collection-period=1s]\n"
      "(dashes and underscores are interchangeable in flag names)");
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "test/kubeapi/main.cc");
  };
  absl::SetFlagsUsageConfig(usage);
  std::vector<std::string> arg_storage;
  std::vector<char*> args = NormalizeFlagNames(argc, argv, arg_storage);
  absl::ParseCommandLine(static_cast<int>(args.size()), args.data());

  // Block the stop signals before any thread starts, then wait for them synchronously.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  credledger::kubeapi::ApiServerOptions options;
  options.state_dir = absl::GetFlag(FLAGS_state_dir);
  options.port = absl::GetFlag(FLAGS_port);
  options.max_token_expiration = absl::GetFlag(FLAGS_max_token_expiration);
  options.namespaces = absl::GetFlag(FLAGS_namespaces);
  options.garbage_collection_period = absl::GetFlag(FLAGS_garbage_collection_period);
  auto server = credledger::kubeapi::ApiServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "credledger-test-apiserver: %s\n", server.status().ToString().c_str());
    return 1;
  }
  std::string port_file = absl::GetFlag(FLAGS_port_file);
  if (!port_file.empty() && !WritePortFile(port_file, (*server)->port())) {
    std::fprintf(stderr, "credledger-test-apiserver: cannot write %s\n", port_file.c_str());
    return 1;
  }
  std::printf("credledger-test-apiserver listening on %s kubeconfig=%s\n", (*server)->url().c_str(),
              (*server)->kubeconfig_path().string().c_str());
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  (*server)->Stop();
  return 0;
}
