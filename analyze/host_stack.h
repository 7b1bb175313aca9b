/* SPDX-License-Identifier: MIT */
/*
 * The host threads of a core and their backtraces, for the report (libdwfl, as `eu-stack
 * --core` does, but without ever opening a file because the core names it).
 *
 * Threads and registers come from the core's NT_PRSTATUS notes (x86-64), the mapped files from
 * NT_FILE, the vDSO from NT_AUXV; stacks are unwound through the core's memory (CFI where a
 * module's ELF image is at hand, else the frame-pointer chain libdwfl's x86-64 backend
 * follows). Symbols need each module's ELF file:
 *   - the vDSO's is always in the core (the kernel dumps it whole): its symbols and CFI are used,
 *     unless a section of it is compressed (SHF_COMPRESSED, .zdebug_*, an xz .gnu_debugdata),
 *     which a kernel's never is and which libelf, libdw or libdwfl would inflate up to about
 *     7000 times (then it is named among the modules without symbols, with why);
 *   - any other module's file is read only below a directory the user gives (`--sysroot DIR`,
 *     e.g. `/` for this machine's own files): opened as open_below.h opens (never leaving DIR,
 *     regular files only), and used only when its GNU build-id equals the one the core holds
 *     in the module's first page (a file with no build-id, or a module whose build-id the core
 *     lacks, is used and said to be unverified);
 *   - separate debug files by build-id, below DIR/usr/lib/debug/.build-id/ (same rules);
 *   - a supplementary DWARF file (dwz; a module's .gnu_debugaltlink names its path and
 *     build-id) likewise by that build-id only, and used only when the file has it; never by
 *     the path, which libdw would open as it is: without one, references into it
 *     (DW_FORM_GNU_strp_alt, DW_FORM_GNU_ref_alt, DW_FORM_strp_sup) read nothing. A module's
 *     .gnu_debuglink name is never used either.
 * Frames in modules without symbols say so, and the report names the modules once.
 *
 * Internal to analyze. No printing.
 */
#ifndef GC_ANALYZE_HOST_STACK_H
#define GC_ANALYZE_HOST_STACK_H

#include <jansson.h>

#include <gpucore/core.h>

/* Bounds: what one report unwinds. More threads or frames are counted, not shown. */
#define GC_HS_MAX_THREADS 256u /* threads unwound (a core may hold more: they are counted) */
#define GC_HS_MAX_FRAMES  48u  /* frames per thread */
#define GC_HS_MAX_FILES   4096u /* NT_FILE entries considered */
#define GC_HS_VDSO_MAX    (256u << 10) /* bytes of a vDSO image copied out of the core */

/*
 * The report's "host" member for @p core (a unified core, or a split dump's host core):
 *   {"pid", "threads": [{"tid", "first" (the core's first thread: the kernel's rule, the one
 *    the signal hit, else the leader; in a core the runtime hook triggered, the thread the GPU
 *    error was reported on), "met_error" (its tid is @p error_thread), "signal" (the first thread's: NT_SIGINFO's, else its pr_cursig, e.g.
 *    "SIGABRT"; SIGSTOP for a capture on demand) | null, "syscall" (the system call it was
 *    in: "futex", "ioctl(AMDKFD_IOC_WAIT_EVENTS)", or "#N" for one without a name here) | null, "frames": [{"pc",
 *    "module" | null, "module_offset" | null, "symbol" | null, "symbol_offset" | null,
 *    "source": {"file", "line", "column"} | null}], "more_frames" (bool), "unwind_end"
 *    (why unwinding stopped before the outermost frame) | null}], "more_threads" (count not
 *    unwound), "sysroot" | null, "modules_without_symbols": [{"name", "path", "build_id" |
 *    null, "why", "in_frames" (a frame shown is in it)}], "problem" (why there are no backtraces at all) | null}
 * or json null when the core has no host thread (a split dump's GPU file, a GPU-only core).
 * @p sysroot: the `--sysroot` directory, or NULL (no host file is ever opened).
 * @p error_thread: the host thread on which the runtime reported the GPU error (the capture
 * metadata's error_thread, gpucore_capture_meta_t), 0 = not known: then no thread has
 * "met_error" true.
 * @return a new reference, or NULL when out of memory.
 */
json_t *gc_host_stacks_json(gpucore_core_t *core, const char *sysroot, uint32_t error_thread);

#endif
