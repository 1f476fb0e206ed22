#include "common/run_at_once.h"

#include <system_error>
#include <thread>
#include <vector>

namespace credledger::common {

void RunAtOnce(absl::Span<const std::function<void()>> tasks) {
  if (tasks.empty()) return;
  std::vector<std::thread> threads;
  std::vector<const std::function<void()>*> unstarted;
  threads.reserve(tasks.size() - 1);
  for (size_t i = 1; i < tasks.size(); ++i) {
    try {
      threads.emplace_back(tasks[i]);
    } catch (const std::system_error&) {
      unstarted.push_back(&tasks[i]);
    }
  }
  tasks[0]();
  for (const std::function<void()>* task : unstarted) (*task)();
  for (std::thread& thread : threads) thread.join();
}

}  // namespace credledger::common
