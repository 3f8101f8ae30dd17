#include "cli/cli.h"

int main(int argc, char** argv) { return runner::cli_main(argc, argv); }
