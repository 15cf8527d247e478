#define _GNU_SOURCE
#include "decoder_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

int cp_sandbox_limit_memory(unsigned long long bytes) {
    struct rlimit limit = {.rlim_cur = bytes, .rlim_max = bytes};
    return setrlimit(RLIMIT_AS, &limit) == 0 ? 0 : errno;
}

int cp_sandbox_limit_files(unsigned long long file_bytes, unsigned long long descriptors) {
    // Pixels written to a memfd with write() are never mapped, so the address-space limit
    // does not count them; the size of each file and the number of them are bounded instead.
    struct rlimit size = {.rlim_cur = file_bytes, .rlim_max = file_bytes};
    if (setrlimit(RLIMIT_FSIZE, &size) != 0) return errno;
    struct rlimit count = {.rlim_cur = descriptors, .rlim_max = descriptors};
    if (setrlimit(RLIMIT_NOFILE, &count) != 0) return errno;
    return 0;
}

// Calls that fail with EPERM whatever their arguments.
static const int refused[] = {
    SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen),
    SCMP_SYS(accept), SCMP_SYS(accept4),
    SCMP_SYS(creat), SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(mknod), SCMP_SYS(mknodat),
    SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rmdir), SCMP_SYS(rename), SCMP_SYS(renameat),
    SCMP_SYS(renameat2), SCMP_SYS(link), SCMP_SYS(linkat), SCMP_SYS(symlink), SCMP_SYS(symlinkat),
    SCMP_SYS(truncate), SCMP_SYS(chmod), SCMP_SYS(fchmodat), SCMP_SYS(chown), SCMP_SYS(lchown),
    SCMP_SYS(fchownat), SCMP_SYS(utime), SCMP_SYS(utimes), SCMP_SYS(utimensat), SCMP_SYS(futimesat),
    SCMP_SYS(setxattr), SCMP_SYS(lsetxattr), SCMP_SYS(removexattr), SCMP_SYS(lremovexattr),
    SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
    SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_send_signal), SCMP_SYS(pidfd_getfd), SCMP_SYS(tkill),
    SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(chroot), SCMP_SYS(unshare),
    SCMP_SYS(setns), SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at),
    SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(bpf),
    SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd), SCMP_SYS(io_uring_setup), SCMP_SYS(fanotify_init),
    SCMP_SYS(personality), SCMP_SYS(syslog), SCMP_SYS(acct), SCMP_SYS(swapon), SCMP_SYS(swapoff),
    SCMP_SYS(reboot), SCMP_SYS(kexec_load), SCMP_SYS(init_module), SCMP_SYS(finit_module),
    SCMP_SYS(delete_module),
    // Changing files through a descriptor it was given (the user's photo is open for reading,
    // which is enough for these), or holding locks and leases other programs would wait on.
    SCMP_SYS(fchmod), SCMP_SYS(fchown), SCMP_SYS(fsetxattr), SCMP_SYS(fremovexattr), SCMP_SYS(flock),
    SCMP_SYS(fallocate),
    // Scheduling and I/O priority of any process (a pid of 0 can mean the user's every process).
    SCMP_SYS(setpriority), SCMP_SYS(ioprio_set),
    // The new mount API, and limits it has no reason to change once they are set.
    SCMP_SYS(fsopen), SCMP_SYS(fsconfig), SCMP_SYS(fsmount), SCMP_SYS(fspick), SCMP_SYS(move_mount),
    SCMP_SYS(open_tree), SCMP_SYS(mount_setattr), SCMP_SYS(setrlimit),
};

// Calls allowed only on the calling process itself, named by the pid 0 in their first argument.
static const int only_on_self[] = {
    SCMP_SYS(sched_setparam), SCMP_SYS(sched_setscheduler), SCMP_SYS(sched_setattr),
    SCMP_SYS(sched_setaffinity),
};

// Signals: allowed only when the first argument (a process or thread group) is the helper.
static const int signalling[] = {
    SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo),
};

// fcntl commands that would let it signal another process (SIGIO to an owner it names) or
// hold other programs up (leases, directory notifications).
static const int fcntl_refused[] = {F_SETOWN, F_SETOWN_EX, F_SETSIG, F_SETLEASE, F_NOTIFY};

// Namespace flags: a new process or thread asking for any of these is refused.
static const unsigned long long namespaces[] = {
    CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP,
};

