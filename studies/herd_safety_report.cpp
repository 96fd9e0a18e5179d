#include "studies/herd_safety_report.hpp"

#include <algorithm>
#include <iomanip>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "models/launch/device.hpp"
#include "models/ptx/herd_safety.hpp"

namespace simtlm::studies {
namespace {

struct KernelRef {
  std::filesystem::path ptx;
  std::string name;
};

void collect_steps(const std::vector<launch::Step>& steps, const launch::Launch& launch,
                   std::vector<KernelRef>& out) {
  for (const launch::Step& step : steps) {
    if (step.kind == launch::Step::Kind::kernel) {
      KernelRef ref{step.ptx.empty() ? launch.ptx : step.ptx, step.kernel};
      const bool seen = std::any_of(
          out.begin(), out.end(), [&](const KernelRef& k) { return k.ptx == ref.ptx && k.name == ref.name; });
      if (!seen) out.push_back(std::move(ref));
    }
    collect_steps(step.steps, launch, out);
  }
}

std::vector<KernelRef> kernels_of(const launch::Launch& launch) {
  std::vector<KernelRef> out;
  if (launch.is_sequence()) {
    collect_steps(launch.steps, launch, out);
  } else {
    out.push_back(KernelRef{launch.ptx, launch.kernel});
  }
  return out;
}

struct Site {
  const char* kind;
  const ptx::HerdSiteVerdict* verdict;  // strict rule
  const ptx::HerdSiteVerdict* relaxed;  // the same site under the relaxed rule
};

// One analysed kernel; the module stays alive for the locations.
struct Analysed {
  KernelRef ref;
  std::unique_ptr<ptx::Module> module;
  const ptx::Function* kernel = nullptr;
  ptx::HerdSafety safety;
  ptx::HerdSafety relaxed;

