// What the HTTP API renders: answers of ad hoc queries as text (psql's
// aligned table), JSON (one object per line) or CSV; and the pipeline's
// reports (pipeline/report.h) as the JSON of /stats, /status and
// /checkpoints.
#pragma once

#include <string>

#include "pipeline/api.h"

namespace sluice::server {

std::string RenderText(const pipeline::QueryResult& r);
std::string RenderJson(const pipeline::QueryResult& r);
std::string RenderCsv(const pipeline::QueryResult& r);

std::string RenderStats(const pipeline::PipelineStats& stats);
std::string RenderStatus(const pipeline::PipelineStatus& status);
std::string RenderCheckpoints(const std::vector<pipeline::CheckpointInfo>& list);

}  // namespace sluice::server
