#include "common/run_at_once.h"

#include <exception>
#include <thread>
#include <vector>

namespace credledger::common {

void RunAtOnce(absl::Span<const std::function<void()>> tasks) {
  if (tasks.empty()) return;
  // jthreads join when destroyed, also when unwinding.
  std::vector<std::jthread> threads;
  std::vector<const std::function<void()>*> unstarted;
  threads.reserve(tasks.size() - 1);
  unstarted.reserve(tasks.size() - 1);
  for (size_t i = 1; i < tasks.size(); ++i) {
    try {
      threads.emplace_back(tasks[i]);
    } catch (const std::exception&) {  // no thread (system_error) or no memory for its task
      unstarted.push_back(&tasks[i]);
    }
  }
  tasks[0]();
  for (const std::function<void()>* task : unstarted) (*task)();
}

}  // namespace credledger::common
