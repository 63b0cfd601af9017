// Forwarding header, installed only, for one release: io/linear_results.hpp moved to simulation/linear_results.hpp when io/
// became formats only (docs/architecture.md, "Moved headers"). Include simulation/linear_results.hpp instead.
#pragma once

#include "simulation/linear_results.hpp"
