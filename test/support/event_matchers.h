// gMock matcher for events in decider tests.
//   EqualsEvent(expected): the argument equals the protobuf message `expected` field by field
//   (MessageDifferencer); a failure names the differences.
#pragma once

#include <google/protobuf/util/message_differencer.h>

#include <string>

#include "gmock/gmock.h"

namespace credledger::testing {

MATCHER_P(EqualsEvent, expected, "equals " + expected.ShortDebugString()) {
  google::protobuf::util::MessageDifferencer differencer;
  std::string report;
  differencer.ReportDifferencesToString(&report);
  if (differencer.Compare(expected, arg)) return true;
  *result_listener << "differs: " << report;
  return false;
}

}  // namespace credledger::testing
