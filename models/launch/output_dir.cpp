#include "models/launch/output_dir.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>  // renameat2, RENAME_EXCHANGE, RENAME_NOREPLACE
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <new>
#include <string_view>

#include "models/launch/output_lock.hpp"

namespace simtlm::launch {

namespace fs = std::filesystem;

void write_file_checked(const fs::path& path, const std::vector<uint8_t>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    throw OutputWriteError(fmt::format("cannot create {}: {}", path.string(), std::strerror(errno)));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n =
        ::write(fd, bytes.data() + done, std::min<size_t>(bytes.size() - done, size_t{1} << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      throw OutputWriteError(fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) {
    throw OutputWriteError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  }
}

namespace {

constexpr const char* kMarkerText =
    "This directory is one output set of simtlm: the next run into it replaces it as a whole.\n";

bool unsupported(int error) {
  return error == EINVAL || error == ENOSYS || error == EOPNOTSUPP;
}

void fsync_path(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) throw OutputWriteError(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) throw OutputWriteError(fmt::format("cannot sync {}: {}", path.string(), std::strerror(error)));
}

// Files before the directory that names them, so no directory entry reaches the disk ahead of its data.
void fsync_tree(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_symlink()) continue;
    if (entry.is_directory()) {
      fsync_tree(entry.path());
    } else if (entry.is_regular_file()) {
      fsync_path(entry.path(), false);
    }
  }
  fsync_path(dir, true);
}

bool is_identifier(std::string_view name) {
  return !name.empty() && !(name[0] >= '0' && name[0] <= '9') &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
         });
}

// Exactly the names simtlm wrote before the marker existed: stats.json, compare.json, paths.jsonl, buffers as
// OUTPUT.{bin,npy,pgm,png} (output names are identifiers), and at a demo's top WORKLOAD.png or
// WORKLOAD-OUTPUT.png. A user's notes.txt, data.csv or figure.pdf matches none of them.
bool is_earlier_output_name(std::string_view name, bool top_level) {
  if (name == "stats.json" || name == "compare.json" || name == "paths.jsonl") return true;
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view stem = name.substr(0, dot);
  const std::string_view ext = name.substr(dot);
  if (ext == ".bin" || ext == ".npy" || ext == ".pgm") return is_identifier(stem);
  if (ext != ".png") return false;
  const size_t dash = stem.find('-');
  if (dash == std::string_view::npos) return is_identifier(stem);
  return top_level && is_identifier(stem.substr(0, dash)) && is_identifier(stem.substr(dash + 1));
}

// Those names, or the temporary NAME.tmpPID of one of them that a killed run of an earlier version left.
bool is_output_like_file(std::string_view name, bool top_level) {
  const size_t tmp = name.rfind(".tmp");
  if (tmp != std::string_view::npos && tmp + 4 < name.size() &&
      std::all_of(name.begin() + long(tmp + 4), name.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
      is_earlier_output_name(name.substr(0, tmp), top_level)) {
    return true;
  }
  return is_earlier_output_name(name, top_level);
}

// The first entry (in name order) that is neither an output-like file nor a directory of them (a demo's
// per-workload directory), or "".
std::string first_foreign_entry(const fs::path& dir, bool& has_stats, bool top_level) {
  std::vector<fs::directory_entry> entries{fs::directory_iterator(dir), fs::directory_iterator()};
  std::sort(entries.begin(), entries.end());
  for (const auto& entry : entries) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && !entry.is_symlink() && is_output_like_file(name, top_level)) {
      has_stats = has_stats || name == "stats.json" || name == "compare.json";
      continue;
    }
    // A sub-directory with its own marker is an independent set (a `simtlm run` inside a demo's directory),
    // which replacing DIR would delete: it is foreign here.
    if (top_level && entry.is_directory() && !entry.is_symlink() &&
        !fs::exists(entry.path() / kOutputSetMarker)) {
      const std::string inner = first_foreign_entry(entry.path(), has_stats, false);
      if (inner.empty()) continue;
      return (fs::path(name) / inner).string();
    }
    return name;
  }
  return "";
}

