// Choices where OpenSSH and other known_hosts readers (Go's x/crypto/ssh/knownhosts,
// libssh2) differ; OpenSSH's behaviour is followed (docs/connections.md, "known_hosts"):
// - Lookup name: patterns are compared with the lowercased host for port 22 and with
//   `[host]:port` otherwise. A pattern without brackets or wildcards therefore matches port
//   22 only, `*` matches every host on every port, and wildcards work inside brackets
//   (`[*.example]:2222`, `[git.example]:*`). Go compares the port separately and applies
//   wildcards to the host alone.
// - Case: host and patterns are lowercased before matching; hashed entries are checked
//   against the lowercased name (OpenSSH lowercases the host it connects to).
// - Negation: a host matching any `!pattern` of a line never matches that line. A line with
//   only negated patterns matches no host (as in OpenSSH); it is skipped with a warning. A `!`
//   with no pattern after it makes the line malformed: OpenSSH lets it match nothing, so
//   `github.com,!` would still trust the key for github.com although whoever wrote it meant
//   to exclude a host.
// - @revoked applies only to the hosts its patterns match (`@revoked * ...` for all hosts);
//   Go revokes the key for every host. Revoked lines do not count as entries of the host
//   when deciding kMismatch (OpenSSH ignores them when it looks up the host's keys). Data
//   whose only entries are @revoked lines accepts no key, so it has no usable entry.
// - Mismatch: any non-revoked entry of the host with another key, of any type, gives
//   kMismatch (the message says when no entry has the presented key's type). OpenSSH says
//   "changed" only for an entry of the same type and treats other types as a new host;
//   both refuse the connection here.
// - Hashed entries: `|1|base64(salt)|base64(hash)` is the whole host field (no comma list,
//   no negation); salt and hash are 20 bytes each; for a port other than 22 the hashed name
//   is `[host]:port`, as `ssh-keygen -H` writes it. Other `|...` forms are malformed.
// - Markers: at most one, as the first field; an unknown marker or a second marker makes
//   the line malformed (OpenSSH rejects both).
// - Fields are separated by runs of spaces and tabs; leading whitespace is skipped; a line
//   whose first non-blank character is `#` is a comment; everything after the key is a
//   comment. The key's base64 must be canonical (padded, nothing else): checked by
//   re-encoding, since absl's decoder is lax.
// - The key type field must equal the type name inside the blob; the SSH-1
//   `bits exponent modulus` form is malformed.
// - CRLF line ends are accepted (the CR is dropped); OpenSSH has no special case for them.
// - @cert-authority lines are skipped with a warning (no CA-based host verification).
#include "kubebridge/sources/known_hosts.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/sha256.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {

struct KnownHosts::Entry {
  int line = 0;
  bool revoked = false;
  // Hashed entry: salt and HMAC-SHA1 digest (20 raw bytes each).
  bool hashed = false;
  std::string salt;
  std::string hash;
  // Plain entry: lowercased patterns, split by negation.
  std::vector<std::string> patterns;
  std::vector<std::string> negated;
  HostKey key;
};

namespace {

constexpr size_t kSha1Bytes = 20;

// Decodes canonical (padded) base64; false when `text` is anything else.
bool StrictBase64Decode(absl::string_view text, std::string* out) {
  if (text.empty() || !absl::Base64Unescape(text, out)) return false;
  return absl::Base64Escape(*out) == text;
}

// Reads the leading SSH wire string (uint32 big-endian length, bytes) of `blob`.
bool ReadWireString(absl::string_view blob, absl::string_view* out) {
  if (blob.size() < 4) return false;
  const auto* b = reinterpret_cast<const unsigned char*>(blob.data());
  const uint32_t length = (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) |
                          (uint32_t{b[2]} << 8) | uint32_t{b[3]};
  if (length > blob.size() - 4) return false;
  *out = blob.substr(4, length);
  return true;
}

// OpenSSH-style glob: `*` matches any run of characters, `?` any one character.
bool GlobMatch(absl::string_view text, absl::string_view pattern) {
  size_t t = 0, p = 0;
  size_t star = absl::string_view::npos, star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++t;
      ++p;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (star != absl::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string HmacSha1(absl::string_view key, absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest,
           &length) == nullptr) {
    return "";
  }
  return std::string(reinterpret_cast<const char*>(digest), length);
}

bool EntryMatchesName(const KnownHosts::Entry& entry, absl::string_view name) {
  if (entry.hashed) return HmacSha1(entry.salt, name) == entry.hash;
  for (const std::string& pattern : entry.negated) {
    if (GlobMatch(name, pattern)) return false;
  }
  for (const std::string& pattern : entry.patterns) {
    if (GlobMatch(name, pattern)) return true;
  }
  return false;
}

// Parses the host field of a line into `entry`; returns the problem, or "" when usable.
std::string ParseHosts(absl::string_view field, KnownHosts::Entry& entry) {
  if (absl::StartsWith(field, "|")) {
    if (!absl::ConsumePrefix(&field, "|1|")) return "unsupported hashed host format";
    std::vector<absl::string_view> parts = absl::StrSplit(field, '|');
    if (parts.size() != 2 || !StrictBase64Decode(parts[0], &entry.salt) ||
        !StrictBase64Decode(parts[1], &entry.hash) || entry.salt.size() != kSha1Bytes ||
        entry.hash.size() != kSha1Bytes) {
      return "malformed hashed host (expected |1|base64(20-byte salt)|base64(20-byte hash))";
    }
    entry.hashed = true;
    return "";
  }
  for (absl::string_view pattern : absl::StrSplit(field, ',', absl::SkipEmpty())) {
    const bool negated = absl::ConsumePrefix(&pattern, "!");
    if (pattern.empty()) return "a negation without a pattern (\"!\" alone)";
    (negated ? entry.negated : entry.patterns).push_back(absl::AsciiStrToLower(pattern));
  }
  if (entry.patterns.empty()) {
    return entry.negated.empty() ? "no host pattern"
                                 : "only negated host patterns, so the line matches no host";
  }
  return "";
}

// Parses the key type and base64 blob fields into `key`; returns the problem, or "".
std::string ParseKey(absl::string_view type, absl::string_view base64, HostKey& key) {
  if (!StrictBase64Decode(base64, &key.blob)) return "the key is not valid base64";
  absl::string_view blob_type;
  if (!ReadWireString(key.blob, &blob_type)) return "the key blob has no type name";
  if (blob_type != type) {
    return absl::StrCat("key type \"", type, "\" differs from the type \"", blob_type,
                        "\" inside the key");
  }
  key.type = std::string(type);
  return "";
}

// Parses one non-blank, non-comment line. Returns true with `entry` filled when usable;
// otherwise sets `problem`.
bool ParseLine(absl::string_view line, KnownHosts::Entry& entry, std::string& problem) {
  std::vector<absl::string_view> fields =
      absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  size_t next = 0;
  if (absl::StartsWith(fields[0], "@")) {
    if (fields[0] == "@cert-authority") {
      problem = "@cert-authority entries are not supported (no CA-based host verification)";
      return false;
    }
    if (fields[0] != "@revoked") {
      problem = absl::StrCat("unknown marker \"", fields[0], "\"");
      return false;
    }
    entry.revoked = true;
    next = 1;
    if (fields.size() > 1 && absl::StartsWith(fields[1], "@")) {
      problem = "more than one marker";
      return false;
    }
  }
  if (fields.size() < next + 3) {
    problem = "missing fields (expected [marker] hostpatterns keytype base64key [comment])";
    return false;
  }
  problem = ParseHosts(fields[next], entry);
  if (problem.empty()) problem = ParseKey(fields[next + 1], fields[next + 2], entry.key);
  return problem.empty();
}

// The name patterns are matched with: `host` for port 22, `[host]:port` otherwise.
std::string LookupName(absl::string_view host, int port) {
  std::string lower = absl::AsciiStrToLower(host);
  if (port == 22) return lower;
  return absl::StrCat("[", lower, "]:", port);
}

}  // namespace

