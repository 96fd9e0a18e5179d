// Text that leaves the simulator (JSON statistics, messages) must be valid UTF-8; PTX strings and source
// lines are arbitrary bytes.
#pragma once

#include <string>
#include <string_view>

namespace simtlm::ptx {

// `text` with every byte that is not part of a well-formed UTF-8 sequence replaced by U+FFFD, and control
// characters other than tab replaced by '?', so the result can be printed and stored in JSON as it is.
std::string printable_utf8(std::string_view text);

}  // namespace simtlm::ptx
