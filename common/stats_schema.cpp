// The schema document's rows, generated from the declarations (docs/stats-schema.md).
#include <fmt/format.h>

#include "common/stats.hpp"

namespace simtlm::stats {

namespace {

const char* type_name(Type t) {
  switch (t) {
    case Type::integer:
      return "integer";
    case Type::real:
      return "number";
    case Type::text:
      return "string";
    case Type::boolean:
      return "boolean";
    case Type::text_list:
      return "[string]";
    case Type::dim3:
      return "[x, y, z]";
    default:
      return "string or null";
  }
}

std::string kind_text(const StatDecl& s) {
  switch (s.kind) {
    case Kind::counter:
      return "sum";
    case Kind::maximum:
      return s.real_when_merged ? "maximum, written as a number once merged" : "maximum";
    case Kind::mean: {
      std::string by;
      for (const std::string& w : s.weight) by += (by.empty() ? "`" : " + `") + w + "`";
      return "mean weighted by " + by;
    }
    case Kind::formula:
      return "formula";
    default:
      return "label";
  }
}

std::string meaning(const std::string& description, const std::string& unit) {
  return unit.empty() ? description : description + " [" + unit + "]";
}

// `merged`: the group is written merged from parts (totals), where some maxima are written as numbers.
void collect(const GroupDecl& decl, const std::string& prefix, std::vector<SchemaRow>& out, bool merged) {
  for (const StatDecl& s : decl.stats) {
    if (s.hidden) continue;
    out.push_back({"`" + prefix + s.name + "`", merged && s.real_when_merged ? "number" : type_name(s.type),
                   meaning(s.description, s.unit) + " (" + kind_text(s) + ")"});
  }
  for (const VectorDecl& v : decl.vectors) {
    std::string field = prefix + v.name;
    if (v.elements.empty()) {
      field += "[i]";
    } else {
      std::string names;
      for (const std::string& e : v.elements) names += (names.empty() ? "" : ",") + e;
      field += ".{" + names + "}";
    }
    out.push_back({"`" + field + "`", "integer",
                   meaning(v.description, v.unit) + (v.kind == Kind::maximum ? " (maximum)" : " (sum)")});
  }
  for (const GroupDecl& g : decl.groups) {
    if (g.optional)
      out.push_back({"`" + prefix + g.name + "`", "object", g.description + " (only when present)"});
    collect(g, prefix + g.name + ".", out, merged);
  }
  for (const RowsDecl& r : decl.rows) {
    if (r.form == Rows::totals) {
      out.push_back({"`" + prefix + r.name + "`", "object", r.description});
      collect(*r.row, prefix + r.name + ".", out, true);
      out.push_back(
          {"`" + prefix + r.name + "." + r.parts + "`", "[object]",
           "the same fields for each part, before merging (where a maximum is written as a number once "
           "merged, a part's is an integer)"});
      continue;
    }
    const bool keyed = r.form == Rows::table;
    out.push_back({"`" + prefix + r.name + "`", keyed ? "object" : "[object]", r.description});
    collect(*r.row, prefix + r.name + (keyed ? "." + r.row->name + "." : "[i]."), out, false);
  }
}

}  // namespace

std::vector<SchemaRow> schema_rows(const GroupDecl& decl, const std::string& prefix) {
  std::vector<SchemaRow> rows;
  collect(decl, prefix, rows, false);
  return rows;
}

std::string schema_table(const GroupDecl& decl, const std::string& prefix) {
  std::string text = "| field | type | meaning (merge) |\n|---|---|---|\n";
  for (const SchemaRow& r : schema_rows(decl, prefix))
    text += fmt::format("| {} | {} | {} |\n", r.field, r.type, r.meaning);
  return text;
}

}  // namespace simtlm::stats
