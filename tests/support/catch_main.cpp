// The test executables' main. Catch2 v2 writes it from CATCH_CONFIG_MAIN; v3
// ships one in Catch2Main, but this project links only the library (pkg-config
// `catch2`) so that both versions take the same path: a Session run on argv.
#if RUNNER_CATCH2_MAJOR >= 3

#include <catch2/catch_session.hpp>

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }

#else

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#endif
