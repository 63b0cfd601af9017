// Forwarding header, installed only, for one release: io/run_config.hpp moved to simulation/run_config.hpp when io/
// became formats only (docs/architecture.md, "Moved headers"). Include simulation/run_config.hpp instead.
#pragma once

#include "simulation/run_config.hpp"
