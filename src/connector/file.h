// File transports: file_input reads records from a file (and, with
// `follow`, keeps reading as the file grows); file_output appends every
// change it is handed to a file; null_output counts and drops them.
#pragma once

#include <memory>

#include "connector/connector.h"

namespace sluice::connector {

std::unique_ptr<InputConnector> MakeFileInput(const ConnectorSpec& spec,
                                              const format::Relation& rel);
std::unique_ptr<OutputConnector> MakeFileOutput(const ConnectorSpec& spec,
                                                const format::Relation& rel);
std::unique_ptr<OutputConnector> MakeNullOutput(const ConnectorSpec& spec);

}  // namespace sluice::connector
