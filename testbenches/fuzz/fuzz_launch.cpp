// libFuzzer target: bytes -> launch YAML -> Launch -> Session or SequenceSession (module loaded, kernel and
// parameters checked, device memory laid out, buffers initialised, param buffer built) -> a run under a
// small thread-instruction budget, with the host references, as `simtlm run` does apart from writing
// outputs. LaunchError, PtxError and KernelError are the expected answers; anything else is a finding.
//
// The YAML is written to a scratch directory next to symbolic links to every PTX and data file of the suite
// (flattened: `ptx: ../ptx/x.ptx` in the suite is `ptx: x.ptx` in the seed corpus, see scripts/fuzz) and to
// fuzz_kernels.ptx, so the suite's launch files are the seeds and reach real kernels.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>

#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/functional.hpp"
#include "models/ptx/parser.hpp"
#include "testbenches/fuzz/fuzz_common.hpp"
#include "workloads/reference/reference.hpp"

namespace {

namespace fs = std::filesystem;
using namespace simtlm;

// Thread instructions per run: enough for the small kernels of hand-made seeds to finish (so the output
// checks and host references run), small enough that a 10^9-thread grid stops within milliseconds.
constexpr uint64_t kInstructionBudget = 1u << 14;

// The launch format allows buffers of 1 GiB each. Initialising them is legitimate but takes seconds and
// more memory than -rss_limit_mb; inputs whose buffers add up to more than this are only loaded (every
// check of load_launch still runs), not prepared. docs/reliability-fuzz.md.
constexpr uint64_t kPreparedBufferBytes = 64ull << 20;

void link_suite_files(const fs::path& into) {
  const fs::path source = SIMTLM_SOURCE_DIR;
  for (const char* top : {"testbenches", "workloads"}) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(source / top, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& file = it->path();
      const std::string ext = file.extension().string();
      if (!it->is_regular_file() || !(ext == ".ptx" || ext == ".bin" || ext == ".npy" || ext == ".pgm"))
        continue;
      std::error_code exists;
      if (!fs::exists(into / file.filename(), exists))
        fs::create_symlink(file, into / file.filename(), exists);
    }
  }
}

uint64_t buffer_bytes(const launch::Launch& launch) {
  uint64_t total = 0;
  for (const launch::BufferSpec& buffer : launch.buffers) {
    const uint64_t element = ptx::type_bits(buffer.type) / 8 ? ptx::type_bits(buffer.type) / 8 : 1;
    if (buffer.count > kPreparedBufferBytes / element) return kPreparedBufferBytes + 1;
    total += buffer.count * element;
    if (total > kPreparedBufferBytes) return total;
  }
  return total;
}

void run(launch::Launch launch) {
  launch::SessionOptions options;
  options.instruction_budget = kInstructionBudget;
  options.find_reference = workloads::find_reference;
  options.capture_printf = true;
  if (launch.is_sequence()) {
    launch::SequenceSession session(std::move(launch), options);
    session.run();
  } else {
    launch::Session session(std::move(launch), options);
    session.run();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  link_suite_files(fuzz::scratch_dir());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path path = fuzz::scratch_dir() / "fuzz.yaml";
  fuzz::write_file(path, data, size);
  try {
    launch::Launch launch = launch::load_launch(path);
    if (buffer_bytes(launch) <= kPreparedBufferBytes) run(std::move(launch));
  } catch (const launch::LaunchError&) {
  } catch (const ptx::PtxError&) {
  } catch (const ptx::KernelError&) {
  } catch (const std::exception& e) {
    fuzz::unexpected_exception("fuzz_launch", e);
  }
  return 0;
}
