#include <catch2/catch.hpp>
#include "recipe/value.h"
TEST_CASE("merge_into merges tables and replaces lists", "[recipe]") {
  runner::Value a = runner::Value::make_table(), b = runner::Value::make_table();
  a.set("x", runner::Value::make_string("1"));
  b.set("y", runner::Value::make_string("2"));
  runner::merge_into(a, b);
  REQUIRE(a.table.size() == 2);
}
