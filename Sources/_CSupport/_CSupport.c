// For PTHREAD_MUTEX_ADAPTIVE_NP (glibc); must precede every include.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
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

// Temporary output files to remove on a terminating signal. The handler may only call
// async-signal-safe functions, so paths live in fixed C storage: a slot is filled while its flag
// is clear, then the flag is set; the handler reads only slots whose flag is set.
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define CS_TEMPORARY_SLOTS 32
#define CS_TEMPORARY_PATH 4096
static char cs_temporary_paths[CS_TEMPORARY_SLOTS][CS_TEMPORARY_PATH];
static volatile sig_atomic_t cs_temporary_used[CS_TEMPORARY_SLOTS];
static pthread_mutex_t cs_temporary_lock = PTHREAD_MUTEX_INITIALIZER;
static int cs_temporary_handlers_installed = 0;

static void cs_temporary_cleanup(int signal_number) {
    for (int slot = 0; slot < CS_TEMPORARY_SLOTS; slot++) {
        if (cs_temporary_used[slot]) unlink(cs_temporary_paths[slot]);
    }
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal_number, &fallback, NULL);
    raise(signal_number);
}

int _cs_temporary_register(const char *path) {
    if (strlen(path) >= CS_TEMPORARY_PATH) return -1;
    pthread_mutex_lock(&cs_temporary_lock);
    if (!cs_temporary_handlers_installed) {
        const int signals[] = { SIGINT, SIGTERM, SIGHUP };
        for (unsigned index = 0; index < sizeof signals / sizeof signals[0]; index++) {
            struct sigaction current;
            // A signal the parent set to be ignored (nohup, a shell's background job) stays ignored.
            if (sigaction(signals[index], NULL, &current) == 0 && current.sa_handler == SIG_IGN) continue;
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_handler = cs_temporary_cleanup;
            sigemptyset(&action.sa_mask);
            sigaction(signals[index], &action, NULL);
        }
        cs_temporary_handlers_installed = 1;
    }
    int found = -1;
    for (int slot = 0; slot < CS_TEMPORARY_SLOTS; slot++) {
        if (!cs_temporary_used[slot]) {
            strcpy(cs_temporary_paths[slot], path);
            cs_temporary_used[slot] = 1;
            found = slot;
            break;
        }
    }
    pthread_mutex_unlock(&cs_temporary_lock);
    return found;
}

void _cs_temporary_unregister(int slot) {
    if (slot < 0 || slot >= CS_TEMPORARY_SLOTS) return;
    pthread_mutex_lock(&cs_temporary_lock);
    cs_temporary_used[slot] = 0;
    pthread_mutex_unlock(&cs_temporary_lock);
}

int _cs_mutex_init(void *mutex) {
    pthread_mutexattr_t attributes;
    int status = pthread_mutexattr_init(&attributes);
    if (status != 0) return status;
#if defined(__GLIBC__)
    // Spins a bounded while before sleeping: Cache holds its lock for well under a microsecond,
    // far less than a sleep and wake-up in the kernel costs the waiting thread.
    (void)pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    status = pthread_mutex_init((pthread_mutex_t *)mutex, &attributes);
    (void)pthread_mutexattr_destroy(&attributes);
    return status;
}
