#pragma once

namespace sluice {

// `sluice demo`: builds a circuit (orders joined with customers, summed per
// country), feeds it a few steps of changes, and prints each step's output
// change. Returns the process exit code.
int RunDemo(int workers);

}  // namespace sluice
