// One statistics library for every component of the timing model (issue 12).
//
// A component keeps plain integer fields and increments them on its hot path; what those fields mean is
// declared once, next to the component, in a GroupDecl: each statistic's name, kind, number type, unit and
// description. At dump time the component fills a Group (the values of one GroupDecl) and from then on the
// declarations alone decide how groups merge (GPU totals over SMs, banks, channels), how they are written as
// JSON (the keys and number kinds of stats.json) and what docs/stats-schema.md says about them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace simtlm::stats {

enum class Kind : uint8_t {
  counter,  // events or amounts: merging adds
  maximum,  // the most of something at once: merging keeps the larger
  mean,     // an average: merging weights each part by the sum of the named counters of its group
  formula,  // computed from other statistics of its group whenever it is read, so a merge recomputes it
  label,    // a fact (a name, a line number): merging keeps the first part's
};

// How a statistic is written: JSON integer, JSON number with a fraction, string, string or null, true or
// false, an array of strings, or a CUDA dim3 as [x, y, z] (null where there is none, e.g. a sequence's grid).
enum class Type : uint8_t { integer, real, text, text_or_null, boolean, text_list, dim3 };

class Value {
 public:
  Value() = default;  // null
  Value(uint64_t v) : v_(v) {}
  Value(double v) : v_(v) {}
  Value(std::string v) : v_(std::move(v)) {}
  Value(const char* v) : v_(std::string(v)) {}
  Value(bool v) : v_(v) {}
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, uint64_t>) Value(I v)
      : v_(static_cast<uint64_t>(v)) {}

  bool is_null() const { return v_.index() == 0; }
  bool is_integer() const { return v_.index() == 1; }
  bool is_real() const { return v_.index() == 2; }
  bool is_text() const { return v_.index() == 3; }
  bool is_list() const { return v_.index() == 5; }
  // A JSON array as one value (Type::text_list, Type::dim3).
  static Value list(nlohmann::json array);
  uint64_t integer() const;  // a real is truncated
  double real() const;       // an integer is converted
  const std::string& text() const;
  nlohmann::json json() const;
  static Value from_json(const nlohmann::json& j);
  bool operator==(const Value& o) const = default;

 private:
  std::variant<std::monostate, uint64_t, double, std::string, bool, nlohmann::json> v_;
};

class Group;

struct StatDecl {
  std::string name;
  Kind kind = Kind::counter;
  Type type = Type::integer;
  std::string unit;
  std::string description;
  std::vector<std::string> weight;             // mean: counters of the group whose sum weights it
  std::function<Value(const Group&)> formula;  // formula: computes it from the group's other statistics
  bool hidden = false;                         // merged and read by formulas, not written
  bool real_when_merged = false;               // maximum: see GroupDecl::real_when_merged
};

// Elements of one kind under one key: named (a JSON object, e.g. stalls by reason) or indexed (an array,
// e.g. per L2 bank).
struct VectorDecl {
  std::string name;
  Kind kind = Kind::counter;
  std::vector<std::string> elements;  // empty: indexed
  std::string unit;
  std::string description;
};

struct GroupDecl;

// Rows of one declaration, written as a JSON array (per SM-side port), an object keyed by a string (per
// branch PC), or totals: the rows merged, with the rows themselves as an array under `parts` (l1: the sums
// over the SMs' L1s and l1.per_sm).
enum class Rows : uint8_t { list, table, totals };
struct RowsDecl {
  std::string name;
  std::shared_ptr<const GroupDecl> row;
  Rows form = Rows::list;
  std::string description;
  std::string parts;  // totals: the key of the array of rows
};

// A declaration that lives as long as the program (a function-local static), as a row declaration.
std::shared_ptr<const GroupDecl> lasting(const GroupDecl& decl);

struct GroupDecl {
  std::string name;
  std::string description;
  bool optional = false;  // as a child group: written only once filled (see when_present())
  std::vector<StatDecl> stats;
  std::vector<VectorDecl> vectors;
  std::vector<GroupDecl> groups;
  std::vector<RowsDecl> rows;

  explicit GroupDecl(std::string group_name = "", std::string group_description = "")
      : name(std::move(group_name)), description(std::move(group_description)) {}

  // Declaring, in the order the schema document lists them.
  GroupDecl& counter(std::string stat, std::string unit, std::string meaning);
  GroupDecl& real_counter(std::string stat, std::string unit, std::string meaning);
  GroupDecl& maximum(std::string stat, std::string unit, std::string meaning);
  GroupDecl& real_maximum(std::string stat, std::string unit, std::string meaning);
  GroupDecl& mean(std::string stat, std::string unit, std::string meaning, std::vector<std::string> weight);
  GroupDecl& formula(std::string stat, std::string unit, std::string meaning,
                     std::function<Value(const Group&)> compute);
  // numerator / denominator (two integer statistics of the group) as a real, 0 when the denominator is 0.
  GroupDecl& ratio(std::string stat, std::string meaning, std::string numerator, std::string denominator);
  GroupDecl& label(std::string stat, Type type, std::string meaning);
  GroupDecl& vector(std::string name, Kind kind, std::vector<std::string> elements, std::string unit,
                    std::string meaning);
  GroupDecl& group(GroupDecl child);
  GroupDecl& list(std::string name, std::shared_ptr<const GroupDecl> row, std::string meaning);
  GroupDecl& table(std::string name, std::shared_ptr<const GroupDecl> row, std::string meaning);
  GroupDecl& totals(std::string name, std::shared_ptr<const GroupDecl> row, std::string parts,
                    std::string meaning);
  // Modifiers of the statistic declared last.
  GroupDecl& hidden();
  // Today's documents write the maximum of several parts as a real (e.g. l1.mshr_max over SMs); the
  // declaration says so instead of a guess from the key's name.
  GroupDecl& real_when_merged();
  // Modifier of the child group declared last: it is written only when its parent's Group::group() was called
  // for it (on a non-const group), read back or merged from a part that has it (herding.load_latency).
  GroupDecl& when_present();