// A comparison of argument `index` (SCMP_A0… with both data spelled out).
static struct scmp_arg_cmp argument(unsigned index, enum scmp_compare op, scmp_datum_t a, scmp_datum_t b) {
    struct scmp_arg_cmp comparison = {.arg = index, .op = op, .datum_a = a, .datum_b = b};
    return comparison;
}

// Gives up every capability the process has (a helper started by an app running as root,
// without bubblewrap, has them all): none effective, permitted or inheritable, none left in the
// bounding set where that may be changed. 0 on success, else errno.
static int drop_capabilities(void) {
    for (int capability = 0; capability <= CAP_LAST_CAP; capability++)
        prctl(PR_CAPBSET_DROP, capability, 0, 0, 0); // EPERM without CAP_SETPCAP: nothing to drop
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct none[2];
    memset(none, 0, sizeof none);
    return syscall(SYS_capset, &header, none) == 0 ? 0 : errno;
}

int cp_sandbox_apply(const char **message) {
    *message = NULL;
    int dropped = drop_capabilities();
    if (dropped != 0) { *message = "dropping capabilities"; return -dropped; }
    // If the app goes, so does the helper; and no exec'd program can gain privileges.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) { *message = "PR_SET_PDEATHSIG"; return -errno; }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) { *message = "PR_SET_NO_NEW_PRIVS"; return -errno; }

    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (!filter) { *message = "seccomp_init"; return -ENOMEM; }
    int status = 0;
    const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0] && status == 0; i++)
        status = seccomp_rule_add(filter, eperm, refused[i], 0);
    // Files open for reading only: any of these flags makes open fail.
    const int writing[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_TMPFILE & ~O_DIRECTORY};
    for (size_t i = 0; i < sizeof writing / sizeof writing[0] && status == 0; i++) {
        scmp_datum_t flag = (scmp_datum_t)writing[i];
        status = seccomp_rule_add(filter, eperm, SCMP_SYS(open), 1, argument(1, SCMP_CMP_MASKED_EQ, flag, flag));
        if (status == 0)
            status = seccomp_rule_add(filter, eperm, SCMP_SYS(openat), 1, argument(2, SCMP_CMP_MASKED_EQ, flag, flag));
    }
    // openat2 passes its flags in a structure a filter cannot read: refused, and the C
    // library falls back to openat.
    if (status == 0) status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
    // No other program, ever.
    if (status == 0) status = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, SCMP_SYS(execve), 0);
    if (status == 0) status = seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, SCMP_SYS(execveat), 0);
    // Signals only to itself (abort and raise use these). A pid is 32 bits, but a 64-bit
    // comparison is safe here: only a register that holds exactly its pid passes.
    pid_t self = getpid();
    for (size_t i = 0; i < sizeof signalling / sizeof signalling[0] && status == 0; i++)
        status = seccomp_rule_add(
            filter, eperm, signalling[i], 1, argument(0, SCMP_CMP_NE, (scmp_datum_t)self, 0));
    for (size_t i = 0; i < sizeof only_on_self / sizeof only_on_self[0] && status == 0; i++)
        status = seccomp_rule_add(filter, eperm, only_on_self[i], 1, argument(0, SCMP_CMP_NE, 0, 0));
    // Limits may be read (prlimit64 with no new limit), not set, for itself or any other.
    if (status == 0) status = seccomp_rule_add(filter, eperm, SCMP_SYS(prlimit64), 1, argument(2, SCMP_CMP_NE, 0, 0));
    // The kernel reads these commands and requests as 32-bit numbers: compare only those bits,
    // or a value with its upper half set would slip past the rule and still be obeyed.
    for (size_t i = 0; i < sizeof fcntl_refused / sizeof fcntl_refused[0] && status == 0; i++)
        status = seccomp_rule_add(
            filter, eperm, SCMP_SYS(fcntl), 1, argument(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)fcntl_refused[i]));
    // No typing into a terminal, nor its console's other tricks.
    const unsigned long terminal[] = {TIOCSTI, TIOCLINUX};
    for (size_t i = 0; i < 2 && status == 0; i++)
        status = seccomp_rule_add(
            filter, eperm, SCMP_SYS(ioctl), 1, argument(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)terminal[i]));
    // Threads only: no new processes (so none that outlive it) and no namespaces. clone3
    // passes its flags in a structure a filter cannot read: it is refused as unknown, and the
    // C library falls back to clone.
    if (status == 0)
        status = seccomp_rule_add(
            filter, eperm, SCMP_SYS(clone), 1, argument(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    for (size_t i = 0; i < sizeof namespaces / sizeof namespaces[0] && status == 0; i++)
        status = seccomp_rule_add(
            filter, eperm, SCMP_SYS(clone), 1, argument(0, SCMP_CMP_MASKED_EQ, namespaces[i], namespaces[i]));
    if (status == 0) status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    if (status == 0) status = seccomp_rule_add(filter, eperm, SCMP_SYS(fork), 0);
    if (status == 0) status = seccomp_rule_add(filter, eperm, SCMP_SYS(vfork), 0);
    if (status != 0) {
        *message = "seccomp_rule_add";
        seccomp_release(filter);
        return status;
    }
    status = seccomp_load(filter);
    seccomp_release(filter);
    if (status != 0) *message = "seccomp_load";
    return status;
}

static void pause_20ms(void) {
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

// Writes `nice` to an autogroup file, trying again while the kernel refuses for its rate
// limit (EAGAIN: one change in 100 ms across the whole system, unless CAP_SYS_ADMIN).
static int write_autogroup(int fd, int nice, int attempts) {
    char text[16];
    int length = snprintf(text, sizeof text, "%d", nice);
    for (int attempt = 0;; attempt++) {
        if (write(fd, text, (size_t)length) == length) return 0;
        if (errno != EAGAIN || attempt + 1 >= attempts) return errno;
        pause_20ms();
    }
}

struct autogroup_retry {
    int fd;
    int nice;
};

static void *retry_autogroup(void *context) {
    struct autogroup_retry *retry = context;
    write_autogroup(retry->fd, retry->nice, 150); // for about 3 s
    close(retry->fd);
    free(retry);
    return NULL;
}

int cp_sandbox_lower_autogroup(int nice) {
    int fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    int status = write_autogroup(fd, nice, 1);
    if (status != EAGAIN) {
        close(fd);
        return status;
    }
    // Another process changed its group a moment ago: a thread keeps trying, so that the
    // helper need not wait for it. The descriptor is open already, as the filter will refuse
    // opening files for writing.
    struct autogroup_retry *retry = malloc(sizeof *retry);
    pthread_t thread;
    pthread_attr_t attributes;
    if (retry) {
        *retry = (struct autogroup_retry){.fd = fd, .nice = nice};
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        status = pthread_create(&thread, &attributes, retry_autogroup, retry);
        pthread_attr_destroy(&attributes);
        if (status == 0) return 0;
        free(retry);
    }
    close(fd);
    return status ? status : ENOMEM;
}

int cp_nice_thread(int nice) { return setpriority(PRIO_PROCESS, 0, nice) == 0 ? 0 : errno; }

int cp_sandbox_protect_app(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : errno; }

int cp_pipe(int ends[2]) { return pipe2(ends, O_CLOEXEC) == 0 ? 0 : errno; }

int cp_memfd_new(const char *name) { return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING); }

int cp_memfd_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0 ? 0 : errno;
}