// Leftovers of interrupted runs into `target`. The caller holds the lock, so no live run owns any of them.
void remove_leftovers(const fs::path& target) {
  const std::string name = target.filename().string();
  std::vector<fs::path> staged, aside;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(target.parent_path(), ec)) {
    const std::string n = entry.path().filename().string();
    if (n.starts_with(name + kStagingInfix)) staged.push_back(entry.path());
    if (n.starts_with(name + kAsideInfix)) aside.push_back(entry.path());
  }
  std::sort(aside.begin(), aside.end());
  // Only the fallback swap leaves DIR missing with the previous set aside: put it back.
  if (!fs::exists(fs::symlink_status(target, ec))) {
    for (auto it = aside.begin(); it != aside.end(); ++it) {
      if (fs::is_empty(*it, ec) || ec) continue;
      if (::rename(it->c_str(), target.c_str()) == 0) {
        aside.erase(it);
        break;
      }
    }
  }
  for (const fs::path& p : staged) fs::remove_all(p, ec);
  for (const fs::path& p : aside) fs::remove_all(p, ec);
}

[[noreturn]] void fail(const fs::path& dir, const std::string& what) {
  throw OutputError(fmt::format("{}: {}", dir.string(), what));
}

std::string unique_sibling(const fs::path& dir, const char* infix) {
  return (dir.parent_path() / fmt::format("{}{}{}-XXXXXX", dir.filename().string(), infix, ::getpid()))
      .string();
}

}  // namespace

namespace output_set_detail {

bool looks_like_unmarked_outputs(const fs::path& dir) {
  bool has_stats = false;
  return first_foreign_entry(dir, has_stats, true).empty() && has_stats;
}

fs::path swap_into_place(const fs::path& staging, const fs::path& dir, bool exchange) {
  auto error = [&](const char* what, int e) {
    return OutputWriteError(
        fmt::format("cannot {} {} and {}: {}", what, staging.string(), dir.string(), std::strerror(e)));
  };
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dir, ec))) {
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, dir.c_str(), RENAME_NOREPLACE) == 0) return {};
    // A file system without RENAME_NOREPLACE: the lock keeps other simtlm runs from creating DIR meanwhile.
    if (!unsupported(errno) || ::rename(staging.c_str(), dir.c_str()) != 0) throw error("rename", errno);
    return {};
  }
  if (exchange) {
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) return staging;
    if (!unsupported(errno)) throw error("exchange", errno);
  }
  // Without RENAME_EXCHANGE, DIR is missing between the two renames; a run killed there leaves the previous
  // set at the aside name, and the next run puts it back (remove_leftovers).
  std::string aside = unique_sibling(dir, kAsideInfix);
  if (!::mkdtemp(aside.data())) throw error("make room to swap", errno);
  if (::rename(dir.c_str(), aside.c_str()) != 0) {
    const int e = errno;
    ::rmdir(aside.c_str());
    throw error("move aside", e);
  }
  if (::rename(staging.c_str(), dir.c_str()) != 0) {
    const int e = errno;
    ::rename(aside.c_str(), dir.c_str());
    throw error("swap", e);
  }
  return aside;
}

}  // namespace output_set_detail

