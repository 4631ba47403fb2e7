// CSV records (see csv.cc for the layout).
#pragma once

#include <memory>
#include <string>

#include "format/format.h"

namespace sluice::format {

std::unique_ptr<Decoder> MakeCsvDecoder(const FormatOptions& options, const Relation& rel);
std::unique_ptr<Encoder> MakeCsvEncoder(const FormatOptions& options, const Relation& rel,
                                        std::string terminator);

}  // namespace sluice::format
