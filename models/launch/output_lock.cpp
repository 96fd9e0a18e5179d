#include "models/launch/output_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <thread>

#include "models/launch/output_dir.hpp"

namespace simtlm::launch {

namespace fs = std::filesystem;

namespace {

std::string this_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0' || c == '\n') c = ' ';
  }
  constexpr size_t kLongest = 400;
  if (raw.size() > kLongest) raw = raw.substr(0, kLongest) + " ...";
  return raw.empty() ? "(unknown command)" : raw;
}

// The owner writes its description just after taking the lock: a reader that comes in between sees an empty
// file for a moment, so it asks again briefly.
std::string read_owner(const fs::path& path) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
    if (!text.empty()) return text;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "an owner that has not described itself yet";
}

}  // namespace

std::string describe_this_process() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "?");
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return fmt::format("pid {} on host {}, started {}: {}", ::getpid(), host, when, this_command_line());
}

OutputLock::OutputLock(const fs::path& lock_file, const fs::path& dir) : path_(lock_file) {
  // A holder removes the file before it lets go, so a lock taken on a file that is no longer at the path is
  // worthless: compare inodes and try again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      throw OutputError(fmt::format("{}: cannot create the lock file {}: {}", dir.string(), path_.string(),
                                    std::strerror(errno)));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd);
      if (error == EWOULDBLOCK) {
        throw OutputError(fmt::format(
            "{}: another simtlm run is writing this output directory ({}); wait for it to end or give "
            "another --out (lock {})",
            dir.string(), read_owner(path_), path_.string()));
      }
      throw OutputError(
          fmt::format("{}: cannot lock {}: {}", dir.string(), path_.string(), std::strerror(error)));
    }
    struct stat held = {};
    struct stat named = {};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      fd_ = fd;
      // Without the description the lock still holds; a refused run then says the owner did not describe
      // itself.
      const std::string owner = describe_this_process() + "\n";
      const bool described =
          ::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, owner.data(), owner.size(), 0) == ssize_t(owner.size());
      (void)described;
      return;
    }
    ::close(fd);
  }
  throw OutputError(
      fmt::format("{}: cannot take the lock {}: it keeps being replaced", dir.string(), path_.string()));
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace simtlm::launch
