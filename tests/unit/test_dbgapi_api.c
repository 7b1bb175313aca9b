/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi conformance: every function of the amd-dbgapi 0.77 interface, called the
 * way a client may call it, rightly or wrongly.
 *
 *   - before initialisation, after detach and after finalize (with stale handles): each
 *     function answers NOT_INITIALIZED, then its INVALID_*_ID -- process handles are never
 *     reused (architecture-level handles are AMD's fixed numbers: test_dbgapi_arch);
 *   - every query of every *_get_info: NULL value, value_size one too small and one too large,
 *     unknown query values; results the client owns come from allocate_memory;
 *   - every list: NULL arguments, unknown processes, the "changed" protocol per process and for
 *     AMD_DBGAPI_PROCESS_NONE;
 *   - every call that would change state answers its documented clean error on a core, never
 *     FATAL and never a success that pretends; nothing is written through the client;
 *   - attaching: to a live process (refused: cores only), an exited one, a core without a note
 *     or with a note AMD's reader rejects, twice;
 *   - events, the notifier, disassembly with client symbolizers, classification, memory and
 *     register edge cases, status strings, log levels, and allocation failures of the client.
 *
 * Every status returned is checked against the function's documented set (statuses.def, the
 * header's "Returns:" lists); the client's books (tests/unit/dbgapi_client.c) must balance
 * and no FATAL_ERROR may be logged. The fixture is a real captured core kept in the repository
 * (GPUCORE_DBGAPI_FIXTURE: rdna2-illegal captured with --tier state, 32 waves on gfx1030), so
 * this test needs neither ptrace nor the inferior.
 */
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <amd-dbgapi/amd-dbgapi.h>
#include <gpucore/core.h>

#include "dbgapi_client.h"

/* ---- documented status sets ----------------------------------------------------------------- */

#define S(x) (1ull << -(AMD_DBGAPI_STATUS_##x))
static const struct {
    const char *fn;
    uint64_t set;
} status_sets[] = {
#define GC_DBGAPI_STATUSES(fn, set) { #fn, (set) },
#include "statuses.def"
#undef GC_DBGAPI_STATUSES
};

static uint64_t calls_checked;

static void failf(const char *file, int line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static void failf(const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    print_error("%s\n", msg);
    _fail(file, line);
}

/* Fail unless @p st is in @p fn's documented set and is not FATAL. */
static amd_dbgapi_status_t checked(const char *fn, amd_dbgapi_status_t st, const char *file,
                                   int line)
{
    calls_checked++;
    for (size_t i = 0; i < sizeof(status_sets) / sizeof(status_sets[0]); i++) {
        if (strcmp(status_sets[i].fn, fn) != 0)
            continue;
        if (st > 0 || st < -63 || !((status_sets[i].set >> -st) & 1u))
            failf(file, line, "%s returned %d, which its documentation does not list", fn,
                  (int)st);
        if (st == AMD_DBGAPI_STATUS_FATAL)
            failf(file, line, "%s returned FATAL", fn);
        return st;
    }
    failf(file, line, "%s has no row in statuses.def", fn);
    return st;
}

#define CALL(fn, ...) checked(#fn, fn(__VA_ARGS__), __FILE__, __LINE__)
#define EXPECT(want, fn, ...)                                                                  \
    do {                                                                                       \
        amd_dbgapi_status_t got_ = CALL(fn, __VA_ARGS__);                                      \
        if (got_ != (want))                                                                    \
            failf(__FILE__, __LINE__, "%s returned %d, expected %s (%d)", #fn, (int)got_,      \
                  #want, (int)(want));                                                         \
    } while (0)
#define OK(fn, ...) EXPECT(AMD_DBGAPI_STATUS_SUCCESS, fn, __VA_ARGS__)

/* ---- the fixture: one attached core, its first handles -------------------------------------- */

struct fx {
    struct tdc client;
    amd_dbgapi_process_id_t process;
    amd_dbgapi_architecture_id_t arch;
    amd_dbgapi_agent_id_t agent;
    amd_dbgapi_queue_id_t queue;
    amd_dbgapi_dispatch_id_t dispatch;
    amd_dbgapi_workgroup_id_t workgroup;
    amd_dbgapi_wave_id_t wave;
    amd_dbgapi_code_object_id_t code_object;
    amd_dbgapi_register_id_t reg, pc_reg;
    amd_dbgapi_register_class_id_t reg_class;
    amd_dbgapi_address_space_id_t local, private_lane, generic;
    amd_dbgapi_address_class_id_t aclass;
    uint64_t pc;
    size_t nwaves;
    uint64_t max_handle; /* the largest handle value seen */
};

static struct fx fx;

static void seen_handle(uint64_t h)
{
    if (h > fx.max_handle)
        fx.max_handle = h;
}

/* The first handle of a process list (and the count). */
#define FIRST(kind, type, dst, count)                                                          \
    do {                                                                                       \
        type *items_ = NULL;                                                                   \
        size_t n_ = 0;                                                                         \
        OK(amd_dbgapi_process_##kind##_list, fx.process, &n_, &items_, NULL);                  \
        assert_true(n_ > 0);                                                                   \
        (dst) = items_[0];                                                                     \
        for (size_t i_ = 0; i_ < n_; i_++)                                                     \
            seen_handle(items_[i_].handle);                                                    \
        *(count) = n_;                                                                         \
        tdc_free(items_);                                                                      \
    } while (0)

static void open_fixture(void)
{
    const char *path = getenv("GPUCORE_DBGAPI_FIXTURE");
    uint32_t runtime, state, stops;
    size_t n;

    if (!path)
        fail_msg("GPUCORE_DBGAPI_FIXTURE is not set");
    memset(&fx, 0, sizeof(fx));
    tdc_open(&fx.client, path);
    tdc_reset_books();
    /* warnings and fatal errors reach the client: tdc_fatal_logs sees library bugs */
    amd_dbgapi_set_log_level(AMD_DBGAPI_LOG_LEVEL_WARNING);
    OK(amd_dbgapi_initialize, &tdc_callbacks);
    OK(amd_dbgapi_process_attach, (amd_dbgapi_client_process_id_t)&fx.client, &fx.process);
    seen_handle(fx.process.handle);
    tdc_drain(fx.process, &runtime, &state, &stops);
    assert_int_equal(runtime, 1);
    FIRST(agent, amd_dbgapi_agent_id_t, fx.agent, &n);
    FIRST(queue, amd_dbgapi_queue_id_t, fx.queue, &n);
    FIRST(dispatch, amd_dbgapi_dispatch_id_t, fx.dispatch, &n);
    FIRST(workgroup, amd_dbgapi_workgroup_id_t, fx.workgroup, &n);
    FIRST(code_object, amd_dbgapi_code_object_id_t, fx.code_object, &n);
    FIRST(wave, amd_dbgapi_wave_id_t, fx.wave, &fx.nwaves);
    assert_int_equal(stops, fx.nwaves);
    OK(amd_dbgapi_agent_get_info, fx.agent, AMD_DBGAPI_AGENT_INFO_ARCHITECTURE, sizeof(fx.arch),
       &fx.arch);
    OK(amd_dbgapi_wave_get_info, fx.wave, AMD_DBGAPI_WAVE_INFO_PC, sizeof(fx.pc), &fx.pc);
    OK(amd_dbgapi_architecture_get_info, fx.arch, AMD_DBGAPI_ARCHITECTURE_INFO_PC_REGISTER,
       sizeof(fx.pc_reg), &fx.pc_reg);
    OK(amd_dbgapi_dwarf_register_to_register, fx.arch, 32 /* s0 */, &fx.reg);
    {
        amd_dbgapi_register_class_id_t *classes = NULL;

        OK(amd_dbgapi_architecture_register_class_list, fx.arch, &n, &classes);
        assert_true(n > 0);
        fx.reg_class = classes[0];
        tdc_free(classes);
    }
    OK(amd_dbgapi_dwarf_address_space_to_address_space, fx.arch, 1, &fx.generic);
    OK(amd_dbgapi_dwarf_address_space_to_address_space, fx.arch, 3, &fx.local);
    OK(amd_dbgapi_dwarf_address_space_to_address_space, fx.arch, 5, &fx.private_lane);
    OK(amd_dbgapi_dwarf_address_class_to_address_class, fx.arch, 1, &fx.aclass);
    /* Architecture-level handles are AMD's fixed numbers, reused by every initialisation
       (test_dbgapi_arch): they take no part in max_handle, which is about process handles. */
}

/* Detach and finalize; the books must balance. */
static void close_fixture(void)
{
    OK(amd_dbgapi_process_detach, fx.process);
    OK(amd_dbgapi_finalize);
    assert_int_equal(tdc_live_allocations, 0);
    assert_int_equal(tdc_fatal_logs, 0);
    assert_int_equal(fx.client.writes, 0);
    tdc_close(&fx.client);
}

static int setup(void **state)
{
    (void)state;
    open_fixture();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    close_fixture();
    return 0;
}

/* ---- every status-returning function, with the fixture's handles ---------------------------- */

/*
 * One row per function: a call with arguments that are all valid for a live fixture, and the
 * status it must give once the process is detached (0: the function does not depend on the
 * process -- architecture-level calls). Before initialisation every row gives NOT_INITIALIZED.
 */
struct row {
    const char *fn;
    amd_dbgapi_status_t (*call)(void);
    amd_dbgapi_status_t detached;
};

static uint8_t scratch[4096];
static char *r_text;
static void *r_ptr;
static size_t r_count;
static uint64_t r_u64;
static amd_dbgapi_size_t r_size;

static amd_dbgapi_status_t r_finalize(void) { return amd_dbgapi_finalize(); }
static amd_dbgapi_status_t r_arch_info(void)
{
    return amd_dbgapi_architecture_get_info(fx.arch, AMD_DBGAPI_ARCHITECTURE_INFO_ELF_AMDGPU_MACHINE,
                                            4, scratch);
}
static amd_dbgapi_status_t r_get_arch(void)
{
    return amd_dbgapi_get_architecture(0x36, (amd_dbgapi_architecture_id_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_disassemble(void)
{
    r_size = 4;
    return amd_dbgapi_disassemble_instruction(fx.arch, 0x1000, &r_size, "\x00\x00\x80\xbf", NULL, 0,
                                              NULL);
}
static amd_dbgapi_status_t r_classify(void)
{
    amd_dbgapi_instruction_kind_t kind;

    r_size = 4;
    return amd_dbgapi_classify_instruction(fx.arch, 0x1000, &r_size, "\x00\x00\x80\xbf", &kind, NULL,
                                           NULL);
}
static amd_dbgapi_status_t r_process_info(void)
{
    return amd_dbgapi_process_get_info(fx.process, AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_COUNT, 8,
                                       scratch);
}
static amd_dbgapi_status_t r_attach(void)
{
    return amd_dbgapi_process_attach((amd_dbgapi_client_process_id_t)&fx.client,
                                     (amd_dbgapi_process_id_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_detach(void) { return amd_dbgapi_process_detach(fx.process); }
static amd_dbgapi_status_t r_progress(void)
{
    return amd_dbgapi_process_set_progress(fx.process, AMD_DBGAPI_PROGRESS_NORMAL);
}
static amd_dbgapi_status_t r_wave_creation(void)
{
    return amd_dbgapi_process_set_wave_creation(fx.process, AMD_DBGAPI_WAVE_CREATION_NORMAL);
}
static amd_dbgapi_status_t r_freeze(void) { return amd_dbgapi_process_freeze(fx.process); }
static amd_dbgapi_status_t r_unfreeze(void) { return amd_dbgapi_process_unfreeze(fx.process); }
static amd_dbgapi_status_t r_co_info(void)
{
    return amd_dbgapi_code_object_get_info(fx.code_object, AMD_DBGAPI_CODE_OBJECT_INFO_LOAD_ADDRESS,
                                           8, scratch);
}
static amd_dbgapi_status_t r_co_list(void)
{
    return amd_dbgapi_process_code_object_list(fx.process, &r_count,
                                               (amd_dbgapi_code_object_id_t **)&r_ptr, NULL);
}
static amd_dbgapi_status_t r_agent_info(void)
{
    return amd_dbgapi_agent_get_info(fx.agent, AMD_DBGAPI_AGENT_INFO_OS_ID, 8, scratch);
}
static amd_dbgapi_status_t r_agent_list(void)
{
    return amd_dbgapi_process_agent_list(fx.process, &r_count, (amd_dbgapi_agent_id_t **)&r_ptr, NULL);
}
static amd_dbgapi_status_t r_queue_info(void)
{
    return amd_dbgapi_queue_get_info(fx.queue, AMD_DBGAPI_QUEUE_INFO_SIZE, 8, scratch);
}
static amd_dbgapi_status_t r_queue_list(void)
{
    return amd_dbgapi_process_queue_list(fx.process, &r_count, (amd_dbgapi_queue_id_t **)&r_ptr, NULL);
}
static amd_dbgapi_status_t r_packets(void)
{
    return amd_dbgapi_queue_packet_list(fx.queue, (uint64_t *)(void *)scratch,
                                        (uint64_t *)(void *)(scratch + 8), &r_count, &r_ptr);
}
static amd_dbgapi_status_t r_dispatch_info(void)
{
    return amd_dbgapi_dispatch_get_info(fx.dispatch, AMD_DBGAPI_DISPATCH_INFO_GRID_DIMENSIONS, 4,
                                        scratch);
}
static amd_dbgapi_status_t r_dispatch_list(void)
{
    return amd_dbgapi_process_dispatch_list(fx.process, &r_count, (amd_dbgapi_dispatch_id_t **)&r_ptr,
                                            NULL);
}
static amd_dbgapi_status_t r_workgroup_info(void)
{
    return amd_dbgapi_workgroup_get_info(fx.workgroup, AMD_DBGAPI_WORKGROUP_INFO_WORKGROUP_COORD,
                                         12, scratch);
}
static amd_dbgapi_status_t r_workgroup_list(void)
{
    return amd_dbgapi_process_workgroup_list(fx.process, &r_count,
                                             (amd_dbgapi_workgroup_id_t **)&r_ptr, NULL);
}
static amd_dbgapi_status_t r_wave_info(void)
{
    return amd_dbgapi_wave_get_info(fx.wave, AMD_DBGAPI_WAVE_INFO_PC, 8, scratch);
}
static amd_dbgapi_status_t r_wave_list(void)
{
    return amd_dbgapi_process_wave_list(fx.process, &r_count, (amd_dbgapi_wave_id_t **)&r_ptr, NULL);
}
static amd_dbgapi_status_t r_wave_stop(void) { return amd_dbgapi_wave_stop(fx.wave); }
static amd_dbgapi_status_t r_wave_resume(void)
{
    return amd_dbgapi_wave_resume(fx.wave, AMD_DBGAPI_RESUME_MODE_NORMAL, AMD_DBGAPI_EXCEPTION_NONE);
}
static amd_dbgapi_status_t r_ds_info(void)
{
    amd_dbgapi_displaced_stepping_id_t ds = { 12345 };

    return amd_dbgapi_displaced_stepping_get_info(ds, AMD_DBGAPI_DISPLACED_STEPPING_INFO_PROCESS, 8,
                                                  scratch);
}
static amd_dbgapi_status_t r_ds_start(void)
{
    return amd_dbgapi_displaced_stepping_start(fx.wave, scratch,
                                               (amd_dbgapi_displaced_stepping_id_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_ds_complete(void)
{
    amd_dbgapi_displaced_stepping_id_t ds = { 12345 };

    return amd_dbgapi_displaced_stepping_complete(fx.wave, ds);
}
static amd_dbgapi_status_t r_wp_info(void)
{
    amd_dbgapi_watchpoint_id_t wp = { 12345 };

    return amd_dbgapi_watchpoint_get_info(wp, AMD_DBGAPI_WATCHPOINT_INFO_ADDRESS, 8, scratch);
}
static amd_dbgapi_status_t r_wp_set(void)
{
    return amd_dbgapi_set_watchpoint(fx.process, 0x1000, 4, AMD_DBGAPI_WATCHPOINT_KIND_ALL,
                                     (amd_dbgapi_watchpoint_id_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_wp_remove(void)
{
    amd_dbgapi_watchpoint_id_t wp = { 12345 };

    return amd_dbgapi_remove_watchpoint(wp);
}
static amd_dbgapi_status_t r_class_info(void)
{
    return amd_dbgapi_architecture_register_class_get_info(
            fx.reg_class, AMD_DBGAPI_REGISTER_CLASS_INFO_NAME, sizeof(char *), &r_text);
}
static amd_dbgapi_status_t r_class_list(void)
{
    return amd_dbgapi_architecture_register_class_list(fx.arch, &r_count,
                                                       (amd_dbgapi_register_class_id_t **)&r_ptr);
}
static amd_dbgapi_status_t r_reg_info(void)
{
    return amd_dbgapi_register_get_info(fx.reg, AMD_DBGAPI_REGISTER_INFO_SIZE, 8, scratch);
}
static amd_dbgapi_status_t r_reg_exists(void)
{
    return amd_dbgapi_wave_register_exists(fx.wave, fx.reg,
                                           (amd_dbgapi_register_exists_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_arch_regs(void)
{
    return amd_dbgapi_architecture_register_list(fx.arch, &r_count, (amd_dbgapi_register_id_t **)&r_ptr);
}
static amd_dbgapi_status_t r_wave_regs(void)
{
    return amd_dbgapi_wave_register_list(fx.wave, &r_count, (amd_dbgapi_register_id_t **)&r_ptr);
}
static amd_dbgapi_status_t r_dwarf_reg(void)
{
    return amd_dbgapi_dwarf_register_to_register(fx.arch, 32,
                                                 (amd_dbgapi_register_id_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_reg_in_class(void)
{
    return amd_dbgapi_register_is_in_register_class(
            fx.reg_class, fx.reg, (amd_dbgapi_register_class_state_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_read_reg(void)
{
    return amd_dbgapi_read_register(fx.wave, fx.reg, 0, 4, scratch);
}
static amd_dbgapi_status_t r_write_reg(void)
{
    return amd_dbgapi_write_register(fx.wave, fx.reg, 0, 4, scratch);
}
static amd_dbgapi_status_t r_prefetch(void) { return amd_dbgapi_prefetch_register(fx.wave, fx.reg, 1); }
static amd_dbgapi_status_t r_aclass_info(void)
{
    return amd_dbgapi_address_class_get_info(fx.aclass, AMD_DBGAPI_ADDRESS_CLASS_INFO_DWARF, 8,
                                             scratch);
}
static amd_dbgapi_status_t r_aclass_list(void)
{
    return amd_dbgapi_architecture_address_class_list(fx.arch, &r_count,
                                                      (amd_dbgapi_address_class_id_t **)&r_ptr);
}
static amd_dbgapi_status_t r_dwarf_aclass(void)
{
    return amd_dbgapi_dwarf_address_class_to_address_class(
            fx.arch, 1, (amd_dbgapi_address_class_id_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_space_info(void)
{
    return amd_dbgapi_address_space_get_info(fx.local, AMD_DBGAPI_ADDRESS_SPACE_INFO_DWARF, 8,
                                             scratch);
}
static amd_dbgapi_status_t r_space_list(void)
{
    return amd_dbgapi_architecture_address_space_list(fx.arch, &r_count,
                                                      (amd_dbgapi_address_space_id_t **)&r_ptr);
}
static amd_dbgapi_status_t r_dwarf_space(void)
{
    return amd_dbgapi_dwarf_address_space_to_address_space(
            fx.arch, 3, (amd_dbgapi_address_space_id_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_convert(void)
{
    return amd_dbgapi_convert_address_space(fx.wave, 0, fx.local, 0, fx.generic, &r_u64, &r_size);
}
static amd_dbgapi_status_t r_dependency(void)
{
    return amd_dbgapi_address_dependency(fx.local, 0,
                                         (amd_dbgapi_segment_address_dependency_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_in_class(void)
{
    return amd_dbgapi_address_is_in_address_class(
            fx.wave, 0, fx.local, 0, fx.aclass, (amd_dbgapi_address_class_state_t *)(void *)scratch);
}
static amd_dbgapi_status_t r_read_memory(void)
{
    r_size = 4;
    return amd_dbgapi_read_memory(fx.process, fx.wave, 0, fx.local, 0, &r_size, scratch);
}
static amd_dbgapi_status_t r_write_memory(void)
{
    r_size = 4;
    return amd_dbgapi_write_memory(fx.process, fx.wave, 0, fx.local, 0, &r_size, scratch);
}
static amd_dbgapi_status_t r_memory_precision(void)
{
    return amd_dbgapi_set_memory_precision(fx.process, AMD_DBGAPI_MEMORY_PRECISION_NONE);
}
static amd_dbgapi_status_t r_alu_precision(void)
{
    return amd_dbgapi_set_alu_exceptions_precision(fx.process,
                                                   AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_NONE);
}
static amd_dbgapi_status_t r_next_event(void)
{
    amd_dbgapi_event_kind_t kind;

    return amd_dbgapi_process_next_pending_event(fx.process,
                                                 (amd_dbgapi_event_id_t *)(void *)scratch, &kind);
}
static amd_dbgapi_status_t r_event_info(void)
{
    amd_dbgapi_event_id_t ev = { 12345 };

    return amd_dbgapi_event_get_info(ev, AMD_DBGAPI_EVENT_INFO_KIND, 4, scratch);
}
static amd_dbgapi_status_t r_event_processed(void)
{
    amd_dbgapi_event_id_t ev = { 12345 };

    return amd_dbgapi_event_processed(ev);
}
static amd_dbgapi_status_t r_bp_info(void)
{
    amd_dbgapi_breakpoint_id_t bp = { 12345 };

    return amd_dbgapi_breakpoint_get_info(bp, AMD_DBGAPI_BREAKPOINT_INFO_PROCESS, 8, scratch);
}
static amd_dbgapi_status_t r_bp_hit(void)
{
    amd_dbgapi_breakpoint_id_t bp = { 12345 };

    return amd_dbgapi_report_breakpoint_hit(bp, 0,
                                            (amd_dbgapi_breakpoint_action_t *)(void *)scratch);
}

#define ROW(fn, call, detached) { #fn, call, AMD_DBGAPI_STATUS_##detached }
#define ARCH_LEVEL AMD_DBGAPI_STATUS_SUCCESS
static const struct row rows[] = {
    ROW(amd_dbgapi_finalize, r_finalize, SUCCESS), /* last: see run_rows() */
    ROW(amd_dbgapi_architecture_get_info, r_arch_info, SUCCESS),
    ROW(amd_dbgapi_get_architecture, r_get_arch, SUCCESS),
    ROW(amd_dbgapi_disassemble_instruction, r_disassemble, SUCCESS),
    ROW(amd_dbgapi_classify_instruction, r_classify, SUCCESS),
    ROW(amd_dbgapi_process_get_info, r_process_info, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_process_attach, r_attach, SUCCESS), /* detached: attaching again works */
    ROW(amd_dbgapi_process_detach, r_detach, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_process_set_progress, r_progress, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_process_set_wave_creation, r_wave_creation, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_process_freeze, r_freeze, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_process_unfreeze, r_unfreeze, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_code_object_get_info, r_co_info, ERROR_INVALID_CODE_OBJECT_ID),
    ROW(amd_dbgapi_process_code_object_list, r_co_list, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_agent_get_info, r_agent_info, ERROR_INVALID_AGENT_ID),
    ROW(amd_dbgapi_process_agent_list, r_agent_list, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_queue_get_info, r_queue_info, ERROR_INVALID_QUEUE_ID),
    ROW(amd_dbgapi_process_queue_list, r_queue_list, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_queue_packet_list, r_packets, ERROR_INVALID_QUEUE_ID),
    ROW(amd_dbgapi_dispatch_get_info, r_dispatch_info, ERROR_INVALID_DISPATCH_ID),
    ROW(amd_dbgapi_process_dispatch_list, r_dispatch_list, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_workgroup_get_info, r_workgroup_info, ERROR_INVALID_WORKGROUP_ID),
    ROW(amd_dbgapi_process_workgroup_list, r_workgroup_list, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_wave_get_info, r_wave_info, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_process_wave_list, r_wave_list, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_wave_stop, r_wave_stop, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_wave_resume, r_wave_resume, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_displaced_stepping_get_info, r_ds_info, ERROR_INVALID_DISPLACED_STEPPING_ID),
    ROW(amd_dbgapi_displaced_stepping_start, r_ds_start, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_displaced_stepping_complete, r_ds_complete, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_watchpoint_get_info, r_wp_info, ERROR_INVALID_WATCHPOINT_ID),
    ROW(amd_dbgapi_set_watchpoint, r_wp_set, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_remove_watchpoint, r_wp_remove, ERROR_INVALID_WATCHPOINT_ID),
    ROW(amd_dbgapi_architecture_register_class_get_info, r_class_info, SUCCESS),
    ROW(amd_dbgapi_architecture_register_class_list, r_class_list, SUCCESS),
    ROW(amd_dbgapi_register_get_info, r_reg_info, SUCCESS),
    ROW(amd_dbgapi_wave_register_exists, r_reg_exists, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_architecture_register_list, r_arch_regs, SUCCESS),
    ROW(amd_dbgapi_wave_register_list, r_wave_regs, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_dwarf_register_to_register, r_dwarf_reg, SUCCESS),
    ROW(amd_dbgapi_register_is_in_register_class, r_reg_in_class, SUCCESS),
    ROW(amd_dbgapi_read_register, r_read_reg, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_write_register, r_write_reg, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_prefetch_register, r_prefetch, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_address_class_get_info, r_aclass_info, SUCCESS),
    ROW(amd_dbgapi_architecture_address_class_list, r_aclass_list, SUCCESS),
    ROW(amd_dbgapi_dwarf_address_class_to_address_class, r_dwarf_aclass, SUCCESS),
    ROW(amd_dbgapi_address_space_get_info, r_space_info, SUCCESS),
    ROW(amd_dbgapi_architecture_address_space_list, r_space_list, SUCCESS),
    ROW(amd_dbgapi_dwarf_address_space_to_address_space, r_dwarf_space, SUCCESS),
    ROW(amd_dbgapi_convert_address_space, r_convert, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_address_dependency, r_dependency, SUCCESS),
    ROW(amd_dbgapi_address_is_in_address_class, r_in_class, ERROR_INVALID_WAVE_ID),
    ROW(amd_dbgapi_read_memory, r_read_memory, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_write_memory, r_write_memory, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_set_memory_precision, r_memory_precision, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_set_alu_exceptions_precision, r_alu_precision, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_process_next_pending_event, r_next_event, ERROR_INVALID_PROCESS_ID),
    ROW(amd_dbgapi_event_get_info, r_event_info, ERROR_INVALID_EVENT_ID),
    ROW(amd_dbgapi_event_processed, r_event_processed, ERROR_INVALID_EVENT_ID),
    ROW(amd_dbgapi_breakpoint_get_info, r_bp_info, ERROR_INVALID_BREAKPOINT_ID),
    ROW(amd_dbgapi_report_breakpoint_hit, r_bp_hit, ERROR_INVALID_BREAKPOINT_ID),
};

/* Free what a row handed over, if anything. */
static void free_row_results(void)
{
    if (r_ptr) {
        tdc_free(r_ptr);
        r_ptr = NULL;
    }
    if (r_text) {
        tdc_free(r_text);
        r_text = NULL;
    }
}

/* Every row that takes a handle of the detached process answers that handle's INVALID_*_ID,
   and every other row still works: architectures outlive processes. */
static void run_rows_detached(void)
{
    for (size_t i = 1; i < sizeof(rows) / sizeof(rows[0]); i++) {
        amd_dbgapi_status_t st = checked(rows[i].fn, rows[i].call(), __FILE__, __LINE__);

        if (st != rows[i].detached)
            fail_msg("%s on a detached process: %d, expected %d", rows[i].fn, (int)st,
                     (int)rows[i].detached);
        free_row_results();
        if (rows[i].call == r_attach) { /* it attached a new process: let it go */
            amd_dbgapi_process_id_t p;

            memcpy(&p, scratch, sizeof(p));
            assert_true(p.handle > fx.process.handle); /* process handles are never reused */
            OK(amd_dbgapi_process_detach, p);
        }
    }
}

/* Before initialisation, and after finalize: NOT_INITIALIZED from every row. */
static void run_rows_uninitialized(void)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        amd_dbgapi_status_t st = checked(rows[i].fn, rows[i].call(), __FILE__, __LINE__);

        if (st != AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED)
            fail_msg("%s before initialisation: %d", rows[i].fn, (int)st);
        free_row_results();
    }
}

/* A row per function that returns a status; the table must name all of them. */
static void test_rows_cover_the_interface(void **state)
{
    size_t listed = sizeof(status_sets) / sizeof(status_sets[0]);
    size_t n = sizeof(rows) / sizeof(rows[0]);

    (void)state;
    /* Not in the rows: get_status_string and initialize (tested on their own). */
    assert_int_equal(n + 2, listed);
    for (size_t i = 0; i < listed; i++) {
        size_t k;

        for (k = 0; k < n && strcmp(rows[k].fn, status_sets[i].fn) != 0; k++)
            ;
        if (k == n && strcmp(status_sets[i].fn, "amd_dbgapi_get_status_string") != 0 &&
            strcmp(status_sets[i].fn, "amd_dbgapi_initialize") != 0)
            fail_msg("%s has no row", status_sets[i].fn);
    }
}

static void test_lifecycle(void **state)
{
    struct fx saved;

    (void)state;
    memset(&fx, 0, sizeof(fx));
    run_rows_uninitialized(); /* handles 0: the state check comes first */
    open_fixture();
    /* initialising twice */
    EXPECT(AMD_DBGAPI_STATUS_ERROR_ALREADY_INITIALIZED, amd_dbgapi_initialize, &tdc_callbacks);
    /* attaching the same client twice */
    EXPECT(AMD_DBGAPI_STATUS_ERROR_ALREADY_ATTACHED, amd_dbgapi_process_attach,
           (amd_dbgapi_client_process_id_t)&fx.client,
           (amd_dbgapi_process_id_t *)(void *)scratch);
    OK(amd_dbgapi_process_detach, fx.process);
    run_rows_detached();
    saved = fx;
    OK(amd_dbgapi_finalize);
    run_rows_uninitialized();
    /* initialised again: the old handles name nothing */
    OK(amd_dbgapi_initialize, &tdc_callbacks);
    fx = saved;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID, amd_dbgapi_process_detach, fx.process);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID, amd_dbgapi_wave_get_info, fx.wave,
           AMD_DBGAPI_WAVE_INFO_PC, 8, scratch);
    {
        amd_dbgapi_process_id_t p;
        amd_dbgapi_wave_id_t *waves = NULL;
        size_t n = 0;

        amd_dbgapi_agent_id_t *agents = NULL;

        OK(amd_dbgapi_process_attach, (amd_dbgapi_client_process_id_t)&fx.client, &p);
        /* as AMD's library: process handles run on across instances, every other kind is
           numbered from 1 again in a new instance */
        assert_true(p.handle > fx.process.handle);
        OK(amd_dbgapi_process_wave_list, p, &n, &waves, NULL);
        assert_int_equal(n, fx.nwaves);
        assert_true(n <= 64);
        {
            uint8_t seen[65] = { 0 };

            /* 1..n, each once (listed in AMD's hash-map order, not by number) */
            for (size_t i = 0; i < n; i++) {
                assert_true(waves[i].handle >= 1 && waves[i].handle <= n);
                assert_false(seen[waves[i].handle]);
                seen[waves[i].handle] = 1;
            }
        }
        tdc_free(waves);
        OK(amd_dbgapi_process_agent_list, p, &n, &agents, NULL);
        assert_true(n > 0);
        assert_int_equal(agents[0].handle, 1);
        tdc_free(agents);
        OK(amd_dbgapi_process_detach, p);
    }
    OK(amd_dbgapi_finalize);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED, amd_dbgapi_finalize);
    assert_int_equal(tdc_live_allocations, 0);
    assert_int_equal(tdc_fatal_logs, 0);
    assert_int_equal(fx.client.writes, 0);
    tdc_close(&fx.client);
}

/* ---- every query of every *_get_info -------------------------------------------------------- */

enum owner { O_NONE, O_MEMORY, O_WATCH }; /* what the result holds that the client frees */

struct query {
    int query;
    size_t size;
    enum owner owner;
};

typedef amd_dbgapi_status_t (*getter)(uint64_t id, int query, size_t size, void *value);
#define GETTER(name, fn, handle_type, query_type)                                              \
    static amd_dbgapi_status_t name(uint64_t id, int q, size_t size, void *value)              \
    {                                                                                          \
        handle_type h = { id };                                                                \
        return checked(#fn, fn(h, (query_type)q, size, value), __FILE__, __LINE__);            \
    }
GETTER(g_process, amd_dbgapi_process_get_info, amd_dbgapi_process_id_t, amd_dbgapi_process_info_t)
GETTER(g_arch, amd_dbgapi_architecture_get_info, amd_dbgapi_architecture_id_t,
       amd_dbgapi_architecture_info_t)
GETTER(g_co, amd_dbgapi_code_object_get_info, amd_dbgapi_code_object_id_t,
       amd_dbgapi_code_object_info_t)
GETTER(g_agent, amd_dbgapi_agent_get_info, amd_dbgapi_agent_id_t, amd_dbgapi_agent_info_t)
GETTER(g_queue, amd_dbgapi_queue_get_info, amd_dbgapi_queue_id_t, amd_dbgapi_queue_info_t)
GETTER(g_dispatch, amd_dbgapi_dispatch_get_info, amd_dbgapi_dispatch_id_t,
       amd_dbgapi_dispatch_info_t)
GETTER(g_workgroup, amd_dbgapi_workgroup_get_info, amd_dbgapi_workgroup_id_t,
       amd_dbgapi_workgroup_info_t)
GETTER(g_wave, amd_dbgapi_wave_get_info, amd_dbgapi_wave_id_t, amd_dbgapi_wave_info_t)
GETTER(g_register, amd_dbgapi_register_get_info, amd_dbgapi_register_id_t,
       amd_dbgapi_register_info_t)
GETTER(g_class, amd_dbgapi_architecture_register_class_get_info, amd_dbgapi_register_class_id_t,
       amd_dbgapi_register_class_info_t)
GETTER(g_space, amd_dbgapi_address_space_get_info, amd_dbgapi_address_space_id_t,
       amd_dbgapi_address_space_info_t)
GETTER(g_aclass, amd_dbgapi_address_class_get_info, amd_dbgapi_address_class_id_t,
       amd_dbgapi_address_class_info_t)

#define PTR sizeof(void *)
static const struct query process_q[] = { { 1, sizeof(int), O_NONE }, { 2, 8, O_NONE },
                                          { 3, 4, O_NONE }, { 4, 4, O_NONE }, { 5, 4, O_NONE },
                                          { 6, 4, O_NONE }, { 7, 24, O_NONE } };
static const struct query arch_q[] = { { 1, PTR, O_MEMORY }, { 2, 4, O_NONE }, { 3, 8, O_NONE },
                                       { 4, 8, O_NONE },     { 5, 8, O_NONE }, { 6, PTR, O_MEMORY },
                                       { 7, 8, O_NONE },     { 8, 8, O_NONE } };
static const struct query co_q[] = { { 1, 8, O_NONE }, { 2, PTR, O_MEMORY }, { 3, 8, O_NONE } };
static const struct query agent_q[] = { { 1, 8, O_NONE }, { 2, PTR, O_MEMORY }, { 3, 8, O_NONE },
                                        { 4, 4, O_NONE }, { 5, 2, O_NONE },     { 6, 2, O_NONE },
                                        { 7, 4, O_NONE }, { 8, 4, O_NONE },     { 9, 8, O_NONE },
                                        { 10, 8, O_NONE }, { 11, 8, O_NONE } };
static const struct query queue_q[] = { { 1, 8, O_NONE }, { 2, 8, O_NONE }, { 3, 8, O_NONE },
                                        { 4, 4, O_NONE }, { 5, 4, O_NONE }, { 6, 4, O_NONE },
                                        { 7, 8, O_NONE }, { 8, 8, O_NONE }, { 9, 8, O_NONE } };
static const struct query dispatch_q[] = {
    { 1, 8, O_NONE },  { 2, 8, O_NONE },  { 3, 8, O_NONE },  { 4, 8, O_NONE },  { 5, 8, O_NONE },
    { 6, 4, O_NONE },  { 7, 4, O_NONE },  { 8, 4, O_NONE },  { 9, 4, O_NONE },  { 10, 6, O_NONE },
    { 11, 12, O_NONE }, { 12, 8, O_NONE }, { 13, 8, O_NONE }, { 14, 8, O_NONE }, { 15, 8, O_NONE },
    { 16, 8, O_NONE }, { 17, 8, O_NONE },
};
static const struct query workgroup_q[] = { { 1, 8, O_NONE }, { 2, 8, O_NONE }, { 3, 8, O_NONE },
                                            { 4, 8, O_NONE }, { 5, 8, O_NONE }, { 6, 12, O_NONE } };
static const struct query wave_q[] = {
    { 1, 4, O_NONE },  { 2, 4, O_NONE },  { 3, sizeof(amd_dbgapi_watchpoint_list_t), O_WATCH },
    { 4, 8, O_NONE },  { 5, 8, O_NONE },  { 6, 8, O_NONE },  { 7, 8, O_NONE },  { 8, 8, O_NONE },
    { 9, 8, O_NONE },  { 10, 8, O_NONE }, { 11, 8, O_NONE }, { 12, 12, O_NONE }, { 13, 4, O_NONE },
    { 14, 8, O_NONE },
};
static const struct query register_q[] = { { 1, 8, O_NONE }, { 2, PTR, O_MEMORY },
                                           { 3, 8, O_NONE }, { 4, PTR, O_MEMORY },
                                           { 5, 8, O_NONE }, { 6, 4, O_NONE } };
static const struct query class_q[] = { { 1, 8, O_NONE }, { 2, PTR, O_MEMORY } };
static const struct query space_q[] = { { 1, PTR, O_MEMORY }, { 2, 8, O_NONE }, { 3, 8, O_NONE },
                                        { 4, 4, O_NONE },     { 5, 8, O_NONE } };
static const struct query aclass_q[] = { { 1, PTR, O_MEMORY }, { 2, 8, O_NONE }, { 3, 8, O_NONE } };

static void release(const struct query *q, void *value)
{
    if (q->owner == O_MEMORY) {
        void *p;

        memcpy(&p, value, sizeof(p));
        assert_non_null(p);
        tdc_free(p);
    } else if (q->owner == O_WATCH) {
        amd_dbgapi_watchpoint_list_t l;

        memcpy(&l, value, sizeof(l));
        tdc_free(l.watchpoint_ids);
    }
}

/*
 * One query: the right size answers SUCCESS or a status that does not depend on the size
 * (NOT_AVAILABLE, NOT_SUPPORTED, WAVE_NOT_STOPPED); a size one too small or large answers
 * INVALID_ARGUMENT_COMPATIBILITY, or that same size-independent status; NULL answers
 * INVALID_ARGUMENT; nothing is allocated by a failing call.
 */
static void check_query(const char *what, getter get, uint64_t id, const struct query *q)
{
    union {
        uint8_t bytes[64];
        uint64_t align;
    } v;
    amd_dbgapi_status_t right, wrong;
    long live = tdc_live_allocations;

    memset(&v, 0, sizeof(v));
    right = get(id, q->query, q->size, &v);
    if (right == AMD_DBGAPI_STATUS_SUCCESS)
        release(q, &v);
    else if (right != AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE &&
             right != AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED)
        fail_msg("%s query %d: status %d with the right size", what, q->query, (int)right);
    assert_int_equal(tdc_live_allocations, live);
    for (int d = -1; d <= 1; d += 2) {
        size_t sz = q->size + (size_t)(ptrdiff_t)d;

        memset(&v, 0xa5, sizeof(v));
        wrong = get(id, q->query, sz, &v);
        if (wrong != AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY &&
            (right == AMD_DBGAPI_STATUS_SUCCESS || wrong != right))
            fail_msg("%s query %d with value_size %zu: status %d", what, q->query, sz, (int)wrong);
        assert_int_equal(tdc_live_allocations, live);
    }
    if (get(id, q->query, q->size, NULL) != AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT)
        fail_msg("%s query %d with a NULL value is not INVALID_ARGUMENT", what, q->query);
}

static void check_queries(const char *what, getter get, uint64_t id, const struct query *qs,
                          size_t n)
{
    uint8_t v[64];

    for (size_t i = 0; i < n; i++)
        check_query(what, get, id, &qs[i]);
    /* queries outside the enumeration */
    assert_int_equal(get(id, 0, 8, v), AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    assert_int_equal(get(id, 0x7fff, 8, v), AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    /* and a handle that names nothing */
    assert_true(get(fx.max_handle + 1000, qs[0].query, qs[0].size, v) < 0);
}

#define QUERIES(what, get, id, qs) check_queries(what, get, id, qs, sizeof(qs) / sizeof(qs[0]))

static void test_info_queries(void **state)
{
    amd_dbgapi_register_id_t *regs = NULL;
    amd_dbgapi_address_space_id_t *spaces = NULL;
    size_t n = 0;

    (void)state;
    QUERIES("process", g_process, fx.process.handle, process_q);
    QUERIES("architecture", g_arch, fx.arch.handle, arch_q);
    QUERIES("code object", g_co, fx.code_object.handle, co_q);
    QUERIES("agent", g_agent, fx.agent.handle, agent_q);
    QUERIES("queue", g_queue, fx.queue.handle, queue_q);
    QUERIES("dispatch", g_dispatch, fx.dispatch.handle, dispatch_q);
    QUERIES("workgroup", g_workgroup, fx.workgroup.handle, workgroup_q);
    QUERIES("wave", g_wave, fx.wave.handle, wave_q);
    QUERIES("register class", g_class, fx.reg_class.handle, class_q);
    QUERIES("address class", g_aclass, fx.aclass.handle, aclass_q);
    /* every register of the architecture, every address space */
    OK(amd_dbgapi_architecture_register_list, fx.arch, &n, &regs);
    for (size_t i = 0; i < n; i += 7)
        QUERIES("register", g_register, regs[i].handle, register_q);
    tdc_free(regs);
    OK(amd_dbgapi_architecture_address_space_list, fx.arch, &n, &spaces);
    assert_int_equal(n, 5); /* global, generic, local, private_lane, private_wave */
    for (size_t i = 0; i < n; i++)
        QUERIES("address space", g_space, spaces[i].handle, space_q);
    tdc_free(spaces);
    print_message("%" PRIu64 " calls checked against their documented statuses\n",
                  calls_checked);
}

/* ---- lists ----------------------------------------------------------------------------------- */

typedef amd_dbgapi_status_t (*lister)(amd_dbgapi_process_id_t p, size_t *n, void **items,
                                      amd_dbgapi_changed_t *changed);
#define LISTER(name, fn, type)                                                                 \
    static amd_dbgapi_status_t name(amd_dbgapi_process_id_t p, size_t *n, void **items,        \
                                    amd_dbgapi_changed_t *changed)                             \
    {                                                                                          \
        return checked(#fn, fn(p, n, (type **)items, changed), __FILE__, __LINE__);             \
    }
LISTER(l_co, amd_dbgapi_process_code_object_list, amd_dbgapi_code_object_id_t)
LISTER(l_agent, amd_dbgapi_process_agent_list, amd_dbgapi_agent_id_t)
LISTER(l_queue, amd_dbgapi_process_queue_list, amd_dbgapi_queue_id_t)
LISTER(l_dispatch, amd_dbgapi_process_dispatch_list, amd_dbgapi_dispatch_id_t)
LISTER(l_workgroup, amd_dbgapi_process_workgroup_list, amd_dbgapi_workgroup_id_t)
LISTER(l_wave, amd_dbgapi_process_wave_list, amd_dbgapi_wave_id_t)

static const lister listers[] = { l_co, l_agent, l_queue, l_dispatch, l_workgroup, l_wave };

static void test_lists(void **state)
{
    amd_dbgapi_process_id_t none = AMD_DBGAPI_PROCESS_NONE, bogus = { fx.max_handle + 1000 };

    (void)state;
    for (size_t k = 0; k < sizeof(listers) / sizeof(listers[0]); k++) {
        size_t n = 77, n2 = 77;
        void *items = NULL, *items2 = NULL;
        amd_dbgapi_changed_t changed = 77;

        /* without a changed flag: always the list */
        assert_int_equal(listers[k](fx.process, &n, &items, NULL), AMD_DBGAPI_STATUS_SUCCESS);
        assert_true(n > 0 && items);
        /* with one: first CHANGED_YES and the list, then CHANGED_NO, nothing, count 0 */
        assert_int_equal(listers[k](fx.process, &n2, &items2, &changed), AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(changed, AMD_DBGAPI_CHANGED_YES);
        assert_int_equal(n2, n);
        assert_memory_equal(items, items2, n * 8);
        tdc_free(items2);
        items2 = (void *)&n;
        assert_int_equal(listers[k](fx.process, &n2, &items2, &changed), AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(changed, AMD_DBGAPI_CHANGED_NO);
        assert_int_equal(n2, 0);
        assert_null(items2);
        /* every process: the same handles (one process attached); own changed flag */
        assert_int_equal(listers[k](none, &n2, &items2, &changed), AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(changed, AMD_DBGAPI_CHANGED_YES);
        assert_int_equal(n2, n);
        assert_memory_equal(items, items2, n * 8);
        tdc_free(items2);
        assert_int_equal(listers[k](none, &n2, &items2, &changed), AMD_DBGAPI_STATUS_SUCCESS);
        assert_int_equal(changed, AMD_DBGAPI_CHANGED_NO);
        tdc_free(items);
        /* bad arguments: nothing allocated, nothing written */
        n2 = 77;
        items2 = NULL;
        assert_int_equal(listers[k](bogus, &n2, &items2, NULL),
                         AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID);
        assert_null(items2);
        assert_int_equal(listers[k](fx.process, NULL, &items2, NULL),
                         AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
        assert_int_equal(listers[k](fx.process, &n2, NULL, NULL),
                         AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
        /* the client's allocator fails: CLIENT_CALLBACK, nothing leaked */
        tdc_fail_allocations = 1;
        assert_int_equal(listers[k](fx.process, &n2, &items2, NULL),
                         AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK);
        tdc_fail_allocations = 0;
    }
}

/* A second process: AMD_DBGAPI_PROCESS_NONE lists both, and its changed flag turns. */
static void test_two_processes(void **state)
{
    struct tdc second;
    amd_dbgapi_process_id_t p2, none = AMD_DBGAPI_PROCESS_NONE;
    amd_dbgapi_wave_id_t *waves = NULL;
    amd_dbgapi_changed_t changed;
    size_t n = 0;
    uint32_t runtime, st, stops;

    (void)state;
    OK(amd_dbgapi_process_wave_list, none, &n, &waves, &changed);
    tdc_free(waves);
    OK(amd_dbgapi_process_wave_list, none, &n, &waves, &changed);
    assert_int_equal(changed, AMD_DBGAPI_CHANGED_NO);
    tdc_open(&second, getenv("GPUCORE_DBGAPI_FIXTURE"));
    p2 = tdc_attach(&second);
    assert_true(p2.handle > fx.process.handle);
    /* one counter per kind: the second process's waves come after the first's */
    {
        amd_dbgapi_wave_id_t *first = NULL;
        size_t n1 = 0;

        OK(amd_dbgapi_process_wave_list, fx.process, &n1, &first, NULL);
        OK(amd_dbgapi_process_wave_list, p2, &n, &waves, NULL);
        assert_int_equal(n, fx.nwaves);
        assert_int_equal(n1, fx.nwaves);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < n1; k++)
                assert_true(waves[i].handle > first[k].handle);
        tdc_free(first);
        tdc_free(waves);
    }
    tdc_drain(p2, &runtime, &st, &stops);
    OK(amd_dbgapi_process_wave_list, none, &n, &waves, &changed);
    assert_int_equal(changed, AMD_DBGAPI_CHANGED_YES);
    assert_int_equal(n, 2 * fx.nwaves);
    tdc_free(waves);
    /* one process's events do not come out of the other's */
    {
        amd_dbgapi_event_id_t ev;
        amd_dbgapi_event_kind_t kind;

        OK(amd_dbgapi_process_next_pending_event, fx.process, &ev, &kind);
        assert_int_equal(ev.handle, 0);
    }
    OK(amd_dbgapi_process_detach, p2);
    OK(amd_dbgapi_process_wave_list, none, &n, &waves, &changed);
    assert_int_equal(changed, AMD_DBGAPI_CHANGED_YES);
    assert_int_equal(n, fx.nwaves);
    tdc_free(waves);
    tdc_close(&second);
}

static void test_architecture_lists(void **state)
{
    amd_dbgapi_architecture_id_t bogus = { fx.max_handle + 1000 };
    amd_dbgapi_register_id_t *regs = NULL, *wregs = NULL;
    size_t n = 0, nw = 0;

    (void)state;
    OK(amd_dbgapi_architecture_register_list, fx.arch, &n, &regs);
    OK(amd_dbgapi_wave_register_list, fx.wave, &nw, &wregs);
    /* a wave's registers are the architecture's, in its order */
    assert_true(nw > 0 && nw < n);
    for (size_t i = 0, at = 0; i < nw; i++, at++) {
        while (at < n && regs[at].handle != wregs[i].handle)
            at++;
        assert_true(at < n);
    }
    tdc_free(regs);
    tdc_free(wregs);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID, amd_dbgapi_architecture_register_list,
           bogus, &n, &regs);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_architecture_register_list,
           fx.arch, NULL, &regs);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_wave_register_list, fx.wave, &n,
           NULL);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID,
           amd_dbgapi_architecture_register_class_list, bogus, &n,
           (amd_dbgapi_register_class_id_t **)&r_ptr);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID,
           amd_dbgapi_architecture_address_space_list, bogus, &n,
           (amd_dbgapi_address_space_id_t **)&r_ptr);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID,
           amd_dbgapi_architecture_address_class_list, bogus, &n,
           (amd_dbgapi_address_class_id_t **)&r_ptr);
    tdc_fail_allocations = 1;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK, amd_dbgapi_wave_register_list, fx.wave, &n,
           &wregs);
    tdc_fail_allocations = 1;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK, amd_dbgapi_architecture_get_info, fx.arch,
           AMD_DBGAPI_ARCHITECTURE_INFO_NAME, sizeof(r_text), &r_text);
    tdc_fail_allocations = 0;
    /* an architecture by ELF machine: gfx90a (0x3f), the same handle every time */
    {
        amd_dbgapi_architecture_id_t a1, a2;

        OK(amd_dbgapi_get_architecture, 0x3f, &a1);
        OK(amd_dbgapi_get_architecture, 0x3f, &a2);
        assert_int_equal(a1.handle, a2.handle);
        EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ELF_AMDGPU_MACHINE, amd_dbgapi_get_architecture,
               0xfff, &a1);
        EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_get_architecture, 0x3f, NULL);
    }
}

/* ---- calls that would change a core --------------------------------------------------------- */

static void test_mutations(void **state)
{
    uint32_t before[4], after[4], value = 0x12345678;
    amd_dbgapi_register_id_t v0;
    amd_dbgapi_displaced_stepping_id_t ds;
    amd_dbgapi_watchpoint_id_t wp;
    amd_dbgapi_breakpoint_action_t action;
    amd_dbgapi_breakpoint_id_t bp = { fx.max_handle + 1000 };
    amd_dbgapi_size_t n = 4;

    (void)state;
    OK(amd_dbgapi_dwarf_register_to_register, fx.arch, 1536 /* v0, wave32 */, &v0);
    OK(amd_dbgapi_read_register, fx.wave, fx.reg, 0, 4, before);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_WAVE_STOPPED, amd_dbgapi_wave_stop, fx.wave);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, amd_dbgapi_wave_resume, fx.wave,
           AMD_DBGAPI_RESUME_MODE_NORMAL, AMD_DBGAPI_EXCEPTION_NONE);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, amd_dbgapi_wave_resume, fx.wave,
           AMD_DBGAPI_RESUME_MODE_SINGLE_STEP, AMD_DBGAPI_EXCEPTION_NONE);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, amd_dbgapi_write_register, fx.wave, fx.reg, 0,
           4, &value);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, amd_dbgapi_write_register, fx.wave, fx.pc_reg,
           0, 8, &fx.pc);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, amd_dbgapi_write_memory, fx.process,
           AMD_DBGAPI_WAVE_NONE, AMD_DBGAPI_LANE_NONE, AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, fx.pc, &n,
           &value);
    n = 4;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, amd_dbgapi_write_memory, fx.process, fx.wave,
           0, fx.local, 0, &n, &value);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, amd_dbgapi_displaced_stepping_start, fx.wave,
           before, &ds);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED, amd_dbgapi_set_watchpoint, fx.process, fx.pc, 4,
           AMD_DBGAPI_WATCHPOINT_KIND_STORE_AND_RMW, &wp);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED, amd_dbgapi_set_memory_precision, fx.process,
           AMD_DBGAPI_MEMORY_PRECISION_PRECISE);
    OK(amd_dbgapi_set_memory_precision, fx.process, AMD_DBGAPI_MEMORY_PRECISION_NONE);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED, amd_dbgapi_set_alu_exceptions_precision,
           fx.process, AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_PRECISE);
    OK(amd_dbgapi_set_alu_exceptions_precision, fx.process,
       AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_NONE);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN, amd_dbgapi_process_set_wave_creation,
           fx.process, AMD_DBGAPI_WAVE_CREATION_STOP);
    OK(amd_dbgapi_process_set_wave_creation, fx.process, AMD_DBGAPI_WAVE_CREATION_NORMAL);
    /* progress is a scheduling hint: nothing runs on a core either way */
    OK(amd_dbgapi_process_set_progress, fx.process, AMD_DBGAPI_PROGRESS_NO_FORWARD);
    OK(amd_dbgapi_process_set_progress, fx.process, AMD_DBGAPI_PROGRESS_NORMAL);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INCOMPATIBLE_PROCESS_STATE, amd_dbgapi_process_freeze,
           fx.process);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_PROCESS_NOT_FROZEN, amd_dbgapi_process_unfreeze, fx.process);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID, amd_dbgapi_report_breakpoint_hit, bp, 0,
           &action);
    {
        amd_dbgapi_core_state_data_t cs;
        amd_dbgapi_os_process_id_t pid;

        EXPECT(AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE, amd_dbgapi_process_get_info, fx.process,
               AMD_DBGAPI_PROCESS_INFO_CORE_STATE, sizeof(cs), &cs);
        EXPECT(AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE, amd_dbgapi_process_get_info, fx.process,
               AMD_DBGAPI_PROCESS_INFO_OS_ID, sizeof(pid), &pid);
    }
    /* nothing changed, nothing was written */
    OK(amd_dbgapi_read_register, fx.wave, fx.reg, 0, 4, after);
    assert_memory_equal(before, after, 4);
    assert_int_equal(tdc_live_allocations, 0);
    assert_int_equal(fx.client.writes, 0);
    {
        uint32_t wstate = 0;

        OK(amd_dbgapi_wave_get_info, fx.wave, AMD_DBGAPI_WAVE_INFO_STATE, 4, &wstate);
        assert_int_equal(wstate, AMD_DBGAPI_WAVE_STATE_STOP);
    }
}

/* ---- attaching --------------------------------------------------------------------------- */

/* Attach @p c after the fixture; returns the status. */
static amd_dbgapi_status_t attach(struct tdc *c, amd_dbgapi_process_id_t *p)
{
    return checked("amd_dbgapi_process_attach",
                   amd_dbgapi_process_attach((amd_dbgapi_client_process_id_t)c, p), __FILE__,
                   __LINE__);
}

/* A process with nothing in it: no agents, no waves; detach works. */
static void expect_empty(amd_dbgapi_process_id_t p)
{
    amd_dbgapi_agent_id_t *agents = NULL;
    amd_dbgapi_wave_id_t *waves = NULL;
    size_t n = 77;

    OK(amd_dbgapi_process_agent_list, p, &n, &agents, NULL);
    assert_int_equal(n, 0);
    tdc_free(agents);
    OK(amd_dbgapi_process_wave_list, p, &n, &waves, NULL);
    assert_int_equal(n, 0);
    tdc_free(waves);
    OK(amd_dbgapi_process_detach, p);
}

/* The fixture's note, edited: a u32 at @p offset set to @p value. */
static void *edited_note(size_t offset, uint32_t value)
{
    uint8_t *copy = malloc(fx.client.note_size);

    assert_non_null(copy);
    memcpy(copy, fx.client.note, fx.client.note_size);
    memcpy(copy + offset, &value, 4);
    return copy;
}

static void test_attach(void **state)
{
    struct tdc c;
    amd_dbgapi_process_id_t p;
    uint32_t runtime, rstate, stops;
    void *note;

    (void)state;
    /* NULL arguments */
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_process_attach, NULL, &p);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_process_attach,
           (amd_dbgapi_client_process_id_t)&c, NULL);

    /* a live process: this library serves cores only, and says so */
    memset(&c, 0, sizeof(c));
    c.os_pid_answer = AMD_DBGAPI_STATUS_SUCCESS;
    c.pid = getpid();
    assert_int_equal(attach(&c, &p), AMD_DBGAPI_STATUS_ERROR_RESTRICTION);
    assert_int_equal(tdc_last_log_level, AMD_DBGAPI_LOG_LEVEL_WARNING);
    assert_non_null(strstr(tdc_last_log, "core"));

    /* an exited process: attached, with nothing in it */
    c.os_pid_answer = AMD_DBGAPI_STATUS_ERROR_PROCESS_EXITED;
    assert_int_equal(attach(&c, &p), AMD_DBGAPI_STATUS_SUCCESS);
    expect_empty(p);

    /* a core without a note: attached, with nothing in it */
    c.os_pid_answer = AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE;
    assert_int_equal(attach(&c, &p), AMD_DBGAPI_STATUS_SUCCESS);
    expect_empty(p);

    /* a note AMD's reader rejects (version 2): attached, empty, and the note freed */
    note = edited_note(0, 2);
    c.note = note;
    c.note_size = fx.client.note_size;
    tdc_core_state_freed = 0;
    assert_int_equal(attach(&c, &p), AMD_DBGAPI_STATUS_SUCCESS);
    assert_int_equal(tdc_core_state_freed, 1);
    expect_empty(p);
    free(note);

    /* KFD 1.12 (AMD's reader needs 1.13 <= v < 2.0): RESTRICTION, the note still freed */
    note = edited_note(12, 12);
    c.note = note;
    tdc_core_state_freed = 0;
    assert_int_equal(attach(&c, &p), AMD_DBGAPI_STATUS_ERROR_RESTRICTION);
    assert_int_equal(tdc_core_state_freed, 1);
    free(note);

    /* runtime disabled (runtime_state 0 at 40 + 8): no runtime event, nothing else */
    note = edited_note(48, 0);
    c.note = note;
    c.core = fx.client.core;
    assert_int_equal(attach(&c, &p), AMD_DBGAPI_STATUS_SUCCESS);
    tdc_drain(p, &runtime, &rstate, &stops);
    assert_int_equal(runtime, 0);
    assert_int_equal(stops, 0);
    expect_empty(p);
    free(note);

    /* runtime enabled but busy (2): a RUNTIME event saying LOADED_ERROR_RESTRICTION */
    note = edited_note(48, 2);
    c.note = note;
    assert_int_equal(attach(&c, &p), AMD_DBGAPI_STATUS_SUCCESS);
    tdc_drain(p, &runtime, &rstate, &stops);
    assert_int_equal(runtime, 1);
    assert_int_equal(rstate, AMD_DBGAPI_RUNTIME_STATE_LOADED_ERROR_RESTRICTION);
    assert_int_equal(stops, 0);
    expect_empty(p);
    free(note);
    assert_int_equal(tdc_live_allocations, 0);
}

/* ---- events and the notifier ---------------------------------------------------------------- */

static void test_events(void **state)
{
    struct tdc c;
    amd_dbgapi_process_id_t p;
    amd_dbgapi_event_id_t ev, first;
    amd_dbgapi_event_kind_t kind;
    amd_dbgapi_notifier_t fd;
    struct pollfd pfd;
    uint32_t rstate = 0;
    amd_dbgapi_wave_id_t w;
    size_t nevents = 0;

    (void)state;
    tdc_open(&c, getenv("GPUCORE_DBGAPI_FIXTURE"));
    p = tdc_attach(&c);
    OK(amd_dbgapi_process_get_info, p, AMD_DBGAPI_PROCESS_INFO_NOTIFIER, sizeof(fd), &fd);
    pfd.fd = fd;
    pfd.events = POLLIN;
    assert_int_equal(poll(&pfd, 1, 0), 1); /* events are pending */
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_process_next_pending_event, p,
           NULL, &kind);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_process_next_pending_event, p, &ev,
           NULL);
    OK(amd_dbgapi_process_next_pending_event, p, &first, &kind);
    assert_int_equal(kind, AMD_DBGAPI_EVENT_KIND_RUNTIME);
    OK(amd_dbgapi_event_get_info, first, AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE, 4, &rstate);
    assert_int_equal(rstate, AMD_DBGAPI_RUNTIME_STATE_LOADED_SUCCESS);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY, amd_dbgapi_event_get_info,
           first, AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE, 8, &rstate);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_event_get_info, first,
           AMD_DBGAPI_EVENT_INFO_WAVE, sizeof(w), &w); /* not a wave event */
    {
        amd_dbgapi_process_id_t owner;

        OK(amd_dbgapi_event_get_info, first, AMD_DBGAPI_EVENT_INFO_PROCESS, sizeof(owner), &owner);
        assert_int_equal(owner.handle, p.handle);
    }
    OK(amd_dbgapi_event_processed, first);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_EVENT_ID, amd_dbgapi_event_processed, first);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_EVENT_ID, amd_dbgapi_event_get_info, first,
           AMD_DBGAPI_EVENT_INFO_KIND, 4, &kind);
    /* the stop events, each naming a distinct wave; through PROCESS_NONE too */
    for (;;) {
        OK(amd_dbgapi_process_next_pending_event, AMD_DBGAPI_PROCESS_NONE, &ev, &kind);
        if (ev.handle == 0)
            break;
        assert_int_equal(kind, AMD_DBGAPI_EVENT_KIND_WAVE_STOP);
        OK(amd_dbgapi_event_get_info, ev, AMD_DBGAPI_EVENT_INFO_WAVE, sizeof(w), &w);
        assert_true(w.handle > 0);
        OK(amd_dbgapi_event_processed, ev);
        nevents++;
    }
    assert_int_equal(kind, AMD_DBGAPI_EVENT_KIND_NONE);
    assert_int_equal(nevents, fx.nwaves);
    OK(amd_dbgapi_process_detach, p);
    tdc_close(&c);
}

/* ---- instructions ------------------------------------------------------------------------- */

static const char *sym_text;
static amd_dbgapi_status_t sym_status;
static uint64_t sym_calls;

static amd_dbgapi_status_t symbolizer(amd_dbgapi_symbolizer_id_t id,
                                      amd_dbgapi_global_address_t address, char **symbol_text)
{
    (void)id;
    (void)address;
    sym_calls++;
    if (sym_status == AMD_DBGAPI_STATUS_SUCCESS && sym_text) {
        *symbol_text = tdc_callbacks.allocate_memory(strlen(sym_text) + 1);
        strcpy(*symbol_text, sym_text);
    } else if (sym_status == AMD_DBGAPI_STATUS_SUCCESS) {
        *symbol_text = NULL;
    }
    return sym_status;
}

static void test_instructions(void **state)
{
    /* gfx1030: s_branch +3 (a direct branch: its operand is an address) */
    static const uint8_t branch[4] = { 0x03, 0x00, 0x82, 0xbf };
    static const uint8_t illegal[4] = { 0xff, 0xff, 0xff, 0xff };
    amd_dbgapi_size_t size;
    amd_dbgapi_instruction_kind_t kind;
    amd_dbgapi_instruction_properties_t props;
    void *info = NULL;
    char *t = NULL;
    uint8_t code[64];

    (void)state;
    /* the instruction at the wave's PC, read through the library */
    size = sizeof(code);
    OK(amd_dbgapi_read_memory, fx.process, AMD_DBGAPI_WAVE_NONE, AMD_DBGAPI_LANE_NONE,
       AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, fx.pc, &size, code);
    OK(amd_dbgapi_disassemble_instruction, fx.arch, fx.pc, &size, code, &t, 0, NULL);
    assert_true(size >= 4 && size <= 20 && size % 4 == 0);
    assert_true(strlen(t) > 0);
    tdc_free(t);
    /* a symbolizer's text follows the operand; NOT_FOUND leaves it out */
    sym_text = "loop_head";
    sym_status = AMD_DBGAPI_STATUS_SUCCESS;
    size = 4;
    OK(amd_dbgapi_disassemble_instruction, fx.arch, 0x1000, &size, branch, &t, (amd_dbgapi_symbolizer_id_t)7, symbolizer);
    assert_non_null(strstr(t, "loop_head"));
    tdc_free(t);
    sym_status = AMD_DBGAPI_STATUS_ERROR_SYMBOL_NOT_FOUND;
    size = 4;
    OK(amd_dbgapi_disassemble_instruction, fx.arch, 0x1000, &size, branch, &t, (amd_dbgapi_symbolizer_id_t)7, symbolizer);
    assert_null(strstr(t, "loop_head"));
    tdc_free(t);
    /* any other error of the symbolizer: CLIENT_CALLBACK; SUCCESS without text: ERROR */
    sym_status = AMD_DBGAPI_STATUS_ERROR;
    size = 4;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK, amd_dbgapi_disassemble_instruction, fx.arch,
           0x1000, &size, branch, &t, (amd_dbgapi_symbolizer_id_t)7, symbolizer);
    sym_status = AMD_DBGAPI_STATUS_SUCCESS;
    sym_text = NULL;
    size = 4;
    EXPECT(AMD_DBGAPI_STATUS_ERROR, amd_dbgapi_disassemble_instruction, fx.arch, 0x1000, &size,
           branch, &t, (amd_dbgapi_symbolizer_id_t)7, symbolizer);
    assert_true(sym_calls >= 4);
    /* bad input */
    size = 4;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_ILLEGAL_INSTRUCTION, amd_dbgapi_disassemble_instruction,
           fx.arch, 0x1000, &size, illegal, &t, 0, NULL);
    size = 0;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_disassemble_instruction, fx.arch,
           0x1000, &size, branch, &t, 0, NULL);
    size = 4;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_disassemble_instruction, fx.arch,
           0x1002, &size, branch, &t, 0, NULL);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_disassemble_instruction, fx.arch,
           0x1000, NULL, branch, &t, 0, NULL);
    size = 4;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID, amd_dbgapi_disassemble_instruction,
           (amd_dbgapi_architecture_id_t){ fx.max_handle + 1000 }, 0x1000, &size, branch, &t, 0,
           NULL);
    /* classification: a direct branch and its target */
    size = 4;
    OK(amd_dbgapi_classify_instruction, fx.arch, 0x1000, &size, branch, &kind, &props, &info);
    assert_int_equal(kind, AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_BRANCH);
    assert_int_equal(props, AMD_DBGAPI_INSTRUCTION_PROPERTY_NONE);
    assert_non_null(info);
    {
        uint64_t target;

        memcpy(&target, info, 8);
        assert_int_equal(target, 0x1000 + 4 + 3 * 4);
    }
    tdc_free(info);
    size = 4;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_ILLEGAL_INSTRUCTION, amd_dbgapi_classify_instruction, fx.arch,
           0x1000, &size, illegal, &kind, &props, &info);
    size = 4;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_classify_instruction, fx.arch,
           0x1000, &size, branch, NULL, &props, &info);
    assert_int_equal(tdc_live_allocations, 0);
}

