#include "_CSupport.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

int _cs_ticks_are_invariant(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    unsigned int eax, ebx, ecx, edx;
    if (__get_cpuid_max(0x80000000u, 0) < 0x80000007u) return 0;
    __cpuid(0x80000007u, eax, ebx, ecx, edx);
    return (edx >> 8) & 1;
#elif defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}
