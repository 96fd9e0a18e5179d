// Output sets (models/launch/output_dir.*): staging, the swap, the lock, the checks made before a simulation
// and write errors. scripts/check-output-faults kills and starves real runs.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "models/launch/output_dir.hpp"

namespace {

namespace fs = std::filesystem;
using simtlm::launch::OutputError;
using simtlm::launch::OutputSet;
using simtlm::launch::OutputWriteError;
using simtlm::launch::write_file_checked;

std::vector<uint8_t> bytes(const std::string& text) {
  return {text.begin(), text.end()};
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> names(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

class OutputSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("simtlm_output_dir_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    fs::create_directories(base_);
    dir_ = base_ / "out";
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(base_, fs::perms::owner_all, fs::perm_options::add, ec);
    for (fs::recursive_directory_iterator it(base_, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory() && !it->is_symlink())
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(base_, ec);
  }
  // A committed set of the given files, as a run would leave it.
  void commit(const std::vector<std::pair<std::string, std::string>>& files) {
    OutputSet set(dir_);
    set.write_and_commit([&](const fs::path& staging) {
      for (const auto& [name, text] : files) write_file_checked(staging / name, bytes(text));
    });
  }
  fs::path base_, dir_;
};

TEST_F(OutputSetTest, ANewDirectoryAppearsWholeWithItsMarker) {
  OutputSet set(dir_);
  EXPECT_FALSE(fs::exists(dir_));
  EXPECT_EQ(set.staging().parent_path(), fs::canonical(base_));
  EXPECT_TRUE(
      set.staging().filename().string().starts_with("out.simtlm-stage-" + std::to_string(::getpid())));
  EXPECT_EQ(names(base_), (std::vector<std::string>{"out.simtlm-lock", set.staging().filename().string()}));
  set.write_and_commit([](const fs::path& staging) { write_file_checked(staging / "y.bin", bytes("new")); });
  EXPECT_EQ(names(dir_), (std::vector<std::string>{".simtlm-outputs", "y.bin"}));
  EXPECT_EQ(read(dir_ / "y.bin"), "new");
  EXPECT_EQ(names(base_),
            (std::vector<std::string>{"out", "out.simtlm-lock"}));  // the lock until destruction
}

TEST_F(OutputSetTest, TheNextRunReplacesTheSetWhole) {
  commit({{"a.bin", "old a"}, {"b.bin", "old b"}});
  commit({{"c.bin", "new c"}});
  EXPECT_EQ(names(dir_), (std::vector<std::string>{".simtlm-outputs", "c.bin"}));
  EXPECT_EQ(names(base_), (std::vector<std::string>{"out"}));  // no staging, no old set, no lock
}

TEST_F(OutputSetTest, AFailedWriteKeepsThePreviousSetAndNamesTheDirectory) {
  commit({{"y.bin", "old"}});
  fs::path staged;
  const std::string message = message_of([&] {
    OutputSet set(dir_);
    staged = set.staging();
    set.write_and_commit([](const fs::path& staging) {
      write_file_checked(staging / "y.bin", bytes("new"));
      write_file_checked(staging / "missing" / "z.bin", bytes("new"));
    });
  });
  EXPECT_EQ(message, "cannot create " + dir_.string() +
                         "/missing/z.bin: No such file or directory; the previous outputs in " +
                         dir_.string() + " are unchanged");
  EXPECT_EQ(read(dir_ / "y.bin"), "old");
  EXPECT_FALSE(fs::exists(staged));
  EXPECT_EQ(names(base_), (std::vector<std::string>{"out"}));
}

TEST_F(OutputSetTest, WithoutACommitNothingChanges) {
  commit({{"y.bin", "old"}});
  {
    OutputSet set(dir_);
    write_file_checked(set.staging() / "y.bin", bytes("half"));
  }  // a run that threw before writing its outputs
  EXPECT_EQ(read(dir_ / "y.bin"), "old");
  EXPECT_EQ(names(base_), (std::vector<std::string>{"out"}));
}

TEST_F(OutputSetTest, ASecondRunIsRefusedWithTheOwnersDescription) {
  commit({{"y.bin", "old"}});
  std::string message;
  {
    OutputSet first(dir_);
    message = message_of([&] { OutputSet second(dir_); });
    EXPECT_EQ(names(base_).size(), 3u) << "the refused run must not touch the first one's staging";
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_TRUE(message.starts_with(dir_.string() +
                                  ": another simtlm run is writing this output directory (pid " +
                                  std::to_string(::getpid()) + " on host " + host + ", started "))
      << message;
  const std::string program = read("/proc/self/cmdline").c_str();  // argv[0]
  EXPECT_NE(message.find("started "), std::string::npos) << message;
  EXPECT_NE(message.find(": " + program), std::string::npos) << "the owner's command line: " << message;
  EXPECT_TRUE(message.ends_with("(lock " + (fs::canonical(base_) / "out.simtlm-lock").string() + ")"))
      << message;
  commit({{"z.bin", "after"}});  // the lock went with its owner
  EXPECT_EQ(names(dir_), (std::vector<std::string>{".simtlm-outputs", "z.bin"}));
}

TEST_F(OutputSetTest, LeftoversOfAKilledRunGoAtTheNextStart) {
  commit({{"y.bin", "old"}});
  // What kill -9 leaves: a staging directory with part of a set, and the lock file (its flock died with it).
  fs::create_directories(base_ / "out.simtlm-stage-4194304-AbCdEf" / "sub");
  write_file_checked(base_ / "out.simtlm-stage-4194304-AbCdEf" / "sub" / "y.bin", bytes("partial"));
  write_file_checked(base_ / "out.simtlm-lock", bytes("pid 4194304 on host h, started then: simtlm run\n"));
  fs::create_directories(base_ / "other.simtlm-stage-1-AbCdEf");  // another directory's: not ours to remove
  commit({{"z.bin", "new"}});
  EXPECT_EQ(names(base_), (std::vector<std::string>{"other.simtlm-stage-1-AbCdEf", "out"}));
  EXPECT_EQ(names(dir_), (std::vector<std::string>{".simtlm-outputs", "z.bin"}));
}

TEST_F(OutputSetTest, TheFallbackSwapAndItsWindowRecover) {
  commit({{"y.bin", "old"}});
  const fs::path staging = base_ / "staged";
  fs::create_directories(staging);
  write_file_checked(staging / "y.bin", bytes("new"));
  const fs::path aside = simtlm::launch::output_set_detail::swap_into_place(staging, dir_, false);
  EXPECT_TRUE(aside.filename().string().starts_with("out.simtlm-old-"));
  EXPECT_EQ(read(dir_ / "y.bin"), "new");
  EXPECT_EQ(read(aside / "y.bin"), "old");
  EXPECT_FALSE(fs::exists(staging));
  // A run killed between the fallback's two renames: DIR missing, the previous set aside. The next run puts
  // it back before it checks DIR, then replaces it as usual.
  fs::remove_all(dir_);
  {
    OutputSet set(dir_);
    EXPECT_EQ(read(dir_ / "y.bin"), "old");
  }
  EXPECT_EQ(names(base_), (std::vector<std::string>{"out"}));
}

TEST_F(OutputSetTest, OutProblemsAreFoundBeforeAnythingRuns) {
  write_file_checked(base_ / "file", bytes("x"));
  EXPECT_EQ(message_of([&] { OutputSet set(base_ / "file"); }),
            (base_ / "file").string() + ": exists and is not a directory");
  EXPECT_EQ(message_of([&] { OutputSet set(base_ / "file" / "out"); }),
            (base_ / "file" / "out").string() + ": cannot create its parent directory " +
                (fs::canonical(base_) / "file").string() + ": Not a directory");
  fs::create_directories(base_ / "notes");
  write_file_checked(base_ / "notes" / "results.md", bytes("mine"));
  write_file_checked(base_ / "notes" / "y.bin", bytes("mine"));
  EXPECT_EQ(
      message_of([&] { OutputSet set(base_ / "notes"); }),
      (base_ / "notes").string() +
          ": holds files simtlm did not write (such as 'results.md'); simtlm replaces its output directory "
          "as a whole, so give --out a new or empty directory, or one an earlier run wrote");
  EXPECT_EQ(read(base_ / "notes" / "results.md"), "mine");
  EXPECT_EQ(names(base_), (std::vector<std::string>{"file", "notes"}));  // no lock, no staging left
  const fs::path cwd = fs::current_path();
  fs::current_path(base_ / "notes");
  const std::string here = message_of([&] { OutputSet set("."); });
  const std::string above = message_of([&] { OutputSet set(".."); });
  fs::current_path(cwd);
  EXPECT_EQ(here,
            ".: is the current directory or contains it; simtlm replaces its output directory as a whole, "
            "so give --out a directory of its own");
  EXPECT_TRUE(above.starts_with("..: is the current directory or contains it")) << above;
  EXPECT_EQ(message_of([&] { OutputSet set("/"); }),
            "/: is the root directory; give --out a directory of its own");
}

// "" when an unwritable parent and an unwritable DIR are refused with the expected messages, else what went
// wrong.
std::string check_unwritable(const fs::path& base) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {(base / "locked" / "out").string(),
       (base / "locked" / "out").string() + ": its parent directory " +
           (fs::canonical(base) / "locked").string() +
           " is not writable (Permission denied); the outputs are staged next to " +
           (base / "locked" / "out").string()},
      {(base / "frozen").string(),
       (base / "frozen").string() +
           ": is not writable (Permission denied); the next run removes the files of the previous one"}};
  fs::create_directories(base / "locked");
  fs::permissions(base / "locked", fs::perms::owner_read | fs::perms::owner_exec);
  fs::create_directories(base / "frozen");
  write_file_checked(base / "frozen" / simtlm::launch::kOutputSetMarker, bytes(""));
  fs::permissions(base / "frozen", fs::perms::owner_read | fs::perms::owner_exec);
  for (const auto& [dir, expected] : cases) {
    const fs::path& where = dir;  // clang 14 cannot capture a structured binding
    const std::string message = message_of([&] { OutputSet set(where); });
    if (message != expected) return "expected \"" + expected + "\", got \"" + message + "\"";
  }
  if (fs::exists(base / "frozen.simtlm-lock")) return "the refused run left its lock";
  return "";
}

TEST_F(OutputSetTest, UnwritableDirectoriesAreFoundBeforeAnythingRuns) {
  if (::geteuid() != 0) {
    EXPECT_EQ(check_unwritable(base_), "");
    return;
  }
  // Root writes anywhere: the check runs as nobody in a child process.
  fs::permissions(base_, fs::perms::all);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    const std::string problem = check_unwritable(base_);
    if (!problem.empty()) std::fprintf(stderr, "%s\n", problem.c_str());
    ::_exit(problem.empty() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "(2: could not become nobody; 1: see the message above)";
}

TEST_F(OutputSetTest, OutputsOfVersionsBeforeTheMarkerAreReplaced) {
  using simtlm::launch::output_set_detail::looks_like_unmarked_outputs;
  fs::create_directories(dir_ / "mandelbrot");
  for (const char* name : {"stats.json", "y.bin", "y.npy", "y.bin.tmp4242", "mandelbrot/stats.json"}) {
    write_file_checked(dir_ / name, bytes("old"));
  }
  EXPECT_TRUE(looks_like_unmarked_outputs(dir_));
  write_file_checked(dir_ / "mandelbrot" / ".simtlm-outputs", bytes(""));  // an independent set inside
  EXPECT_FALSE(looks_like_unmarked_outputs(dir_));
  fs::remove(dir_ / "mandelbrot" / ".simtlm-outputs");
  write_file_checked(dir_ / "y.bin.tmp42x", bytes("not a temporary of ours"));
  EXPECT_FALSE(looks_like_unmarked_outputs(dir_));
  fs::remove(dir_ / "y.bin.tmp42x");
  commit({{"z.bin", "new"}});
  EXPECT_EQ(names(dir_), (std::vector<std::string>{".simtlm-outputs", "z.bin"}));
}

// A folder of the user's that happens to hold a stats.json is not an earlier output set: replacing it would
// delete notes.txt. Only the names earlier versions wrote are accepted without the marker.
TEST_F(OutputSetTest, AUserFolderWithAStatsFileIsRefusedNamingTheForeignFile) {
  fs::create_directories(dir_);
  for (const char* name : {"stats.json", "notes.txt", "fig.png"})
    write_file_checked(dir_ / name, bytes("mine"));
  EXPECT_EQ(
      message_of([&] { OutputSet set(dir_); }),
      dir_.string() +
          ": holds files simtlm did not write (such as 'notes.txt'); simtlm replaces its output directory "
          "as a whole, so give --out a new or empty directory, or one an earlier run wrote");
  EXPECT_EQ(names(dir_), (std::vector<std::string>{"fig.png", "notes.txt", "stats.json"}));
  EXPECT_EQ(names(base_), (std::vector<std::string>{"out"}));
}

TEST_F(OutputSetTest, OnlyTheNamesEarlierVersionsWroteCountAsTheirOutputs) {
  using simtlm::launch::output_set_detail::looks_like_unmarked_outputs;
  // What `simtlm demo` of the earlier version left: top-level images, per-workload sets, a temporary.
  fs::create_directories(dir_ / "gaussian");
  for (const char* name : {"compare.json", "paths.jsonl", "mandelbrot.png", "julia-out_img.png",
                           "gaussian/stats.json", "gaussian/m_a.bin", "gaussian/m_a.npy", "gaussian/img.pgm",
                           "gaussian/img.png", "gaussian/stats.json.tmp77"}) {
    write_file_checked(dir_ / name, bytes("old"));
  }
  EXPECT_TRUE(looks_like_unmarked_outputs(dir_));
  for (const char* foreign : {"data.json", "trace.txt", "wave.vcd", "fig.pdf", "my data.bin", "2x.npy",
                              "notes.txt.tmp12", "gaussian/a-b.png", "gaussian/notes.md", "a-b-c.png"}) {
    write_file_checked(dir_ / foreign, bytes("mine"));
    EXPECT_FALSE(looks_like_unmarked_outputs(dir_)) << foreign;
    fs::remove(dir_ / foreign);
  }
  fs::create_directories(dir_ / "gaussian" / "deeper");
  EXPECT_FALSE(looks_like_unmarked_outputs(dir_));
  EXPECT_EQ(message_of([&] { OutputSet set(dir_); }),
            dir_.string() +
                ": holds files simtlm did not write (such as 'gaussian/deeper'); simtlm replaces its output "
                "directory as a whole, so give --out a new or empty directory, or one an earlier run wrote");
}

TEST_F(OutputSetTest, AFileSizeLimitGivesAClearErrorAndKeepsThePreviousSet) {
  commit({{"y.bin", "old"}});
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  std::string message;
  {
    OutputSet set(dir_);  // ignores SIGXFSZ, which would otherwise kill this process
    rlimit small = saved;
    small.rlim_cur = 64 * 1024;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    message = message_of([&] {
      set.write_and_commit([](const fs::path& staging) {
        write_file_checked(staging / "y.bin", std::vector<uint8_t>(1 << 20));
      });
    });
    setrlimit(RLIMIT_FSIZE, &saved);
  }
  EXPECT_EQ(message, "cannot write " + dir_.string() + "/y.bin: File too large; the previous outputs in " +
                         dir_.string() + " are unchanged");
  EXPECT_EQ(read(dir_ / "y.bin"), "old");
  EXPECT_EQ(names(base_), (std::vector<std::string>{"out"}));
}

TEST_F(OutputSetTest, TracesInsideTheDirectoryJoinTheSet) {
  OutputSet set(dir_);
  EXPECT_EQ(set.redirect(dir_ / "wave.vcd"), set.staging() / "wave.vcd");
  EXPECT_EQ(set.redirect(dir_ / "traces" / ".." / "traces" / "warps.txt"),
            set.staging() / "traces" / "warps.txt");
  EXPECT_EQ(set.redirect(base_ / "warps.txt"), base_ / "warps.txt");
  EXPECT_EQ(set.redirect(base_ / "out2" / "warps.txt"), base_ / "out2" / "warps.txt");
  EXPECT_EQ(set.redirect(""), fs::path());
}

TEST_F(OutputSetTest, ASymbolicLinkKeepsPointingAtTheNewSetWithTheOldPermissions) {
  const fs::path real = base_ / "real";
  dir_ = real;
  commit({{"y.bin", "old"}});
  fs::permissions(real, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  fs::create_directory_symlink(real, base_ / "link");
  dir_ = base_ / "link";
  commit({{"z.bin", "new"}});
  EXPECT_TRUE(fs::is_symlink(base_ / "link"));
  EXPECT_EQ(read(real / "z.bin"), "new");
  EXPECT_FALSE(fs::exists(real / "y.bin"));
  EXPECT_EQ(fs::status(real).permissions(),
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  EXPECT_EQ(names(base_), (std::vector<std::string>{"link", "real"}));
}

}  // namespace
