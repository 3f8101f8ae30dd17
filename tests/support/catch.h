// The one Catch2 include of every test. Catch2 v2 (Debian 12) is one header;
// v3 (Debian 13, Ubuntu 24.04) is a compiled library with split headers and
// moved a few names. Meson finds which one is installed and says so through
// RUNNER_CATCH2_MAJOR (tests/meson.build); the tests are written against v2's
// names, and this header gives them those names on v3.
#pragma once

#if !defined(RUNNER_CATCH2_MAJOR)
#error "RUNNER_CATCH2_MAJOR is unset: build the tests through meson (tests/meson.build sets it from the catch2 it finds)"
#elif RUNNER_CATCH2_MAJOR >= 3

#include <catch2/catch_all.hpp>

#include <string>

// v3 keeps the string matchers in Catch::Matchers and renamed the substring
// one; v2 also reached them as Catch::Contains / StartsWith / EndsWith.
namespace Catch {
inline Matchers::StringContainsMatcher Contains(const std::string& text,
                                                CaseSensitive sensitivity = CaseSensitive::Yes) {
  return Matchers::ContainsSubstring(text, sensitivity);
}
using Matchers::EndsWith;
using Matchers::StartsWith;
}  // namespace Catch

using Catch::Approx;  // v2 declared Approx at global scope

#else

#include <catch2/catch.hpp>

#endif
