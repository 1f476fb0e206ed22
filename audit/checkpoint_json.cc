#include "audit/checkpoint_json.h"

#include "absl/strings/str_cat.h"
#include "audit/export_field_reader.h"
#include "common/sha256.h"

namespace credledger::audit {

OrderedJson CheckpointToJson(const v1::Checkpoint& checkpoint) {
  OrderedJson out = OrderedJson::object();
  out["seq"] = absl::StrCat(checkpoint.seq());
  out["chain_hash"] = common::HexEncode(checkpoint.chain_hash());
  out["signed_at_us"] = absl::StrCat(checkpoint.signed_at_us());
  out["key_id"] = checkpoint.key_id();
  out["signature"] = common::HexEncode(checkpoint.signature());
  return out;
}

absl::Status CheckpointFromJson(const Json& json, const std::string& prefix,
                                v1::Checkpoint& checkpoint) {
  FieldReader in(json, prefix);
  checkpoint.set_seq(in.Int64("seq"));
  checkpoint.set_chain_hash(in.Hex("chain_hash", 0));
  checkpoint.set_signed_at_us(in.Int64("signed_at_us"));
  checkpoint.set_key_id(in.String("key_id"));
  checkpoint.set_signature(in.Hex("signature", 0));
  return in.status();
}

}  // namespace credledger::audit
