// Reading and writing bit fields of Verilated ports, whatever C++ type Verilator chose for their width
// (CData/SData/IData/QData up to 64 bits, VlWide<N> above).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "verilated.h"

namespace simtlm::rtl_test {

template <typename Port>
requires std::is_integral_v<Port>
void put_bits(Port& port, unsigned lsb, unsigned width, uint64_t value) {
  const uint64_t field = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  uint64_t whole = static_cast<uint64_t>(port);
  whole = (whole & ~(field << lsb)) | ((value & field) << lsb);
  port = static_cast<Port>(whole);
}

template <typename Port>
requires std::is_integral_v<Port> uint64_t get_bits(const Port& port, unsigned lsb, unsigned width) {
  const uint64_t field = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  return (static_cast<uint64_t>(port) >> lsb) & field;
}

template <std::size_t kWords>
void put_bits(VlWide<kWords>& port, unsigned lsb, unsigned width, uint64_t value) {
  for (unsigned b = 0; b < width; ++b) {
    const unsigned bit = lsb + b;
    EData& word = port.at(bit / 32);
    const EData one = EData{1} << (bit % 32);
    word = ((value >> b) & 1) ? (word | one) : (word & ~one);
  }
}

template <std::size_t kWords>
uint64_t get_bits(const VlWide<kWords>& port, unsigned lsb, unsigned width) {
  uint64_t value = 0;
  for (unsigned b = 0; b < width; ++b) {
    const unsigned bit = lsb + b;
    value |= static_cast<uint64_t>((port.at(bit / 32) >> (bit % 32)) & 1) << b;
  }
  return value;
}

}  // namespace simtlm::rtl_test