  std::vector<Site> sites() const {
    std::vector<Site> out;
    for (const auto& v : safety.branches) out.push_back(Site{"branch", &v, relaxed.branch_at(v.pc)});
    for (const auto& v : safety.loads) out.push_back(Site{"load", &v, relaxed.load_at(v.pc)});
    std::sort(out.begin(), out.end(),
              [](const Site& a, const Site& b) { return a.verdict->pc < b.verdict->pc; });
    return out;
  }
  uint32_t ptx_line(uint32_t pc) const { return pc < kernel->code.size() ? kernel->code[pc].line : 0; }
  std::string cuda(uint32_t pc) const {
    if (pc >= kernel->code.size()) return "";
    const ptx::Instr& in = kernel->code[pc];
    if (in.loc_file == 0 || in.loc_file >= module->files.size()) return "";
    std::string text = module->files[in.loc_file];
    text += ':';
    text += std::to_string(in.loc_line);
    return text;
  }
};

std::vector<Analysed> analyse(const launch::Launch& launch) {
  std::vector<Analysed> out;
  for (KernelRef& ref : kernels_of(launch)) {
    Analysed a;
    a.module = launch::load_module(ref.ptx, launch);
    std::string error;
    a.kernel = a.module->find_entry(ref.name, &error);
    if (!a.kernel) throw launch::LaunchError(ref.ptx.string() + ": kernel " + ref.name + ": " + error);
    a.safety = ptx::analyze_herd_safety(*a.module, *a.kernel);
    a.relaxed = ptx::analyze_herd_safety(*a.module, *a.kernel, ptx::HerdSafetyRule::relaxed);
    a.ref = std::move(ref);
    out.push_back(std::move(a));
  }
  return out;
}

std::string reasons_text(const ptx::HerdSiteVerdict& v) {
  std::string text;
  for (const ptx::Vulnerability& r : v.reasons) {
    if (!text.empty()) text += ", ";
    text += ptx::vulnerable_kind_name(r.kind);
    text += '@';
    text += std::to_string(r.pc);
  }
  if (!v.note.empty()) {
    if (!text.empty()) text += "; ";
    text += v.note;
  }
  if (!v.requires_unherded.empty()) {
    text += text.empty() ? "" : "; ";
    text += "requires unherded:";
    for (uint32_t pc : v.requires_unherded) {
      text += ' ';
      text += std::to_string(pc);
    }
  }
  return text;
}

const char* verdict_word(const ptx::HerdSiteVerdict* v) {
  return !v ? "-" : v->safe ? "safe" : "unsafe";
}

nlohmann::json cuda_json(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace

std::string herd_safety_report(const launch::Launch& launch) {
  std::ostringstream out;
  bool first = true;
  for (const Analysed& a : analyse(launch)) {
    if (!first) out << '\n';
    first = false;
    const std::vector<Site> sites = a.sites();
    const auto safe_count =
        std::count_if(sites.begin(), sites.end(), [](const Site& s) { return s.verdict->safe; });
    const auto relaxed_count =
        std::count_if(sites.begin(), sites.end(), [](const Site& s) { return s.relaxed && s.relaxed->safe; });
    out << "kernel " << a.kernel->name << " (" << a.ref.ptx.string() << "): " << sites.size() << " sites, "
        << safe_count << " safe to herd (" << relaxed_count << " under the relaxed rule)\n";
    size_t cuda_width = 4;
    for (const Site& s : sites) cuda_width = std::max(cuda_width, a.cuda(s.verdict->pc).size());
    out << std::left << std::setw(8) << "kind" << std::setw(7) << "PC" << std::setw(10) << "PTX line"
        << std::setw(static_cast<int>(cuda_width + 2)) << "CUDA" << std::setw(8) << "verdict" << std::setw(9)
        << "relaxed"
        << "reasons (strict rule; then the relaxed rule's where it differs)\n";
    for (const Site& s : sites) {
      const uint32_t pc = s.verdict->pc;
      const std::string cuda = a.cuda(pc);
      out << std::left << std::setw(8) << s.kind << std::setw(7) << pc << std::setw(10) << a.ptx_line(pc)
          << std::setw(static_cast<int>(cuda_width + 2)) << (cuda.empty() ? "-" : cuda) << std::setw(8)
          << verdict_word(s.verdict) << verdict_word(s.relaxed);
      std::string reasons = reasons_text(*s.verdict);
      if (s.relaxed && s.relaxed->safe != s.verdict->safe)
        reasons += (reasons.empty() ? "" : " | ") + reasons_text(*s.relaxed);
      if (!reasons.empty()) out << std::string(s.relaxed && s.relaxed->safe ? 5 : 3, ' ') << reasons;
      out << '\n';
    }
  }
  return out.str();
}

namespace {

nlohmann::json vulnerabilities_json(const std::vector<ptx::Vulnerability>& list, const Analysed& a) {
  nlohmann::json out = nlohmann::json::array();
  for (const ptx::Vulnerability& r : list) {
    out.push_back({{"kind", ptx::vulnerable_kind_name(r.kind)},
                   {"pc", r.pc},
                   {"ptx_line", a.ptx_line(r.pc)},
                   {"cuda", cuda_json(a.cuda(r.pc))}});
  }
  return out;
}

nlohmann::json relaxed_json(const ptx::HerdSiteVerdict* v, const Analysed& a) {
  if (!v) return nullptr;
  return {{"safe", v->safe},
          {"reasons", vulnerabilities_json(v->reasons, a)},
          {"only_skipped", vulnerabilities_json(v->only_skipped, a)},
          {"note", v->note},
          {"requires_unherded", v->requires_unherded}};
}

}  // namespace

nlohmann::json herd_safety_json(const launch::Launch& launch) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const Analysed& a : analyse(launch)) {
    nlohmann::json sites = nlohmann::json::array();
    for (const Site& s : a.sites()) {
      const ptx::HerdSiteVerdict& v = *s.verdict;
      nlohmann::json reasons = vulnerabilities_json(v.reasons, a);
      sites.push_back({{"kind", s.kind},
                       {"pc", v.pc},
                       {"ptx_line", a.ptx_line(v.pc)},
                       {"cuda", cuda_json(a.cuda(v.pc))},
                       {"safe", v.safe},
                       {"reasons", std::move(reasons)},
                       {"note", v.note},
                       {"requires_unherded", v.requires_unherded},
                       {"relaxed", relaxed_json(s.relaxed, a)}});
    }
    kernels.push_back({{"kernel", a.kernel->name}, {"ptx", a.ref.ptx.string()}, {"sites", std::move(sites)}});
  }
  return nlohmann::json{{"kernels", std::move(kernels)}};
}

}  // namespace simtlm::studies
