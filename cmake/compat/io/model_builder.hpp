// Forwarding header, installed only, for one release: io/model_builder.hpp moved to builder/model_builder.hpp when io/
// became formats only (docs/architecture.md, "Moved headers"). Include builder/model_builder.hpp instead.
#pragma once

#include "builder/model_builder.hpp"
#include "simulation/run_driver.hpp"  // build_run_model(RunConfig) moved there
