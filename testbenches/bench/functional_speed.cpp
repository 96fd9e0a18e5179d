// Functional-mode speed on the workload suite: thread instructions per host second, on one core.
// Not a test: it prints a table and a JSON document (scripts/bench writes it to docs/bench/).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "workloads/reference/reference.hpp"

namespace fs = std::filesystem;
using namespace simtlm;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s WORKLOADS_DIR [REPEATS] [JSON_OUT]\n", argv[0]);
    return 2;
  }
  const fs::path dir = argv[1];
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  std::vector<fs::path> launches;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.path().extension() == ".yaml" && entry.path().parent_path().parent_path() == dir)
      launches.push_back(entry.path());
  std::sort(launches.begin(), launches.end());

  nlohmann::json doc;
  doc["repeats"] = repeats;
  uint64_t total_threads = 0;
  double total_seconds = 0;
  fmt::print("{:<24} {:>14} {:>12} {:>10}\n", "workload", "thread instr", "best s", "Minstr/s");
  for (const auto& path : launches) {
    try {
      launch::SessionOptions options;
      options.capture_printf = true;
      options.find_reference = workloads::find_reference;
      launch::Launch launch = launch::load_launch(path);
      // A launch sequence (launches:) is timed as a whole, from its first host write to its last kernel.
      std::unique_ptr<launch::Session> single;
      std::unique_ptr<launch::SequenceSession> sequence;
      if (launch.is_sequence()) {
        sequence = std::make_unique<launch::SequenceSession>(std::move(launch), options);
      } else {
        single = std::make_unique<launch::Session>(std::move(launch), options);
      }
      double best = 1e30;
      uint64_t threads = 0;
      for (int r = 0; r < repeats; ++r) {
        const launch::SessionResult result = sequence ? sequence->run() : single->run();
        best = std::min(best, result.wall_seconds);
        threads = result.stats.thread_instructions;
      }
      total_threads += threads;
      total_seconds += best;
      const double rate = threads / best / 1e6;
      fmt::print("{:<24} {:>14} {:>12.4f} {:>10.1f}\n", path.stem().string(), threads, best, rate);
      doc["workloads"][path.stem().string()] = {
          {"thread_instructions", threads}, {"seconds", best}, {"mips", rate}};
    } catch (const std::exception& e) {
      fmt::print("{:<24} error: {}\n", path.stem().string(), e.what());
      doc["workloads"][path.stem().string()] = {{"error", e.what()}};
    }
  }
  const double overall = total_seconds > 0 ? total_threads / total_seconds / 1e6 : 0;
  fmt::print("{:<24} {:>14} {:>12.4f} {:>10.1f}\n", "suite", total_threads, total_seconds, overall);
  doc["suite"] = {{"thread_instructions", total_threads}, {"seconds", total_seconds}, {"mips", overall}};
  if (argc > 3) {
    std::FILE* f = std::fopen(argv[3], "w");
    if (!f) return 1;
    std::fputs(doc.dump(2).c_str(), f);
    std::fputs("\n", f);
    std::fclose(f);
  }
  return 0;
}
