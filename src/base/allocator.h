// How the process's allocator (glibc malloc) treats the large blocks that
// batches are built in.
#pragma once

namespace sluice {

// A step builds batches of tens of megabytes (the rows of a step's change,
// a join's pairs, an exchange's parts) and frees most of them by the next
// step. glibc maps every block above 32 MB afresh and unmaps it when freed,
// and returns a heap's free top to the kernel above 128 KB, so each step
// faulted in (and zeroed) every page of those blocks again: on Nexmark's q9,
// 1.3 million page faults per 10^6 events, half the run. With this, blocks
// up to 256 MB come from the heap and free memory up to 64 MB stays with it
// to be reused, at the price of a higher resident size (the heap keeps what
// it had at its peak, within those bounds).
//
// Called by Runtime::Start; idempotent. Leaves the allocator as it is if
// the user tuned it (GLIBC_TUNABLES naming glibc.malloc, MALLOC_*_ set).
void TuneAllocatorForBatches();

}  // namespace sluice
