#include "common/stats.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace simtlm::stats {

uint64_t Value::integer() const {
  if (is_integer()) return std::get<uint64_t>(v_);
  if (is_real()) return static_cast<uint64_t>(std::get<double>(v_));
  return 0;
}

double Value::real() const {
  if (is_real()) return std::get<double>(v_);
  if (is_integer()) return static_cast<double>(std::get<uint64_t>(v_));
  return 0.0;
}

const std::string& Value::text() const {
  static const std::string kEmpty;
  return is_text() ? std::get<std::string>(v_) : kEmpty;
}

Value Value::list(nlohmann::json array) {
  if (!array.is_array()) throw std::invalid_argument("a list statistic takes a JSON array");
  Value v;
  v.v_.emplace<5>(std::move(array));
  return v;
}

nlohmann::json Value::json() const {
  switch (v_.index()) {
    case 1:
      return std::get<uint64_t>(v_);
    case 2:
      return std::get<double>(v_);
    case 3:
      return std::get<std::string>(v_);
    case 4:
      return std::get<bool>(v_);
    case 5:
      return std::get<nlohmann::json>(v_);
    default:
      return nullptr;
  }
}

Value Value::from_json(const nlohmann::json& j) {
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_array()) return list(j);
  if (j.is_number_float()) return j.get<double>();
  if (j.is_number()) return j.get<uint64_t>();
  if (j.is_string()) return j.get<std::string>();
  return {};
}

namespace {

Value zero(Type type) {
  switch (type) {
    case Type::integer:
      return uint64_t{0};
    case Type::real:
      return 0.0;
    case Type::text:
      return std::string();
    case Type::boolean:
      return false;
    case Type::text_list:
      return Value::list(nlohmann::json::array());
    default:
      return {};
  }
}

template <class T>
size_t index_of(const std::vector<T>& items, std::string_view name, const char* what,
                const std::string& group) {
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return i;
  throw std::out_of_range("statistics group '" + group + "' has no " + what + " '" + std::string(name) + "'");
}

Value merge_value(Kind kind, const Value& a, const Value& b) {
  switch (kind) {
    case Kind::counter:
      if (a.is_integer() && b.is_integer()) return a.integer() + b.integer();
      return a.real() + b.real();
    case Kind::maximum:
      if (a.is_integer() && b.is_integer()) return std::max(a.integer(), b.integer());
      return std::max(a.real(), b.real());
    case Kind::label:
      return a.is_null() || (a.is_text() && a.text().empty()) ? b : a;
    default:
      return a;
  }
}

StatDecl make_stat(std::string name, Kind kind, Type type, std::string unit, std::string meaning) {
  StatDecl s;
  s.name = std::move(name);
  s.kind = kind;
  s.type = type;
  s.unit = std::move(unit);
  s.description = std::move(meaning);
  return s;
}

RowsDecl make_rows(std::string name, std::shared_ptr<const GroupDecl> row, Rows form, std::string meaning,
                   std::string parts = "") {
  RowsDecl r;
  r.name = std::move(name);
  r.row = std::move(row);
  r.form = form;
  r.description = std::move(meaning);
  r.parts = std::move(parts);
  return r;
}

}  // namespace

GroupDecl& GroupDecl::counter(std::string stat, std::string unit, std::string meaning) {
  stats.push_back(
      make_stat(std::move(stat), Kind::counter, Type::integer, std::move(unit), std::move(meaning)));
  return *this;
}

GroupDecl& GroupDecl::real_counter(std::string stat, std::string unit, std::string meaning) {
  stats.push_back(make_stat(std::move(stat), Kind::counter, Type::real, std::move(unit), std::move(meaning)));
  return *this;
}

GroupDecl& GroupDecl::maximum(std::string stat, std::string unit, std::string meaning) {
  stats.push_back(
      make_stat(std::move(stat), Kind::maximum, Type::integer, std::move(unit), std::move(meaning)));
  return *this;
}

GroupDecl& GroupDecl::real_maximum(std::string stat, std::string unit, std::string meaning) {
  stats.push_back(make_stat(std::move(stat), Kind::maximum, Type::real, std::move(unit), std::move(meaning)));
  return *this;
}

