// What the Slurm backend reads from squeue, scontrol and sacct, and the job script it writes
// (sim/sweep_slurm.hpp).
#include <cctype>
#include <sstream>

#include "sweep/sweep_slurm.hpp"

namespace simtlm::sweep {

namespace fs = std::filesystem;

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

uint64_t parse_index(const std::string& text, const std::string& what) {
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos)
    throw SlurmError("unparsable " + what + " '" + text + "'");
  return std::stoull(text);
}

}  // namespace

std::vector<uint64_t> parse_array_indexes(const std::string& spec_in) {
  const std::string spec = spec_in.substr(0, spec_in.find('%'));
  std::vector<uint64_t> out;
  std::istringstream parts(spec);
  for (std::string part; std::getline(parts, part, ',');) {
    uint64_t step = 1;
    const size_t colon = part.find(':');
    if (colon != std::string::npos) {
      step = parse_index(part.substr(colon + 1), "array step");
      part = part.substr(0, colon);
    }
    const size_t dash = part.find('-');
    const uint64_t first = parse_index(part.substr(0, dash), "array index");
    const uint64_t last =
        dash == std::string::npos ? first : parse_index(part.substr(dash + 1), "array index");
    if (step == 0 || last < first || last - first > 10'000'000)
      throw SlurmError("unparsable array range '" + part + "'");
    for (uint64_t i = first; i <= last; i += step) out.push_back(i);
  }
  if (out.empty()) throw SlurmError("empty array specification '" + spec_in + "'");
  return out;
}

std::map<uint64_t, SlurmTaskEnd> parse_scontrol_tasks(const std::string& text, const std::string& array_job) {
  std::map<uint64_t, SlurmTaskEnd> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::map<std::string, std::string> fields;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      const size_t eq = word.find('=');
      if (eq != std::string::npos) fields.emplace(word.substr(0, eq), word.substr(eq + 1));
    }
    if (fields["ArrayJobId"] != array_job || !fields.count("ArrayTaskId")) continue;
    if (!fields.count("JobState")) throw SlurmError("a record of job " + array_job + " without JobState");
    const SlurmTaskEnd end{fields["JobState"], fields.count("ExitCode") ? fields["ExitCode"] : "0:0"};
    for (uint64_t task : parse_array_indexes(fields["ArrayTaskId"])) out[task] = end;
  }
  return out;
}

std::map<uint64_t, SlurmTaskEnd> parse_sacct_tasks(const std::string& text, const std::string& array_job) {
  std::map<uint64_t, SlurmTaskEnd> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (trimmed(line).empty()) continue;
    std::vector<std::string> cols;
    std::istringstream fields(line);
    for (std::string col; std::getline(fields, col, '|');) cols.push_back(trimmed(col));
    if (cols.size() < 3)
      throw SlurmError("a line of " + std::to_string(cols.size()) + " fields: '" + line + "'");
    const std::string prefix = array_job + "_";
    if (cols[0].rfind(prefix, 0) != 0) continue;
    std::string tasks = cols[0].substr(prefix.size());
    if (tasks.size() >= 2 && tasks.front() == '[' && tasks.back() == ']')
      tasks = tasks.substr(1, tasks.size() - 2);
    // "CANCELLED by 0": the state is the first word.
    const SlurmTaskEnd end{cols[1].substr(0, cols[1].find(' ')), cols[2]};
    for (uint64_t task : parse_array_indexes(tasks)) out[task] = end;
  }
  return out;
}

std::map<uint64_t, std::string> parse_squeue_tasks(const std::string& text) {
  std::map<uint64_t, std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string task, state, extra;
    if (!(words >> task)) continue;
    if (!(words >> state) || (words >> extra))
      throw SlurmError("a line that is not 'TASK STATE': '" + trimmed(line) + "'");
    for (uint64_t t : parse_array_indexes(task)) out[t] = state;
  }
  return out;
}

std::string shell_quote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                              "_-./=:,+@%") == std::string::npos)
    return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string array_script(const fs::path& executable, const fs::path& dir, const fs::path& list_file,
                         unsigned chunk) {
  return "#!/bin/sh\n"
         "# An array task of `simtlm sweep --backend slurm` (docs/sweeps.md, \"Slurm backend\"): runs the "
         "jobs\n"
         "# on lines [I*K, I*K+K) of the list, I being the task's index and K the chunk. sbatch.txt next to\n"
         "# this file holds the command that submitted it.\n"
         "exec " +
         shell_quote(executable.string()) + " sweep-task " + shell_quote(dir.string()) + " --list " +
         shell_quote(list_file.string()) + " --index \"$SLURM_ARRAY_TASK_ID\" --chunk " +
         std::to_string(chunk) + "\n";
}

}  // namespace simtlm::sweep
