#include "models/ptx/lexer.hpp"

#include <cstdio>

#include "models/ptx/limits.hpp"

namespace simtlm::ptx {
namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    tokens.reserve(text_.size() / 8);
    while (true) {
      skip_space_and_comments();
      if (pos_ >= text_.size()) break;
      Token token = next();
      if (token.kind == Tok::directive && token.text == ".section") {
        skip_section();
        continue;
      }
      tokens.push_back(token);
    }
    tokens.push_back(Token{Tok::end, 0, line_, {}});
    return tokens;
  }

 private:
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  void skip_space_and_comments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '/' && peek(1) == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && peek(1) == '*') {
        uint32_t start_line = line_;
        pos_ += 2;
        while (pos_ < text_.size() && !(text_[pos_] == '*' && peek(1) == '/')) {
          if (text_[pos_] == '\n') ++line_;
          ++pos_;
        }
        if (pos_ >= text_.size()) throw LexError(start_line, "unterminated /* comment");
        pos_ += 2;
      } else {
        break;
      }
    }
  }

  Token make(Tok kind, size_t start) const {
    const uint64_t length = kind == Tok::string ? pos_ - start - 2 : pos_ - start;  // quotes not counted
    const uint64_t limit = kind == Tok::string ? limits::kMaxStringChars : limits::kMaxTokenChars;
    if (length > limit) {
      throw LexError(line_, limits::limit_message(kind == Tok::string ? "the length of a string literal"
                                                                      : "the length of a token",
                                                  length, limit, "shorten it"));
    }
    return Token{kind, 0, line_, text_.substr(start, pos_ - start)};
  }

  Token next() {
    size_t start = pos_;
    char c = text_[pos_];
    if (is_ident_start(c)) {
      // Opcodes carry their modifiers: "ld.global.nc.L1::no_allocate.v2.f64" is one token.
      ++pos_;
      while (pos_ < text_.size()) {
        char d = text_[pos_];
        if (is_ident_char(d)) {
          ++pos_;
        } else if ((d == '.' || d == ':') && is_ident_char(peek(1))) {
          ++pos_;
        } else if (d == ':' && peek(1) == ':') {
          pos_ += 2;
        } else {
          break;
        }
      }
      return make(Tok::ident, start);
    }
    if (c == '.' && (is_ident_start(peek(1)))) {
      ++pos_;
      while (pos_ < text_.size() && (is_ident_char(text_[pos_]) || (text_[pos_] == ':' && peek(1) == ':'))) {
        pos_ += text_[pos_] == ':' ? 2 : 1;
      }
      return make(Tok::directive, start);
    }
    if (c == '%') {
      ++pos_;
      while (pos_ < text_.size() && (is_ident_char(text_[pos_]) || text_[pos_] == '.')) ++pos_;
      if (pos_ == start + 1) throw LexError(line_, "'%' without a register name");
      return make(Tok::reg, start);
    }
    if (is_digit(c)) return number(start);
    if (c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
        if (text_[pos_] == '\\') ++pos_;
        ++pos_;
      }
      if (pos_ >= text_.size() || text_[pos_] != '"') throw LexError(line_, "unterminated string");
      ++pos_;
      return make(Tok::string, start);
    }
    switch (c) {
      case ',':
      case ';':
      case ':':
      case '(':
      case ')':
      case '[':
      case ']':
      case '{':
      case '}':
      case '<':
      case '>':
      case '+':
      case '-':
      case '!':
      case '|':
      case '@':
      case '=': {
        ++pos_;
        Token token = make(Tok::punct, start);
        token.punct = c;
        return token;
      }
      default: {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x21 && byte < 0x7F)
          throw LexError(line_, std::string("unexpected character '") + c + "'");
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", byte);
        throw LexError(line_, std::string("unexpected byte ") + hex);
      }
    }
  }

  Token number(size_t start) {
    char second = peek(1);
    if (text_[pos_] == '0' && (second == 'f' || second == 'F' || second == 'd' || second == 'D')) {
      size_t digits = (second == 'f' || second == 'F') ? 8 : 16;
      pos_ += 2;
      size_t hex_start = pos_;
      while (pos_ < text_.size() && is_hex(text_[pos_])) ++pos_;
      if (pos_ - hex_start != digits)
        throw LexError(line_, "float literal needs exactly " + std::to_string(digits) + " hex digits");
      return make(Tok::float_lit, start);
    }
    if (text_[pos_] == '0' && (second == 'x' || second == 'X')) {
      pos_ += 2;
      while (pos_ < text_.size() && is_hex(text_[pos_])) ++pos_;
      if (pos_ < text_.size() && text_[pos_] == 'U') ++pos_;
      return make(Tok::integer, start);
    }
    bool is_float = false;
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    if (peek() == '.' && is_digit(peek(1))) {
      is_float = true;
      ++pos_;
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (is_digit(peek(1)) || ((peek(1) == '-' || peek(1) == '+') && is_digit(peek(2))))) {
      is_float = true;
      pos_ += 2;
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (!is_float && peek() == 'U') ++pos_;
    if (pos_ < text_.size() && is_ident_char(text_[pos_])) throw LexError(line_, "malformed number");
    return make(is_float ? Tok::float_lit : Tok::integer, start);
  }

  // `.section .debug_info { ... }`: DWARF payload we never need; skip to the matching brace.
  void skip_section() {
    uint32_t start_line = line_;
    int depth = 0;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') ++line_;
      if (c == '/' && peek(1) == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '/' && peek(1) == '*') {
        pos_ += 2;
        while (pos_ < text_.size() && !(text_[pos_] == '*' && peek(1) == '/')) {
          if (text_[pos_] == '\n') ++line_;
          ++pos_;
        }
        pos_ += 2;
        continue;
      }
      if (c == '"') {
        ++pos_;
        while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') ++pos_;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}') {
        if (--depth == 0) {
          ++pos_;
          return;
        }
      } else if (c == ';' && depth == 0) {
        ++pos_;  // `.section name;` without a body
        return;
      }
      ++pos_;
    }
    throw LexError(start_line, "unterminated .section block");
  }

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text) {
  return Lexer(text).run();
}

}  // namespace simtlm::ptx