  size_t stat_index(std::string_view stat) const;  // throws std::out_of_range naming the statistic
  size_t vector_index(std::string_view vector) const;
  size_t group_index(std::string_view group) const;
  size_t rows_index(std::string_view rows) const;
};

// The values of one GroupDecl. The declaration must outlive the group.
class Group {
 public:
  explicit Group(const GroupDecl& decl);

  const GroupDecl& decl() const { return *decl_; }
  void set(std::string_view stat, Value v);
  Value get(std::string_view stat) const;  // a formula is computed
  uint64_t integer(std::string_view stat) const { return get(stat).integer(); }
  double real(std::string_view stat) const { return get(stat).real(); }
  Value element(std::string_view vector, std::string_view element) const;  // of a named vector
  std::vector<Value>& vector(std::string_view name);
  const std::vector<Value>& vector(std::string_view name) const;
  Group& group(std::string_view name);
  const Group& group(std::string_view name) const;
  std::vector<Group>& list(std::string_view name);  // a list's rows, or the parts of totals
  const std::vector<Group>& list(std::string_view name) const;
  Group total(std::string_view totals) const;                  // the parts merged
  Group& row(std::string_view table, const std::string& key);  // created empty when missing
  const std::map<std::string, Group>& table(std::string_view name) const;
  Group& add_list_row(std::string_view list);

  // Adds `other` (of the same declaration) into this group as each statistic's kind says.
  void merge(const Group& other);
  nlohmann::json json() const;
  // The group `json()` wrote (the timing child's document read back by the parent). Formulas keep the values
  // read, since hidden statistics are not written.
  static Group from_json(const GroupDecl& decl, const nlohmann::json& j);
  friend nlohmann::json increments_json(const Group& now, const Group* before,
                                        std::initializer_list<std::string_view> only);

 private:
  Value value_at(size_t stat) const;  // get() by index
  double mean_weight(size_t stat) const;

  const GroupDecl* decl_;
  std::vector<Value> values_;     // per statistic; a formula's slot holds a value only when read back
  std::vector<double> weighted_;  // means once merged: the sum of value x weight over the parts
  std::vector<double> weights_;   //   and the sum of the weights
  bool merged_ = false;
  std::vector<std::vector<Value>> vectors_;
  std::vector<Group> groups_;
  std::vector<uint8_t> present_;  // per child group: filled (matters for a when_present group)
  std::vector<std::vector<Group>> lists_;
  std::vector<std::map<std::string, Group>> tables_;
  // Totals as read back (from_json): kept, since a formula over a hidden statistic cannot be recomputed.
  std::vector<std::shared_ptr<const Group>> read_totals_;
};

// Integer fields of a plain statistics struct T bound to their declarations, so the names are written once:
// `declare` adds them to a GroupDecl, `fill` copies a struct's values into a Group of it.
template <class T>
struct Field {
  const char* name;
  uint64_t T::*member;
  Kind kind;
  const char* unit;
  const char* meaning;
};

template <class T>
void declare(GroupDecl& decl, const std::vector<Field<T>>& fields) {
  for (const Field<T>& f : fields) {
    if (f.kind == Kind::maximum) {
      decl.maximum(f.name, f.unit, f.meaning);
    } else {
      decl.counter(f.name, f.unit, f.meaning);
    }
  }
}

template <class T>
void fill(Group& group, const T& values, const std::vector<Field<T>>& fields) {
  for (const Field<T>& f : fields) group.set(f.name, values.*f.member);
}

// Merges `parts` into one group of `decl` (GPU totals): the empty group, then each part in order.
Group merged(const GroupDecl& decl, const std::vector<Group>& parts);

// What happened between two snapshots of one group (a launch of a sequence, whose memory system runs on): as
// JSON, integer counters as `now - before`, integer maxima as they stand (since the first snapshot), labels
// as they are; whatever is written as a real (means, formulas, merged maxima) does not subtract and is left
// out. An empty `before` (nullptr) counts from zero. A non-empty `only` keeps just those top-level names (a
// launch sequence asks for its memory documents alone, once per launch).
nlohmann::json increments_json(const Group& now, const Group* before,
                               std::initializer_list<std::string_view> only = {});

// One row of the schema document: the JSON path of a statistic, its type and its meaning.
struct SchemaRow {
  std::string field, type, meaning;
};
// Every row of `decl`, paths prefixed by `prefix` ("l1." for a group written under "l1").
std::vector<SchemaRow> schema_rows(const GroupDecl& decl, const std::string& prefix = "");
// A markdown table of those rows.
std::string schema_table(const GroupDecl& decl, const std::string& prefix = "");

}  // namespace simtlm::stats
