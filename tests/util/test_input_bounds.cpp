// The checked edges every input goes through: the
// bounded JSON parse, the checked number conversion and the input-file check,
// and the data readers that use them.
#include "catch.h"

#include "data/dataset.h"
#include "registry/registry.h"
#include "shared.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/numbers.h"

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>

using namespace runner;

namespace {

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// The diagnostic of parsing `text` as the file "f.json".
Diagnostic parse_failure(const std::string& text) {
  try {
    parse_json(text, {"f.json", 1, ""});
  } catch (const InputError& e) {
    return e.diagnostic();
  }
  FAIL("parsed: " << text);
  return {};
}

}  // namespace

TEST_CASE("JSON nesting is bounded at 128 levels before nlohmann parses", "[util]") {
  CHECK(parse_json(nested(kMaxJsonDepth), {"f.json"}).is_array());
  Diagnostic d = parse_failure("\n  " + nested(kMaxJsonDepth + 1));
  CHECK(d.where.str() == "f.json:2:131");  // the 129th '[' is the 131st character of line 2
  CHECK_THAT(d.message, Catch::Contains("nested deeper than 128 levels"));
  CHECK_FALSE(d.hint.empty());
  // Brackets inside strings are text, not nesting.
  CHECK(parse_json("[\"" + std::string(1000, '[') + "\"]", {"f.json"}).size() == 1);
  // The issue's line: 100,000 deep (a SIGSEGV before), refused in well under a second.
  auto start = std::chrono::steady_clock::now();
  std::string why;
  CHECK_FALSE(try_parse_json("{\"text_a\": \"x\", \"z\": " + nested(100000) + "}", why));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  // The object is level 1, so its 128th '[' (after a 21-character prefix) is level 129.
  CHECK(why == "nested deeper than 128 levels of [ and { (at column 149)");
}

TEST_CASE("JSON errors carry line and column and never nlohmann's own text", "[util]") {
  Diagnostic d = parse_failure("{\n  \"a\": ,\n}");
  CHECK(d.where.str() == "f.json:2:8");
  CHECK_THAT(d.message, Catch::StartsWith("not valid JSON: syntax error"));
  CHECK(d.format().find("json.exception") == std::string::npos);
  CHECK(d.format().find("parse error at line") == std::string::npos);
  Diagnostic big = parse_failure("[1e999]");  // past a double: nlohmann's out_of_range.406
  CHECK_THAT(big.message, Catch::Contains("number overflow"));
  CHECK(big.format().find("json.exception") == std::string::npos);
  std::string why;
  CHECK_FALSE(try_parse_ordered_json("{\"a\": 1", why));
  CHECK_THAT(why, Catch::Contains("(at column 8)"));
  CHECK(parse_json("{\"text\": \"\\u00e9\"}", {"f.json"})["text"] == "\xC3\xA9");
}

TEST_CASE("a field of a runner-written record of the wrong type reads as its fallback", "[util]") {
  const nlohmann::json record = nlohmann::json::parse(
      R"({"s": "text", "i": -7, "big": 18446744073709551615, "f": 2.5, "b": true, "o": {"k": 1}, "a": [1]})");
  CHECK(record_string(record, "s") == "text");
  CHECK(record_string(record, "i", "none") == "none");
  CHECK(record_integer(record, "i", 0) == -7);
  CHECK(record_integer(record, "f", 3) == 3);     // 2.5 is not a whole number
  CHECK(record_integer(record, "big", 4) == 4);   // 2^64 - 1 does not fit int64
  CHECK(record_number(record, "i", 0.0) == -7.0);
  CHECK(record_number(record, "s", 1.5) == 1.5);
  CHECK(record_bool(record, "b") == true);
  CHECK(record_bool(record, "i", true) == true);
  CHECK(record_object(record, "o")["k"] == 1);
  CHECK(record_object(record, "a").empty());
  CHECK(record_array(record, "a").size() == 1);
  CHECK(record_array(record, "missing").empty());
  CHECK(record_string(nlohmann::json::array(), "s", "x") == "x");  // not even an object
}