GroupDecl& GroupDecl::mean(std::string stat, std::string unit, std::string meaning,
                           std::vector<std::string> weight) {
  stats.push_back(make_stat(std::move(stat), Kind::mean, Type::real, std::move(unit), std::move(meaning)));
  stats.back().weight = std::move(weight);
  return *this;
}

GroupDecl& GroupDecl::formula(std::string stat, std::string unit, std::string meaning,
                              std::function<Value(const Group&)> compute) {
  stats.push_back(make_stat(std::move(stat), Kind::formula, Type::real, std::move(unit), std::move(meaning)));
  stats.back().formula = std::move(compute);
  return *this;
}

GroupDecl& GroupDecl::ratio(std::string stat, std::string meaning, std::string numerator,
                            std::string denominator) {
  return formula(std::move(stat), "", std::move(meaning), [numerator, denominator](const Group& g) -> Value {
    const uint64_t d = g.integer(denominator);
    return d ? double(g.integer(numerator)) / double(d) : 0.0;
  });
}

GroupDecl& GroupDecl::label(std::string stat, Type type, std::string meaning) {
  stats.push_back(make_stat(std::move(stat), Kind::label, type, "", std::move(meaning)));
  return *this;
}

GroupDecl& GroupDecl::vector(std::string vector_name, Kind kind, std::vector<std::string> elements,
                             std::string unit, std::string meaning) {
  vectors.push_back({std::move(vector_name), kind, std::move(elements), std::move(unit), std::move(meaning)});
  return *this;
}

GroupDecl& GroupDecl::group(GroupDecl child) {
  groups.push_back(std::move(child));
  return *this;
}

GroupDecl& GroupDecl::list(std::string list_name, std::shared_ptr<const GroupDecl> row, std::string meaning) {
  rows.push_back(make_rows(std::move(list_name), std::move(row), Rows::list, std::move(meaning)));
  return *this;
}

GroupDecl& GroupDecl::table(std::string table_name, std::shared_ptr<const GroupDecl> row,
                            std::string meaning) {
  rows.push_back(make_rows(std::move(table_name), std::move(row), Rows::table, std::move(meaning)));
  return *this;
}

GroupDecl& GroupDecl::totals(std::string totals_name, std::shared_ptr<const GroupDecl> row, std::string parts,
                             std::string meaning) {
  rows.push_back(
      make_rows(std::move(totals_name), std::move(row), Rows::totals, std::move(meaning), std::move(parts)));
  return *this;
}

std::shared_ptr<const GroupDecl> lasting(const GroupDecl& decl) {
  return std::shared_ptr<const GroupDecl>(&decl, [](const GroupDecl*) {});
}

GroupDecl& GroupDecl::hidden() {
  stats.back().hidden = true;
  return *this;
}

GroupDecl& GroupDecl::real_when_merged() {
  stats.back().real_when_merged = true;
  return *this;
}

GroupDecl& GroupDecl::when_present() {
  groups.back().optional = true;
  return *this;
}

size_t GroupDecl::stat_index(std::string_view stat) const {
  return index_of(stats, stat, "statistic", name);
}
size_t GroupDecl::vector_index(std::string_view vector_name) const {
  return index_of(vectors, vector_name, "vector", name);
}
size_t GroupDecl::group_index(std::string_view group_name) const {
  return index_of(groups, group_name, "group", name);
}
size_t GroupDecl::rows_index(std::string_view rows_name) const {
  return index_of(rows, rows_name, "rows", name);
}

Group::Group(const GroupDecl& decl)
    : decl_(&decl),
      weighted_(decl.stats.size(), 0.0),
      weights_(decl.stats.size(), 0.0),
      vectors_(decl.vectors.size()),
      lists_(decl.rows.size()),
      tables_(decl.rows.size()),
      read_totals_(decl.rows.size()) {
  values_.reserve(decl.stats.size());
  for (const StatDecl& s : decl.stats) values_.push_back(s.kind == Kind::formula ? Value() : zero(s.type));
  for (size_t v = 0; v < decl.vectors.size(); ++v)
    vectors_[v].assign(decl.vectors[v].elements.size(), Value(uint64_t{0}));
  groups_.reserve(decl.groups.size());
  for (const GroupDecl& g : decl.groups) groups_.emplace_back(g);
  present_.assign(decl.groups.size(), 0);
}

