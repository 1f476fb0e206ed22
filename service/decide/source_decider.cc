#include "service/decide/source_decider.h"

#include "absl/strings/str_cat.h"

namespace credledger::service {

std::string SourceStream(absl::string_view source_namespace, absl::string_view name) {
  return absl::StrCat("source/", source_namespace, "/", name);
}

std::vector<v1::Event> DecideSourceVerified(const RecordSourceVerified& command) {
  v1::Event event;
  *event.mutable_source_verified() = command.verified;
  return {std::move(event)};
}

}  // namespace credledger::service
