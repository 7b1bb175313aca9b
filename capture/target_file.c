/* SPDX-License-Identifier: MIT */
/*
 * A file a target names, read as the target (target_file.h): credentials from
 * /proc/PID/status, the target's root, a child process with those credentials, a pipe, a
 * deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gc_le.h"
#include "gc_util.h"
#include "target_file.h"

#define TF_MAX_GROUPS 65536u /* NGROUPS_MAX of Linux */
#define TF_CHUNK      (64u << 10)
#define TF_REAP_MS    1000  /* how long a killed child may take to go */

/* What the child reports first. */
enum tf_what {
    TF_OK = 0,
    TF_CREDS,    /* could not take the target's credentials */
    TF_RESOLVE,  /* openat2 below the target's root failed (err) */
    TF_NOTREG,   /* not a regular file */
    TF_OPEN,     /* reopening for reading failed (err) */
    TF_RANGE,    /* the range is not in the file */
    TF_TOOBIG,   /* more than max bytes */
    TF_READ,     /* reading failed (err) or the file ended early */
    TF_NOTELF,   /* not an ELF64 little-endian file */
    TF_MACHINE,  /* ELF, but not AMDGPU */
    TF_CHANGED,  /* the reopened file is not the one resolved */
};

static const char *const tf_phrases[] = {
    [TF_OK] = "read",
    [TF_CREDS] = "cannot take the target's credentials",
    [TF_RESOLVE] = "cannot be resolved in the target's root",
    [TF_NOTREG] = "not a regular file",
    [TF_OPEN] = "cannot be opened with the target's credentials",
    [TF_RANGE] = "the offset and size given are not in the file",
    [TF_TOOBIG] = "larger than a code object may be",
    [TF_READ] = "read error",
    [TF_NOTELF] = "not an ELF64 little-endian file",
    [TF_MACHINE] = "an ELF file, but not an AMDGPU code object",
    [TF_CHANGED] = "the file changed while it was opened",
};

struct tf_reply {
    uint32_t what; /* enum tf_what */
    int32_t err;   /* errno, 0 if none */
    uint64_t size; /* TF_OK: this many bytes follow */
};

struct tf_creds {
    uid_t fsuid;
    gid_t fsgid;
    gid_t *groups;
    size_t ngroups;
};

/* The filesystem uid and gid (4th field of "Uid:" and "Gid:") and the supplementary groups of
   process @p pid. 1 ok, 0 unknown (cr->groups may be allocated either way). */
