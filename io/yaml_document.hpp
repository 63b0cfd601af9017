// Loading exactly one YAML document (internal to io/): a second document after '---' would
// otherwise be dropped without a word by YAML::Load.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "core/errors.hpp"

namespace gmbd::io_detail {

/// The single document of `text`; InputError naming `source` and the line of a second one.
/// YAML syntax errors propagate as YAML::Exception (the callers add the file and line).
inline YAML::Node load_one_document(const std::string& text, const std::string& source, const std::string& kind) {
  std::vector<YAML::Node> documents = YAML::LoadAll(text);
  if (documents.size() > 1) {
    const YAML::Mark mark = documents[1].Mark();
    throw InputError(source + (mark.is_null() ? std::string() : " line " + std::to_string(mark.line + 1)) +
                     ": text after the end of the first YAML document (a '---' line or a second "
                     "value); a " + kind + " holds one document: remove it");
  }
  return documents.empty() ? YAML::Node() : documents.front();
}

}  // namespace gmbd::io_detail