void Group::set(std::string_view stat, Value v) {
  values_[decl_->stat_index(stat)] = std::move(v);
}

Value Group::get(std::string_view stat) const {
  return value_at(decl_->stat_index(stat));
}

Value Group::value_at(size_t i) const {
  const StatDecl& s = decl_->stats[i];
  if (s.kind == Kind::formula && values_[i].is_null()) return s.formula(*this);
  return values_[i];
}

Value Group::element(std::string_view vector_name, std::string_view element) const {
  const size_t v = decl_->vector_index(vector_name);
  const std::vector<std::string>& names = decl_->vectors[v].elements;
  for (size_t e = 0; e < names.size() && e < vectors_[v].size(); ++e)
    if (names[e] == element) return vectors_[v][e];
  throw std::out_of_range("statistics vector '" + std::string(vector_name) + "' has no element '" +
                          std::string(element) + "'");
}

std::vector<Value>& Group::vector(std::string_view name) {
  return vectors_[decl_->vector_index(name)];
}
const std::vector<Value>& Group::vector(std::string_view name) const {
  return vectors_[decl_->vector_index(name)];
}
Group& Group::group(std::string_view name) {
  const size_t i = decl_->group_index(name);
  present_[i] = 1;
  return groups_[i];
}
const Group& Group::group(std::string_view name) const {
  return groups_[decl_->group_index(name)];
}
std::vector<Group>& Group::list(std::string_view name) {
  const size_t i = decl_->rows_index(name);
  read_totals_[i].reset();  // the parts may change: the total is theirs again
  return lists_[i];
}
const std::vector<Group>& Group::list(std::string_view name) const {
  return lists_[decl_->rows_index(name)];
}
const std::map<std::string, Group>& Group::table(std::string_view name) const {
  return tables_[decl_->rows_index(name)];
}

Group Group::total(std::string_view totals) const {
  const size_t i = decl_->rows_index(totals);
  return read_totals_[i] ? *read_totals_[i] : merged(*decl_->rows[i].row, lists_[i]);
}

Group& Group::add_list_row(std::string_view list) {
  const size_t i = decl_->rows_index(list);
  return lists_[i].emplace_back(*decl_->rows[i].row);
}

Group& Group::row(std::string_view table, const std::string& key) {
  const size_t i = decl_->rows_index(table);
  return tables_[i].try_emplace(key, *decl_->rows[i].row).first->second;
}

double Group::mean_weight(size_t stat) const {
  double w = 0;
  for (const std::string& counter : decl_->stats[stat].weight) w += get(counter).real();
  return w;
}

void Group::merge(const Group& other) {
  if (other.decl_->name != decl_->name || other.decl_->stats.size() != decl_->stats.size())
    throw std::invalid_argument("merging statistics of two declarations");
  if (!merged_) {  // this group's own part of its means, weighed by its counters before they change
    for (size_t i = 0; i < values_.size(); ++i) {
      if (decl_->stats[i].kind != Kind::mean) continue;
      weights_[i] = mean_weight(i);
      weighted_[i] = values_[i].real() * weights_[i];
    }
  }
  for (size_t i = 0; i < values_.size(); ++i) {
    const StatDecl& s = decl_->stats[i];
    if (s.kind == Kind::formula) {
      values_[i] = Value();  // recomputed from the merged statistics when read
    } else if (s.kind != Kind::mean) {
      values_[i] = merge_value(s.kind, values_[i], other.values_[i]);
      if (s.real_when_merged) values_[i] = values_[i].real();
    }
  }
  for (size_t i = 0; i < values_.size(); ++i) {
    if (decl_->stats[i].kind != Kind::mean) continue;
    const double w = other.merged_ ? other.weights_[i] : other.mean_weight(i);
    weighted_[i] += other.merged_ ? other.weighted_[i] : other.values_[i].real() * w;
    weights_[i] += w;
    values_[i] = weights_[i] > 0 ? weighted_[i] / weights_[i] : 0.0;
  }
  merged_ = true;
  for (auto& t : read_totals_) t.reset();
  for (size_t v = 0; v < vectors_.size(); ++v) {
    const std::vector<Value>& theirs = other.vectors_[v];
    std::vector<Value>& ours = vectors_[v];
    if (ours.size() < theirs.size()) ours.resize(theirs.size(), Value(uint64_t{0}));
    for (size_t e = 0; e < theirs.size(); ++e)
      ours[e] = merge_value(decl_->vectors[v].kind, ours[e], theirs[e]);
  }
  for (size_t g = 0; g < groups_.size(); ++g) {
    groups_[g].merge(other.groups_[g]);
    present_[g] |= other.present_[g];
  }
  for (size_t r = 0; r < lists_.size(); ++r) {
    for (size_t n = 0; n < other.lists_[r].size(); ++n) {
      if (n < lists_[r].size()) {
        lists_[r][n].merge(other.lists_[r][n]);
      } else {
        lists_[r].push_back(other.lists_[r][n]);
      }
    }
    for (const auto& [key, theirs] : other.tables_[r]) {
      auto [it, inserted] = tables_[r].try_emplace(key, theirs);
      if (!inserted) it->second.merge(theirs);
    }
  }
}

