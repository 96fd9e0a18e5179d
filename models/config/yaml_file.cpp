#include "models/config/yaml_file.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

namespace simtlm::yaml_file {

namespace fs = std::filesystem;

namespace {

uint32_t line_of(const YAML::Mark& mark) {
  return mark.line < 0 ? 0 : uint32_t(mark.line + 1);
}

// The line of the "---" that opens the second document, for a second document that is empty and so has no
// mark of its own: the second marker when the file opens with one, else the first.
uint32_t second_document_line(const fs::path& path) {
  std::ifstream in(path);
  std::string text;
  std::vector<uint32_t> markers;
  for (uint32_t line = 1; std::getline(in, text) && markers.size() < 2; ++line) {
    if (text.rfind("---", 0) == 0) markers.push_back(line);
  }
  if (markers.size() == 2) return markers[1];
  return markers.empty() ? 0 : markers[0];
}

// The parser reads ahead: on a nesting that ends the file its mark is past the last line.
uint32_t last_content_line(const fs::path& path) {
  std::ifstream in(path);
  std::string text;
  uint32_t last = 0;
  for (uint32_t line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last;
}

// Depth-first, iteratively (a nesting near the parser's limit must not exhaust this walk's stack). Keys are
// reported by path as the readers name them: "launches[0].steps[1].block: given twice (first at line 15)".
void reject_duplicate_keys(const YAML::Node& root) {
  std::vector<std::pair<YAML::Node, std::string>> work{{root, ""}};
  const auto join = [](const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  };
  while (!work.empty()) {
    const auto [node, path] = work.back();
    work.pop_back();
    if (node.IsSequence()) {
      size_t index = 0;
      for (const YAML::Node& item : node) work.emplace_back(item, path + "[" + std::to_string(index++) + "]");
    } else if (node.IsMap()) {
      std::map<std::string, uint32_t> first_line;
      for (const auto& kv : node) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : YAML::Dump(kv.first);
        const auto [it, fresh] = first_line.emplace(key, line_of(kv.first.Mark()));
        if (!fresh) {
          throw YamlFileError(line_of(kv.first.Mark()), join(path, key) + ": given twice (first at line " +
                                                            std::to_string(it->second) + ")");
        }
        work.emplace_back(kv.first, join(path, key));
        work.emplace_back(kv.second, join(path, key));
      }
    }
  }
}

// The name of an anchor (&name) or alias (*name) whose token starts at or after `pos`: yaml-cpp's events
// carry only a numeric id. "" when the text has none there.
std::string anchor_name_at(const fs::path& path, int pos, char sigil) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(pos < 0 ? 0 : pos);
  std::string line;
  std::getline(in, line);
  const size_t at = line.find(sigil);
  if (at == std::string::npos) return "";
  const size_t end = line.find_first_of(" \t\r,[]{}", at + 1);
  return line.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
}

// Aliases share one node among every place that names it, so nested aliases ("billion laughs") make a tree
// that any walk expands exponentially: 400 bytes of aliases nine deep are 10^9 nodes. Neither launch files
// nor configurations need them, so anchors and aliases are refused while the events are read, before any
// tree exists.
class AnchorRefusal : public std::runtime_error {
 public:
  AnchorRefusal(const YAML::Mark& mark, char sigil) : std::runtime_error(""), mark(mark), sigil(sigil) {}
  YAML::Mark mark;
  char sigil;
};

// yaml-cpp 0.7's LoadAll never returns on a stray ',' (",x"): the parser keeps reporting an empty document
// without consuming the token (jbeder/yaml-cpp#1040, fixed in 0.8). Walking the documents first
// finds that case, and any alias or anchor; LoadAll then runs only on a file it will finish (found by the
// fuzz targets).
class DocumentScanner : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  std::optional<YAML::Mark> first_anchor;  // refused after the walk, so that an alias is named first
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { refuse_anchor(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { throw AnchorRefusal(mark, '*'); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    refuse_anchor(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    refuse_anchor(mark, anchor);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    refuse_anchor(mark, anchor);
  }
  void OnMapEnd() override {}

 private:
  void refuse_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor && !first_anchor) first_anchor = mark;
  }
};

// True when the parser stops advancing: a document starting where the previous one did. Every other
// document moves on, so the walk ends. Throws YamlFileError on the first anchor or alias.
bool parser_is_stuck(const fs::path& path, uint32_t* line) {
  std::ifstream in(path, std::ios::binary);
  YAML::Parser parser(in);
  DocumentScanner scanner;
  try {
    while (parser.HandleNextDocument(scanner)) {
      const size_t n = scanner.starts.size();
      if (n >= 2 && scanner.starts[n - 1].pos == scanner.starts[n - 2].pos) {
        *line = line_of(scanner.starts[n - 1]);
        return true;
      }
    }
    if (scanner.first_anchor) throw AnchorRefusal(*scanner.first_anchor, '&');
  } catch (const AnchorRefusal& e) {
    const std::string kind = e.sigil == '*' ? "aliases" : "anchors";
    throw YamlFileError(
        line_of(e.mark),
        "YAML " + kind + " (" + e.sigil + anchor_name_at(path, e.mark.pos, e.sigil) + ") are not supported");
  }
  return false;
}

}  // namespace

std::string unreadable_reason(const fs::path& path, const std::string& what) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return "no such " + what;
  if (fs::is_directory(status)) return "is a directory, not a " + what;
  if (!fs::is_regular_file(status)) return "not a regular file, so not a " + what;
  std::ifstream probe(path);
  if (!probe) return "cannot open the " + what;
  return "";
}

YAML::Node load_single_document(const fs::path& path, const std::string& what, bool reject_duplicates) {
  if (const std::string reason = unreadable_reason(path, what); !reason.empty())
    throw YamlFileError(0, reason);
  std::vector<YAML::Node> documents;
  try {
    if (uint32_t line = 0; parser_is_stuck(path, &line))
      throw YamlFileError(line,
                          "YAML syntax error: a token that starts no value (e.g. a ',' outside [] or {})");
    documents = YAML::LoadAllFromFile(path.string());
  } catch (const YAML::DeepRecursion& e) {
    throw YamlFileError(std::min(line_of(e.mark), last_content_line(path)),
                        "nested " + std::to_string(kMaxNestingDepth) +
                            " levels deep or more; the YAML reader's limit is " +
                            std::to_string(kMaxNestingDepth - 1));
  } catch (const YAML::BadFile&) {
    throw YamlFileError(0, "cannot open the " + what);
  } catch (const YAML::ParserException& e) {
    throw YamlFileError(line_of(e.mark), "YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw YamlFileError(line_of(e.mark), "cannot read the " + what + ": " + e.msg);
  }
  if (documents.size() > 1) {
    uint32_t line = std::min(line_of(documents[1].Mark()), last_content_line(path));
    if (line == 0) line = second_document_line(path);
    throw YamlFileError(line, "a second YAML document: a " + what +
                                  " holds one (remove the '---' and what follows, or merge it)");
  }
  if (documents.empty()) return YAML::Node();
  if (reject_duplicates) reject_duplicate_keys(documents[0]);
  return documents[0];
}

std::string located(const fs::path& path, const YamlFileError& error) {
  return error.line() ? path.string() + ":" + std::to_string(error.line()) + ": " + error.what()
                      : path.string() + ": " + error.what();
}

}  // namespace simtlm::yaml_file