/* ---- memory and registers --------------------------------------------------------------- */

static void test_memory(void **state)
{
    uint8_t buf[64];
    amd_dbgapi_size_t n;
    amd_dbgapi_address_space_id_t bogus = { fx.max_handle + 1000 };
    amd_dbgapi_segment_address_t dst = 0;
    amd_dbgapi_size_t contiguous = 0;
    amd_dbgapi_segment_address_dependency_t dep;
    amd_dbgapi_address_class_state_t in;
    size_t lanes = 0;

    (void)state;
    OK(amd_dbgapi_wave_get_info, fx.wave, AMD_DBGAPI_WAVE_INFO_LANE_COUNT, 8, &lanes);
    /* size 0: nothing read, SUCCESS */
    n = 0;
    OK(amd_dbgapi_read_memory, fx.process, AMD_DBGAPI_WAVE_NONE, AMD_DBGAPI_LANE_NONE,
       AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, fx.pc, &n, buf);
    /* memory the core does not hold: MEMORY_ACCESS, nothing read */
    n = sizeof(buf);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS, amd_dbgapi_read_memory, fx.process,
           AMD_DBGAPI_WAVE_NONE, AMD_DBGAPI_LANE_NONE, AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, 0x10, &n,
           buf);
    assert_int_equal(n, 0);
    /* bad arguments */
    n = 4;
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID, amd_dbgapi_read_memory, fx.process,
           AMD_DBGAPI_WAVE_NONE, 0, AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, fx.pc, &n, buf);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID, amd_dbgapi_read_memory, fx.process, fx.wave,
           (amd_dbgapi_lane_id_t)lanes, fx.private_lane, 0, &n, buf);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID, amd_dbgapi_read_memory, fx.process,
           fx.wave, 0, bogus, 0, &n, buf);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_read_memory, fx.process, fx.wave,
           0, fx.local, 0, NULL, buf);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_read_memory, fx.process, fx.wave,
           0, fx.local, 0, &n, NULL);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID, amd_dbgapi_read_memory,
           (amd_dbgapi_process_id_t){ fx.max_handle + 1000 }, fx.wave, 0, fx.local, 0, &n, buf);
    /* conversions: local 0 to generic is in the LDS aperture and back */
    OK(amd_dbgapi_convert_address_space, fx.wave, 0, fx.local, 0, fx.generic, &dst, &contiguous);
    assert_true(dst != 0 && contiguous > 0);
    {
        amd_dbgapi_segment_address_t back = 1;

        OK(amd_dbgapi_convert_address_space, fx.wave, 0, fx.generic, dst, fx.local, &back,
           &contiguous);
        assert_int_equal(back, 0);
    }
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID, amd_dbgapi_convert_address_space,
           fx.wave, 0, bogus, 0, fx.generic, &dst, &contiguous);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_convert_address_space, fx.wave, 0,
           fx.local, 0, fx.generic, NULL, &contiguous);
    OK(amd_dbgapi_address_dependency, fx.private_lane, 0, &dep);
    assert_int_equal(dep, AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_LANE);
    OK(amd_dbgapi_address_dependency, fx.local, 0, &dep);
    assert_int_equal(dep, AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_WORKGROUP);
    OK(amd_dbgapi_address_dependency, AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, 0, &dep);
    assert_int_equal(dep, AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_PROCESS); /* never NONE */
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID, amd_dbgapi_address_dependency, bogus,
           0, &dep);
    OK(amd_dbgapi_address_is_in_address_class, fx.wave, 0, AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, fx.pc,
       fx.aclass, &in);
    assert_int_equal(in, AMD_DBGAPI_ADDRESS_CLASS_STATE_MEMBER);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_CLASS_ID, amd_dbgapi_address_is_in_address_class,
           fx.wave, 0, AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, fx.pc,
           (amd_dbgapi_address_class_id_t){ fx.max_handle + 1000 }, &in);
    /* DWARF numbers that name nothing in the architecture, and NULL outputs */
    {
        amd_dbgapi_address_space_id_t s;
        amd_dbgapi_address_class_id_t c;
        amd_dbgapi_register_id_t r;

        EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY,
               amd_dbgapi_dwarf_address_space_to_address_space, fx.arch, 2 /* region */, &s);
        EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY,
               amd_dbgapi_dwarf_address_class_to_address_class, fx.arch, 99, &c);
        EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY,
               amd_dbgapi_dwarf_register_to_register, fx.arch, 999999, &r);
        EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT,
               amd_dbgapi_dwarf_address_space_to_address_space, fx.arch, 3, NULL);
        EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT,
               amd_dbgapi_dwarf_address_class_to_address_class, fx.arch, 1, NULL);
        EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_dwarf_register_to_register,
               fx.arch, 32, NULL);
    }
}

