#include "sweep/sweep_progress.hpp"

#include <fmt/format.h>
namespace simtlm::sweep {

SweepProgress::SweepProgress(ProgressStyle style, std::FILE* out)
    : out_(out), start_(std::chrono::steady_clock::now()), last_(start_) {
  active_ = style != ProgressStyle::off;
  terminal_ = style == ProgressStyle::terminal;
}

std::string SweepProgress::line(const SweepTally& t, double elapsed) {
  std::string text = fmt::format("sweep: {}/{} done, {} failed, {} running; {} elapsed", t.done, t.total,
                                 t.failed, t.running, duration_text(elapsed));
  const size_t finished = t.done + t.failed;
  // The jobs finished so far set the pace; with none finished there is nothing to go by.
  if (finished > 0 && finished < t.total)
    text += ", ~" + duration_text(elapsed / double(finished) * double(t.total - finished)) + " left";
  if (!t.note.empty()) text += "; " + t.note;
  return text;
}

void SweepProgress::update(const SweepTally& tally, bool force) {
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (!force && printed_ && since < (terminal_ ? 0.5 : 5.0)) return;
  last_ = now;
  printed_ = true;
  const std::string text = line(tally, std::chrono::duration<double>(now - start_).count());
  if (terminal_) {
    fmt::print(out_, "\r\033[K{}", text);
  } else {
    fmt::print(out_, "{}\n", text);
  }
  std::fflush(out_);
}

void SweepProgress::finish(const SweepTally& tally) {
  if (!active_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  fmt::print(out_, "{}{}\n", terminal_ ? "\r\033[K" : "", line(tally, elapsed));
  std::fflush(out_);
}

}  // namespace simtlm::sweep
