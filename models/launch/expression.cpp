// Integer expressions of launch files ("(n + 511) / 512", "i * 16"): a small recursive-descent evaluator.
// Launch geometry and parameters of host loops depend on the loop index, as the host code they stand for
// does.
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "models/launch/launch.hpp"

namespace simtlm::launch {
namespace {

class Evaluator {
 public:
  Evaluator(const std::string& text, int64_t i, const std::map<std::string, int64_t>& constants,
            const std::string& context, bool check_only)
      : text_(text), i_(i), constants_(constants), context_(context), check_only_(check_only) {}

  int64_t run() {
    const int64_t v = sum();
    skip_space();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_.substr(pos_)));
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw LaunchError(fmt::format("{}: expression \"{}\": {}", context_, text_, what));
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
  int64_t checked(bool overflow) const {
    if (overflow && !check_only_) fail("overflows 64 bits");
    return 0;
  }
  int64_t sum() {
    int64_t v = product();
    for (;;) {
      int64_t r = 0;
      if (take('+')) {
        const int64_t b = product();
        checked(__builtin_add_overflow(v, b, &r));
        v = r;
      } else if (take('-')) {
        const int64_t b = product();
        checked(__builtin_sub_overflow(v, b, &r));
        v = r;
      } else {
        return v;
      }
    }
  }
  int64_t product() {
    int64_t v = unary();
    for (;;) {
      skip_space();
      if (pos_ >= text_.size()) return v;
      const char op = text_[pos_];
      if (op != '*' && op != '/' && op != '%') return v;
      ++pos_;
      const int64_t b = unary();
      if (check_only_) continue;
      int64_t r = 0;
      if (op == '*') {
        checked(__builtin_mul_overflow(v, b, &r));
        v = r;
      } else {
        if (b == 0) fail(fmt::format("division by zero (i = {})", i_));
        if (v == INT64_MIN && b == -1) fail("overflows 64 bits");
        v = op == '/' ? v / b : v % b;
      }
    }
  }
  int64_t unary() {
    if (take('-')) {
      const int64_t v = unary();
      checked(v == INT64_MIN);
      return v == INT64_MIN ? v : -v;
    }
    if (take('+')) return unary();
    return primary();
  }
  int64_t primary() {
    skip_space();
    if (take('(')) {
      const int64_t v = sum();
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
      if (name == "i") return i_;
      auto it = constants_.find(name);
      if (it == constants_.end())
        fail(fmt::format("unknown name '{}' (only i and the file's constants)", name));
      return it->second;
    }
    fail(fmt::format("unexpected '{}'", text_.substr(pos_)));
  }

  const std::string& text_;
  const int64_t i_;
  const std::map<std::string, int64_t>& constants_;
  const std::string& context_;
  const bool check_only_;
  size_t pos_ = 0;
};

}  // namespace

int64_t evaluate_expression(const std::string& text, int64_t i,
                            const std::map<std::string, int64_t>& constants, const std::string& context) {
  return Evaluator(text, i, constants, context, false).run();
}

void check_expression(const std::string& text, const std::map<std::string, int64_t>& constants,
                      const std::string& context) {
  Evaluator(text, 0, constants, context, true).run();
}

}  // namespace simtlm::launch