static void test_registers(void **state)
{
    uint8_t buf[512];
    amd_dbgapi_register_id_t bogus = { fx.max_handle + 1000 }, other;
    amd_dbgapi_architecture_id_t gfx90a;
    amd_dbgapi_register_exists_t exists;
    amd_dbgapi_register_class_state_t in;
    uint64_t pc = 0;
    uint32_t s0 = 0, half = 0;

    (void)state;
    OK(amd_dbgapi_read_register, fx.wave, fx.pc_reg, 0, 8, &pc);
    assert_int_equal(pc, fx.pc);
    OK(amd_dbgapi_read_register, fx.wave, fx.reg, 0, 4, &s0);
    OK(amd_dbgapi_read_register, fx.wave, fx.reg, 2, 2, &half);
    assert_int_equal(half, s0 >> 16);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY, amd_dbgapi_read_register,
           fx.wave, fx.reg, 2, 4, buf);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY, amd_dbgapi_read_register,
           fx.wave, fx.reg, 4, 1, buf);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_read_register, fx.wave, fx.reg, 0,
           0, buf);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_read_register, fx.wave, fx.reg, 0,
           4, NULL);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_ID, amd_dbgapi_read_register, fx.wave, bogus,
           0, 4, buf);
    OK(amd_dbgapi_prefetch_register, fx.wave, fx.reg, 8);
    OK(amd_dbgapi_wave_register_exists, fx.wave, fx.reg, &exists);
    assert_int_equal(exists, AMD_DBGAPI_REGISTER_PRESENT);
    /* a wave32 wave has no 64-lane v0 (DWARF 2560): absent, and not readable */
    OK(amd_dbgapi_dwarf_register_to_register, fx.arch, 2560, &other);
    OK(amd_dbgapi_wave_register_exists, fx.wave, other, &exists);
    assert_int_equal(exists, AMD_DBGAPI_REGISTER_ABSENT);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE, amd_dbgapi_read_register, fx.wave,
           other, 0, 4, buf);
    /* a register of another architecture */
    OK(amd_dbgapi_get_architecture, 0x3f, &gfx90a);
    OK(amd_dbgapi_dwarf_register_to_register, gfx90a, 32, &other);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY, amd_dbgapi_read_register,
           fx.wave, other, 0, 4, buf);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY,
           amd_dbgapi_register_is_in_register_class, fx.reg_class, other, &in);
    OK(amd_dbgapi_register_is_in_register_class, fx.reg_class, fx.reg, &in);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_register_is_in_register_class,
           fx.reg_class, fx.reg, NULL);
    /* no DWARF number: NOT_AVAILABLE (the status register has none) */
    {
        amd_dbgapi_register_id_t *regs = NULL;
        size_t n = 0, none = 0;

        OK(amd_dbgapi_architecture_register_list, fx.arch, &n, &regs);
        for (size_t i = 0; i < n; i++) {
            uint64_t dwarf;

            if (CALL(amd_dbgapi_register_get_info, regs[i], AMD_DBGAPI_REGISTER_INFO_DWARF,
                     sizeof(dwarf), &dwarf) == AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE)
                none++;
        }
        assert_true(none > 0 && none < n);
        tdc_free(regs);
    }
}

