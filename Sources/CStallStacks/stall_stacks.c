#define _GNU_SOURCE
#include "stall_stacks.h"

#include <execinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static pthread_t sampled;
static atomic_int out = -1;
/// The label of the sample asked for, read by the signal handler.
static char label_buffer[128];

static void write_all(int fd, const char *text) {
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t n = write(fd, text, left);
        if (n <= 0) return;
        text += n;
        left -= (size_t)n;
    }
}

// backtrace() is not on POSIX's list of async-signal-safe functions; glibc's is safe once its
// unwinder is loaded, which install() does by calling it once.
static void on_sample(int signal_number) {
    (void)signal_number;
    int fd = atomic_load(&out);
    if (fd < 0) return;
    int saved = errno;
    void *frames[96];
    int count = backtrace(frames, 96);
    write_all(fd, "sample ");
    write_all(fd, label_buffer);
    write_all(fd, "\n");
    // The first frames are this handler and the signal trampoline.
    backtrace_symbols_fd(frames, count, fd);
    write_all(fd, "end\n");
    errno = saved;
}

bool cp_stall_stacks_install(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    void *warm[2];
    backtrace(warm, 2);
    sampled = pthread_self();
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_sample;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGPROF, &action, NULL) != 0) {
        close(fd);
        return false;
    }
    atomic_store(&out, fd);
    // Stalls are numbered in each process; several runs may share the file.
    char line[48];
    snprintf(line, sizeof line, "process %d", (int)getpid());
    cp_stall_stacks_note(line);
    return true;
}

void cp_stall_stacks_sample(const char *label) {
    if (atomic_load(&out) < 0) return;
    strncpy(label_buffer, label, sizeof label_buffer - 1);
    pthread_kill(sampled, SIGPROF);
}

void cp_stall_stacks_note(const char *line) {
    int fd = atomic_load(&out);
    if (fd < 0) return;
    write_all(fd, line);
    write_all(fd, "\n");
}
