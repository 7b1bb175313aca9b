/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi maps libLLVM only when an instruction is disassembled.
 *
 * The library does not link LLVM: it opens gpucore's disassembler module (gpucore-disasm.so,
 * arch/disasm_module.h) on the first instruction a client asks it to disassemble. So a
 * debugger that attaches to a core and reads every register of every wave never maps libLLVM;
 * after one disassembly it does. This test is such a client, in one process (the module, once
 * loaded, stays): attach to the repository's captured core (GPUCORE_DBGAPI_FIXTURE), read
 * every register of every wave and check /proc/self/maps; disassemble the instruction at the
 * first wave's PC and check again.
 *
 * With GPUCORE_DBGAPI_EXPECT_NO_MODULE set (tests/dbgapi_lazy.cmake runs a copy of the library
 * outside the build tree, where only the installed module path is looked at, with none
 * installed) the disassembly must fail with AMD_DBGAPI_STATUS_ERROR, say why in one WARNING
 * log line, and say it only once; registers and memory are served as before.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <amd-dbgapi/amd-dbgapi.h>
#include <gpucore/core.h>

#include "dbgapi_client.h"

#define OK(call) assert_int_equal((call), AMD_DBGAPI_STATUS_SUCCESS)

/* 1 if a line of /proc/self/maps names libLLVM. */
static int llvm_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;

    assert_non_null(f);
    while (!found && fgets(line, sizeof(line), f))
        found = strstr(line, "/libLLVM") != NULL;
    fclose(f);
    return found;
}

/* Warnings the library logged that contain @p needle, counted by the log callback below. */
static const char *log_needle;
static long log_hits;
static void (*client_log)(amd_dbgapi_log_level_t, const char *);

static void counting_log(amd_dbgapi_log_level_t level, const char *message)
{
    if (level == AMD_DBGAPI_LOG_LEVEL_WARNING && log_needle && strstr(message, log_needle))
        log_hits++;
    client_log(level, message);
}

/* Every register of every wave of process @p p, read; the number read. */
static uint64_t read_every_register(amd_dbgapi_process_id_t p)
{
    struct tdc_list waves = tdc_waves(p);
    uint64_t nread = 0;
    uint8_t buf[1024];

    assert_true(waves.n > 0);
    for (size_t i = 0; i < waves.n; i++) {
        amd_dbgapi_wave_id_t w = { waves.ids[i] };
        amd_dbgapi_register_id_t *regs = NULL;
        size_t n = 0;

        OK(amd_dbgapi_wave_register_list(w, &n, &regs));
        assert_true(n > 0);
        for (size_t r = 0; r < n; r++) {
            amd_dbgapi_size_t size = 0;

            OK(amd_dbgapi_register_get_info(regs[r], AMD_DBGAPI_REGISTER_INFO_SIZE,
                                            sizeof(size), &size));
            assert_true(size > 0 && size <= sizeof(buf));
            OK(amd_dbgapi_read_register(w, regs[r], 0, size, buf));
            nread++;
        }
        tdc_free(regs);
    }
    tdc_free(waves.ids);
    return nread;
}

static void test_llvm_only_on_disassembly(void **state)
{
    const char *path = getenv("GPUCORE_DBGAPI_FIXTURE");
    int no_module = getenv("GPUCORE_DBGAPI_EXPECT_NO_MODULE") != NULL;
    struct tdc client;
    amd_dbgapi_process_id_t p;
    amd_dbgapi_architecture_id_t arch;
    struct tdc_list waves;
    amd_dbgapi_wave_id_t w;
    uint32_t runtime, rstate, stops;
    uint64_t pc;
    uint8_t code[64];
    amd_dbgapi_size_t size;
    char *text = NULL;
    Dl_info where;

    (void)state;
    if (!path)
        fail_msg("GPUCORE_DBGAPI_FIXTURE is not set");
    /* the library this process runs is the one the test meant */
    assert_true(dladdr((void *)amd_dbgapi_initialize, &where) != 0 && where.dli_fname);
    print_message("library: %s\n", where.dli_fname);
    assert_false(llvm_mapped());

    tdc_open(&client, path);
    tdc_reset_books();
    client_log = tdc_callbacks.log_message;
    tdc_callbacks.log_message = counting_log;
    amd_dbgapi_set_log_level(AMD_DBGAPI_LOG_LEVEL_WARNING);
    OK(amd_dbgapi_initialize(&tdc_callbacks));
    p = tdc_attach(&client);
    tdc_drain(p, &runtime, &rstate, &stops);
    assert_true(read_every_register(p) > 0);
    /* attach, events, lists and every register: no LLVM */
    assert_false(llvm_mapped());

    waves = tdc_waves(p);
    w.handle = waves.ids[0];
    tdc_free(waves.ids);
    OK(amd_dbgapi_wave_get_info(w, AMD_DBGAPI_WAVE_INFO_PC, sizeof(pc), &pc));
    OK(amd_dbgapi_wave_get_info(w, AMD_DBGAPI_WAVE_INFO_ARCHITECTURE, sizeof(arch), &arch));
    size = sizeof(code);
    OK(amd_dbgapi_read_memory(p, AMD_DBGAPI_WAVE_NONE, AMD_DBGAPI_LANE_NONE,
                              AMD_DBGAPI_ADDRESS_SPACE_GLOBAL, pc, &size, code));
    log_needle = "no instruction can be disassembled in this process: disassembler not "
                 "available: cannot open ";
    for (int round = 0; round < 2; round++) {
        amd_dbgapi_size_t isize = size;
        amd_dbgapi_status_t st =
                amd_dbgapi_disassemble_instruction(arch, pc, &isize, code, &text, 0, NULL);

        if (no_module) {
            /* AMD's generic failure; the reason logged the first time only */
            assert_int_equal(st, AMD_DBGAPI_STATUS_ERROR);
            assert_int_equal(log_hits, 1);
            assert_false(llvm_mapped());
        } else {
            assert_int_equal(st, AMD_DBGAPI_STATUS_SUCCESS);
            assert_true(isize >= 4 && isize % 4 == 0);
            assert_true(text && text[0]);
            tdc_free(text);
            text = NULL;
            assert_true(llvm_mapped());
        }
    }
    if (no_module)
        print_message("logged: %s\n", tdc_last_log);
    /* registers are still served after the disassembler's failure or load */
    assert_true(read_every_register(p) > 0);

    OK(amd_dbgapi_process_detach(p));
    OK(amd_dbgapi_finalize());
    tdc_callbacks.log_message = client_log;
    assert_int_equal(tdc_live_allocations, 0);
    assert_int_equal(tdc_fatal_logs, 0);
    tdc_close(&client);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llvm_only_on_disassembly),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
