// Forwarding header, installed only, for one release: io/simulation.hpp moved to simulation/run_driver.hpp when io/
// became formats only (docs/architecture.md, "Moved headers"). Include simulation/run_driver.hpp instead.
#pragma once

#include "simulation/run_driver.hpp"
