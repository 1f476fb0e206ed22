// DenialLedger: refused calls counted in memory until they are recorded as CallsDenied events,
// aggregated per caller identity and minute, so that a flood of refused calls cannot grow the
// log without bound (docs/api.md, "Refused calls in the log"; docs/events.md, "CallsDenied").
//
// Refusals are grouped by the UTC minute they fell in and the caller identity (with how it
// was established). Per minute at most kMaxIdentitiesPerMinute identities get an entry of
// their own; refusals of further identities that minute are counted in one entry with an
// empty identity. So whatever the flood, a minute yields at most kMaxIdentitiesPerMinute + 1
// events, each listing at most one count per RPC of the API.
//
// Pure (times come in as arguments). Thread-safety: all methods are thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"

namespace credledger::service {

// Identities with an entry of their own per minute; the rest share one entry.
inline constexpr int kMaxIdentitiesPerMinute = 64;
// Distinct identities the shared entry of a minute tells apart; its `identities` count stops
// growing there (memory stays bounded under a flood of made-up names).
inline constexpr int kMaxFoldedIdentities = 4096;

// Distinct declared names an entry lists (CallsDenied.declared_names); further ones only set
// unlisted_declared_names, so that an entry stays small under a flood of made-up names.
inline constexpr int kMaxDeclaredNames = 8;

class DenialLedger {
 public:
  // Counts one refused call of `rpc` ("<Service>/<Method>") by `identity`, established by
  // `authentication` (caller_identity.h's names, or "unauthenticated"), at `at` (service
  // clock). Returns true when this opened an entry: the identity's first refusal of that
  // minute, or the minute's first refusal past the identity limit (callers log only those).
  // `declared_name`: the name the caller declared when its identity could not be established
  // (recorded in declared_names when it is a valid actor name, within kMaxDeclaredNames);
  // empty when it declared none or was refused by the policy.
  bool Add(absl::string_view identity, absl::string_view authentication, absl::string_view rpc,
           absl::Time at, absl::string_view declared_name = "");

  // Removes and returns the entries of every minute that ended at or before `now`, ordered
  // by minute, then identity (the shared entry of a minute last). With `now` =
  // absl::InfiniteFuture() returns everything (shutdown).
  std::vector<v1::CallsDenied> TakeEndedBefore(absl::Time now);

  // Puts back entries TakeEndedBefore returned that could not be recorded; counts added
  // since for the same minute and identity are merged into them (their declared names first,
  // within kMaxDeclaredNames).
  void Restore(std::vector<v1::CallsDenied> entries);

  // Entries waiting (identity entries plus shared entries).
  size_t pending() const;

 private:
  struct Entry {
    std::map<std::string, int64_t> rpcs;
    absl::Time first_at = absl::InfiniteFuture();
    absl::Time last_at = absl::InfinitePast();
    int64_t identities = 1;
    std::set<std::string> declared_names;
    bool unlisted_declared_names = false;
  };
  struct Minute {
    // By identity, then authentication (an identity can be refused as "anonymous" and as
    // "unauthenticated" in one minute).
    std::map<std::pair<std::string, std::string>, Entry> by_identity;
    // Refusals of identities beyond the limit, and which identities they were (at most
    // kMaxFoldedIdentities).
    Entry others;
    std::set<std::string> folded;
  };

  static void Count(Entry& entry, absl::string_view rpc, int64_t count, absl::Time first,
                    absl::Time last);
  // Adds `name` to the entry's declared names (see Add); empty: nothing.
  static void Declared(Entry& entry, absl::string_view name);
  static v1::CallsDenied ToEvent(absl::Time minute, const std::string& identity,
                                 const std::string& authentication, const Entry& entry);
  static void Merge(Entry& into, const v1::CallsDenied& from);

  mutable absl::Mutex mu_;
  std::map<absl::Time, Minute> minutes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::service
