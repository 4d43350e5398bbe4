// Processor instructions Swift cannot spell: a cache prefetch, relaxed atomic words, a cheap tick counter and a spin-wait hint.
// Static inline, so Swift inlines them at each call site.
#ifndef CACHEBENCH_CSUPPORT_H
#define CACHEBENCH_CSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// Asks the processor to start loading the cache line at `address` for reading. A hint: never
/// faults, even for an invalid address, and changes no result.
static inline __attribute__((always_inline)) void _cs_prefetch(const void *address) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address, 0, 3);
#else
    (void)address;
#endif
}

/// Reads the word at `address` as a relaxed atomic load: for a value one thread publishes and
/// others read without a lock, only as a hint (see `_cs_store_relaxed`).
static inline __attribute__((always_inline)) uintptr_t _cs_load_relaxed(const uintptr_t *address) {
    return __atomic_load_n(address, __ATOMIC_RELAXED);
}

/// Writes `value` to the word at `address` as a relaxed atomic store (see `_cs_load_relaxed`).
static inline __attribute__((always_inline)) void _cs_store_relaxed(uintptr_t *address, uintptr_t value) {
    __atomic_store_n(address, value, __ATOMIC_RELAXED);
}

/// A counter for timing short intervals, about half the cost of clock_gettime to read: the
/// time-stamp counter on x86-64 and the virtual counter on arm64. Its rate is not known here;
/// callers calibrate it against a clock. Elsewhere it reads 0 and callers must use a clock.
static inline __attribute__((always_inline)) uint64_t _cs_ticks(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
    uint64_t value;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(value));
    return value;
#else
    return 0;
#endif
}

/// Tells the processor the thread is spinning on a lock (x86-64 `pause`, arm64 `yield`): it
/// saves power and lets the other hardware thread of the core run. Changes no result.
static inline __attribute__((always_inline)) void _cs_spin_pause(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_ia32_pause();
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
    __asm__ __volatile__("yield");
#endif
}

/// Whether `_cs_ticks` counts at a constant rate whatever the core's frequency or sleep state:
/// on x86-64 the invariant-TSC bit of CPUID leaf 0x80000007, on arm64 always (the generic
/// timer runs at a fixed frequency), elsewhere never.
int _cs_ticks_are_invariant(void);

/// Registers a temporary file to be unlinked if the process is ended by a terminating signal
/// (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM) before the file is renamed into place or discarded. Installs the handlers on first use
/// (each removes every registered file, then re-raises the signal with its default action, so
/// the exit status still says which signal ended the process). Returns a slot for
/// `_cs_temporary_unregister`, or -1 when every slot is taken (the file is then not cleaned up
/// on a signal; it is still removed on every error path).
int _cs_temporary_register(const char *path);

/// Forgets slot `slot` (a value `_cs_temporary_register` returned; -1 is ignored).
void _cs_temporary_unregister(int slot);

/// Holds back the terminating signals until the matching `_cs_signals_release` (holds nest,
/// from any thread): one that arrives meanwhile is recorded, and when the last hold is released
/// the registered temporaries are removed and the signal is raised again with its default
/// action. For steps that must not be cut in two: renaming several files into place together,
/// creating a temporary and registering it. Keep a hold short: the process cannot be
/// interrupted (except by SIGKILL) while it lasts.
void _cs_signals_hold(void);

/// Installs the handlers `_cs_temporary_register` installs on first use, now: a program calls it
/// at its start so that every terminating signal (SIGQUIT included, which Swift's backtracer
/// would otherwise report as a crash and survive) ends it with the signal's default action, with
/// or without temporaries registered. A signal the parent set to be ignored stays ignored.
void _cs_signals_install(void);

/// Ends a hold begun by `_cs_signals_hold`; the last one acts on a signal that arrived meanwhile.
void _cs_signals_release(void);

/// Registers `length` bytes mapped at `start` from a file that another process may cut short:
/// a SIGBUS inside them writes `message` to standard error, removes the registered temporaries
/// and exits with 66 (the input cannot be read), as a failed read would end the command. A
/// SIGBUS anywhere else goes to the handler installed before. Returns a slot for
/// `_cs_mapping_unregister`, or -1 when none is free (a fault then crashes as before).
int _cs_mapping_register(const void *start, size_t length, const char *message);

/// Forgets slot `slot` (a value `_cs_mapping_register` returned; -1 is ignored), before the
/// mapping is removed.
void _cs_mapping_unregister(int slot);

/// Initializes the `pthread_mutex_t` at `mutex` (typed `void *` so that this header needs no
/// pthread include): with glibc an adaptive mutex, which spins briefly before sleeping when it is
/// contended; elsewhere a default one. Returns `pthread_mutex_init`'s result.
int _cs_mutex_init(void *mutex);

/// The bytes the C heap has handed out and not taken back, after giving free memory back to the
/// system where the allocator can (glibc's `malloc_trim`): what a benchmark reads to tell how
/// much memory a structure holds. 0 where the allocator does not say.
size_t _cs_heap_in_use(void);

#endif
