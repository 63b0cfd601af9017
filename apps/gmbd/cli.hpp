// The gmbd command line as a library (target GaussMBD::cli, installed as
// <prefix>/include/gaussmbd/apps/gmbd/cli.hpp): a user's own executable registers its model
// types with gmbd::register_model (models/registry.hpp) and hands its arguments to run_cli, so
// that every gmbd command (run, drift, info, models, demo, export) knows those types.
#pragma once

namespace gmbd::cli {

/// Runs the gmbd command line on argv (argv[0] is the program name): parses the arguments,
/// configures logging, runs the sub-command and returns the process exit code (docs/cli.md:
/// 0 ok, 1 bad input, 2 usage, 3 numerical failure, 130 interrupted). Errors are reported on
/// stderr and turned into exit codes; nothing is thrown.
int run_cli(int argc, char** argv);

}  // namespace gmbd::cli