TEST_CASE("numbers from text are checked for format and range", "[util]") {
  std::string why;
  CHECK(parse_integer("42", why) == 42);
  CHECK(parse_integer("-7", why, -10, 10) == -7);
  CHECK(parse_integer("9223372036854775807", why) == 9223372036854775807LL);
  CHECK_FALSE(parse_integer("99999999999999999999", why));
  CHECK(why == "expected an integer, found \"99999999999999999999\", which is larger than any 64-bit integer");
  CHECK_FALSE(parse_integer("12abc", why, 0));
  CHECK(why == "expected an integer >= 0, found \"12abc\"");
  for (const char* bad : {"", " 1", "+1", "1.5", "0x10", "1 "}) CHECK_FALSE(parse_integer(bad, why));
  CHECK_FALSE(parse_integer("70000", why, 1, 65535));
  CHECK(why == "expected an integer in [1, 65535], found 70000");
  CHECK(parse_number("3e-5", why) == Approx(3e-5));
  for (const char* bad : {"inf", "nan", "-inf", "1e999", "1,5", "x"}) {
    INFO(bad);
    CHECK_FALSE(parse_number(bad, why));
    CHECK_THAT(why, Catch::StartsWith("expected a finite number"));
  }
  CHECK_FALSE(parse_number("-0.5", why, 0.0));
  CHECK(why == "expected a number >= 0, found -0.5");
}

TEST_CASE("an input file must be a regular file of bounded size", "[util]") {
  std::string dir = test::tmp_dir("input-file");
  auto refusal = [](const InputFile& f) {
    try {
      read_input_file(f);
    } catch (const InputError& e) {
      return e.diagnostic().format();
    }
    return std::string("read");
  };
  CHECK_THAT(refusal({dir, "--input"}), Catch::Contains(dir + ": error: --input: expected a regular "
                                                        "file, found a directory"));
  CHECK_THAT(refusal({"/dev/zero"}), Catch::Contains("found a character device"));
  std::string fifo = dir + "/fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(refusal({fifo}), Catch::Contains("found a FIFO (named pipe)"));
  CHECK_THAT(refusal({dir + "/none", "", 10, "check data.dir"}),
             Catch::Contains("found none") && Catch::Contains("hint: check data.dir"));
  std::ofstream(dir + "/eleven") << "01234567890";
  CHECK_THAT(refusal({dir + "/eleven", "", 10}),
             Catch::Contains("expected at most 10 bytes, found a file of 11 bytes"));
  CHECK(read_input_file({dir + "/eleven", "", 11}) == "01234567890");
  // /proc files say they are empty and are not: the read itself is bounded too.
  CHECK_THAT(refusal({"/proc/self/maps", "", 10}), Catch::Contains("grew past that"));
}

TEST_CASE("lines are read with a length limit", "[util]") {
  std::istringstream in("short\r\n" + std::string(100, 'x') + "\nlast");
  std::string line;
  REQUIRE(read_bounded_line(in, line, "in.jsonl", 1, 100));
  CHECK(line == "short\r");
  REQUIRE(read_bounded_line(in, line, "in.jsonl", 2, 100));
  CHECK(line.size() == 100);
  REQUIRE(read_bounded_line(in, line, "in.jsonl", 3, 100));
  CHECK(line == "last");
  CHECK_FALSE(read_bounded_line(in, line, "in.jsonl", 4, 100));
  std::istringstream long_line(std::string(101, 'x'));
  CHECK_THROWS_WITH(read_bounded_line(long_line, line, "in.jsonl", 7, 100),
                    Catch::Contains("in.jsonl:7: error: expected lines of at most 100 bytes"));
}

TEST_CASE("a column index past any file is an error naming the key, not \"stoi\"", "[util]") {
  std::string dir = test::tmp_dir("data-huge-column");
  std::ofstream(dir + "/train.tsv") << "a\t1\n";
  auto d = registry().factory<DatasetFactory>(Kind::Dataset, "tsv")(
      {{"dir", dir}, {"header", false}, {"columns", {{"text_a", "99999999999999999999"}, {"label", "1"}}}});
  try {
    d->load_split("train");
    FAIL("loaded");
  } catch (const InputError& e) {
    std::string m = e.what();
    CHECK_THAT(m, Catch::Contains(dir + "/train.tsv") && Catch::Contains("data.columns.text_a") &&
                      Catch::Contains("99999999999999999999") && Catch::Contains("hint:"));
    CHECK(m.find("stoi") == std::string::npos);
  }
}

TEST_CASE("a JSONL data row nested too deep is a bad row at its line", "[util]") {
  std::string dir = test::tmp_dir("data-deep-row");
  std::ofstream(dir + "/train.jsonl") << "{\"text_a\": \"ok\", \"label\": 1}\n{\"text_a\": "
                                      << nested(100000) << ", \"label\": 0}\n";
  auto d = registry().factory<DatasetFactory>(Kind::Dataset, "jsonl")({{"dir", dir}});
  try {
    d->load_split("train");
    FAIL("loaded");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("train.jsonl:2") &&
                                          Catch::Contains("nested deeper than 128"));
  }
  auto skipping = registry().factory<DatasetFactory>(Kind::Dataset, "jsonl")(
      {{"dir", dir}, {"on_bad_row", "skip"}});
  SplitData s = skipping->load_split("train");
  CHECK(s.examples.size() == 1);
  CHECK(s.skipped.size() == 1);
}