static int read_creds(uint32_t pid, struct tf_creds *cr)
{
    char path[64], *line = NULL;
    size_t cap = 0;
    int have_uid = 0, have_gid = 0, ok = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", pid);
    f = fopen(path, "re");
    if (!f)
        return 0;
    while (getline(&line, &cap, f) > 0) {
        unsigned long v[4];

        if (!strncmp(line, "Uid:", 4) &&
            sscanf(line + 4, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) == 4) {
            cr->fsuid = (uid_t)v[3];
            have_uid = 1;
        } else if (!strncmp(line, "Gid:", 4) &&
                   sscanf(line + 4, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) == 4) {
            cr->fsgid = (gid_t)v[3];
            have_gid = 1;
        } else if (!strncmp(line, "Groups:", 7)) {
            char *p = line + 7, *end;

            for (;;) {
                unsigned long g;

                while (*p == ' ' || *p == '\t')
                    p++;
                if (*p < '0' || *p > '9')
                    break;
                g = strtoul(p, &end, 10);
                if (cr->ngroups == TF_MAX_GROUPS)
                    goto out;
                gid_t *n = gc_realloc_array(cr->groups, cr->ngroups + 1, sizeof(*n));
                if (!n)
                    goto out;
                cr->groups = n;
                cr->groups[cr->ngroups++] = (gid_t)g;
                p = end;
            }
        }
    }
    ok = have_uid && have_gid;
out:
    free(line);
    fclose(f);
    return ok;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;

    while (n) {
        ssize_t k = write(fd, p, n);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int reply(int fd, enum tf_what what, int err, uint64_t size)
{
    struct tf_reply r = { (uint32_t)what, err, size };

    (void)write_all(fd, &r, sizeof(r));
    return 0;
}

/* Take the target's credentials. We are root (or hold CAP_SETUID/SETGID): all of them;
   otherwise only if we already are its user (we cannot read more than it can then). */
static int take_creds(const struct tf_creds *cr)
{
    if (geteuid() != 0 && geteuid() == cr->fsuid && getegid() == cr->fsgid)
        return 0;
    if (setgroups(cr->ngroups, cr->groups) != 0 || setresgid(cr->fsgid, cr->fsgid, cr->fsgid) ||
        setresuid(cr->fsuid, cr->fsuid, cr->fsuid))
        return -1;
    return 0;
}

/* The child: no allocation (the parent may have had other threads at fork; @p buf, TF_CHUNK
   bytes, was allocated before it), reply and exit. */
static int child(int wfd, int rootfd, const struct tf_creds *cr, const char *path,
                 uint64_t offset, uint64_t size, uint64_t max, uint8_t *buf)
{
    struct open_how how = { .flags = O_PATH | O_CLOEXEC,
                            .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
    struct stat a, b;
    char self[64];
    int pfd, fd;
    ssize_t k;

    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (take_creds(cr) != 0)
        return reply(wfd, TF_CREDS, errno, 0);
    pfd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
    if (pfd < 0)
        return reply(wfd, TF_RESOLVE, errno, 0);
    if (fstat(pfd, &a) != 0 || !S_ISREG(a.st_mode))
        return reply(wfd, TF_NOTREG, 0, 0);
    /* the inode resolved, opened for reading: permission is checked now, as the target */
    snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
    fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return reply(wfd, TF_OPEN, errno, 0);
    if (fstat(fd, &b) != 0 || !S_ISREG(b.st_mode) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
        return reply(wfd, TF_CHANGED, 0, 0);
    if ((uint64_t)b.st_size < offset || (size && size > (uint64_t)b.st_size - offset))
        return reply(wfd, TF_RANGE, 0, 0);
    if (!size)
        size = (uint64_t)b.st_size - offset;
    if (size > max)
        return reply(wfd, TF_TOOBIG, 0, 0);
    k = pread(fd, buf, 64, (off_t)offset);
    if (k < 0)
        return reply(wfd, TF_READ, errno, 0);
    if (size < 64 || k < 64 || memcmp(buf, "\177ELF", 4) || buf[4] != 2 /* ELFCLASS64 */ ||
        buf[5] != 1 /* ELFDATA2LSB */)
        return reply(wfd, TF_NOTELF, 0, 0);
    if (gc_le16_get(buf + 18) != GC_TARGET_FILE_EM_AMDGPU)
        return reply(wfd, TF_MACHINE, 0, 0);
    (void)reply(wfd, TF_OK, 0, size);
    for (uint64_t done = 0; done < size;) {
        size_t want = size - done < TF_CHUNK ? (size_t)(size - done) : TF_CHUNK;

        k = pread(fd, buf, want, (off_t)(offset + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0 || write_all(wfd, buf, (size_t)k) != 0)
            return 0; /* the parent sees the pipe end early */
        done += (uint64_t)k;
    }
    return 0;
}

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Read exactly n bytes before the deadline. 1 ok, 0 EOF early, -1 timed out, -2 error. */
static int read_until(int fd, void *buf, size_t n, uint64_t deadline)
{
    uint8_t *p = buf;

    while (n) {
        uint64_t now = now_ms();
        struct pollfd pf = { fd, POLLIN, 0 };
        int r;

        if (now >= deadline)
            return -1;
        r = poll(&pf, 1, (int)(deadline - now));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -2;
        if (r == 0)
            return -1;
        ssize_t k = read(fd, p, n);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k < 0)
            return -2;
        if (k == 0)
            return 0;
        p += k;
        n -= (size_t)k;
    }
    return 1;
}

/* Kill (if still running) and reap the child, waiting at most TF_REAP_MS for it to go. */
static void finish_child(pid_t pid, int kill_it)
{
    int status;

    if (kill_it)
        kill(pid, SIGKILL);
    for (int waited = 0; waited <= TF_REAP_MS; waited++) {
        pid_t w = waitpid(pid, &status, WNOHANG | __WALL);

        if (w == pid || (w < 0 && errno != EINTR))
            return;
        if (!kill_it && waited == TF_REAP_MS / 2) {
            kill(pid, SIGKILL);
            kill_it = 1;
        }
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    /* stuck in the kernel (a hard NFS mount): it is reaped by whoever reaps our children */
}

int gc_target_file_read(uint32_t pid, const char *path, uint64_t offset, uint64_t size,
                        uint64_t max, uint32_t timeout_ms, uint8_t **ret, uint64_t *ret_size,
                        char *why, size_t why_size)
{
    struct tf_creds cr = { 0 };
    struct tf_reply r;
    uint64_t deadline = now_ms() + timeout_ms;
    uint8_t *buf = NULL;
    char root[64];
    int rootfd, p[2], rc = 0, got;
    pid_t child_pid;
    uint8_t *chunk;

    snprintf(why, why_size, "%s", "");
    if (!read_creds(pid, &cr)) {
        gc_free(cr.groups);
        snprintf(why, why_size, "the target's credentials are unknown (/proc/%" PRIu32
                 "/status)", pid);
        return 0;
    }
    snprintf(root, sizeof(root), "/proc/%" PRIu32 "/root", pid);
    rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0) {
        snprintf(why, why_size, "%s: %s", root, strerror(errno));
        gc_free(cr.groups);
        return 0;
    }
    chunk = gc_malloc(TF_CHUNK);
    if (!chunk) {
        close(rootfd);
        gc_free(cr.groups);
        return -1;
    }
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(why, why_size, "cannot make a pipe: %s", strerror(errno));
        close(rootfd);
        gc_free(cr.groups);
        gc_free(chunk);
        return 0;
    }
    child_pid = fork();
    if (child_pid == 0) {
        close(p[0]);
        (void)child(p[1], rootfd, &cr, path, offset, size, max, chunk);
        _exit(0);
    }
    close(p[1]);
    close(rootfd);
    gc_free(cr.groups);
    gc_free(chunk);
    if (child_pid < 0) {
        snprintf(why, why_size, "cannot fork: %s", strerror(errno));
        close(p[0]);
        return 0;
    }
    got = read_until(p[0], &r, sizeof(r), deadline);
    if (got == 1 && r.what == TF_OK && r.size && r.size <= max &&
        (size == 0 || r.size == size)) {
        buf = gc_malloc((size_t)r.size);
        if (!buf) {
            rc = -1;
        } else {
            got = read_until(p[0], buf, (size_t)r.size, deadline);
            if (got == 1) {
                *ret = buf;
                *ret_size = r.size;
                buf = NULL;
                rc = 1;
            } else if (got == 0) {
                snprintf(why, why_size, "%s", "the file ended before its size");
            }
        }
    } else if (got == 1) {
        if (r.what == TF_OK || r.what >= GC_ARRAY_SIZE(tf_phrases))
            snprintf(why, why_size, "%s", "the reader's reply is not understood");
        else if (r.err)
            snprintf(why, why_size, "%s (%s)", tf_phrases[r.what], strerror(r.err));
        else
            snprintf(why, why_size, "%s", tf_phrases[r.what]);
    } else if (got == 0) {
        snprintf(why, why_size, "%s", "the reader ended without a reply");
    }
    if (got == -1)
        snprintf(why, why_size, "timed out after %" PRIu32 " ms", timeout_ms);
    else if (got < 0)
        snprintf(why, why_size, "%s", "cannot read the reader's pipe");
    gc_free(buf);
    close(p[0]);
    finish_child(child_pid, rc != 1);
    return rc;
}
