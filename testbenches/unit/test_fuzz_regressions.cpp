// Findings of the fuzz targets (testbenches/fuzz/, docs/reliability-fuzz.md) as plain unit tests: each saved
// reproducer is loaded the way `simtlm` loads it and must give its located error, quickly. scripts/fuzz
// replays the same files under ASan/UBSan.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"

namespace {

namespace fs = std::filesystem;
using simtlm::config::ConfigError;
using simtlm::config::MachineConfig;
using simtlm::launch::LaunchError;

fs::path regression(const std::string& target, const std::string& name) {
  return fs::path(SIMTLM_SOURCE_DIR) / "testbenches/fuzz/regressions" / target / name;
}

template <typename Error, typename Load>
std::string error_of(Load load) {
  try {
    load();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// yaml-cpp 0.7's LoadAll loops forever, allocating, on a ',' that starts no value (jbeder/yaml-cpp#1040).
TEST(FuzzRegressions, StrayCommaInConfigIsASyntaxErrorNotAHang) {
  const fs::path file = regression("fuzz_config", "yaml_loadall_stray_comma_minimal");
  EXPECT_EQ(
      error_of<ConfigError>([&] { MachineConfig::load(file); }),
      file.string() + ":1: YAML syntax error: a token that starts no value (e.g. a ',' outside [] or {})");
}

TEST(FuzzRegressions, ParserStuckAtThirdDocumentIsLocated) {
  const fs::path file = regression("fuzz_config", "yaml_loadall_stuck_third_document");
  EXPECT_EQ(
      error_of<ConfigError>([&] { MachineConfig::load(file); }),
      file.string() + ":7: YAML syntax error: a token that starts no value (e.g. a ',' outside [] or {})");
}

// A complex key ("? ...") reached as<std::string>() and let yaml-cpp's "bad conversion" out with no file
// name.
TEST(FuzzRegressions, ConfigKeyThatIsAListIsALocatedError) {
  const fs::path file = regression("fuzz_config", "complex_key_minimal");
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(file); }),
            file.string() + ":2: gpu: a key is a parameter name, not a list or map");
}

TEST(FuzzRegressions, StrayCommaInLaunchFileIsASyntaxErrorNotAHang) {
  const fs::path file = regression("fuzz_launch", "yaml_loadall_stray_comma_hang");
  const auto start = std::chrono::steady_clock::now();
  const std::string error = error_of<LaunchError>([&] { simtlm::launch::load_launch(file); });
  EXPECT_EQ(error, file.string() +
                       ":2: YAML syntax error: a token that starts no value (e.g. a ',' outside [] or {})");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// Nine levels of ten aliases each (430 bytes) name 10^9 nodes: walking them for duplicate keys or
// parameters never ended. Aliases are refused while the file is parsed, before any tree is walked.
TEST(FuzzRegressions, BillionLaughsAliasesAreRefusedAtOnce) {
  const fs::path file = regression("fuzz_launch", "yaml_alias_billion_laughs");
  const std::string expected = file.string() + ":2: YAML aliases (*a0) are not supported";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of<LaunchError>([&] { simtlm::launch::load_launch(file); }), expected);
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(file); }), expected);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

}  // namespace
