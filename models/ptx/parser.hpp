// Hand-written lexer and recursive-descent parser for the PTX that nvcc emits.
#pragma once

#include <stdexcept>
#include <string>

#include "models/ptx/ir.hpp"

namespace simtlm::ptx {

// A load-time error: "file:line: message" followed by the offending source text.
class PtxError : public std::runtime_error {
 public:
  PtxError(const std::string& file, uint32_t line, const std::string& message, const std::string& text);
  const std::string& file() const { return file_; }
  uint32_t line() const { return line_; }

 private:
  std::string file_;
  uint32_t line_;
};

// Parses and decodes a whole module; every unsupported instruction, type or state space is a PtxError here.
Module parse_ptx(const std::string& text, const std::string& path);
Module load_ptx_file(const std::string& path);

}  // namespace simtlm::ptx