Group merged(const GroupDecl& decl, const std::vector<Group>& parts) {
  Group total(decl);
  for (const Group& part : parts) total.merge(part);
  return total;
}

nlohmann::json Group::json() const {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < values_.size(); ++i) {
    const StatDecl& s = decl_->stats[i];
    if (!s.hidden) j[s.name] = get(s.name).json();
  }
  for (size_t v = 0; v < vectors_.size(); ++v) {
    const VectorDecl& d = decl_->vectors[v];
    nlohmann::json out = d.elements.empty() ? nlohmann::json::array() : nlohmann::json::object();
    for (size_t e = 0; e < vectors_[v].size(); ++e) {
      if (d.elements.empty()) {
        out.push_back(vectors_[v][e].json());
      } else {
        out[d.elements[e]] = vectors_[v][e].json();
      }
    }
    j[d.name] = out;
  }
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (present_[g] || !groups_[g].decl_->optional) j[groups_[g].decl_->name] = groups_[g].json();
  }
  for (size_t r = 0; r < lists_.size(); ++r) {
    const RowsDecl& d = decl_->rows[r];
    nlohmann::json out = d.form == Rows::table ? nlohmann::json::object() : nlohmann::json::array();
    for (const Group& row : lists_[r]) out.push_back(row.json());
    for (const auto& [key, row] : tables_[r]) out[key] = row.json();
    if (d.form == Rows::totals) {
      j[d.name] = total(d.name).json();
      j[d.name][d.parts] = out;
    } else {
      j[d.name] = out;
    }
  }
  return j;
}

namespace {

void add_increment(nlohmann::json& out, const std::string& key, Kind kind, const Value& now,
                   const Value* before) {
  if (now.is_real()) return;
  if (now.is_integer() && kind == Kind::counter && before && before->is_integer()) {
    out[key] = now.integer() - before->integer();
  } else {
    out[key] = now.json();
  }
}

nlohmann::json increments_of_rows(const std::vector<Group>& now, const std::vector<Group>* before) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t n = 0; n < now.size(); ++n)
    out.push_back(increments_json(now[n], before && n < before->size() ? &(*before)[n] : nullptr));
  return out;
}

}  // namespace

