/* SPDX-License-Identifier: MIT */
/*
 * The host half of a unified core, as the Linux kernel's ELF core dumper writes it
 * (fs/binfmt_elf.c, fill_note_info / vma_dump_size), so `gdb EXE CORE` shows the process's
 * threads and backtraces:
 *
 *   notes, in the kernel's order: NT_PRSTATUS, NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE for
 *   the first thread (the caller's first_thread, else the leader), then NT_FPREGSET and
 *   NT_X86_XSTATE for it; then per other thread NT_PRSTATUS, NT_FPREGSET, NT_X86_XSTATE; last, once,
 *   NT_X86_XSAVE_LAYOUT (Linux 6.11+: the XSAVE components' sizes and offsets, from CPUID).
 *   Owner "CORE" (NT_X86_XSTATE, NT_X86_XSAVE_LAYOUT: "LINUX"). Not written: NT_386_IOPERM and
 *   NT_X86_SHSTK (the kernel adds them only for threads using ioperm or shadow stacks).
 *
 *   memory: which mappings, and how much of each, the kernel's default rules would dump given
 *   /proc/PID/coredump_filter (bits: 0 anon private, 1 anon shared, 2 file private, 3 file
 *   shared, 4 ELF headers, 5 private huge, 6 shared huge; default 0x33): never VM_IO or
 *   VM_DONTDUMP mappings, and never the mappings the caller excludes (GPU memory, which the GPU
 *   tiers handle); a private file mapping that has been written (Anonymous > 0) is dumped
 *   whole under bit 0; of an unwritten file mapping that starts with an ELF header, only the
 *   first page under bit 4; [vsyscall] never.
 *
 *   The rules in the kernel's order (vma_dump_size): [vsyscall] never (SPECIAL: the gate page
 *   cannot be read from outside); [vdso] always whole; "dd" never (POLICY); hugetlb ("ht")
 *   whole under bit 6 (shared) or 5 (private); "io" never (SPECIAL); shared mappings whole
 *   under bit 1 when anonymous (no file, or a file whose name ends " (deleted)": shmem, memfd,
 *   SysV, unlinked) else bit 3; a private mapping written (Anonymous or Swap > 0) whole under
 *   bit 0; an anonymous one otherwise nothing; a private file mapping whole under bit 2; else
 *   under bit 4, a readable mapping at file offset 0 whose first bytes read "\x7fELF" gives
 *   its first page (the kernel also takes the first page of any executable file: not done,
 *   the mode of the file is not known here).
 *
 * Internal to capture. No printing.
 */
#ifndef GC_CAPTURE_HOST_CORE_H
#define GC_CAPTURE_HOST_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gpucore/core.h>
#include <gpucore/status.h>

#include "mem_reader.h"
#include "procmaps.h"
#include "rangeset.h"
#include "tracee.h"

/* ELF note types the host notes use (<elf.h> values). */
#define GC_NT_PRSTATUS   1u
#define GC_NT_FPREGSET   2u
#define GC_NT_PRPSINFO   3u
#define GC_NT_AUXV       6u
#define GC_NT_SIGINFO    0x53494749u
#define GC_NT_FILE       0x46494c45u
#define GC_NT_X86_XSTATE 0x202u
#define GC_NT_X86_XSAVE_LAYOUT 0x205u

#define GC_COREDUMP_FILTER_DEFAULT 0x33u

/* One host memory range the kernel's rules select. */
struct gc_host_range {
    uint64_t start, size;
    uint32_t p_flags; /* PF_R 4 | PF_W 2 | PF_X 1 from the mapping's permissions */
    const char *label; /* the mapping's path or "[anon]"; borrowed from the gc_procmaps */
    uint32_t reason;   /* skipped ranges: GPUCORE_REASON_POLICY (the filter's rules) or
                          GPUCORE_REASON_SPECIAL (VM_IO, [vsyscall]); 0 for selected ranges */
};

struct gc_host_ranges {
    struct gc_host_range *r;
    uint32_t count;
    /* Mappings (or their tails) the rules leave out, for the manifest (tier HOST, SKIPPED,
     * with their reason). */
    struct gc_host_range *skipped;
    uint32_t nskipped;
};

/*
 * Select host memory by the kernel's rules. @p filter is the coredump_filter value
 * (gc_host_coredump_filter() reads the target's). Mappings overlapping @p exclude (GPU memory)
 * are left out entirely and not reported as skipped (the GPU tiers account for them).
 * @p mem (NULL: no mapping passes the rule) reads the first 4 bytes of an unwritten private file
 * mapping (the ELF-header rule), which count only when all 4 were read.
 * Selected ranges and skipped ranges are each in address order (one mapping gives at most one
 * of each: its selected head and its skipped tail).
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL maps or ret), GPUCORE_E_NOMEM. On success free with
 *         gc_host_ranges_free() (accepts NULL; idempotent).
 */
gpucore_status_t gc_host_select(const struct gc_procmaps *maps, uint32_t filter,
                                const struct gc_rangeset *exclude, const struct gc_mem_reader *mem,
                                struct gc_host_ranges *ret, gpucore_diag_t *reterr_diag);
