// gmbd: the command-line entry point; the command line itself is gmbd::cli::run_cli (cli.cpp).
#include "apps/gmbd/cli.hpp"

int main(int argc, char** argv) { return gmbd::cli::run_cli(argc, argv); }
