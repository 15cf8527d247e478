// What the decoder helpers need from C: the seccomp filter, the address-space limit, sealed
// memfds, descriptor passing over a socket, and spawning with only the descriptors wanted.
#pragma once
#include <stddef.h>
#include <sys/types.h>

// Limits the process's address space to `bytes` (RLIMIT_AS). 0 on success, else errno.
int cp_sandbox_limit_memory(unsigned long long bytes);

// Installs the helper's seccomp filter: no new sockets or connections, no files opened for
// writing, created, removed or renamed, no exec, no signals to other processes, no ptrace,
// mounts or namespaces (these fail with EPERM; exec kills the process). Also sets
// no_new_privs and makes the process die with its parent. 0 on success, else a negative
// errno; `*message` then says what failed (static text).
int cp_sandbox_apply(const char **message);

// A memfd that can be sealed (close-on-exec). -1 and errno on failure.
int cp_memfd_new(const char *name);
// Seals `fd` against growing, shrinking and writing, and against further seals.
int cp_memfd_seal(int fd);
// 1 when `fd` is sealed against shrinking and writing (its size and contents cannot change
// any more), else 0.
int cp_memfd_is_sealed(int fd);

// Sends `length` bytes as one datagram, with `fd` attached when it is not -1 (SCM_RIGHTS).
// 0 on success, else errno (never raises SIGPIPE).
int cp_channel_send(int socket, const void *bytes, size_t length, int fd);
// Receives one datagram into `buffer`; `*fd` is the attached descriptor or -1. Returns the
// length, 0 at the end of the stream, or -errno. A datagram longer than `capacity` is an
// error (-EMSGSIZE), and any descriptor that came with it is closed.
long cp_channel_receive(int socket, void *buffer, size_t capacity, int *fd);

// Starts `argv[0]` (a path) with `envp`, its standard input on /dev/null, `socket` as
// descriptor 3 and no other descriptors but 1 and 2, in a session of its own when
// `new_session` is set. 0 and `*pid` on success, else errno.
int cp_spawn_helper(char *const argv[], char *const envp[], int socket, int new_session, pid_t *pid);
