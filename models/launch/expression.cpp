// Integer expressions of launch files ("(n + 511) / 512", "1 << k", "ranges[3] - ranges[2] + 1"): a small
// recursive-descent evaluator with C's operators and precedence. Launch geometry and parameters of host loops
// depend on the loop variables, and sometimes on values the host read back from the device, as the host code
// they stand for does.
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "models/launch/launch.hpp"

namespace simtlm::launch {
namespace {

// Binary operators by precedence level, loosest first (C's order).
constexpr const char* kLevels[][4] = {
    {"||"},       {"&&"},     {"|"},          {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
constexpr int kLevelCount = int(sizeof(kLevels) / sizeof(kLevels[0]));

class Evaluator {
 public:
  Evaluator(const std::string& text, const ExpressionScope& scope, const std::string& context,
            bool check_only)
      : text_(text), scope_(scope), context_(context), check_only_(check_only) {}

  int64_t run() {
    const int64_t v = binary(0);
    skip_space();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_.substr(pos_)));
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw LaunchError(fmt::format("{}: expression \"{}\": {}", context_, text_, what));
  }
  // A run-time error (never raised when only checking): names the values of the loop variables.
  void refuse(const std::string& what) const {
    if (!check_only_ && !quiet_) fail(fmt::format("{} ({})", what, scope_.describe()));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // The operator of `level` at the cursor, consumed; nullptr if none. "<" is not the start of "<<", "&" not
  // of "&&", "|" not of "||".
  const char* take_operator(int level) {
    skip_space();
    for (const char* op : kLevels[level]) {
      if (!op) break;
      const size_t n = std::char_traits<char>::length(op);
      if (text_.compare(pos_, n, op) != 0) continue;
      const char after = pos_ + n < text_.size() ? text_[pos_ + n] : 0;
      if (n == 1 && (after == op[0] || ((op[0] == '<' || op[0] == '>') && after == '='))) continue;
      pos_ += n;
      return op;
    }
    return nullptr;
  }
  int64_t binary(int level) {
    if (level == kLevelCount) return unary();
    int64_t v = binary(level + 1);
    while (const char* op = take_operator(level)) {
      // && and || short-circuit as in C: the right side of a decided one is parsed but raises nothing.
      const bool decided = (op[0] == '&' && op[1] == '&' && !v) || (op[0] == '|' && op[1] == '|' && v);
      quiet_ += decided;
      const int64_t b = binary(level + 1);
      quiet_ -= decided;
      v = apply(op, v, b);
    }
    return v;
  }
  int64_t overflow() const {
    refuse("overflows 64 bits");
    return 0;
  }
  int64_t apply(const std::string& op, int64_t a, int64_t b) const {
    int64_t r = 0;
    if (op == "+") return __builtin_add_overflow(a, b, &r) ? overflow() : r;
    if (op == "-") return __builtin_sub_overflow(a, b, &r) ? overflow() : r;
    if (op == "*") return __builtin_mul_overflow(a, b, &r) ? overflow() : r;
    if (op == "/" || op == "%") {
      if (b == 0) {
        refuse(op == "/" ? "division by zero" : "remainder by zero");
        return 0;
      }
      if (a == INT64_MIN && b == -1) return op == "/" ? overflow() : 0;
      return op == "/" ? a / b : a % b;
    }
    if (op == "<<" || op == ">>") {
      if (b < 0 || b > 63) {
        refuse(fmt::format("shift by {} (a shift takes 0 to 63)", b));
        return 0;
      }
      if (op == ">>") return a >> b;  // arithmetic: -8 >> 1 is -4
      // a * 2^b, refused when bits would be lost.
      if (a != 0 && (b == 63 || a > (INT64_MAX >> b) || a < (INT64_MIN >> b))) return overflow();
      return int64_t(uint64_t(a) << b);
    }
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    if (op == ">=") return a >= b;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "&") return a & b;
    if (op == "^") return a ^ b;
    if (op == "|") return a | b;
    if (op == "&&") return a && b;
    return a || b;  // "||"
  }
  // Nesting (parentheses, unary operators, arguments, indices) is bounded so that hostile text cannot
  // exhaust the stack.
  struct Nest {
    explicit Nest(Evaluator& e) : e_(e) {
      if (++e_.depth_ > kMaxDepth) e_.fail(fmt::format("nested more than {} levels deep", kMaxDepth));
    }
    ~Nest() { --e_.depth_; }
    Evaluator& e_;
  };
  static constexpr int kMaxDepth = 200;

  int64_t unary() {
    const Nest nest(*this);
    if (take('-')) {
      const int64_t v = unary();
      return v == INT64_MIN ? overflow() : -v;
    }
    if (take('+')) return unary();
    if (take('!')) return !unary();
    if (take('~')) return ~unary();
    return primary();
  }
  // min(a, b), max(a, b), pow2(e) = 2^e (e in 0..62), log2(x) = floor(log2 x) for x >= 1.
  int64_t call(const std::string& name) {
    std::vector<int64_t> args{binary(0)};
    while (take(',')) args.push_back(binary(0));
    if (!take(')')) fail(fmt::format("missing ')' after the arguments of {}", name));
    const size_t wanted = name == "min" || name == "max" ? 2 : 1;
    if (args.size() != wanted)
      fail(fmt::format("{} takes {} argument{}, not {}", name, wanted, wanted == 1 ? "" : "s", args.size()));
    if (name == "min") return std::min(args[0], args[1]);
    if (name == "max") return std::max(args[0], args[1]);
    if (name == "pow2") {
      if (args[0] < 0 || args[0] > 62) refuse(fmt::format("pow2({}): the exponent must be 0 to 62", args[0]));
      return args[0] < 0 || args[0] > 62 ? 0 : int64_t(1) << args[0];
    }
    if (args[0] < 1) refuse(fmt::format("log2({}): the argument must be at least 1", args[0]));
    return args[0] < 1 ? 0 : 63 - __builtin_clzll(uint64_t(args[0]));
  }
  // NAME[K]: element K of a buffer or module variable, read from the device when the step runs.
  int64_t element(const std::string& name) {
    const int64_t index = binary(0);
    if (!take(']')) fail(fmt::format("missing ']' after {}[...", name));
    if (!scope_.has_data || !scope_.has_data(name)) {
      fail(fmt::format(
          "unknown name '{}' (an element NAME[K] is read from the buffers and symbols: entries of "
          "a launch sequence)",
          name));
    }
    if (check_only_ || quiet_ || !scope_.read) return 0;
    std::string error;
    const int64_t v = scope_.read(name, index, error);
    if (!error.empty()) refuse(error);
    return v;
  }
  int64_t primary() {
    skip_space();
    if (take('(')) {
      const int64_t v = binary(0);
      if (!take(')')) fail("missing ')'");
      return v;
    }
    if (pos_ >= text_.size()) fail("unexpected end");
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const size_t start = pos_;
      while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      const std::string literal = text_.substr(start, pos_ - start);
      errno = 0;
      char* end = nullptr;
      const unsigned long long v = std::strtoull(literal.c_str(), &end, 0);
      if (*end != 0 || errno == ERANGE || v > uint64_t(INT64_MAX))
        fail(fmt::format("bad integer '{}'", literal));
      return int64_t(v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      const std::string name = text_.substr(start, pos_ - start);
      if (take('[')) return element(name);
      if ((name == "min" || name == "max" || name == "pow2" || name == "log2") && take('('))
        return call(name);
      if (name == "i") return scope_.i;
      for (auto it = scope_.variables.rbegin(); it != scope_.variables.rend(); ++it)
        if (it->first == name) return it->second;
      if (scope_.constants) {
        auto it = scope_.constants->find(name);
        if (it != scope_.constants->end()) return it->second;
      }
      std::string loops;
      for (const auto& [variable, value] : scope_.variables) loops += (loops.empty() ? "" : ", ") + variable;
      fail(fmt::format("unknown name '{}' (only i{} and the file's constants)", name,
                       loops.empty() ? "" : ", the loop variables " + loops));
    }
    fail(fmt::format("unexpected '{}'", text_.substr(pos_)));
  }

  const std::string& text_;
  const ExpressionScope& scope_;
  const std::string& context_;
  const bool check_only_;
  int quiet_ = 0;  // inside the right side of a decided && or ||
  int depth_ = 0;
  size_t pos_ = 0;
};

}  // namespace

std::string ExpressionScope::describe() const {
  std::string s;
  for (const auto& [name, value] : variables) s += fmt::format("{} = {}, ", name, value);
  return s + fmt::format("i = {}", i);
}

int64_t evaluate_expression(const std::string& text, const ExpressionScope& scope,
                            const std::string& context) {
  return Evaluator(text, scope, context, false).run();
}

void check_expression(const std::string& text, const ExpressionScope& scope, const std::string& context) {
  Evaluator(text, scope, context, true).run();
}

int64_t evaluate_expression(const std::string& text, int64_t i,
                            const std::map<std::string, int64_t>& constants, const std::string& context) {
  ExpressionScope scope;
  scope.i = i;
  scope.constants = &constants;
  return evaluate_expression(text, scope, context);
}

void check_expression(const std::string& text, const std::map<std::string, int64_t>& constants,
                      const std::string& context) {
  ExpressionScope scope;
  scope.constants = &constants;
  check_expression(text, scope, context);
}

}  // namespace simtlm::launch
