// Issue 32: constructs that made the whole module fail to load now refuse only the kernels that reach them
// (%envreg special registers, initializers holding a variable's address; function addresses are supported
// now), and the sessions answer `simtlm check` with the check `simtlm run` makes (kernel_refusal). Kernels:
// testbenches/ptx/refusals/{envreg,function_table,unsupported}.ptx.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "testbenches/unit/ptx_kernel_run.hpp"
#include "testbenches/unit/ptx_parser_test_helpers.hpp"

namespace simtlm::ptx::module_refusals_test {
namespace {

using parser_test::expect_body_error;
using parser_test::expect_body_refused;
using parser_test::expect_error;
using parser_test::kernel;
using test::KernelRun;

const std::filesystem::path kDir = std::filesystem::path(SIMTLM_SOURCE_DIR) / "testbenches/ptx/refusals";

// The module parsed under its bare file name, so messages read "envreg.ptx:LINE: ...".
Module load(const std::string& name) {
  std::ifstream file(kDir / name);
  std::stringstream text;
  text << file.rdbuf();
  return parse_ptx(text.str(), name);
}

// kernel_refusal's message for `name`; "" when the kernel can run.
std::string refusal(const Module& module, const std::string& name) {
  const Function* fn = module.find_entry(name, nullptr);
  if (!fn) return "no kernel " + name;
  const std::optional<PtxError> error = kernel_refusal(module, *fn);
  return error ? error->what() : "";
}

const char* const kOthers = "cannot run (the module's other kernels are not affected)";

TEST(ModuleRefusals, EnvregRefusesOnlyTheKernelsThatReadIt) {
  const Module module = load("envreg.ptx");
  EXPECT_EQ(refusal(module, "triple"), "");
  EXPECT_EQ(refusal(module, "grid_rank"),
            "envreg.ptx:52: special register %envreg0 is not supported: only %envreg1 and %envreg2, the grid "
            "workspace of a cooperative launch (cooperative_groups::this_grid()), are modelled; kernel "
            "grid_rank " +
                std::string(kOthers) + "\n    mov.u32 \t%r1, %envreg0;");
  // %envreg1 and %envreg2 are modelled: a launch that is not cooperative reads a null workspace.
  EXPECT_EQ(refusal(module, "via_func"), "");
  KernelRun via(module, "via_func", Dim3{1, 1, 1}, Dim3{32, 1, 1});
  const uint64_t workspace = via.buffer(std::vector<uint64_t>(1, 99));
  via.param(0, workspace);
  via.run();
  EXPECT_EQ(via.read<uint64_t>(workspace, 1), std::vector<uint64_t>{0});
  KernelRun triple(module, "triple", Dim3{1, 1, 1}, Dim3{32, 1, 1});
  const uint64_t out = triple.buffer(std::vector<uint32_t>(32, 7));
  triple.param(0, out);
  triple.run();
  std::vector<uint32_t> expected(32);
  for (uint32_t t = 0; t < 32; ++t) expected[t] = 3 * t;
  EXPECT_EQ(triple.read<uint32_t>(out, 32), expected);
  // Selecting the kernel (the Executor, as simtlm run does) fails with the same message.
  KernelRun rank(module, "grid_rank", Dim3{1, 1, 1}, Dim3{32, 1, 1});
  EXPECT_EQ(rank.error(), refusal(module, "grid_rank"));
}

TEST(ModuleRefusals, OnlyTheThirtyTwoEnvregsAndKnownSpecialRegistersAreRefused) {
  expect_body_refused("mov.u32 %r1, %envreg31;", 0,
                      "special register %envreg31 is not supported: only %envreg1 and %envreg2");
  expect_body_refused("add.u32 %r1, %r2, %envreg0;", 0, "special register %envreg0 is not supported");
  expect_body_refused("mov.u32 %r1, %dynamic_smem_size;", 0,
                      "special register %dynamic_smem_size is not supported");
  expect_body_refused("mov.u64 %rd1, %pm3_64;", 0, "special register %pm3_64 is not supported");
  // Not special registers: undeclared names, an error of the whole module as before.
  expect_body_error("mov.u32 %r1, %envreg32;", 0, "undeclared register %envreg32");
  expect_body_error("mov.u32 %r1, %envreg05;", 0, "undeclared register %envreg05");
  expect_body_error("mov.u32 %r1, %envreg;", 0, "undeclared register %envreg");
  expect_body_error("mov.u32 %r1, %pm8;", 0, "undeclared register %pm8");
}

TEST(ModuleRefusals, VariableAddressInitializersRefuseOnlyTheKernelsThatUseTheVariable) {
  const Module module = load("function_table.ptx");
  // Function-address tables are supported (testbenches/unit/test_indirect_calls.cpp): the kernels reading
  // ops, directly, through a .func or with an indirect call, all run.
  for (const char* name : {"scaled", "table_user", "table_in_func", "call_through_table"})
    EXPECT_EQ(refusal(module, name), "") << name;
  EXPECT_EQ(
      refusal(module, "pointer_user"),
      "function_table.ptx:15: .global scale_ptr is initialised with the address of variable scale: address "
      "initializers are not supported (used at line 110); kernel pointer_user " +
          std::string(kOthers) + "\n    .global .align 8 .u64 scale_ptr = generic(scale)+0;");
  // ops holds the two functions' tagged addresses; the variable address element holds zeros.
  std::vector<uint8_t> ops(16, 0);
  const uint64_t add_one = function_address_value(0), twice = function_address_value(1);
  std::memcpy(ops.data(), &add_one, 8);
  std::memcpy(ops.data() + 8, &twice, 8);
  EXPECT_EQ(parser_test::symbol(module, "ops").init, ops);
  ASSERT_EQ(module.function_addresses.size(), 2u);
  EXPECT_EQ(module.function_addresses[0].name, "add_one");
  EXPECT_EQ(module.function_addresses[1].name, "twice");
  EXPECT_EQ(parser_test::symbol(module, "scale").init, (std::vector<uint8_t>{3, 0, 0, 0}));
  EXPECT_EQ(parser_test::symbol(module, "scale_ptr").init, std::vector<uint8_t>(8, 0));
  EXPECT_EQ(module.unsupported_symbols.size(), 1u);  // scale_ptr
  // table_user copies ops[1] out: the value round-trips.
  KernelRun user(module, "table_user", Dim3{1, 1, 1}, Dim3{32, 1, 1});
  user.place_variables();
  const uint64_t out = user.buffer(std::vector<uint64_t>(1, 0));
  user.param(0, out);
  user.run();
  EXPECT_EQ(user.read<uint64_t>(out, 1), std::vector<uint64_t>{twice});
  // call_through_table calls ops[0] (add_one) with the thread index; every thread stores to out[0].
  KernelRun call(module, "call_through_table", Dim3{1, 1, 1}, Dim3{1, 1, 1});
  call.place_variables();
  const uint64_t one = call.buffer(std::vector<uint32_t>(1, 0));
  call.param(0, one);
  call.run();
  EXPECT_EQ(call.read<uint32_t>(one, 1), std::vector<uint32_t>{1});
}

TEST(ModuleRefusals, MaskedAddressesRefuseAndMalformedInitializersStayModuleErrors) {
  const std::string extra =
      ".global .align 4 .u32 scale = 3;\n.global .u8 masks[3] = {0xff(scale), 0xff00(scale), 7};\n";
  const Module module = parse_ptx(kernel("ld.global.u8 %rs1, [masks+1];", extra), "bad.ptx");
  EXPECT_EQ(
      refusal(module, "k"),
      "bad.ptx:5: .global masks is initialised with the address of variable scale: address initializers "
      "are not supported (used at line 15); kernel k " +
          std::string(kOthers) + "\n    .global .u8 masks[3] = {0xff(scale), 0xff00(scale), 7};");
  EXPECT_EQ(parser_test::symbol(module, "masks").init, (std::vector<uint8_t>{0, 0, 7}));
  // A name not declared yet refuses as well.
  const Module later =
      parse_ptx(kernel("ld.global.u64 %rd1, [p];", ".global .u64 p = generic(gbuf)+4;\n"), "bad.ptx");
  EXPECT_EQ(
      refusal(later, "k"),
      "bad.ptx:4: .global p is initialised with the address of gbuf: address initializers are not supported "
      "(used at line 14); kernel k " +
          std::string(kOthers) + "\n    .global .u64 p = generic(gbuf)+4;");
  expect_error(kernel("ret;", ".global .u32 q;\n.global .u64 p = generic(q;\n"), 5,
               "expected ')' closing the address, found ';'");
  expect_error(kernel("ret;", ".global .u32 q;\n.global .u64 p = q+1.5;\n"), 5,
               "bad initializer: an address offset must be an integer");
  expect_error(kernel("ret;", ".global .u32 q;\n.global .u64 p[1] = {q, q};\n"), 5,
               "too many initializers: the variable holds 1");
}

TEST(ModuleRefusals, SessionsReportTheRefusalsTheirRunsMake) {
  launch::Session good(launch::load_launch(kDir / "envreg_triple.yaml"), {});
  EXPECT_TRUE(good.refusals().empty());
  launch::Session bad(launch::load_launch(kDir / "envreg_grid_rank.yaml"), {});
  const std::vector<PtxError> refused = bad.refusals();
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].line(), 52u);
  try {
    bad.run();
    FAIL() << "the refused kernel ran";
  } catch (const PtxError& e) {
    EXPECT_EQ(std::string(e.what()), refused[0].what());
  }
  launch::SequenceSession sequence(launch::load_launch(kDir / "unsupported.yaml"), {});
  EXPECT_EQ(sequence.kernel_count(), 5u);
  const std::vector<PtxError> listed = sequence.refusals();
  ASSERT_EQ(listed.size(), 4u);
  const std::vector<std::pair<uint32_t, std::string>> expected = {{38, "kernel bodiless cannot run"},
                                                                  {52, "kernel matrix cannot run"},
                                                                  {63, "kernel halves cannot run"},
                                                                  {76, "kernel surface cannot run"}};
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(listed[i].line(), expected[i].first) << listed[i].what();
    EXPECT_NE(std::string(listed[i].what()).find(expected[i].second), std::string::npos) << listed[i].what();
  }
}

}  // namespace
}  // namespace simtlm::ptx::module_refusals_test
