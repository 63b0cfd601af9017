// Test helper: records the output samples of a run (t, q, v, λ) and runs a run file's text.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"

namespace gmbd::test {

/// t, q, v and λ of every output sample of a run; tests derive from it to record more.
struct StateTrace {
  std::vector<double> t;
  std::vector<Vec> q, v, lambda;

  void record(const OutputSample& s) {
    t.push_back(s.time);
    q.emplace_back(s.q);
    v.emplace_back(s.v);
    lambda.emplace_back(s.lambda);
  }
};

/// Parses the run file text `yaml` (called `source` in messages) with `overrides`, prepares
/// and integrates it, calling `sink` at every output sample.
inline RunSummary run_yaml(const std::string& yaml, const std::string& source,
                           const std::vector<std::string>& overrides, const SampleSink& sink) {
  const RunConfig config = parse_run_config(yaml, source, overrides);
  const PreparedRun run = prepare_run(config);
  return integrate(run, sink);
}

}  // namespace gmbd::test
