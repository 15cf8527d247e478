// What the decoder helpers need from C: the seccomp filter, the address-space limit, sealed
// memfds, descriptor passing over a socket, and spawning with only the descriptors wanted.
#pragma once
#include <stddef.h>
#include <sys/types.h>

// Limits the process's address space to `bytes` (RLIMIT_AS). 0 on success, else errno.
int cp_sandbox_limit_memory(unsigned long long bytes);
// Limits the size of any file the process writes (RLIMIT_FSIZE; a memfd too) and the number of
// descriptors it may hold (RLIMIT_NOFILE). 0 on success, else errno.
int cp_sandbox_limit_files(unsigned long long file_bytes, unsigned long long descriptors);

// Installs the helper's seccomp filter: no new sockets or connections, no files opened for
// writing, created, removed or renamed, nor changed through a descriptor (mode, owner,
// attributes, locks, leases); no exec, no new processes (threads only), no signals, limits or
// priorities for other processes, no ptrace, mounts or namespaces (these fail with EPERM or
// ENOSYS; exec kills the process). Also drops every capability, sets no_new_privs and makes
// the process die with its parent. 0 on success, else a negative errno; `*message` then says
// what failed (static text).
int cp_sandbox_apply(const char **message);

// Gives the scheduling group of the process's session (its autogroup, where the kernel has
// them) the weight of a process niced to `nice`, so that a helper busy decoding weighs less
// than the app it works for. When the kernel's rate limit refuses for now, a thread of the
// process tries again for a few seconds. 0 on success (or once the thread is trying), else
// errno (ENOENT without autogroups).
int cp_sandbox_lower_autogroup(int nice);

// Sets the calling thread's niceness (on Linux it is a thread's, and threads and processes it
// starts inherit it). 0 on success, else errno.
int cp_nice_thread(int nice);

// Makes the app's own process undumpable: other processes of the user (a helper running
// without bubblewrap, which shares the app's view of /proc) cannot read its memory or attach
// to it. 0 on success, else errno.
int cp_sandbox_protect_app(void);

// A pipe, both ends close-on-exec. 0 on success, else errno.
int cp_pipe(int ends[2]);

// A memfd that can be sealed (close-on-exec). -1 and errno on failure.
int cp_memfd_new(const char *name);
// Seals `fd` against growing, shrinking and writing, and against further seals.
int cp_memfd_seal(int fd);
// 1 when `fd` is sealed against shrinking and writing (its size and contents cannot change
// any more), else 0.
int cp_memfd_is_sealed(int fd);

// Sends `length` bytes as one datagram, with `fd` attached when it is not -1 (SCM_RIGHTS).
// 0 on success, else errno (never raises SIGPIPE). With `nonblocking`, a full socket is
// EAGAIN instead of a wait.
int cp_channel_send(int socket, const void *bytes, size_t length, int fd, int nonblocking);
// Receives one datagram into `buffer`; `*fd` is the attached descriptor or -1. Returns the
// length, 0 at the end of the stream (or an empty datagram), or -errno. A datagram longer
// than `capacity` is an error (-EMSGSIZE). A descriptor that came with an empty or cut
// datagram is closed.
long cp_channel_receive(int socket, void *buffer, size_t capacity, int *fd);

// Starts `argv[0]` (a path) with `envp`, its standard input and output on /dev/null, its
// standard error on `error_output` (or /dev/null when -1), `socket` as descriptor 3 and no
// other descriptors, in a session of its own. 0 and `*pid` on
// success, else errno.
int cp_spawn_helper(char *const argv[], char *const envp[], int socket, int error_output, pid_t *pid);

// For tests only (a helper's `escape` fault): tries what the filter and limits should refuse
// (signalling, limiting or renicing `app`, forking, new namespaces, changing or locking `fd`,
// typing into a terminal, the mount API) and what should be in place (standard error on
// /dev/null, a file size limit, no capabilities, a session of its own with a lowered
// autogroup), and writes the names of whatever got through to `report`.
void cp_sandbox_probe(pid_t app, int fd, char *report, size_t capacity);
