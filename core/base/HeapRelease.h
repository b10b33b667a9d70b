#pragma once
// Asking glibc's allocator to give memory back to the system, in one place. Both calls do nothing
// where they cannot help: off glibc, and under a sanitizer, whose allocator replaces glibc's (there
// glibc's heap is never set up, and malloc_trim from several threads at once races on setting it up).

namespace chokepoint::core {

// Returns the free pages at the top of each heap and inside them (glibc malloc_trim(0)).
void releaseFreedHeapMemory();

// Buffers of `thresholdBytes` and more get their own mappings, returned to the system when freed
// (glibc M_MMAP_THRESHOLD, which also stops glibc from raising the threshold on its own).
void mapLargeBuffersSeparately(int thresholdBytes);

}  // namespace chokepoint::core
