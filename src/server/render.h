// Answers of ad hoc queries as text (psql's aligned table), JSON (one object
// per line) or CSV.
#pragma once

#include <string>

#include "pipeline/controller.h"

namespace sluice::server {

std::string RenderText(const pipeline::Controller::QueryResult& r);
std::string RenderJson(const pipeline::Controller::QueryResult& r);
std::string RenderCsv(const pipeline::Controller::QueryResult& r);

}  // namespace sluice::server
