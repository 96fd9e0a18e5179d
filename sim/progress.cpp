#include "sim/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <limits>
#include <string_view>

namespace simtlm::sim {

namespace {

// Five updates a second at most: enough to see it move, few enough to cost nothing and not flicker.
constexpr double kInterval = 0.2;

std::optional<uint64_t> count_launches(const std::vector<launch::Step>& steps) {
  uint64_t n = 0;
  for (const launch::Step& step : steps) {
    switch (step.kind) {
      case launch::Step::Kind::kernel:
        ++n;
        break;
      case launch::Step::Kind::set:
      case launch::Step::Kind::copy2d:
        break;
      case launch::Step::Kind::loop:
      case launch::Step::Kind::for_loop:  // its trip count is known only as it runs
        return std::nullopt;
      case launch::Step::Kind::repeat: {
        const std::optional<uint64_t> inner = count_launches(step.steps);
        if (!inner) return std::nullopt;
        if (*inner && step.count > (std::numeric_limits<uint64_t>::max() - n) / *inner) return std::nullopt;
        n += step.count * *inner;
        break;
      }
    }
  }
  return n;
}

std::string si(uint64_t n) {
  if (n < 1000) return std::to_string(n);
  if (n < 1'000'000) return fmt::format("{:.1f}k", double(n) / 1e3);
  if (n < 1'000'000'000) return fmt::format("{:.1f}M", double(n) / 1e6);
  return fmt::format("{:.2f}G", double(n) / 1e9);
}

}  // namespace

std::optional<uint64_t> planned_launches(const launch::Launch& launch) {
  if (!launch.is_sequence()) return 1;
  return count_launches(launch.steps);
}

std::string progress_text(const ProgressState& s) {
  std::string text = "simtlm: ";
  if (s.launches != 1) {
    text += s.launches ? fmt::format("launch {}/{}, ", s.launch + 1, *s.launches)
                       : fmt::format("launch {}, ", s.launch + 1);
  }
  const double launch_fraction = s.total ? double(s.done) / double(s.total) : 0.0;
  text += fmt::format("CTAs {}/{} ({:.1f}%), {} elapsed, ", s.done, s.total, 100.0 * launch_fraction,
                      duration_text(s.elapsed));
  // The fraction of the whole run: launches of a sequence count alike, as nothing tells their sizes ahead.
  const double fraction =
      s.launches && *s.launches ? (double(s.launch) + launch_fraction) / double(*s.launches) : 0.0;
  if (s.finished || fraction >= 1) {
    text += "done";
  } else if (fraction <= 0) {
    text += "? left";
  } else {
    text += fmt::format("~{} left", duration_text(s.elapsed * (1 - fraction) / fraction));
  }
  // Counts last: a narrow terminal cuts the line's end.
  text += fmt::format(", {} thread instr", si(s.thread_instructions));
  if (s.cycle) text += fmt::format(", {} cycles", si(*s.cycle));
  return text;
}

ProgressLine::ProgressLine(ProgressStyle style, bool timing, std::optional<uint64_t> launches, int fd)
    : style_(style), timing_(timing), fd_(fd) {
  state_.launches = launches;
  // A line longer than the terminal wraps, and '\r' then rewrites only its last row.
  winsize size{};
  if (style_ == ProgressStyle::terminal && ioctl(fd_, TIOCGWINSZ, &size) == 0 && size.ws_col > 1)
    columns_ = size.ws_col;
}

ProgressLine::~ProgressLine() {
  erase();
}

void ProgressLine::launch_started(uint64_t index, uint64_t ctas) {
  const Clock::time_point now = Clock::now();
  if (!started_) {
    started_ = true;
    start_ = last_shown_ = now;
  }
  instructions_before_ += launch_instructions_;
  launch_instructions_ = 0;
  state_.launch = index;
  state_.done = 0;
  state_.total = ctas;
}

void ProgressLine::cta_done(uint64_t done, uint64_t total, uint64_t thread_instructions, uint64_t cycle) {
  state_.done = done;
  state_.total = total;
  launch_instructions_ = thread_instructions;
  if (timing_) state_.cycle = cycle;
  if (style_ == ProgressStyle::off) return;
  const Clock::time_point now = Clock::now();
  if (std::chrono::duration<double>(now - last_shown_).count() < kInterval) return;
  last_shown_ = now;
  show();
}

void ProgressLine::run_finished() {
  state_.finished = true;
  if (style_ == ProgressStyle::lines) {
    show();
  } else {
    erase();
  }
}

void ProgressLine::show() {
  if (style_ == ProgressStyle::off) return;
  state_.thread_instructions = instructions_before_ + launch_instructions_;
  state_.elapsed = started_ ? std::chrono::duration<double>(Clock::now() - start_).count() : 0.0;
  const std::string text = progress_text(state_);
  ++updates_;
  if (style_ == ProgressStyle::lines) {
    write_text(text + "\n");
    return;
  }
  // Spaces, not an escape sequence, wipe the rest of a longer earlier line: any terminal understands them.
  const std::string_view shown = std::string_view(text).substr(0, columns_ - 1);
  std::string line(1, '\r');
  line += shown;
  if (shown.size() < shown_width_) line.append(shown_width_ - shown.size(), ' ');
  shown_width_ = shown.size();
  write_text(line);
}

void ProgressLine::erase() {
  if (style_ != ProgressStyle::terminal || shown_width_ == 0) return;
  std::string blank(shown_width_ + 2, ' ');
  blank.front() = blank.back() = '\r';
  write_text(blank);
  shown_width_ = 0;
}

void ProgressLine::write_text(const std::string& text) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a closed or full stderr must not stop the run
    written += static_cast<size_t>(n);
  }
}

}  // namespace simtlm::sim
