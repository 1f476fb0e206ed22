// The check of a copied log against its source (log_copy_check.h).
#include "store/open/log_copy_check.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "store/log_hash.h"
#include "store/page_reader.h"

namespace credledger::store {
namespace {

// Events and checkpoints per read.
constexpr int kCheckPage = 256;

absl::Status Differs(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("the copy does not verify: ", what));
}

// The first field in which the copied event `b` differs from the source's `a`; "" when none.
absl::string_view FirstDifferentField(const RecordedEvent& a, const RecordedEvent& b) {
  if (a.seq != b.seq) return "seq";
  if (a.stream_version != b.stream_version) return "stream_version";
  if (a.schema_version != b.schema_version) return "schema_version";
  if (a.recorded_at_us != b.recorded_at_us) return "recorded_at_us";
  static constexpr std::pair<absl::string_view, std::string RecordedEvent::*> kBytes[] = {
      {"stream", &RecordedEvent::stream},
      {"event_id", &RecordedEvent::event_id},
      {"type", &RecordedEvent::type},
      {"metadata", &RecordedEvent::metadata},
      {"payload", &RecordedEvent::payload},
      {"digest", &RecordedEvent::digest},
      {"prev_chain_hash", &RecordedEvent::prev_chain_hash},
      {"chain_hash", &RecordedEvent::chain_hash},
      {"stream_hash", &RecordedEvent::stream_hash},
  };
  for (const auto& [field, member] : kBytes) {
    if (a.*member != b.*member) return field;
  }
  return "";
}

bool SameSnapshot(const Snapshot& a, const Snapshot& b) {
  return a.projection == b.projection && a.seq == b.seq && a.schema_version == b.schema_version &&
         a.state == b.state && a.chain_hash == b.chain_hash && a.state_sha256 == b.state_sha256 &&
         a.key_id == b.key_id && a.signature == b.signature;
}

// The copy's chains recomputed from its stored bytes, event after event (docs/log-format.md).
class ChainCheck {
 public:
  // Checks `e`, the next event of the copy, against its source event `source`.
  absl::Status Next(const RecordedEvent& source, const RecordedEvent& e) {
    if (e.seq != ++seq_) return Differs(absl::StrCat("seq ", e.seq, " follows seq ", seq_ - 1));
    if (absl::string_view field = FirstDifferentField(source, e); !field.empty()) {
      return Differs(absl::StrCat("seq ", e.seq, ": its ", field, " differs from the source's"));
    }
    const std::string digest = EventDigest(e);
    if (digest != e.digest) {
      return Differs(absl::StrCat("seq ", e.seq, ": its digest is not that of its stored bytes"));
    }
    std::string& stream_hash = streams_.try_emplace(e.stream, ZeroHash()).first->second;
    if (e.prev_chain_hash != chain_hash_ || e.chain_hash != NextChainHash(chain_hash_, digest)) {
      return Differs(
          absl::StrCat("seq ", e.seq, ": its chain_hash does not follow seq ", e.seq - 1));
    }
    if (e.stream_hash != NextChainHash(stream_hash, digest)) {
      return Differs(absl::StrCat("seq ", e.seq,
                                  ": its stream_hash does not follow the stream's "
                                  "event before it"));
    }
    chain_hash_ = e.chain_hash;
    stream_hash = e.stream_hash;
    return absl::OkStatus();
  }

  // The seq of the last event checked; 0 before the first.
  int64_t seq() const { return seq_; }

 private:
  int64_t seq_ = 0;
  std::string chain_hash_ = ZeroHash();
  // Each stream's last stream_hash.
  absl::flat_hash_map<std::string, std::string> streams_;
};

absl::Status CheckEvents(EventStore& source, EventStore& copy, const CopiedLog& copied) {
  if (copy.HeadSeq() != copied.head_seq) {
    return Differs(absl::StrCat("it ends at seq ", copy.HeadSeq(), ", the copied events at ",
                                copied.head_seq));
  }
  PageReader from(&source, 0, copied.head_seq, kCheckPage, EventFields::kAll);
  PageReader to(&copy, 0, copied.head_seq, kCheckPage, EventFields::kAll);
  std::vector<RecordedEvent> source_page, copy_page;
  ChainCheck chain;
  while (true) {
    RETURN_IF_ERROR(from.Next(source_page));
    RETURN_IF_ERROR(to.Next(copy_page));
    if (source_page.size() != copy_page.size()) {
      return Differs(absl::StrCat("it holds other events than the source after seq ", chain.seq()));
    }
    if (copy_page.empty()) break;
    for (size_t i = 0; i < copy_page.size(); ++i) {
      RETURN_IF_ERROR(chain.Next(source_page[i], copy_page[i]));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCheckpoints(EventStore& copy, const CopiedLog& copied) {
  ASSIGN_OR_RETURN(const std::vector<v1::Checkpoint> held,
                   CheckpointsUpTo(copy, std::numeric_limits<int64_t>::max()));
  if (held.size() != copied.checkpoints.size()) {
    return Differs(absl::StrCat("it holds ", held.size(),
                                held.size() == 1 ? " checkpoint" : " checkpoints", ", the source ",
                                copied.checkpoints.size()));
  }
  for (size_t i = 0; i < held.size(); ++i) {
    if (held[i].SerializeAsString() != copied.checkpoints[i].SerializeAsString()) {
      return Differs(absl::StrCat("its checkpoint at seq ", held[i].seq(),
                                  " differs from the source's at seq ",
                                  copied.checkpoints[i].seq()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSnapshots(EventStore& source, EventStore& copy, const CopiedLog& copied) {
  ASSIGN_OR_RETURN(const std::vector<SnapshotId> held, copy.ListSnapshots());
  const auto same_id = [](const SnapshotId& a, const SnapshotId& b) {
    return a.projection == b.projection && a.seq == b.seq;
  };
  if (!std::equal(held.begin(), held.end(), copied.snapshots.begin(), copied.snapshots.end(),
                  same_id)) {
    return Differs(absl::StrCat("it holds ", held.size(), " snapshots, not the ",
                                copied.snapshots.size(), " copied"));
  }
  for (const SnapshotId& id : held) {
    ASSIGN_OR_RETURN(const std::optional<Snapshot> original,
                     source.LoadSnapshot(id.projection, id.seq));
    ASSIGN_OR_RETURN(const std::optional<Snapshot> copied_one,
                     copy.LoadSnapshot(id.projection, id.seq));
    if (!original.has_value() || !copied_one.has_value() || !SameSnapshot(*original, *copied_one)) {
      return Differs(absl::StrCat("its snapshot \"", id.projection, "\" at seq ", id.seq,
                                  " differs from the source's"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<v1::Checkpoint>> CheckpointsUpTo(EventStore& log, int64_t max_seq) {
  std::vector<v1::Checkpoint> checkpoints;
  for (int64_t after = 0;;) {
    ASSIGN_OR_RETURN(std::vector<v1::Checkpoint> page, log.ReadCheckpoints(after, kCheckPage));
    for (v1::Checkpoint& c : page) {
      if (c.seq() > max_seq) return checkpoints;
      checkpoints.push_back(std::move(c));
    }
    if (static_cast<int>(page.size()) < kCheckPage) return checkpoints;
    after = checkpoints.back().seq();
  }
}

absl::Status CheckCopy(EventStore& source, EventStore& copy, const CopiedLog& copied) {
  RETURN_IF_ERROR(CheckEvents(source, copy, copied));
  RETURN_IF_ERROR(CheckCheckpoints(copy, copied));
  return CheckSnapshots(source, copy, copied);
}

}  // namespace credledger::store