/* ---- status strings, version, logging ------------------------------------------------------ */

static void test_status_strings(void **state)
{
    const char *s, *prev = NULL;
    uint32_t major = 9, minor = 9, patch = 9;

    (void)state;
    for (int st = 0; st >= -49; st--) {
        EXPECT(AMD_DBGAPI_STATUS_SUCCESS, amd_dbgapi_get_status_string, (amd_dbgapi_status_t)st,
               &s);
        assert_true(strlen(s) > 5);
        assert_true(!prev || strcmp(prev, s) != 0);
        prev = s;
    }
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_get_status_string,
           (amd_dbgapi_status_t)-50, &s);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_get_status_string,
           (amd_dbgapi_status_t)1, &s);
    EXPECT(AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT, amd_dbgapi_get_status_string,
           AMD_DBGAPI_STATUS_SUCCESS, NULL);
    amd_dbgapi_get_version(&major, &minor, &patch);
    assert_int_equal(major, 0);
    assert_int_equal(minor, 77);
    assert_int_equal(patch, 0);
    amd_dbgapi_get_version(NULL, NULL, NULL); /* NULL pointers are ignored */
    assert_true(strlen(amd_dbgapi_get_build_name()) > 0);
}

static void test_log_level(void **state)
{
    struct tdc c;
    amd_dbgapi_process_id_t p;

    (void)state;
    memset(&c, 0, sizeof(c));
    c.os_pid_answer = AMD_DBGAPI_STATUS_SUCCESS; /* a live process: refused with a warning */
    amd_dbgapi_set_log_level(AMD_DBGAPI_LOG_LEVEL_NONE);
    tdc_last_log[0] = '\0';
    assert_int_equal(attach(&c, &p), AMD_DBGAPI_STATUS_ERROR_RESTRICTION);
    assert_string_equal(tdc_last_log, "");
    amd_dbgapi_set_log_level(AMD_DBGAPI_LOG_LEVEL_WARNING);
    assert_int_equal(attach(&c, &p), AMD_DBGAPI_STATUS_ERROR_RESTRICTION);
    assert_true(strlen(tdc_last_log) > 0);
    amd_dbgapi_set_log_level(AMD_DBGAPI_LOG_LEVEL_WARNING);
}

int main(void)
{
    const struct CMUnitTest alone[] = {
        cmocka_unit_test(test_rows_cover_the_interface),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_lifecycle),
    };
    const struct CMUnitTest attached[] = {
        cmocka_unit_test_setup_teardown(test_info_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_processes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_architecture_lists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attach, setup, teardown),
        cmocka_unit_test_setup_teardown(test_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_instructions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_registers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_level, setup, teardown),
    };
    int rc = cmocka_run_group_tests(alone, NULL, NULL);

    return rc | cmocka_run_group_tests(attached, NULL, NULL);
}
