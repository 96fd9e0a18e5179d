// Tokenizer for PTX text. Tokens are views into the source, so the text must outlive them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace simtlm::ptx {

enum class Tok : uint8_t {
  end,
  ident,      // opcode with modifiers ("ld.global.v2.f32"), symbol, label, '_'
  directive,  // ".reg", ".b32", ...
  reg,        // "%r12", "%tid.x"
  integer,    // "12", "0x1F", "12U"
  float_lit,  // "0f3F800000", "0d...", "1.5", "1e3"
  string,     // "\"path\"" (quotes included)
  punct,      // one character: , ; : ( ) [ ] { } < > + - ! | @ =
};

struct Token {
  Tok kind = Tok::end;
  char punct = 0;
  uint32_t line = 0;
  std::string_view text;
};

// Thrown for characters that cannot start a token or for unterminated comments/strings/sections.
struct LexError : std::runtime_error {
  LexError(uint32_t line, const std::string& message) : std::runtime_error(message), line(line) {}
  uint32_t line;
};

// Splits the whole text into tokens. `.section` blocks (DWARF data) are skipped entirely so the parser never
// sees them. The last token is always Tok::end.
std::vector<Token> tokenize(std::string_view text);

}  // namespace simtlm::ptx
