// `simtlm run`'s progress line (sim/progress.*): it must change no statistic and no output in either mode,
// --progress prints it as plain lines to a stderr that is no terminal, --quiet silences it, a terminal gets
// one line rewritten with '\r' and erased at the end, and a timing run in a forked child shows it once.
// The command-line tests run the simtlm binary next to this program (SIMTLM_BINARY).
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "models/launch/launch.hpp"
#include "sim/progress.hpp"
#include "sim/timing_child.hpp"
#include "workloads/reference/reference.hpp"

namespace simtlm {
namespace {

namespace fs = std::filesystem;

fs::path source(const std::string& relative) {
  return fs::path(SIMTLM_SOURCE_DIR) / relative;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Command {
  int status = -1;
  std::string out, err;
};

class ProgressCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/simtlm-progress-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Runs `simtlm run ARGS` with stdout in a file and stderr in a file, or on a new terminal with `pty`.
  Command simtlm(const std::vector<std::string>& args, bool pty = false) {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    int master = -1, slave = -1;
    if (pty && openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
      const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = pty ? slave : open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
      std::vector<std::string> all = {SIMTLM_BINARY, "run"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (std::string& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
      execv(SIMTLM_BINARY, argv.data());
      _exit(127);
    }
    Command run;
    if (pty) {
      close(slave);
      char buffer[4096];
      for (;;) {  // until the child's end closes the terminal (EIO)
        const ssize_t n = read(master, buffer, sizeof buffer);
        if (n <= 0) break;
        run.err.append(buffer, static_cast<size_t>(n));
      }
      close(master);
    }
    waitpid(pid, &run.status, 0);
    run.out = read_text(out);
    if (!pty) run.err = read_text(err);
    return run;
  }

  // stats.json without its `host` section (wall-clock figures), as text.
  std::string stats_without_host(const fs::path& out) {
    nlohmann::json doc = nlohmann::json::parse(read_text(out / "stats.json"));
    doc.erase("host");
    return doc.dump(2);
  }

  // The same launch with and without --progress: stats.json (less host) and every output identical.
  void expect_same_results(const std::vector<std::string>& args, const std::string& output) {
    std::vector<std::string> plain = args, shown = args;
    plain.insert(plain.end(), {"--out", (dir_ / "plain").string()});
    shown.insert(shown.end(), {"--out", (dir_ / "shown").string(), "--progress"});
    const Command a = simtlm(plain);
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_EQ(a.err, "");
    const Command b = simtlm(shown);
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_NE(b.err.find("simtlm: "), std::string::npos) << b.err;
    EXPECT_EQ(stats_without_host(dir_ / "plain"), stats_without_host(dir_ / "shown"));
    EXPECT_EQ(read_text(dir_ / "plain" / output), read_text(dir_ / "shown" / output));
    EXPECT_FALSE(read_text(dir_ / "plain" / output).empty());
  }

  // Mandelbrot at 512 x 512 pixels (four times the workload's work): long enough in timing mode (over a
  // second here, and the terminal shows the line from 0.2 s on) that a faster simulator still shows it.
  std::string large_mandelbrot() {
    const fs::path file = dir_ / "mandelbrot-512.yaml";
    std::ofstream(file) << "ptx: " << source("workloads/mandelbrot/mandelbrot.ptx").string() << "\n"
                        << "kernel: mandelbrot\ngrid: [32, 32, 1]\nblock: [16, 16, 1]\n"
                        << "buffers:\n  iterations: {type: u8, count: 262144, init: zeros}\n"
                        << "params: [iterations, 512, 512, 64, -2.0, -1.5, 0.005859375]\n"
                        << "outputs: [iterations]\n";
    return file.string();
  }

  fs::path dir_;
};

const std::string kMandelbrot = source("workloads/mandelbrot/mandelbrot.yaml").string();
const std::string kGaussian = source("workloads/gaussian/gaussian.yaml").string();
const std::string kFermi = source("configs/fermi-slp.yaml").string();

TEST_F(ProgressCli, FunctionalStatsAndOutputsAreIdenticalWithProgress) {
  expect_same_results({"--launch", kMandelbrot}, "iterations.bin");
}

TEST_F(ProgressCli, TimingStatsAndOutputsAreIdenticalWithProgress) {
  expect_same_results({"--launch", kMandelbrot, "--config", kFermi}, "iterations.bin");
}

TEST_F(ProgressCli, TimingSequenceStatsAndOutputsAreIdenticalWithProgress) {
  expect_same_results({"--launch", kGaussian, "--config", kFermi}, "a.bin");
}

// Mandelbrot's grid is 16 x 16 CTAs: every line names the total, the last one all of them done.
TEST_F(ProgressCli, ProgressPrintsPlainLinesNamingTheCtaTotal) {
  const Command run =
      simtlm({"--launch", kMandelbrot, "--config", kFermi, "--out", (dir_ / "o").string(), "--progress"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err.find('\r'), std::string::npos);
  const std::vector<std::string> lines = split_lines(run.err);
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) {
    EXPECT_EQ(line.rfind("simtlm: CTAs ", 0), 0u) << line;
    EXPECT_NE(line.find("/256 ("), std::string::npos) << line;
    EXPECT_TRUE(line.ends_with(" cycles")) << line;
    EXPECT_EQ(line.find("launch "), std::string::npos) << line;  // one launch: not named
  }
  // The last line counts what stats.json does.
  const nlohmann::json stats = nlohmann::json::parse(read_text(dir_ / "o" / "stats.json"));
  const double instructions = double(stats["thread_instructions"].get<uint64_t>());
  EXPECT_EQ(lines.back().rfind("simtlm: CTAs 256/256 (100.0%), ", 0), 0u) << lines.back();
  EXPECT_NE(lines.back().find(fmt::format(" elapsed, done, {:.1f}M thread instr, ", instructions / 1e6)),
            std::string::npos)
      << lines.back();
  // The summary on stdout is unchanged.
  EXPECT_NE(run.out.find("kernel mandelbrot on fermi-slp.yaml (timing)"), std::string::npos) << run.out;
}

// Functional mode has no cycles; a sequence names its launch out of the count its repeat steps make.
TEST_F(ProgressCli, FunctionalSequenceNamesTheLaunchOfItsCount) {
  const Command run = simtlm({"--launch", kGaussian, "--out", (dir_ / "o").string(), "--progress"});
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<std::string> lines = split_lines(run.err);
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) EXPECT_EQ(line.find("cycles"), std::string::npos) << line;
  const auto launches = sim::planned_launches(launch::load_launch(kGaussian));
  ASSERT_TRUE(launches.has_value());
  EXPECT_EQ(lines.back().rfind(fmt::format("simtlm: launch {0}/{0}, CTAs ", *launches), 0), 0u)
      << lines.back();
}

TEST_F(ProgressCli, QuietPrintsNothingEvenWithProgress) {
  const Command run = simtlm(
      {"--launch", kMandelbrot, "--config", kFermi, "--out", (dir_ / "o").string(), "--progress", "--quiet"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out, "");
  EXPECT_TRUE(fs::exists(dir_ / "o" / "stats.json"));
}

TEST_F(ProgressCli, NoProgressOnAFileWithoutTheFlag) {
  const Command run = simtlm({"--launch", kMandelbrot, "--out", (dir_ / "o").string()});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
}

// On a terminal: the line is rewritten with '\r' (never a newline of its own) and erased at the end.
TEST_F(ProgressCli, TerminalGetsOneLineRewrittenAndErased) {
  const Command run =
      simtlm({"--launch", large_mandelbrot(), "--config", kFermi, "--out", (dir_ / "o").string()}, true);
  ASSERT_EQ(run.status, 0) << run.err;
  ASSERT_NE(run.err.find("\rsimtlm: CTAs "), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\n'), std::string::npos) << run.err;
  const size_t last = run.err.rfind('\r');
  ASSERT_NE(last, std::string::npos);
  EXPECT_EQ(last, run.err.size() - 1);  // erased: blanks between the last two '\r'
  const size_t before = run.err.rfind('\r', last - 1);
  EXPECT_EQ(run.err.substr(before + 1, last - before - 1).find_first_not_of(' '), std::string::npos);
}

// A run that fails after the line was shown erases it before the error message: the budget is three
// quarters of the kernel's thread instructions, so the timing run stops after most of its work.
TEST_F(ProgressCli, TerminalLineIsErasedBeforeAnErrorMessage) {
  const std::string launch = large_mandelbrot();
  const Command functional = simtlm({"--launch", launch, "--out", (dir_ / "f").string()});
  ASSERT_EQ(functional.status, 0) << functional.err;
  const auto instructions =
      nlohmann::json::parse(read_text(dir_ / "f" / "stats.json"))["thread_instructions"];
  const Command run = simtlm({"--launch", launch, "--config", kFermi, "--out", (dir_ / "o").string(),
                              "--budget", std::to_string(instructions.get<uint64_t>() / 4 * 3)},
                             true);
  EXPECT_NE(run.status, 0);
  const size_t error = run.err.find("simtlm: error: ");
  ASSERT_NE(error, std::string::npos) << run.err;
  ASSERT_NE(run.err.find("\rsimtlm: CTAs "), std::string::npos) << run.err;  // the line was shown
  ASSERT_GE(error, 2u);
  ASSERT_EQ(run.err[error - 1], '\r') << run.err;
  const size_t before = run.err.rfind('\r', error - 2);
  ASSERT_NE(before, std::string::npos);
  EXPECT_EQ(run.err.substr(before + 1, error - before - 2).find_first_not_of(' '), std::string::npos)
      << run.err;
}

// sim::run_timing_in_child runs the model in a forked child: the child's display writes the lines, the
// parent's copy writes none, so the last line appears exactly once.
TEST(ProgressChild, TimingRunInAChildShowsTheLastLineOnce) {
  char name[] = "/tmp/simtlm-progress-child-XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  launch::SessionOptions options;
  options.find_reference = workloads::find_reference;
  options.progress = std::make_shared<sim::ProgressLine>(sim::ProgressStyle::lines, true, 1, fd);
  const nlohmann::json r = sim::run_timing_in_child(launch::load_launch(kMandelbrot), options,
                                                    config::MachineConfig::load(kFermi));
  options.progress.reset();
  close(fd);
  const std::string text = read_text(name);
  fs::remove(name);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  size_t finals = 0;
  for (const std::string& line : split_lines(text))
    finals += line.find("CTAs 256/256 (100.0%)") != std::string::npos;
  EXPECT_EQ(finals, 1u) << text;
}

TEST(ProgressText, EstimatesTheTimeLeftFromTheDoneFraction) {
  sim::ProgressState s;
  s.done = 64;
  s.total = 256;
  s.thread_instructions = 1'234'567;
  s.cycle = 45'600;
  s.elapsed = 3.0;
  EXPECT_EQ(sim::progress_text(s),
            "simtlm: CTAs 64/256 (25.0%), 3.0 s elapsed, ~9.0 s left, 1.2M thread instr, 45.6k cycles");
  s.done = 0;
  s.cycle.reset();
  EXPECT_EQ(sim::progress_text(s), "simtlm: CTAs 0/256 (0.0%), 3.0 s elapsed, ? left, 1.2M thread instr");
  s.done = 256;
  EXPECT_EQ(sim::progress_text(s), "simtlm: CTAs 256/256 (100.0%), 3.0 s elapsed, done, 1.2M thread instr");
}

TEST(ProgressText, SequenceLaunchesWeighAlikeAndAnUnknownCountHasNoEstimate) {
  sim::ProgressState s;
  s.launch = 2;  // the third of four: half of it done, so 2.5 of 4 launches
  s.launches = 4;
  s.done = 8;
  s.total = 16;
  s.thread_instructions = 999;
  s.elapsed = 125;
  EXPECT_EQ(sim::progress_text(s),
            "simtlm: launch 3/4, CTAs 8/16 (50.0%), 2m05s elapsed, ~1m15s left, 999 thread instr");
  s.launches.reset();
  EXPECT_EQ(sim::progress_text(s),
            "simtlm: launch 3, CTAs 8/16 (50.0%), 2m05s elapsed, ? left, 999 thread instr");
  s.finished = true;  // the last line of a run whose launch count was unknown
  EXPECT_EQ(sim::progress_text(s),
            "simtlm: launch 3, CTAs 8/16 (50.0%), 2m05s elapsed, done, 999 thread instr");
}

TEST(ProgressText, LaunchCountIsKnownUnlessALoopDependsOnDeviceData) {
  EXPECT_EQ(sim::planned_launches(launch::load_launch(kMandelbrot)), std::optional<uint64_t>(1));
  EXPECT_EQ(sim::planned_launches(launch::load_launch(kGaussian)), std::optional<uint64_t>(1 + 2 * 63));
  EXPECT_EQ(sim::planned_launches(launch::load_launch(source("workloads/bfs_graph/bfs_graph.yaml"))),
            std::nullopt);
}

}  // namespace
}  // namespace simtlm