nlohmann::json increments_json(const Group& now, const Group* before,
                               std::initializer_list<std::string_view> only) {
  const GroupDecl& d = now.decl();
  nlohmann::json out = nlohmann::json::object();
  auto wanted = [&only](const std::string& name) {
    return only.size() == 0 || std::find(only.begin(), only.end(), name) != only.end();
  };
  for (size_t i = 0; i < d.stats.size(); ++i) {
    if (d.stats[i].hidden || !wanted(d.stats[i].name)) continue;
    const Value v = now.value_at(i);
    const Value was = before ? before->value_at(i) : Value();
    add_increment(out, d.stats[i].name, d.stats[i].kind, v, before ? &was : nullptr);
  }
  for (size_t v = 0; v < d.vectors.size(); ++v) {
    const VectorDecl& vd = d.vectors[v];
    if (!wanted(vd.name)) continue;
    const std::vector<Value>& values = now.vectors_[v];
    const std::vector<Value>* was = before ? &before->vectors_[v] : nullptr;
    nlohmann::json elements = vd.elements.empty() ? nlohmann::json::array() : nlohmann::json::object();
    for (size_t e = 0; e < values.size(); ++e) {
      const Value* old = was && e < was->size() ? &(*was)[e] : nullptr;
      if (vd.elements.empty()) {  // an element is never left out: the indices must stay
        nlohmann::json one = {{"x", values[e].json()}};
        add_increment(one, "x", vd.kind, values[e], old);
        elements.push_back(one["x"]);
      } else {
        add_increment(elements, vd.elements[e], vd.kind, values[e], old);
      }
    }
    out[vd.name] = elements;
  }
  for (size_t g = 0; g < d.groups.size(); ++g) {
    if ((!now.present_[g] && d.groups[g].optional) || !wanted(d.groups[g].name)) continue;
    out[d.groups[g].name] = increments_json(now.groups_[g], before ? &before->groups_[g] : nullptr);
  }
  for (size_t r = 0; r < d.rows.size(); ++r) {
    const RowsDecl& rd = d.rows[r];
    if (!wanted(rd.name)) continue;
    const std::vector<Group>* was = before ? &before->lists_[r] : nullptr;
    if (rd.form == Rows::totals) {
      const Group total = now.total(rd.name);
      const std::optional<Group> total_before =
          before ? std::optional<Group>(before->total(rd.name)) : std::nullopt;
      out[rd.name] = increments_json(total, total_before ? &*total_before : nullptr);
      out[rd.name][rd.parts] = increments_of_rows(now.lists_[r], was);
    } else if (rd.form == Rows::list) {
      out[rd.name] = increments_of_rows(now.lists_[r], was);
    } else {
      nlohmann::json rows = nlohmann::json::object();
      for (const auto& [key, row] : now.tables_[r]) {
        const Group* old = nullptr;
        if (before) {
          const auto it = before->tables_[r].find(key);
          if (it != before->tables_[r].end()) old = &it->second;
        }
        rows[key] = increments_json(row, old);
      }
      out[rd.name] = rows;
    }
  }
  return out;
}

Group Group::from_json(const GroupDecl& decl, const nlohmann::json& j) {
  Group g(decl);
  for (size_t i = 0; i < decl.stats.size(); ++i) {
    const StatDecl& s = decl.stats[i];
    if (!s.hidden && j.contains(s.name)) g.values_[i] = Value::from_json(j[s.name]);
  }
  for (size_t v = 0; v < decl.vectors.size(); ++v) {
    const VectorDecl& d = decl.vectors[v];
    if (!j.contains(d.name)) continue;
    const nlohmann::json& in = j[d.name];
    std::vector<Value>& out = g.vectors_[v];
    if (d.elements.empty()) {
      out.clear();
      for (const nlohmann::json& e : in) out.push_back(Value::from_json(e));
    } else {
      for (size_t e = 0; e < d.elements.size(); ++e)
        if (in.contains(d.elements[e])) out[e] = Value::from_json(in[d.elements[e]]);
    }
  }
  for (size_t n = 0; n < decl.groups.size(); ++n) {
    if (!j.contains(decl.groups[n].name)) continue;
    g.groups_[n] = from_json(decl.groups[n], j[decl.groups[n].name]);
    g.present_[n] = 1;
  }
  for (size_t r = 0; r < decl.rows.size(); ++r) {
    const RowsDecl& d = decl.rows[r];
    if (!j.contains(d.name)) continue;
    if (d.form == Rows::table) {
      for (const auto& [key, row] : j[d.name].items()) g.tables_[r].emplace(key, from_json(*d.row, row));
    } else {
      const nlohmann::json& rows =
          d.form == Rows::totals ? j[d.name].value(d.parts, nlohmann::json::array()) : j[d.name];
      for (const nlohmann::json& row : rows) g.lists_[r].push_back(from_json(*d.row, row));
      if (d.form == Rows::totals)
        g.read_totals_[r] = std::make_shared<const Group>(from_json(*d.row, j[d.name]));
    }
  }
  return g;
}

}  // namespace simtlm::stats
