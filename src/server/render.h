// Answers of ad hoc queries as text (psql's aligned table), JSON (one object
// per line) or CSV.
#pragma once

#include <string>

#include "pipeline/api.h"

namespace sluice::server {

std::string RenderText(const pipeline::QueryResult& r);
std::string RenderJson(const pipeline::QueryResult& r);
std::string RenderCsv(const pipeline::QueryResult& r);

}  // namespace sluice::server
