// Reading and writing bit fields of Verilated ports, whatever C++ type Verilator chose for their width
// (CData/SData/IData/QData up to 64 bits, VlWide<N> above).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "verilated.h"

namespace simtlm::hw::rtl {

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

// The part of a field that falls into one 32-bit word of a wide port: a word at a time, not a bit at a time
// (a 2048-bit address vector per evaluation made the bitwise loop the twin's main cost).
struct WordSlice {
  unsigned shift;  // position of the slice in its word
  unsigned bits;   // length of the slice
  EData mask;      // the slice's bits within the word
};

inline WordSlice slice_of(unsigned bit, unsigned remaining) {
  const unsigned shift = bit % 32;
  const unsigned bits = remaining < 32 - shift ? remaining : 32 - shift;
  const EData ones = bits >= 32 ? ~EData{0} : (EData{1} << bits) - 1;
  return {shift, bits, static_cast<EData>(ones << shift)};
}

template <std::size_t kWords>
void put_bits(VlWide<kWords>& port, unsigned lsb, unsigned width, uint64_t value) {
  for (unsigned b = 0; b < width;) {
    const WordSlice slice = slice_of(lsb + b, width - b);
    EData& word = port.at((lsb + b) / 32);
    word = (word & ~slice.mask) | (static_cast<EData>(value >> b << slice.shift) & slice.mask);
    b += slice.bits;
  }
}

template <std::size_t kWords>
uint64_t get_bits(const VlWide<kWords>& port, unsigned lsb, unsigned width) {
  uint64_t value = 0;
  for (unsigned b = 0; b < width;) {
    const WordSlice slice = slice_of(lsb + b, width - b);
    value |= static_cast<uint64_t>((port.at((lsb + b) / 32) & slice.mask) >> slice.shift) << b;
    b += slice.bits;
  }
  return value;
}

}  // namespace simtlm::hw::rtl
