#pragma once

namespace sluice {

// `sluice run PROGRAM.sql [options]`: compiles the program, starts the
// pipeline and its HTTP API, and runs until SIGINT or SIGTERM.
int RunPipeline(int argc, char** argv);
// `sluice certs DIR IP...`
int MakeCertificatesCommand(int argc, char** argv);

}  // namespace sluice