void gc_host_ranges_free(struct gc_host_ranges *r);

/*
 * The order host memory is written in, so that a size budget (which cuts data in the order it
 * is written) keeps what a debugger needs most: a backtrace of every thread first, then what
 * the threads were working on, then the rest by address.
 *   priority 0  each thread's stack at its stack pointer: from the page holding SP - 128 (the
 *               x86-64 red zone) up GC_HOST_STACK_NEAR bytes, within SP's mapping;
 *   priority 1  around every address a thread's general registers hold (rax..r15, rip, fs_base,
 *               gs_base): GC_HOST_REG_WINDOW bytes on each side, page-aligned; and the
 *               caller's @p early windows (gc_host_link_map: what a debugger needs to find
 *               the shared libraries, without which it cannot unwind through them);
 *   priority 2  the rest of each stack above SP, up to GC_HOST_STACK_FAR bytes from SP and the
 *               top of SP's mapping (the used part: frames up to main, and the thread's TLS and
 *               descriptor at the top of a pthread stack);
 *   priority 3  everything else that was selected.
 * Threads in the order: the signalled thread first, then gc_tracee order; a thread without
 * registers (regs_valid 0) adds nothing to priorities 0-2.
 */
#define GC_HOST_PRIORITIES 4u
#define GC_HOST_STACK_NEAR (16u << 10)
#define GC_HOST_REG_WINDOW (4u << 10)
#define GC_HOST_STACK_FAR (1u << 20)

/*
 * Split @p selected (the host memory to write) into GC_HOST_PRIORITIES disjoint sets whose
 * union is @p selected, by the rules above. @p maps gives each stack pointer's mapping (NULL:
 * the windows are bounded by @p selected alone); @p t the threads (NULL: everything is
 * priority 3). @p ret must be empty sets (GC_RANGESET_INIT); free each with gc_rangeset_free
 * (also on failure).
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL selected or ret), GPUCORE_E_NOMEM, GPUCORE_E_LIMIT
 *         (a set above the range set's limit).
 */
gpucore_status_t gc_host_prioritize(const struct gc_rangeset *selected,
                                    const struct gc_procmaps *maps, const struct gc_tracee *t,
                                    const struct gc_rangeset *early,
                                    struct gc_rangeset ret[GC_HOST_PRIORITIES],
                                    gpucore_diag_t *reterr_diag);

#define GC_HOST_MAX_LINK_MAP 4096u /* link_map nodes followed */
#define GC_HOST_MAX_PHNUM 1024u    /* program headers of the executable looked at */
#define GC_HOST_MAX_DYNAMIC 4096u  /* entries of its dynamic section looked at */

/*
 * The pages a debugger reads to list a process's shared libraries (the dynamic linker's
 * r_debug and link_map chain), added to @p ret: the executable's dynamic section (found from
 * /proc/PID/auxv AT_PHDR and AT_PHNUM and its PT_PHDR and PT_DYNAMIC), the r_debug its
 * DT_DEBUG names, and per link_map node (at most GC_HOST_MAX_LINK_MAP; glibc's r_debug and
 * link_map, decoded by schema's gc_rocr_r_debug_decode and gc_rocr_link_map_decode: ROCr's
 * list has glibc's layout) the page of the node, of its name and of its dynamic section. Every
 * value comes from the target and is only used as an address to read or to keep; whatever cannot be
 * read or makes no sense ends the walk there, silently: this only orders memory, it decides nothing
 * about what is captured.
 * @p mem reads target memory; a structure counts only when all of it was read
 * (gc_mem_read_all). @p proc_root is "/proc" (tests elsewhere).
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL argument), GPUCORE_E_NOMEM, GPUCORE_E_LIMIT.
 */
gpucore_status_t gc_host_link_map(pid_t pid, const char *proc_root, const struct gc_mem_reader *mem,
                                  struct gc_rangeset *ret, gpucore_diag_t *reterr_diag);

/*
 * The threads' stacks as gc_host_prioritize counts them (priorities 0 and 2 without the
 * selection): per thread with registers, from the page holding SP - 128 up to
 * GC_HOST_STACK_FAR bytes above SP, within SP's mapping (whole when @p maps is NULL), added to
 * @p ret. What --no-host-memory and --redact keep of host memory.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL ret), GPUCORE_E_NOMEM, GPUCORE_E_LIMIT.
 */
gpucore_status_t gc_host_stacks(const struct gc_procmaps *maps, const struct gc_tracee *t,
                                struct gc_rangeset *ret);

/*
 * Where the kernel put the process's argument and environment strings (arg_start and env_end
 * of @p proc_root/PID/stat, fields 48 and 51: contiguous at the top of the main thread's
 * stack), for --redact to withhold them.
 * @retval GPUCORE_OK with [*ret_start, *ret_end), GPUCORE_E_IO (unreadable, too few fields,
 *         an empty or inverted range).
 */
