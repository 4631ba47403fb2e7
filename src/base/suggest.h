// "Did you mean ...?" for a misspelled name: the candidate closest to it
// by edit distance, if close enough to be a likely typo.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// The edit distance between `a` and `b` (insertions, deletions,
// substitutions and swaps of two neighbouring letters), ignoring ASCII case.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `name` (at most a third of its length away,
// and at least 1 edit allowed), or "" if none is.
std::string Nearest(std::string_view name, const std::vector<std::string>& candidates);

// " (did you mean X?)" for the nearest candidate, or "".
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace sluice
