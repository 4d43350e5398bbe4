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

// Held signals: while `cs_hold_depth` is above 0 (a commit of several files, or a temporary
// being created and registered), a terminating signal is only recorded, and takes effect when
// the last hold is released; otherwise the process could die between two renames (reports new,
// charts old) or with a file created but not yet registered.
static volatile sig_atomic_t cs_held_signal = 0;
static int cs_hold_depth = 0;

// Unlinks every registered temporary; async-signal-safe.
static void cs_remove_temporaries(void) {
    for (int slot = 0; slot < CS_TEMPORARY_SLOTS; slot++) {
        if (cs_temporary_used[slot]) unlink(cs_temporary_paths[slot]);
    }
}

static void cs_remove_and_raise(int signal_number) {
    cs_remove_temporaries();
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal_number, &fallback, NULL);
    raise(signal_number);
}

static void cs_temporary_cleanup(int signal_number) {
    if (__atomic_load_n(&cs_hold_depth, __ATOMIC_SEQ_CST) > 0) {
        cs_held_signal = signal_number;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        // The last hold may have ended between the two reads, before it could see the signal.
        if (__atomic_load_n(&cs_hold_depth, __ATOMIC_SEQ_CST) > 0) return;
    }
    cs_remove_and_raise(signal_number);
}

// Installs the handlers once; the caller holds `cs_temporary_lock`.
static void cs_install_handlers(void) {
    if (cs_temporary_handlers_installed) return;
    // Every signal whose default action ends the process and that a user or a scheduler sends
    // to stop a run: Ctrl-C, Ctrl-\, kill, a closed terminal, a job's time limit (SIGALRM,
    // SIGUSR1/2 from batch systems; SIGXCPU from `ulimit -t` and schedulers' CPU limits; the
    // profiling and virtual timers, SIGPWR, SIGIO and SIGSYS, whose defaults end the process too).
    // SIGQUIT's default would first pass through Swift's backtracer, which reports a crash and
    // lets the run go on. (SIGXFSZ and SIGPIPE are ignored, so that a write fails with an error.)
    const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF,
#if defined(__linux__)
        SIGPWR, SIGIO,   // elsewhere (Darwin) their default is to do nothing
#endif
        SIGSYS };
    for (unsigned index = 0; index < sizeof signals / sizeof signals[0]; index++) {
        struct sigaction current;
        if (sigaction(signals[index], NULL, &current) != 0) continue;
        // A signal the parent set to be ignored (nohup, a shell's background job) stays ignored,
        // and one that already has a handler keeps it (a profiler's SIGPROF timer, an embedding
        // program's own); only SIGQUIT's is replaced, Swift's backtracer's (see above).
        if (current.sa_handler == SIG_IGN) continue;
        if (current.sa_handler != SIG_DFL && signals[index] != SIGQUIT) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = cs_temporary_cleanup;
        sigemptyset(&action.sa_mask);
        sigaction(signals[index], &action, NULL);
    }
    cs_temporary_handlers_installed = 1;
}

void _cs_signals_install(void) {
    pthread_mutex_lock(&cs_temporary_lock);
    cs_install_handlers();
    pthread_mutex_unlock(&cs_temporary_lock);
}

void _cs_signals_hold(void) {
    pthread_mutex_lock(&cs_temporary_lock);
    cs_install_handlers();
    pthread_mutex_unlock(&cs_temporary_lock);
    __atomic_add_fetch(&cs_hold_depth, 1, __ATOMIC_SEQ_CST);
}

void _cs_signals_release(void) {
    if (__atomic_sub_fetch(&cs_hold_depth, 1, __ATOMIC_SEQ_CST) == 0
        && __atomic_load_n(&cs_held_signal, __ATOMIC_SEQ_CST) != 0) {
        cs_remove_and_raise(cs_held_signal);
    }
}

int _cs_temporary_register(const char *path) {
    if (strlen(path) >= CS_TEMPORARY_PATH) return -1;
    pthread_mutex_lock(&cs_temporary_lock);
    cs_install_handlers();
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

// Mapped trace files, whose pages vanish if another process cuts the file short: a fault inside
// one ends the process as a failed read(2) would (a message naming the file, the temporaries
// removed, exit 66) instead of crashing. A fault anywhere else goes to the handler that was
// there before (the Swift runtime's crash report, or the default action).
#define CS_MAPPINGS 16
#define CS_MAPPING_MESSAGE (CS_TEMPORARY_PATH + 256)
static const char *cs_mapping_start[CS_MAPPINGS];
static size_t cs_mapping_length[CS_MAPPINGS];
static char cs_mapping_message[CS_MAPPINGS][CS_MAPPING_MESSAGE];
static size_t cs_mapping_message_length[CS_MAPPINGS];
static volatile sig_atomic_t cs_mapping_used[CS_MAPPINGS];
static struct sigaction cs_previous_bus;
static int cs_bus_installed = 0;

static void cs_bus(int signal_number, siginfo_t *info, void *context) {
    const char *address = info ? (const char *)info->si_addr : NULL;
    for (int slot = 0; address && slot < CS_MAPPINGS; slot++) {
        if (!cs_mapping_used[slot]) continue;
        const char *start = cs_mapping_start[slot];
        if (address >= start && address < start + cs_mapping_length[slot]) {
            (void)!write(STDERR_FILENO, cs_mapping_message[slot], cs_mapping_message_length[slot]);
            cs_remove_temporaries();
            _exit(66);
        }
    }
    // Not a mapped trace: the previous handler takes it when the access faults again on return,
    // or now for a SIGBUS sent by a process.
    sigaction(SIGBUS, &cs_previous_bus, NULL);
    if (info == NULL || info->si_code <= 0) raise(signal_number);
    (void)context;
}

int _cs_mapping_register(const void *start, size_t length, const char *message) {
    size_t count = strlen(message);
    if (count >= CS_MAPPING_MESSAGE) count = CS_MAPPING_MESSAGE - 1;
    pthread_mutex_lock(&cs_temporary_lock);
    if (!cs_bus_installed) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = cs_bus;
        action.sa_flags = SA_SIGINFO;
        sigemptyset(&action.sa_mask);
        if (sigaction(SIGBUS, &action, &cs_previous_bus) == 0) cs_bus_installed = 1;
    }
    int found = -1;
    for (int slot = 0; cs_bus_installed && slot < CS_MAPPINGS; slot++) {
        if (!cs_mapping_used[slot]) {
            cs_mapping_start[slot] = (const char *)start;
            cs_mapping_length[slot] = length;
            memcpy(cs_mapping_message[slot], message, count);
            cs_mapping_message[slot][count] = 0;
            cs_mapping_message_length[slot] = count;
            cs_mapping_used[slot] = 1;
            found = slot;
            break;
        }
    }
    pthread_mutex_unlock(&cs_temporary_lock);
    return found;
}

void _cs_mapping_unregister(int slot) {
    if (slot < 0 || slot >= CS_MAPPINGS) return;
    pthread_mutex_lock(&cs_temporary_lock);
    cs_mapping_used[slot] = 0;
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

#if defined(__GLIBC__)
#include <malloc.h>
#elif defined(__APPLE__)
#include <malloc/malloc.h>
#endif

size_t _cs_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    (void)malloc_trim(0);
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#elif defined(__APPLE__)
    malloc_statistics_t statistics;
    malloc_zone_statistics(NULL, &statistics);
    return statistics.size_in_use;
#else
    return 0;
#endif
}
