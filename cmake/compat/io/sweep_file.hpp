// Forwarding header, installed only, for one release: io/sweep_file.hpp moved to study/sweep_file.hpp when io/
// became formats only (docs/architecture.md, "Moved headers"). Include study/sweep_file.hpp instead.
#pragma once

#include "study/sweep_file.hpp"
