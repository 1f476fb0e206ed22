#include "projections/snapshot_items.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstdint>
#include <string>

namespace credledger::projections {

namespace pb = google::protobuf;
using WireFormat = pb::internal::WireFormatLite;

bool ReadSnapshotItems(absl::string_view bytes, int item_field, pb::Message& head,
                       absl::FunctionRef<bool(absl::string_view item)> on_item) {
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                              static_cast<int>(bytes.size()));
  std::string rest;  // every field but the items, as they came
  std::string item;  // reused for each item
  {
    pb::io::StringOutputStream rest_stream(&rest);
    pb::io::CodedOutputStream rest_out(&rest_stream);
    for (uint32_t tag = in.ReadTag(); tag != 0; tag = in.ReadTag()) {
      if (WireFormat::GetTagFieldNumber(tag) == item_field &&
          WireFormat::GetTagWireType(tag) == WireFormat::WIRETYPE_LENGTH_DELIMITED) {
        uint32_t length = 0;
        if (!in.ReadVarint32(&length) || !in.ReadString(&item, static_cast<int>(length)) ||
            !on_item(item)) {
          return false;
        }
      } else if (!WireFormat::SkipField(&in, tag, &rest_out)) {
        return false;
      }
    }
    // ReadTag answers 0 at the end of the bytes and for a malformed tag alike.
    if (!in.ConsumedEntireMessage()) return false;
  }
  return head.ParseFromString(rest);
}

}  // namespace credledger::projections
