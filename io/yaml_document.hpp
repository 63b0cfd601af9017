// Loading exactly one YAML document (internal to io/): a second document after '---' would
// otherwise be dropped without a word by YAML::Load.
#pragma once

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sstream>
#include <string>

#include "core/errors.hpp"

namespace gmbd::io_detail {

/// Records where the document the parser reports next begins (its first node, or its start
/// when it has none); builds nothing.
class DocumentStartProbe final : public YAML::EventHandler {
 public:
  YAML::Mark start = YAML::Mark::null_mark();
  void OnDocumentStart(const YAML::Mark& mark) override {
    start = mark;
    have_node_ = false;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { node(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnMapEnd() override {}

 private:
  bool have_node_ = false;
  void node(const YAML::Mark& mark) {
    if (!have_node_ && !mark.is_null()) start = mark;
    have_node_ = true;
  }
};

/// The single document of `text`; InputError naming `source` and the line of a second one.
/// YAML syntax errors propagate as YAML::Exception (the callers add the file and line).
///
/// Why not YAML::LoadAll: yaml-cpp 0.7 (Debian 12) loops for ever in LoadAll when the parser
/// stops consuming tokens after an invalid token (a ',' outside [ ] or { }, upstream issue
/// jbeder/yaml-cpp#1040, fixed after 0.8): each call then reports another empty document. The
/// parser is asked for at most two documents here, so no input can keep it going.
inline YAML::Node load_one_document(const std::string& text, const std::string& source, const std::string& kind) {
  const YAML::Node first = YAML::Load(text);
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  DocumentStartProbe probe;
  if (parser.HandleNextDocument(probe) && parser.HandleNextDocument(probe)) {
    const YAML::Mark& mark = probe.start;
    throw InputError(source + (mark.is_null() ? std::string() : " line " + std::to_string(mark.line + 1)) +
                     ": text after the end of the first YAML document (a '---' line or a second "
                     "value); a " + kind + " holds one document: remove it");
  }
  return first;
}

/// How a node's value is shown as "got …" in messages of run, model and sweep files.
inline std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing (an empty value)";
  if (node.IsSequence()) {
    if (node.size() == 0) return "an empty list";
    return "a list of " + std::to_string(node.size()) + (node.size() == 1 ? " entry" : " entries");
  }
  if (node.IsMap()) return "a mapping";
  std::string text = node.Scalar();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return "'" + text + "'";
}

}  // namespace gmbd::io_detail
