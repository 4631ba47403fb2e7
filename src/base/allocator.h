// How the process's allocator (glibc malloc) treats the large blocks that
// batches are built in.
//
// A step builds batches of tens of megabytes (the rows of a step's change, a
// join's pairs, an exchange's parts) and frees most of them by the next
// step. Left to its defaults, glibc
//   - maps every block above 32 MB afresh and unmaps it when freed, and gives
//     a heap's free top back to the kernel above 128 KB, so each step faulted
//     in (and zeroed) the pages of those blocks again;
//   - keeps one arena per thread up to 8 per core, whose heaps the threads
//     that free a batch (not the one that built it) leave half empty;
//   - backs the heap with 4 KB pages, so the first touch of every 4 KB of a
//     batch is a page fault: on a virtual machine, several microseconds each.
// With the settings below, Nexmark q9 at 3*10^6 events made 2,400 page
// faults instead of 1.3 million and ran in 0.43 of the time
// (docs/benchmarks.md, "Page faults").
//
// The settings: transparent huge pages for the heap (glibc.malloc.hugetlb=1,
// which advises the kernel to back it with 2 MB pages), one arena, blocks up
// to 256 MB from the heap, and up to 64 MB of free heap kept (trim threshold
// and top pad) to be reused. The price is a resident size that stays near its
// peak within those bounds. (The kept heap matters to readers too: a Parquet
// or Delta reader that frees and allocates the same tens of megabytes per
// row group read 232K rows/s with glibc's defaults and 3.76M with the heap
// kept, in bench/run parquet.)
//
// Any of them given in the environment (GLIBC_TUNABLES, or glibc's older
// MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_,
// MALLOC_TOP_PAD_) wins over Sluice's; GLIBC_TUNABLES=glibc.malloc.hugetlb=0
// turns the huge pages off. (glibc 2.36 shows a process only the first
// tunable of GLIBC_TUNABLES, so name hugetlb first if you name others.)
#pragma once

namespace sluice {

// For a program's main(), before it starts a thread: glibc reads the huge
// page setting only as a process starts, so unless the environment already
// has it, this re-executes the program (/proc/self/exe, the same process id
// and arguments) with GLIBC_TUNABLES holding the settings above. It returns
// only in the process that runs on: the re-executed one, or this one if the
// exec failed (then with what TuneAllocatorForBatches sets). It marks the
// environment (SLUICE_MALLOC_TUNED=1) so that neither the re-executed
// process nor its children (the hosts of `sluice run --hosts`) do it again.
void TuneAllocatorAtStart(char** argv);

// The settings above that mallopt can make at run time (all but the huge
// pages), for a process that did not call TuneAllocatorAtStart: tests and
// programs that embed the runtime. Called by Runtime::Start; idempotent.
void TuneAllocatorForBatches();

}  // namespace sluice