KnownHosts::KnownHosts() = default;
KnownHosts::~KnownHosts() = default;
KnownHosts::KnownHosts(KnownHosts&&) noexcept = default;
KnownHosts& KnownHosts::operator=(KnownHosts&&) noexcept = default;

absl::StatusOr<KnownHosts> KnownHosts::Parse(absl::string_view data,
                                              std::vector<std::string>* warnings) {
  KnownHosts known_hosts;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(data, '\n')) {
    ++line_number;
    absl::ConsumeSuffix(&line, "\r");
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      line.remove_prefix(1);
    }
    if (line.empty() || line.front() == '#') continue;
    Entry entry;
    entry.line = line_number;
    std::string problem;
    if (ParseLine(line, entry, problem)) {
      known_hosts.entries_.push_back(std::move(entry));
    } else if (warnings != nullptr) {
      warnings->push_back(absl::StrCat("known_hosts line ", line_number, ": ", problem,
                                       "; line skipped"));
    }
  }
  if (std::none_of(known_hosts.entries_.begin(), known_hosts.entries_.end(),
                   [](const Entry& entry) { return !entry.revoked; })) {
    return UnsupportedError(
        "known_hosts has no usable entry (only blank, comment, @cert-authority, @revoked or "
        "malformed lines)");
  }
  return known_hosts;
}

size_t KnownHosts::size() const { return entries_.size(); }

HostKeyCheck KnownHosts::Check(absl::string_view host, int port, const HostKey& key) const {
  const std::string name = LookupName(host, port);
  const std::string fingerprint = HostKeyFingerprint(key);
  const Entry* match = nullptr;
  int host_entries = 0;
  int same_type_entries = 0;
  for (const Entry& entry : entries_) {
    if (!EntryMatchesName(entry, name)) continue;
    const bool same_key = entry.key.blob == key.blob;
    if (entry.revoked) {
      if (same_key) {
        return {HostKeyVerdict::kRevoked,
                absl::StrCat("host key ", fingerprint, " of ", name,
                             " is revoked by known_hosts line ", entry.line)};
      }
      continue;
    }
    ++host_entries;
    if (entry.key.type == key.type) ++same_type_entries;
    if (same_key && match == nullptr) match = &entry;
  }
  if (match != nullptr) {
    return {HostKeyVerdict::kMatch, absl::StrCat("host key ", fingerprint, " of ", name,
                                                 " matches known_hosts line ", match->line)};
  }
  if (host_entries > 0) {
    return {HostKeyVerdict::kMismatch,
            absl::StrCat("host key ", fingerprint, " of ", name, " does not match the ",
                         host_entries, " known_hosts ", host_entries == 1 ? "entry" : "entries",
                         " for it",
                         same_type_entries == 0
                             ? absl::StrCat(", none of which has its type ", key.type)
                             : "")};
  }
  return {HostKeyVerdict::kUnknownHost,
          absl::StrCat("host ", name, " has no entry in known_hosts (presented host key ",
                       fingerprint, ")")};
}

std::string HostKeyFingerprint(const HostKey& key) {
  std::string encoded = absl::Base64Escape(common::AsBytes(common::Sha256Of(key.blob)));
  while (!encoded.empty() && encoded.back() == '=') encoded.pop_back();
  return absl::StrCat("SHA256:", encoded);
}

}  // namespace credledger::kubebridge
