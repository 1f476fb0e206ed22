#include "kubebridge/client/resource_ref.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"

namespace credledger::kubebridge {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";

bool IsUnreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

std::string Escape(absl::string_view value, absl::string_view also_allowed) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (IsUnreserved(c) || also_allowed.find(c) != absl::string_view::npos) {
      out.push_back(c);
    } else {
      unsigned char byte = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
  return out;
}

// Appends "/<segment>" to `path`, or fails naming `field`.
absl::Status AppendSegment(std::string& path, absl::string_view field, absl::string_view segment) {
  if (segment.empty() || segment == "." || segment == ".." ||
      segment.find('/') != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("resource reference: ", field, " \"", segment,
                                                   "\" is not a valid path segment"));
  }
  absl::StrAppend(&path, "/", Escape(segment, ":@"));
  return absl::OkStatus();
}

}  // namespace

ResourceRef ResourceRef::WithName(std::string object_name) const {
  ResourceRef copy = *this;
  copy.name = std::move(object_name);
  return copy;
}

std::string ResourceRef::DebugString() const {
  std::string out = resource;
  if (!group.empty()) absl::StrAppend(&out, ".", group);
  if (!namespace_name.empty() || !name.empty()) absl::StrAppend(&out, " ");
  if (!namespace_name.empty()) absl::StrAppend(&out, namespace_name, "/");
  absl::StrAppend(&out, name);
  return out;
}

absl::StatusOr<std::string> CollectionPath(const ResourceRef& ref) {
  std::string path = ref.group.empty() ? "/api" : "/apis";
  if (!ref.group.empty()) RETURN_IF_ERROR(AppendSegment(path, "group", ref.group));
  RETURN_IF_ERROR(AppendSegment(path, "version", ref.version));
  if (!ref.namespace_name.empty()) {
    path += "/namespaces";
    RETURN_IF_ERROR(AppendSegment(path, "namespace", ref.namespace_name));
  }
  RETURN_IF_ERROR(AppendSegment(path, "resource", ref.resource));
  return path;
}

absl::StatusOr<std::string> ObjectPath(const ResourceRef& ref) {
  ASSIGN_OR_RETURN(std::string path, CollectionPath(ref));
  RETURN_IF_ERROR(AppendSegment(path, "name", ref.name));
  return path;
}

absl::StatusOr<std::string> SubresourcePath(const ResourceRef& ref, absl::string_view subresource) {
  ASSIGN_OR_RETURN(std::string path, ObjectPath(ref));
  RETURN_IF_ERROR(AppendSegment(path, "subresource", subresource));
  return path;
}

std::string BuildQuery(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (value.empty()) continue;
    absl::StrAppend(&out, out.empty() ? "?" : "&", QueryEscape(key), "=", QueryEscape(value));
  }
  return out;
}

std::string QueryEscape(absl::string_view value) { return Escape(value, ""); }

}  // namespace credledger::kubebridge
