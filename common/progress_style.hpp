// How a progress line on stderr is shown, shared by `simtlm run`'s (sim/progress.*) and a sweep's
// (sweep/sweep_progress.*). Apart from common/progress.hpp, which the models include, since it needs fmt and
// the terminal.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace simtlm {

enum class ProgressStyle {
  off,
  terminal,  // one line rewritten in place with '\r', erased at the end
  lines,     // one plain line per update and a last one at the end (stderr is a file or a pipe)
};

// --quiet wins; otherwise a terminal on stderr gets the line, and --progress forces plain lines elsewhere.
inline ProgressStyle progress_style(bool force, bool quiet) {
  if (quiet) return ProgressStyle::off;
  if (isatty(STDERR_FILENO)) return ProgressStyle::terminal;
  return force ? ProgressStyle::lines : ProgressStyle::off;
}

// A wall time for a person: "4.2 s", "2m05s", "1h02m".
inline std::string duration_text(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const auto s = static_cast<uint64_t>(seconds);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
}

}  // namespace simtlm
