#include "core/base/HeapRelease.h"

#include <cstdlib>  // defines __GLIBC__ on glibc, tested below

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHOKEPOINT_SANITIZED_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define CHOKEPOINT_SANITIZED_ALLOCATOR 1
#endif
#endif

namespace chokepoint::core {

void releaseFreedHeapMemory() {
#if defined(__GLIBC__) && !defined(CHOKEPOINT_SANITIZED_ALLOCATOR)
    malloc_trim(0);
#endif
}

void mapLargeBuffersSeparately([[maybe_unused]] int thresholdBytes) {
#if defined(__GLIBC__) && !defined(CHOKEPOINT_SANITIZED_ALLOCATOR)
    mallopt(M_MMAP_THRESHOLD, thresholdBytes);
#endif
}

}  // namespace chokepoint::core
