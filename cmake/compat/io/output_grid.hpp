// Forwarding header, installed only, for one release: io/output_grid.hpp moved to simulation/output_grid.hpp when io/
// became formats only (docs/architecture.md, "Moved headers"). Include simulation/output_grid.hpp instead.
#pragma once

#include "simulation/output_grid.hpp"
