// What the HTTP API renders: answers of ad hoc queries as text (psql's
// aligned table), JSON (one object per line) or CSV; and the pipeline's
// reports (pipeline/report.h) as the JSON of /stats, /status and
// /checkpoints.
#pragma once

#include <string>

#include "pipeline/api.h"
#include "server/http_server.h"

namespace sluice::server {

std::string RenderText(const pipeline::QueryResult& r);
// With `headers`, a first line {"columns": [{"name", "type"}], "step": S}.
std::string RenderJson(const pipeline::QueryResult& r, bool headers = false);
// With `headers`, a first line of the column names.
std::string RenderCsv(const pipeline::QueryResult& r, bool headers = false);
// A CSV header line naming `names`.
std::string RenderCsvHeader(const std::vector<std::string>& names);

// With `http`, an "http" object with the API server's connection counters.
std::string RenderStats(const pipeline::PipelineStats& stats, bool pretty = false,
                        const HttpServerStats* http = nullptr);
// The figures in Prometheus' text format (version 0.0.4).
std::string RenderMetrics(const pipeline::PipelineStats& stats,
                          const std::vector<pipeline::CheckpointInfo>& checkpoints,
                          const HttpServerStats* http = nullptr);
std::string RenderStatus(const pipeline::PipelineStatus& status);
std::string RenderCheckpoints(const std::vector<pipeline::CheckpointInfo>& list);

}  // namespace sluice::server
