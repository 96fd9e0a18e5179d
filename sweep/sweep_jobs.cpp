// The product of a sweep's axes as jobs, each with its id: a hash of every input, not of where they lie.
#include <sys/stat.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>
#include <utility>

#include "models/launch/launch.hpp"
#include "models/launch/sha256.hpp"
#include "sweep/sweep_file.hpp"

#ifndef SIMTLM_VERSION
#define SIMTLM_VERSION "unknown"
#endif

namespace simtlm::sweep {

namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// SHA-256 of input files, each read once per process while it stays the same file with the same contents as
// far as stat() tells (device, inode, size, modification and change times): a process that plans many sweeps
// (fuzz_sweep plans one per input) hashes the suite's PTX and data files once, not once per plan.
class FileHashes {
 public:
  std::string of(const fs::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "unreadable";
    const Identity id{st.st_dev,          st.st_ino,         st.st_size,        st.st_mtim.tv_sec,
                      st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec};
    std::lock_guard<std::mutex> lock(mutex());
    auto [it, fresh] = known().try_emplace(path);
    if (fresh || it->second.first != id) it->second = {id, launch::sha256_hex(read_bytes(path))};
    return it->second.second;
  }

 private:
  using Identity = std::tuple<dev_t, ino_t, off_t, time_t, long, time_t, long>;
  static std::map<fs::path, std::pair<Identity, std::string>>& known() {
    static std::map<fs::path, std::pair<Identity, std::string>> hashes;
    return hashes;
  }
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
};

// Every file a launch reads besides itself: its PTX, the steps' PTX, buffer and symbol contents, expected
// outputs. A launch that does not load hashes as its text only; its job fails with the loader's message.
std::string launch_inputs(FileHashes& hashes, const fs::path& file, const std::vector<std::string>& sets) {
  std::string text;
  try {
    const launch::Launch l = launch::load_launch(file, sets);
    const fs::path dir = file.parent_path();
    auto add = [&](const char* role, const fs::path& p) {
      if (p.empty()) return;
      text += std::string(role) + " " + hashes.of(p.is_absolute() ? p : dir / p) + "\n";
    };
    add("ptx", l.ptx);
    for (const auto& b : l.buffers)
      if (b.init.kind == launch::BufferInit::Kind::file) add("buffer", b.init.file);
    for (const auto& s : l.symbols)
      if (s.init.kind == launch::BufferInit::Kind::file) add("symbol", s.init.file);
    for (const auto& e : l.expect) add("expect", e.file);
    std::function<void(const std::vector<launch::Step>&)> steps = [&](const std::vector<launch::Step>& list) {
      for (const launch::Step& s : list) {
        add("step-ptx", s.ptx);
        for (const auto& set : s.sets)
          if (set.refill && set.init.kind == launch::BufferInit::Kind::file) add("refill", set.init.file);
        steps(s.steps);
      }
    };
    steps(l.steps);
  } catch (const std::exception&) {
    text += "does-not-load\n";
  }
  return text;
}

bool excluded(const SweepSpec& spec, const std::map<std::string, const AxisValue*>& pick) {
  for (const auto& rule : spec.exclude) {
    bool all = true;
    for (const auto& [axis, name] : rule) all = all && pick.at(axis)->name == name;
    if (all) return true;
  }
  return false;
}

}  // namespace

std::vector<JobSpec> expand_jobs(const SweepSpec& spec, const std::string& version) {
  const bool with_ids = version != "check";
  FileHashes hashes;
  std::map<std::pair<fs::path, std::vector<std::string>>, std::string> inputs_of;
  const std::vector<std::string>& keys = axis_keys();
  std::vector<size_t> index(keys.size(), 0);
  std::vector<JobSpec> jobs;
  while (true) {
    std::map<std::string, const AxisValue*> pick;
    for (size_t a = 0; a < keys.size(); ++a) pick[keys[a]] = &spec.axes.at(keys[a])[index[a]];
    if (!excluded(spec, pick)) {
      JobSpec job;
      const AxisValue& l = *pick["launch"];
      const AxisValue& c = *pick["config"];
      std::string canonical = "simtlm-sweep-job 1\nversion " + version + "\ncommand " + spec.command + "\n";
      job.argv = {spec.command, "--launch", l.file.string()};
      canonical += "launch " + (with_ids ? hashes.of(l.file) : "") + "\n";
      if (!c.file.empty()) {
        job.argv.insert(job.argv.end(), {"--config", c.file.string()});
        canonical += "config " + (with_ids ? hashes.of(c.file) : "") + "\n";
      }
      if (!spec.mode.empty()) job.argv.insert(job.argv.end(), {"--mode", spec.mode});
      std::vector<std::string> launch_sets;
      for (const std::string& axis : keys) {
        const AxisValue& v = *pick[axis];
        job.axes[axis] = v.name;
        for (const std::string& s : v.sets) job.argv.insert(job.argv.end(), {"--set", s});
        launch_sets.insert(launch_sets.end(), v.launch_sets.begin(), v.launch_sets.end());
      }
      for (const std::string& s : launch_sets) job.argv.insert(job.argv.end(), {"--launch-set", s});
      for (const std::string& axis : keys) {
        const AxisValue& v = *pick[axis];
        job.argv.insert(job.argv.end(), v.args.begin(), v.args.end());
      }
      // The arguments after the two files, in order: machine and launch overrides, extra arguments.
      for (size_t i = 3 + (c.file.empty() ? 0 : 2); i < job.argv.size(); ++i)
        canonical += "arg " + job.argv[i] + "\n";
      if (with_ids) {
        // Each launch file loads once per set of --launch-set values, not once per job (a launch crossed
        // with many configurations and mechanisms has the same inputs in every job).
        auto [inputs, fresh] = inputs_of.try_emplace({l.file, launch_sets});
        if (fresh) inputs->second = launch_inputs(hashes, l.file, launch_sets);
        canonical += inputs->second;
        job.id = launch::sha256_hex(std::vector<uint8_t>(canonical.begin(), canonical.end())).substr(0, 16);
      }
      job.stats_file = spec.command == "compare" ? "compare.json" : "stats.json";
      jobs.push_back(std::move(job));
    }
    size_t a = keys.size();
    while (a > 0) {
      --a;
      if (++index[a] < spec.axes.at(keys[a]).size()) break;
      index[a] = 0;
      if (a == 0) return jobs;
    }
  }
}

std::string simtlm_version() {
  static const std::string version = [] {
    const std::vector<uint8_t> exe = read_bytes("/proc/self/exe");
    return std::string("simtlm ") + SIMTLM_VERSION + " " + launch::sha256_hex(exe).substr(0, 16);
  }();
  return version;
}

nlohmann::ordered_json sweep_summary(const SweepSpec& spec) {
  nlohmann::ordered_json doc;
  doc["sweep_file"] = spec.path.string();
  doc["command"] = spec.command;
  doc["mode"] = spec.mode;
  nlohmann::ordered_json axes = nlohmann::ordered_json::object();
  for (const std::string& axis : axis_keys()) {
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    for (const AxisValue& v : spec.axes.at(axis)) names.push_back(v.name);
    axes[axis] = names;
  }
  doc["axes"] = axes;
  doc["stats"] = spec.stats;
  doc["baseline"] = spec.baseline;
  return doc;
}

}  // namespace simtlm::sweep
