// The output directory of a run (--out), replaced as one set. Every writer writes into a staging directory
// next to DIR; commit swaps the staging directory and DIR in one rename, so after any interruption DIR holds
// the complete previous set or the complete new one, and the next run removes what an interrupted one left.
// A lock next to DIR refuses a second run into the same directory. Guarantees and their limits:
// docs/reliability.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace simtlm::launch {

// A problem with --out found before the simulation, or a refused second run.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A write into an output set failed (a full disk, RLIMIT_FSIZE, an I/O error): the set must not be committed.
class OutputWriteError : public OutputError {
 public:
  using OutputError::OutputError;
};

// Creates or truncates path and writes bytes; throws OutputWriteError naming path and the system's reason.
void write_file_checked(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// The file that marks a directory as a simtlm output set, which a later run may therefore replace whole.
inline constexpr const char* kOutputSetMarker = ".simtlm-outputs";
// Suffixes of the entries kept next to DIR (DIR + suffix).
inline constexpr const char* kLockSuffix = ".simtlm-lock";
inline constexpr const char* kStagingInfix = ".simtlm-stage-";
inline constexpr const char* kAsideInfix = ".simtlm-old-";

class OutputLock;

class OutputSet {
 public:
  // Checks DIR, takes its lock, removes what interrupted runs left and creates the staging directory; throws
  // OutputError naming the path. DIR must not be a file, a mount point, the current directory or above it,
  // and must be new, empty, or an earlier output set; missing parents are created.
  explicit OutputSet(const std::filesystem::path& dir);
  // Without a commit: removes the staging directory, so DIR keeps the previous set. Releases the lock.
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  const std::filesystem::path& staging() const { return staging_; }

  // Where to write a file the user named (--trace-vcd, --trace-warps): a path inside DIR goes to the same
  // place in the staging directory, so it joins the set; any other path is returned unchanged.
  std::filesystem::path redirect(const std::filesystem::path& file) const;

  // Runs write(staging()) and makes the staging directory DIR. If write throws or the commit fails, the
  // staging directory is removed, DIR keeps the previous set, and the error names DIR, not the staging path.
  void write_and_commit(const std::function<void(const std::filesystem::path& staging)>& write);

 private:
  void commit();
  std::string in_terms_of_dir(const std::string& message) const;

  std::filesystem::path dir_;      // as the user gave it, for messages
  std::filesystem::path target_;   // absolute, symbolic links resolved
  std::filesystem::path staging_;  // empty once committed
  std::unique_ptr<OutputLock> lock_;
};

namespace output_set_detail {

// Makes staging the directory `dir` (absolute). `exchange` false forces the fallback used where the file
// system has no RENAME_EXCHANGE. Returns where the previous set now is (empty when there was none).
std::filesystem::path swap_into_place(const std::filesystem::path& staging, const std::filesystem::path& dir,
                                      bool exchange);

// Whether a directory without the marker holds only what simtlm versions before the marker wrote.
bool looks_like_unmarked_outputs(const std::filesystem::path& dir);

}  // namespace output_set_detail

}  // namespace simtlm::launch
