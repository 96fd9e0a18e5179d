// PTX-derived text that reaches JSON and messages is valid UTF-8 (issue 11, defect 9).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "models/ptx/parser.hpp"
#include "models/ptx/utf8.hpp"

namespace simtlm::ptx {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(PtxUtf8, ValidTextIsUnchanged) {
  EXPECT_EQ(printable_utf8("kernel.cu"), "kernel.cu");
  EXPECT_EQ(printable_utf8("d\xC3\xA9j\xC3\xA0 \xE2\x82\xAC \xF0\x9F\x98\x80\tx"),
            "d\xC3\xA9j\xC3\xA0 \xE2\x82\xAC \xF0\x9F\x98\x80\tx");
}

TEST(PtxUtf8, EveryBadByteBecomesOneReplacement) {
  EXPECT_EQ(printable_utf8("bad\xFF\xFE.cu"), "bad" + kReplacement + kReplacement + ".cu");
  EXPECT_EQ(printable_utf8("\xC3"), kReplacement);                     // truncated sequence
  EXPECT_EQ(printable_utf8("\xC0\xAF"), kReplacement + kReplacement);  // overlong '/'
  EXPECT_EQ(printable_utf8("\xED\xA0\x80"), kReplacement + kReplacement + kReplacement);  // surrogate
  EXPECT_EQ(printable_utf8("\xF4\x90\x80\x80"), kReplacement + kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(printable_utf8("\x80x"), kReplacement + "x");  // stray continuation byte
}

TEST(PtxUtf8, ControlCharactersBecomeQuestionMarks) {
  EXPECT_EQ(printable_utf8(std::string("a\0b\x1B[2Jc\x7F", 9)), "a?b?[2Jc?");
}

TEST(PtxUtf8, FileNamesAreStoredCleanAndSerialise) {
  const Module module = parse_ptx(
      ".version 9.0\n.target sm_75\n.address_size 64\n.file 1 \"bad\xFF\xFE.cu\"\n"
      ".file 2 \"ok.cu\"\n",
      "utf8.ptx");
  ASSERT_EQ(module.files.size(), 3u);
  EXPECT_EQ(module.files[1], "bad" + kReplacement + kReplacement + ".cu");
  EXPECT_EQ(module.files[2], "ok.cu");
  EXPECT_EQ(nlohmann::json(module.files[1]).dump(), "\"bad" + kReplacement + kReplacement + ".cu\"");
}

TEST(PtxUtf8, ErrorMessagesAreValidUtf8) {
  try {
    parse_ptx(".version 9.0\n.target sm_75\n\xFF\n", "utf8.ptx");
    FAIL() << "loaded";
  } catch (const PtxError& error) {
    EXPECT_EQ(error.line(), 3u);
    EXPECT_THAT(error.what(), ::testing::StartsWith("utf8.ptx:3: unexpected byte 0xFF\n    " + kReplacement));
    EXPECT_NO_THROW(nlohmann::json(std::string(error.what())).dump());
  }
}

}  // namespace
}  // namespace simtlm::ptx
