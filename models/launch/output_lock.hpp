// The lock of an output directory: an exclusive flock on DIR.simtlm-lock. The kernel releases it when its
// owner exits in any way, kill -9 included, so a dead owner never blocks the next run. The file describes
// the owner (pid, host, start time, command) for the message a refused run prints.
#pragma once

#include <filesystem>
#include <string>

namespace simtlm::launch {

class OutputLock {
 public:
  // Takes the lock without waiting; throws OutputError naming `dir` and the owner when another run holds it.
  OutputLock(const std::filesystem::path& lock_file, const std::filesystem::path& dir);
  // Removes the lock file while still holding the lock, then releases it.
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

// "pid P on host H, started T: COMMAND" of this process.
std::string describe_this_process();

}  // namespace simtlm::launch
