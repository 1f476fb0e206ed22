#include "service/bus/fold_cache.h"

namespace credledger::service {

absl::StatusOr<std::vector<store::RecordedEvent>> ReadStreamFrom(const StreamReader& reader,
                                                                 const std::string& stream,
                                                                 int64_t from_version) {
  std::vector<store::RecordedEvent> events;
  while (true) {
    ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> page, reader.read(stream, from_version));
    const bool last =
        reader.page_limit == 0 || page.size() < static_cast<size_t>(reader.page_limit);
    if (!page.empty()) from_version = page.back().stream_version + 1;
    std::move(page.begin(), page.end(), std::back_inserter(events));
    if (last) return events;
  }
}

absl::StatusOr<std::optional<std::vector<store::RecordedEvent>>> ReadAfter(
    const StreamReader& reader, const FoldedStream& stream, const StreamPosition& position) {
  using Events = std::vector<store::RecordedEvent>;
  if (position.version < 0) {
    int64_t from = 0;
    if (stream.last_event_only && reader.version) {
      ASSIGN_OR_RETURN(const int64_t last, reader.version(stream.name));
      if (last < 0) return std::optional<Events>(Events());
      from = last;
    }
    ASSIGN_OR_RETURN(Events all, ReadStreamFrom(reader, stream.name, from));
    return std::optional<Events>(std::move(all));
  }
  ASSIGN_OR_RETURN(Events events, ReadStreamFrom(reader, stream.name, position.version));
  if (events.empty() || events.front().stream_version != position.version ||
      events.front().stream_hash != position.stream_hash) {
    return std::optional<Events>();
  }
  events.erase(events.begin());
  return std::optional<Events>(std::move(events));
}

}  // namespace credledger::service