gpucore_status_t gc_host_arg_env(pid_t pid, const char *proc_root, uint64_t *ret_start,
                                 uint64_t *ret_end);

/*
 * gc_host_link_map's walk keeping only the structures themselves, not their pages: r_debug
 * (GC_ROCR_R_DEBUG_SIZE bytes), the executable's dynamic section, each link_map node
 * (GC_ROCR_LINK_MAP_SIZE bytes), its name up to its NUL (at most 256 bytes) and the first 16
 * bytes of its dynamic section. What --redact keeps: the pages around a node malloc'ed by
 * dlopen are the program's heap.
 */
gpucore_status_t gc_host_link_map_exact(pid_t pid, const char *proc_root,
                                        const struct gc_mem_reader *mem, struct gc_rangeset *ret,
                                        gpucore_diag_t *reterr_diag);

/* /proc/PID/coredump_filter as a number; GC_COREDUMP_FILTER_DEFAULT if it cannot be read. */
uint32_t gc_host_coredump_filter(pid_t pid);

/* Inputs of the host notes. */
struct gc_host_note_input {
    pid_t pid;
    const struct gc_tracee *tracee;   /* stopped threads with registers fetched */
    const struct gc_procmaps *maps;   /* for NT_FILE (file-backed mappings, in order) */
    const char *proc_root;            /* "/proc" (tests may point elsewhere) */
    /* The signal that made the capture, reported in NT_SIGINFO and every pr_cursig. 0 (every
     * capture gpucore makes: on demand, at a GPU exception) = not signalled, as GDB's gcore
     * writes a process it stopped: pr_cursig and pr_info 0 in every NT_PRSTATUS (so no debugger
     * says "terminated with signal"), NT_SIGINFO SIGSTOP with si_code SI_KERNEL and no sender.
     * A signal a thread was caught delivering when it was stopped (gc_tracee's pending_signal:
     * a SIGABRT the runtime raised after the GPU error, say) never stands for it: that signal
     * came after the capture began and is not what stopped the process; it is written as
     * pending in that thread's pr_sigpend, which is what it is until the thread runs again. */
    int default_signal;
    /* The thread to write first: the thread the ROCm runtime reported the GPU error on (the
     * runtime hook's thread), which is what a reader of the core looks at first, as the
     * kernel puts the signalled thread first. 0, or a tid that is not one of the tracee's
     * threads = the leader. */
    pid_t first_thread;
    /* Non-zero (--redact): NT_PRPSINFO pr_psargs holds argv[0] only, not the arguments. */
    int psargs_first_only;
};

/*
 * Add the host notes to @p w in the kernel's order (see the top of this file): NT_PRSTATUS per
 * thread from its registers (pr_pid = tid, pr_ppid/pgrp/sid from /proc/PID/stat; pr_cursig and
 * pr_info.si_signo = default_signal, the same for every thread as the kernel's fill_note_info
 * does; pr_sigpend and pr_sighold from the thread's SigPnd/SigBlk, pr_sigpend plus the signal
 * the thread was caught delivering, if any (see default_signal); utime/stime from
 * /proc/PID/task/TID/stat, the leader's being the whole process's as in the kernel;
 * cutime/cstime the process's; pr_fpvalid
 * 1 when the FP registers were read), NT_PRPSINFO from /proc/PID/{stat,status,cmdline}
 * (pr_state/pr_sname from the state letter with the kernel's "RSDTZW" numbering, a traced
 * 't' shown as 'T'; pr_uid/gid the real ids; pr_flag the task flags; pr_fname = comm,
 * pr_psargs = the first 79 bytes of the command line with NULs as spaces, NUL-terminated, as
 * the kernel's fill_psinfo),
 * NT_SIGINFO (a synthetic one with si_signo = default_signal, si_code SI_USER, si_pid/si_uid
 * the capturing process; default_signal 0: see above), NT_AUXV from /proc/PID/auxv (checked:
 * 16-byte pairs ending with AT_NULL), NT_FILE (count, page size 4096, then start/end/page
 * order, names as /proc shows them, " (deleted)" included — then the NUL-terminated names;
 * left out when there is none),
 * NT_FPREGSET and NT_X86_XSTATE when the registers were read. Threads without registers (a
 * service thread that could not be stopped) are written with zero registers and say so in
 * nothing but that: the caller records it in the manifest.
 * The first thread is first_thread when it is one of the tracee's, else the leader; the others follow in gc_tracee order. /proc files are read with a
 * read loop and validated; a malformed one is GPUCORE_E_IO naming the file.
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (NULL argument), GPUCORE_E_NOTFOUND (the process is gone,
 *         or no thread left), GPUCORE_E_IO, GPUCORE_E_NOMEM, or a writer status
 *         (gpucore_writer_add_note; the diag then carries the writer's message).
 */
gpucore_status_t gc_host_add_notes(gpucore_writer_t *w, const struct gc_host_note_input *in,
                                   gpucore_diag_t *reterr_diag);

#endif /* GC_CAPTURE_HOST_CORE_H */