int cp_memfd_is_sealed(int fd) {
    int seals = fcntl(fd, F_GET_SEALS);
    int wanted = F_SEAL_SHRINK | F_SEAL_WRITE;
    return seals >= 0 && (seals & wanted) == wanted;
}

int cp_channel_send(int socket, const void *bytes, size_t length, int fd, int nonblocking) {
    struct iovec part = {.iov_base = (void *)bytes, .iov_len = length};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
    if (fd >= 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.buffer;
        message.msg_controllen = sizeof control.buffer;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &fd, sizeof(int));
    }
    ssize_t sent;
    do sent = sendmsg(socket, &message, MSG_NOSIGNAL | (nonblocking ? MSG_DONTWAIT : 0));
    while (sent < 0 && errno == EINTR);
    return sent < 0 ? errno : 0;
}

long cp_channel_receive(int socket, void *buffer, size_t capacity, int *fd) {
    *fd = -1;
    struct iovec part = {.iov_base = buffer, .iov_len = capacity};
    union {
        char buffer[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } control;
    struct msghdr message = {
        .msg_iov = &part, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer};
    ssize_t received;
    do received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    while (received < 0 && errno == EINTR);
    if (received < 0) return -errno;
    int kept = -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int each;
            memcpy(&each, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
            if (kept < 0) kept = each;
            else close(each); // one descriptor a message; any more are not wanted
        }
    }
    // A datagram that is cut short, or empty (which also reads as the end), keeps no descriptor.
    if ((message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || received == 0) {
        if (kept >= 0) close(kept);
        if (received == 0) return 0;
        return -EMSGSIZE;
    }
    *fd = kept;
    return (long)received;
}

int cp_spawn_helper(
    char *const argv[], char *const envp[], int socket, int error_output, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    // Nothing of the app's but the socket: no terminal, no log it could write into.
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, error_output >= 0 ? error_output : 1, 2);
    posix_spawn_file_actions_adddup2(&actions, socket, 3);
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    // A session of its own: no controlling terminal, no signals from the terminal's keys.
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID;
    posix_spawnattr_setflags(&attributes, flags);
    int status = posix_spawn(pid, argv[0], &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return status;
}

// Appends `name` to the probe's report (space-separated).
static void probe_note(char *report, size_t capacity, const char *name) {
    size_t used = strlen(report);
    snprintf(report + used, capacity - used, "%s%s", used ? " " : "", name);
}

void cp_sandbox_probe(pid_t app, int fd, char *report, size_t capacity) {
    report[0] = 0;
    if (kill(app, 0) == 0) probe_note(report, capacity, "kill");
    siginfo_t info;
    memset(&info, 0, sizeof info);
    info.si_code = SI_QUEUE;
    if (syscall(SYS_rt_sigqueueinfo, app, 0, &info) == 0) probe_note(report, capacity, "rt_sigqueueinfo");
    struct rlimit core;
    if (prlimit(app, RLIMIT_CORE, NULL, &core) == 0 && prlimit(app, RLIMIT_CORE, &core, NULL) == 0)
        probe_note(report, capacity, "prlimit");
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)app);
    if (errno == 0 && setpriority(PRIO_PROCESS, (id_t)app, nice) == 0) probe_note(report, capacity, "setpriority");
    pid_t child = fork();
    if (child == 0) _exit(0);
    if (child > 0) {
        waitpid(child, NULL, 0);
        probe_note(report, capacity, "fork");
    }
    if (syscall(SYS_clone3, NULL, 0) == 0 || errno != ENOSYS) probe_note(report, capacity, "clone3");
    if (unshare(CLONE_NEWUSER) == 0) probe_note(report, capacity, "unshare");
    struct stat status;
    if (fstat(fd, &status) == 0 && fchmod(fd, status.st_mode & 07777) == 0) probe_note(report, capacity, "fchmod");
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
        flock(fd, LOCK_UN);
        probe_note(report, capacity, "flock");
    }
    if (fcntl(fd, F_SETOWN, app) == 0) probe_note(report, capacity, "F_SETOWN");
    char typed = 'x';
    // The request with its upper 32 bits set: the kernel would still read TIOCSTI.
    if (syscall(SYS_ioctl, 0, (unsigned long)TIOCSTI | 0x100000000ul, &typed) == 0 || errno != EPERM)
        probe_note(report, capacity, "TIOCSTI");
    if (syscall(SYS_fsopen, "tmpfs", 0) >= 0 || errno != EPERM) probe_note(report, capacity, "fsopen");
    if (fstat(2, &status) != 0 || !S_ISCHR(status.st_mode) || status.st_rdev != makedev(1, 3))
        probe_note(report, capacity, "stderr");
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct held[2];
    if (syscall(SYS_capget, &header, held) != 0 || held[0].effective || held[0].permitted || held[1].effective ||
        held[1].permitted)
        probe_note(report, capacity, "capabilities");
    if (getsid(0) != getpid()) probe_note(report, capacity, "session");
    // "/autogroup-N nice K", where the kernel has autogroups
    // (a change the kernel's rate limit deferred may take a moment)
    for (int attempt = 0; attempt < 200; attempt++) {
        FILE *group = fopen("/proc/self/autogroup", "r");
        if (!group) break;
        int niced = 0;
        int read = fscanf(group, "/autogroup-%*d nice %d", &niced);
        fclose(group);
        if (read == 1 && niced > 0) break;
        if (read != 1 || attempt == 199) probe_note(report, capacity, "autogroup");
        if (read != 1) break;
        pause_20ms();
    }
    struct rlimit files;
    if (getrlimit(RLIMIT_FSIZE, &files) != 0 || files.rlim_max == RLIM_INFINITY) probe_note(report, capacity, "fsize");
}
