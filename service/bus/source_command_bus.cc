#include "service/bus/source_command_bus.h"

namespace credledger::service {

BusStreams SourceBusDecider::Streams(const RecordSourceVerified&,
                                     const SourceCommandContext& context) const {
  return {SourceStream(context.source_namespace, context.name), {}};
}

void SourceBusDecider::Evolve(SourceState&, v1::Event&, const projections::EventPosition&,
                              const SourceCommandContext&) const {}

std::string SourceBusDecider::Name(const RecordSourceVerified&) const {
  return kVerifySourceCommand;
}

absl::StatusOr<Decision<NoNote>> SourceBusDecider::Decide(const RecordSourceVerified& command,
                                                          const SourceState&,
                                                          const SourceCommandContext& context,
                                                          NoReads&) const {
  return Decision<NoNote>{
      {{SourceStream(context.source_namespace, context.name), DecideSourceVerified(command)}}};
}

}  // namespace credledger::service