OutputSet::OutputSet(const fs::path& dir) : dir_(dir) {
  if (dir.empty()) throw OutputError("--out: empty output directory");
  std::error_code ec;
  fs::path absolute = fs::absolute(dir, ec).lexically_normal();
  if (ec) fail(dir_, "cannot resolve the path: " + ec.message());
  if (!absolute.has_filename()) absolute = absolute.parent_path();  // "out/x/"
  if (absolute == absolute.root_path())
    fail(dir_, "is the root directory; give --out a directory of its own");
  target_ = fs::weakly_canonical(absolute, ec);
  if (ec) target_ = absolute;
  if (fs::is_symlink(fs::symlink_status(target_, ec))) fail(dir_, "is a symbolic link to nothing");
  const fs::path cwd = fs::current_path(ec);
  const fs::path from_target = ec ? fs::path() : cwd.lexically_relative(target_);
  if (!from_target.empty() && *from_target.begin() != "..") {
    fail(dir_,
         "is the current directory or contains it; simtlm replaces its output directory as a whole, so give "
         "--out a directory of its own");
  }
  const fs::file_status status = fs::status(target_, ec);
  if (fs::exists(status) && !fs::is_directory(status)) fail(dir_, "exists and is not a directory");
  const fs::path parent = target_.parent_path();
  fs::create_directories(parent, ec);
  if (ec) fail(dir_, fmt::format("cannot create its parent directory {}: {}", parent.string(), ec.message()));
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    fail(dir_, fmt::format("its parent directory {} is not writable ({}); the outputs are staged next to {}",
                           parent.string(), std::strerror(errno), dir_.string()));
  }
  struct stat target_stat = {};
  struct stat parent_stat = {};
  if (fs::is_directory(status) && ::stat(target_.c_str(), &target_stat) == 0 &&
      ::stat(parent.c_str(), &parent_stat) == 0 && target_stat.st_dev != parent_stat.st_dev) {
    fail(dir_,
         "is a mount point; simtlm replaces its output directory as a whole, so give --out a directory "
         "inside it");
  }

  const std::string name = target_.filename().string();
  lock_ = std::make_unique<OutputLock>(parent / (name + kLockSuffix), dir_);
  remove_leftovers(target_);
  mode_t mode = 0;
  if (fs::is_directory(target_, ec)) {
    if (::access(target_.c_str(), W_OK | X_OK) != 0) {
      fail(dir_, fmt::format("is not writable ({}); the next run removes the files of the previous one",
                             std::strerror(errno)));
    }
    if (!fs::exists(target_ / kOutputSetMarker) && !fs::is_empty(target_, ec)) {
      bool has_stats = false;
      const std::string foreign = first_foreign_entry(target_, has_stats, true);
      if (!foreign.empty() || !has_stats) {
        fail(dir_, fmt::format("holds files simtlm did not write (such as '{}'); simtlm replaces its output "
                               "directory as a whole, so give --out a new or empty directory, or one an "
                               "earlier run wrote",
                               foreign.empty() ? fs::directory_iterator(target_)->path().filename().string()
                                               : foreign));
      }
    }
    if (::stat(target_.c_str(), &target_stat) == 0) mode = target_stat.st_mode & 07777;
  } else {
    mode = ::umask(0);
    ::umask(mode);
    mode = 0777 & ~mode;
  }
  // Beyond RLIMIT_FSIZE the kernel sends SIGXFSZ, which kills by default; ignored, write() fails with EFBIG
  // and the run reports it like a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  std::string staging = unique_sibling(target_, kStagingInfix);
  if (!::mkdtemp(staging.data())) {
    fail(dir_, fmt::format("cannot create a staging directory next to it: {}", std::strerror(errno)));
  }
  staging_ = staging;
  ::chmod(staging_.c_str(), mode);  // mkdtemp makes it private; the set keeps DIR's permissions
}

OutputSet::~OutputSet() {
  std::error_code ec;
  if (!staging_.empty()) fs::remove_all(staging_, ec);
}

fs::path OutputSet::redirect(const fs::path& file) const {
  if (file.empty() || staging_.empty()) return file;
  std::error_code ec;
  fs::path absolute = fs::absolute(file, ec).lexically_normal();
  if (ec) return file;
  absolute = fs::weakly_canonical(absolute, ec);
  if (ec) return file;
  const fs::path inside = absolute.lexically_relative(target_);
  if (inside.empty() || inside == "." || *inside.begin() == "..") return file;
  return staging_ / inside;
}

std::string OutputSet::in_terms_of_dir(const std::string& message) const {
  std::string out = message;
  const std::string from = staging_.string();
  std::string to = dir_.string();
  while (to.size() > 1 && to.back() == '/') to.pop_back();
  for (size_t at = out.find(from); !from.empty() && at != std::string::npos;
       at = out.find(from, at + to.size())) {
    out.replace(at, from.size(), to);
  }
  return out;
}

void OutputSet::write_and_commit(const std::function<void(const fs::path&)>& write) {
  if (staging_.empty()) throw std::logic_error("OutputSet committed twice");
  auto discard = [this] {
    std::error_code ec;
    fs::remove_all(staging_, ec);
    staging_.clear();
  };
  try {
    write(staging_);
    commit();
  } catch (const std::bad_alloc&) {
    discard();
    throw;
  } catch (const std::exception& e) {
    const std::string message = in_terms_of_dir(e.what());
    discard();
    std::error_code ec;
    const bool previous = fs::is_directory(target_, ec);
    throw OutputWriteError(fmt::format("{}; {}", message,
                                       previous
                                           ? "the previous outputs in " + dir_.string() + " are unchanged"
                                           : "nothing was written to " + dir_.string()));
  }
}

void OutputSet::commit() {
  write_file_checked(staging_ / kOutputSetMarker,
                     std::vector<uint8_t>(kMarkerText, kMarkerText + std::strlen(kMarkerText)));
  fsync_tree(staging_);
  const fs::path previous = output_set_detail::swap_into_place(staging_, target_, true);
  staging_.clear();
  // The new set is in place from here on: what follows only tidies up, and the next run retries it.
  try {
    fsync_path(target_.parent_path(), true);
  } catch (const OutputWriteError&) {
    // The rename is done; without this sync only a power cut could still undo it.
  }
  std::error_code ec;
  if (!previous.empty()) fs::remove_all(previous, ec);
}

}  // namespace simtlm::launch
