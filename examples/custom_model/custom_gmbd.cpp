// A user's own gmbd: the stock command line (run, drift, info, models, demo, export) plus the
// model types this program registers. Build against the installed package and link
// GaussMBD::cli; then
//   ./custom_gmbd models                                   # lists custom_pendulum too
//   ./custom_gmbd info custom_pendulum_run.yml
//   ./custom_gmbd run custom_pendulum_run.yml -o pendulum.h5
#include <gaussmbd/apps/gmbd/cli.hpp>
#include <gaussmbd/models/registry.hpp>

#include "rod_pendulum.hpp"

int main(int argc, char** argv) {
  gmbd::register_model(custom_pendulum_info());  // before run_cli: every command sees it
  return gmbd::cli::run_cli(argc, argv);
}
