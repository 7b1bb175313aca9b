/* SPDX-License-Identifier: MIT */
/*
 * Scenario parser (kfd/sim/scenario.c): every scenario file of tests/scenarios parses with the
 * counts the README promises, and each broken scenario below fails with its own message (the
 * JSON path and what is wrong), never silently.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"

static char *scen_path(const char *name)
{
    const char *dir = getenv("GPUCORE_SCENARIO_DIR");
    char *p = malloc(4096);

    assert_non_null(dir);
    snprintf(p, 4096, "%s/%s", dir, name);
    return p;
}

static struct gc_scenario *load(const char *name)
{
    char *p = scen_path(name);
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };

    if (gc_scenario_load(p, &s, &d) < 0)
        fail_msg("%s: %s", name, d.message);
    free(p);
    return s;
}

static void test_files_parse(void **state)
{
    struct gc_scenario *s;

    (void)state;
    s = load("vadd-fault.json");
    assert_int_equal(s->total_waves, 256);
    assert_int_equal(s->nagents, 1);
    assert_int_equal(s->r_version, 10);
    assert_int_equal(s->waves[1].stop, GC_SCEN_STOP_MEMORY_VIOLATION);
    assert_int_equal(s->waves[1].total_waves, 4);
    assert_int_equal(s->dispatches[0].group_segment_size, 1024);
    gc_scenario_free(s);

    s = load("mi300-xcc.json");
    assert_int_equal(s->agents[0].num_xcc, 2);
    assert_string_equal(s->code_objects[0].object, "vadd.gfx942.co"); /* native (LLVM 19) */
    assert_int_equal(s->code_objects[0].uri_file, 1);
    gc_scenario_free(s);

    s = load("rdna2-illegal.json");
    assert_int_equal(s->dispatches[0].wave32, 1);
    assert_int_equal(s->total_waves, 32); /* 4 groups x 8 wave32 */
    gc_scenario_free(s);

    s = load("rdna3-assert.json");
    assert_int_equal(s->dispatches[0].wave32, 0);
    assert_int_equal(s->waves[1].stop, GC_SCEN_STOP_ASSERT_TRAP);
    assert_int_equal(s->dispatches[0].printf_buffer, 4096);
    gc_scenario_free(s);

    s = load("multi-gpu-hang.json");
    assert_int_equal(s->nagents, 2);
    assert_int_equal(s->nqueues, 3);
    assert_int_equal(s->total_waves, 10000);
    assert_int_equal(s->nexceptions, 0);
    assert_int_equal(s->host_threads, 4);
    gc_scenario_free(s);

    s = load("big-memory.json");
    {
        uint64_t total = 0;

        for (uint32_t i = 0; i < s->nbuffers; i++)
            total += s->buffers[i].size;
        assert_true(total == (16ull << 30));
    }
    gc_scenario_free(s);
}

/* A minimal valid scenario the broken cases edit. */
#define AGENT "\"agents\":[{\"target\":\"gfx90a\",\"gpu_id\":1,\"simd_count\":416}]"
#define QUEUE "\"queues\":[{\"agent\":0,\"queue_id\":0}]"
#define CO "\"code_objects\":[{\"name\":\"v\",\"source\":\"vadd.cl\",\"target\":\"gfx90a\"}]"
#define DISP "\"dispatches\":[{\"queue\":0,\"code_object\":\"v\",\"kernel\":\"vadd\"," \
             "\"grid\":[1024],\"workgroup\":[256],\"packet_id\":0}]"
#define BASE "\"name\":\"t\"," AGENT "," QUEUE "," CO "," DISP
#define BUF ",\"buffers\":[{\"name\":\"a\",\"size\":65536}]"
#define FI(x) ",\"fault_injection\":[" x "]"

/* One dispatch of vadd with more keys (@p more: ",\"key\":value..."). */
#define PDISP(more) "\"name\":\"t\"," AGENT "," QUEUE "," CO ",\"dispatches\":[{\"queue\":0," \
                    "\"code_object\":\"v\",\"kernel\":\"vadd\",\"grid\":[1],\"workgroup\":[1]," \
                    "\"packet_id\":0" more "}]"

static const struct {
    const char *json;
    const char *message;
} broken[] = {
    { "{", "t.json:1:" },
    { "[]", "expected an object" },
    { "{" BASE ",\"bogus\":1}", "t.json: bogus: unknown key" },
    { "{\"name\":\"t\"}", "missing 'agents'" },
    { "{\"name\":\"t\",\"agents\":[{\"target\":\"gfx9999\",\"gpu_id\":1,\"simd_count\":4}]}",
      "agents[0].target: unknown target 'gfx9999'" },
    { "{\"name\":\"t\",\"agents\":[{\"target\":\"gfx90a\",\"gpu_id\":1,\"simd_count\":-4}]}",
      "agents[0].simd_count: negative value -4" },
    { "{\"name\":\"t\",\"agents\":[{\"target\":\"gfx90a\",\"gpu_id\":1,\"simd_count\":99999}]}",
      "agents[0].simd_count: 99999 (0x1869f) out of range" },
    { "{\"name\":\"t\",\"r_version\":13," AGENT "}", "r_version: 13 (0xd) out of range [8, 12]" },
    { "{\"name\":\"t\"," AGENT ",\"queues\":[{\"agent\":1,\"queue_id\":0}]}",
      "queues[0].agent: 1 (0x1) out of range [0, 0]" },
    { "{\"name\":\"t\"," AGENT ",\"queues\":[{\"agent\":0,\"queue_id\":3},"
      "{\"agent\":0,\"queue_id\":3}]}",
      "queues[1]: queue_id 3 used twice (KFD queue ids are unique per process)" },
    { "{\"name\":\"t\"," AGENT ",\"queues\":[{\"agent\":0,\"queue_id\":0,\"ring_packets\":100}]}",
      "queues[0]: ring_packets 100 is not a power of two" },
    { "{\"name\":\"t\"," AGENT ",\"queues\":[{\"agent\":0,\"queue_id\":0,\"backlog\":64}]}",
      "queues[0].backlog: 64 (0x40) out of range [0, 63]" },
    { "{\"name\":\"t\"," AGENT "," QUEUE "," CO ",\"dispatches\":[{\"queue\":0,\"code_object\":"
      "\"w\",\"kernel\":\"vadd\",\"grid\":[1],\"workgroup\":[1],\"packet_id\":0}]}",
      "dispatches[0]: code_object: no code object named 'w'" },
    { "{\"name\":\"t\"," AGENT "," QUEUE "," CO ",\"dispatches\":[{\"queue\":0,\"code_object\":"
      "\"v\",\"kernel\":\"vadd\",\"grid\":[1],\"workgroup\":[2048],\"packet_id\":0}]}",
      "dispatches[0].workgroup[0]: 2048 (0x800) out of range" },
    { "{\"name\":\"t\"," AGENT "," QUEUE "," CO ",\"dispatches\":[{\"queue\":0,\"code_object\":"
      "\"v\",\"kernel\":\"vadd\",\"grid\":[1],\"workgroup\":[1],\"packet_id\":0,"
      "\"printf_buffer\":\"0x2000000\"}]}",
      "dispatches[0].printf_buffer: 33554432 (0x2000000) out of range" },
    { "{" PDISP(",\"printf_records\":[{\"id\":1,\"words\":[5]}]") "}",
      "dispatches[0]: printf_records: only with a printf_buffer" },
    { "{" PDISP(",\"printf_buffer\":16,\"printf_records\":[{\"id\":1,\"words\":[5]},"
                "{\"id\":2}]") "}",
      "dispatches[0].printf_records[1]: the 8-byte header and 12 bytes of records do not fit "
      "the 16-byte printf_buffer" },
    { "{" PDISP(",\"printf_buffer\":64,\"printf_records\":[{\"id\":0}]") "}",
      "dispatches[0].printf_records[0].id: 0 (0x0) out of range [1, 4294967295]" },
    { "{" PDISP(",\"printf_buffer\":64,\"printf_records\":[{\"words\":[1]}]") "}",
      "dispatches[0].printf_records[0]: missing 'id'" },
    { "{" PDISP(",\"printf_buffer\":64,\"printf_records\":[{\"id\":1,\"words\":[-1]}]") "}",
      "dispatches[0].printf_records[0].words[0]: negative value -1" },
    { "{" PDISP(",\"printf_buffer\":64,\"printf_records\":[{\"id\":1,\"words\":"
                "[\"0x100000000\"]}]") "}",
      "dispatches[0].printf_records[0].words[0]: 4294967296 (0x100000000) out of range" },
    { "{" PDISP(",\"printf_buffer\":64,\"printf_records\":[{\"id\":1,\"words\":[true]}]") "}",
      "dispatches[0].printf_records[0].words[0]: expected a number" },
    { "{" PDISP(",\"printf_buffer\":64,\"printf_records\":[{\"id\":1,\"words\":3}]") "}",
      "dispatches[0].printf_records[0].words: expected an array" },
    { "{" PDISP(",\"printf_buffer\":64,\"printf_records\":[{\"id\":1,\"text\":\"x\"}]") "}",
      "dispatches[0].printf_records[0].text: unknown key" },
    { "{" PDISP(",\"printf_buffer\":64,\"printf_records\":{\"id\":1}") "}",
      "dispatches[0].printf_records: expected an array" },
    { "{\"name\":\"t\"," AGENT "," QUEUE "," CO ",\"dispatches\":[{\"queue\":0,\"code_object\":"
      "\"v\",\"kernel\":\"vadd\",\"grid\":[1],\"workgroup\":[1],\"packet_id\":0,\"wave32\":true}]}",
      "dispatches[0]: wave32: gfx90a has no wave32" },
    { "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[4]}]}",
      "waves[0]: workgroup: id 4 in dimension 0 beyond the grid's 4 workgroups" },
    { "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[0],\"stop\":\"memory_violation\"}]}",
      "waves[0]: stop: a running wave has no stop cause" },
    { "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[0],\"state\":\"paused\"}]}",
      "waves[0].state: unknown value 'paused'" },
    /* stop causes: known, once, in the state they belong to, on a family that has them */
#define ST(x) "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[0]," x "}]}"
    { ST("\"state\":\"stopped\",\"stop\":\"segfault\""),
      "waves[0].stop: unknown value 'segfault'" },
    { ST("\"state\":\"stopped\",\"stop\":7"), "waves[0].stop: expected a stop cause or a list" },
    { ST("\"state\":\"stopped\",\"stop\":[]"), "waves[0].stop: expected a stop cause or a list" },
    { ST("\"state\":\"stopped\",\"stop\":[\"fp_inexact\",\"fp_inexact\"]"),
      "waves[0].stop[1]: 'fp_inexact' given twice" },
    { ST("\"state\":\"stopped\",\"stop\":[\"breakpoint\",3]"),
      "waves[0].stop[1]: expected a stop cause name" },
    { ST("\"state\":\"stopped\",\"stop\":\"host_trap\""),
      "waves[0].stop: 'host_trap' does not exist on gfx90a" },
    { ST("\"state\":\"stopped\",\"stop\":\"trap_after_instruction\""),
      "waves[0].stop: 'trap_after_instruction' does not exist on gfx90a" },
    { ST("\"state\":\"stopped\",\"stop\":\"halt\""),
      "waves[0]: stop: 'halt' needs \"state\": \"halted\"" },
    { ST("\"state\":\"halted\",\"stop\":\"breakpoint\""),
      "waves[0]: stop: 'breakpoint' needs \"state\": \"stopped\"" },
    { ST("\"state\":\"halted\",\"stop\":[\"halt\",\"fatal_halt\",\"fatal_halt\"]"),
      "waves[0].stop[2]: 'fatal_halt' given twice" },
    { ST("\"state\":\"stopped\",\"stop\":[\"breakpoint\",\"assert_trap\"]"),
      "waves[0]: stop: two causes need the saved trap id ('breakpoint')" },
    { ST("\"state\":\"stopped\",\"stop\":[\"debugger\",\"fp_inexact\"]"),
      "waves[0]: stop: 'debugger' cannot be combined with another cause" },
    { ST("\"state\":\"stopped\",\"stop\":[\"none\",\"breakpoint\"]"),
      "waves[0]: stop: 'none' cannot be combined with another cause" },
    { ST("\"state\":\"stopped\",\"masked\":\"fp_inexact\""),
      "waves[0].masked: expected a list of 1 to" },
    { ST("\"state\":\"stopped\",\"masked\":[\"breakpoint\"]"),
      "waves[0]: masked: 'breakpoint' has no enable to leave clear" },
    { ST("\"state\":\"stopped\",\"stop\":\"fp_overflow\",\"masked\":[\"fp_overflow\"]"),
      "waves[0]: masked: 'fp_overflow' is also a stop cause" },
    { ST("\"state\":\"stopped\",\"stop\":\"watchpoint_0\",\"masked\":[\"watchpoint_2\"]"),
      "waves[0]: masked: 'watchpoint_2' shares its enable with stop cause 'watchpoint_0'" },
    { ST("\"masked\":[\"host_trap\"]"), "waves[0].masked[0]: 'host_trap' does not exist on gfx90a" },
    { ST("\"state\":\"running\",\"stop\":[\"breakpoint\"]"),
      "waves[0]: stop: a running wave has no stop cause" },
#undef ST
    { "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[0],\"pc\":{\"kernel_offset\":2}}]}",
      "waves[0].pc: kernel_offset: not 4-byte aligned" },
    { "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[0],\"pc\":{}}]}",
      "waves[0].pc: give exactly one of kernel_offset and address" },
    { "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[0],\"lds\":\"random\"}]}",
      "waves[0]: lds: the dispatch has no group segment" },
    { "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[0],\"registers\":{\"sgpr\":{\"x\":1}}}]}",
      "waves[0].registers.sgpr.x: register number expected" },
    { "{" BASE ",\"buffers\":[{\"name\":\"b\",\"size\":\"0x10000001\"}]}",
      "buffers[0]: more than 256 MiB of resident buffer memory" },
    { "{" BASE ",\"buffers\":[{\"name\":\"b\",\"size\":\"0x100000000\",\"sparse\":true,"
      "\"pattern\":\"random\"}]}",
      "buffers[0]: pattern: a sparse buffer needs 'ranges'" },
    { "{" BASE ",\"buffers\":[{\"name\":\"b\",\"size\":\"0x1000000000000\",\"sparse\":true}]}",
      "buffers[0].size: 281474976710656 (0x1000000000000) out of range" },
    { "{" BASE ",\"buffers\":[{\"name\":\"b\",\"size\":4096,\"ranges\":[{\"offset\":4096,"
      "\"size\":4}]}]}", "buffers[0].ranges[0].offset: 4096 (0x1000) out of range" },
    { "{\"name\":\"t\"," AGENT ",\"code_objects\":[{\"name\":\"v\",\"source\":\"a/vadd.cl\","
      "\"target\":\"gfx90a\"}]}", "code_objects[0]: source: 'a/vadd.cl' is not NAME.cl" },
    { "{\"name\":\"t\",\"agents\":[{\"target\":\"gfx1030\",\"gpu_id\":1,\"simd_count\":80}],"
      QUEUE "," CO "," DISP "}",
      "dispatches[0].code_object: 'v' is built for gfx90a, the queue's agent is gfx1030" },
    { "{" BASE ",\"fault_injection\":[{\"op\":\"suspend\",\"errno\":\"EWHAT\"}]}",
      "fault_injection[0].errno: unknown value 'EWHAT'" },
    { "{" BASE ",\"exceptions\":[{\"what\":\"queue_error\",\"queue\":3}]}",
      "exceptions[0].queue: 3 (0x3) out of range [0, 0]" },
    { "{" BASE ",\"host_threads\":{\"count\":1000}}",
      "host_threads.count: 1000 (0x3e8) out of range [0, 64]" },
    { "{" BASE ",\"name\":\"u\"}", "duplicate object key" },
    /* fault_injection actions */
    { "{" BASE FI("{\"op\":\"suspend\"}") "}",
      "fault_injection[0]: one of 'errno', 'exit', 'delay_ms', 'delay_us_per_mib' or 'buffer' is "
      "needed" },
    { "{" BASE FI("{\"op\":\"suspend\",\"exit\":3,\"errno\":\"EIO\"}") "}",
      "fault_injection[0].errno: unknown key" },
    { "{" BASE FI("{\"op\":\"suspend\",\"exit\":256}") "}",
      "fault_injection[0].exit: 256 (0x100) out of range [0, 255]" },
    { "{" BASE FI("{\"op\":\"suspend\",\"delay_ms\":0}") "}",
      "fault_injection[0].delay_ms: 0 (0x0) out of range [1, 60000]" },
    { "{" BASE FI("{\"op\":\"suspend\",\"delay_ms\":5,\"nth\":2}") "}",
      "fault_injection[0].nth: unknown key" },
    { "{" BASE FI("{\"op\":\"suspend\",\"delay_us_per_mib\":5}") "}",
      "fault_injection[0].delay_us_per_mib: only for the 'read_memory' op" },
    { "{" BASE FI("{\"op\":\"read_memory\",\"errno\":\"EIO\"}") "}",
      "fault_injection[0].errno: read_memory takes 'delay_us_per_mib' or" },
    { "{" BASE FI("{\"op\":\"read_memory\",\"delay_ms\":3}") "}",
      "fault_injection[0].delay_ms: read_memory takes" },
    { "{" BASE FI("{\"op\":\"read_memory\",\"delay_us_per_mib\":0}") "}",
      "fault_injection[0].delay_us_per_mib: 0 (0x0) out of range" },
    { "{" BASE BUF FI("{\"op\":\"read_memory\",\"errno\":\"EFAULT\",\"buffer\":\"a\","
      "\"offset\":0,\"size\":4096}") "}",
      "fault_injection[0].errno: unknown value 'EFAULT'" },
    { "{" BASE BUF FI("{\"op\":\"read_memory\",\"errno\":\"EIO\",\"buffer\":\"z\","
      "\"offset\":0,\"size\":4096}") "}",
      "fault_injection[0].buffer: no buffer named 'z'" },
    { "{" BASE BUF FI("{\"op\":\"read_memory\",\"errno\":\"EIO\",\"buffer\":\"a\","
      "\"offset\":100,\"size\":4096}") "}",
      "fault_injection[0].size: offset 0x64 and size 0x1000 must be page aligned" },
    { "{" BASE BUF FI("{\"op\":\"read_memory\",\"errno\":\"EIO\",\"buffer\":\"a\","
      "\"offset\":61440,\"size\":8192}") "}",
      "must be page aligned and inside the buffer's 0x10000 bytes" },
    { "{" BASE BUF FI("{\"op\":\"read_memory\",\"errno\":\"EIO\",\"buffer\":\"a\","
      "\"offset\":0}") "}", "fault_injection[0]: missing 'size'" },
    /* runtime error handling, KFD version, exception details */
    { "{" BASE ",\"on_queue_error\":\"explode\"}", "t.json: on_queue_error: unknown value 'explode'" },
    { "{" BASE ",\"on_queue_error\":\"exit\",\"exit_status\":300}",
      "exit_status: 300 (0x12c) out of range [0, 255]" },
    { "{" BASE ",\"on_queue_error\":\"abort\",\"exit_status\":3}",
      "exit_status: only with \"on_queue_error\": \"exit\"" },
    { "{" BASE ",\"exit_status\":3}", "exit_status: only with" },
    { "{" BASE ",\"kfd\":{\"minor\":12}}", "t.json: kfd.minor: 12 (0xc) out of range [13, 18]" },
    { "{" BASE ",\"kfd\":{\"minor\":19}}", "kfd.minor: 19 (0x13) out of range [13, 18]" },
    { "{" BASE ",\"kfd\":{\"no_hws\":1}}", "kfd.no_hws: expected true or false" },
    { "{" BASE ",\"kfd\":{\"major\":1}}", "kfd.major: unknown key" },
    { "{" BASE ",\"kfd\":[]}", "kfd: expected an object" },
    { "{" BASE ",\"exceptions\":[{\"what\":\"memory_violation\",\"queue\":0,"
      "\"address\":0}]}", "exceptions[0].address: 0 (0x0) out of range" },
    { "{" BASE ",\"exceptions\":[{\"what\":\"memory_violation\",\"queue\":0,"
      "\"address\":\"0x1000\",\"fault_flags\":16}]}",
      "exceptions[0].fault_flags: 16 (0x10) out of range [0, 15]" },
    { "{" BASE ",\"exceptions\":[{\"what\":\"memory_violation\",\"queue\":0,"
      "\"fault_flags\":1}]}", "exceptions[0]: fault_flags: only with an 'address'" },
    /* addresses relative to a buffer or host memory */
#define EXA(x) ",\"exceptions\":[{\"what\":\"memory_violation\",\"queue\":0,\"address\":" x "}]"
    { "{" BASE BUF EXA("{}") "}", "exceptions[0].address: give exactly one of 'buffer' and 'host'" },
    { "{" BASE BUF EXA("{\"buffer\":\"a\",\"host\":\"stack\"}") "}",
      "exceptions[0].address: give exactly one of 'buffer' and 'host'" },
    { "{" BASE BUF EXA("{\"buffer\":\"z\"}") "}",
      "exceptions[0].address.buffer: no buffer named 'z'" },
    { "{" BASE EXA("{\"buffer\":\"a\"}") "}",
      "exceptions[0].address.buffer: no buffer named 'a'" },
    { "{" BASE BUF EXA("{\"buffer\":7}") "}", "exceptions[0].address.buffer: expected a string" },
    { "{" BASE BUF EXA("{\"buffer\":\"a\",\"offset\":16,\"before\":16}") "}",
      "exceptions[0].address: give at most one of 'offset' and 'before'" },
    { "{" BASE BUF EXA("{\"buffer\":\"a\",\"before\":0}") "}",
      "exceptions[0].address.before: 0 (0x0) out of range [1, 1099511627776]" },
    { "{" BASE BUF EXA("{\"buffer\":\"a\",\"offset\":\"0x10000000001\"}") "}",
      "exceptions[0].address.offset: 1099511627777 (0x10000000001) out of range [0, "
      "1099511627776]" },
    { "{" BASE BUF EXA("{\"buffer\":\"a\",\"offset\":-4}") "}",
      "exceptions[0].address.offset: negative value -4" },
    { "{" BASE BUF EXA("{\"buffer\":\"a\",\"size\":4}") "}",
      "exceptions[0].address.size: unknown key" },
    { "{" BASE BUF EXA("{\"host\":\"heap\"}") "}",
      "exceptions[0].address.host: unknown value 'heap'" },
    { "{" BASE BUF EXA("{\"host\":\"stack\",\"offset\":8}") "}",
      "exceptions[0].address.offset: unknown key" },
    { "{" BASE BUF EXA("[1]") "}", "exceptions[0].address: expected a number" },
    /* uri_path: an absolute path, and only for a file:// URI */
    { "{\"name\":\"t\"," AGENT ",\"code_objects\":[{\"name\":\"v\",\"source\":\"vadd.cl\","
      "\"target\":\"gfx90a\",\"uri_path\":\"/dev/zero\"}]}",
      "code_objects[0]: uri_path: an absolute path, with \"uri\": \"file\"" },
    { "{\"name\":\"t\"," AGENT ",\"code_objects\":[{\"name\":\"v\",\"source\":\"vadd.cl\","
      "\"target\":\"gfx90a\",\"uri\":\"file\",\"uri_path\":\"rel/x\"}]}",
      "uri_path: an absolute path" },
    /* the privacy tests' secret: 16 bytes as 32 hex digits, needed by its pattern and kernarg */
#define SECRET ",\"secret\":{\"marker\":\"00112233445566778899aabbccddeeff\"}"
    { "{" BASE ",\"secret\":{\"marker\":\"0011\"}}",
      "secret: marker: expected 32 hex digits (16 bytes)" },
    { "{" BASE ",\"secret\":{\"marker\":\"0011223344556677889900aabbccddeg\"}}",
      "secret: marker: bad hex digit at 31" },
    { "{" BASE ",\"secret\":{\"marker\":\"00112233445566778899aabbccddeeff\","
      "\"heap\":16777217}}", "secret.heap: 16777217 (0x1000001) out of range" },
    { "{" BASE ",\"secret\":{\"marker\":\"00112233445566778899aabbccddeeff\",\"x\":1}}",
      "secret.x: unknown key" },
    { "{" BASE ",\"buffers\":[{\"name\":\"a\",\"size\":64,\"pattern\":\"secret\"}]}",
      "buffers[0]: pattern: 'secret' needs a top-level \"secret\"" },
    { "{\"name\":\"t\"," AGENT "," QUEUE "," CO ",\"dispatches\":[{\"queue\":0,"
      "\"code_object\":\"v\",\"kernel\":\"vadd\",\"grid\":[1024],\"workgroup\":[256],"
      "\"packet_id\":0,\"kernargs\":[{\"type\":\"secret\"}]}]}",
      "kernargs[0]: type: 'secret' needs a top-level \"secret\"" },
    { "{\"name\":\"t\"," AGENT "," QUEUE "," CO SECRET ",\"dispatches\":[{\"queue\":0,"
      "\"code_object\":\"v\",\"kernel\":\"vadd\",\"grid\":[1024],\"workgroup\":[256],"
      "\"packet_id\":0,\"kernargs\":[{\"type\":\"secret\",\"value\":1}]}]}",
      "kernargs[0]: a secret argument takes no value or offset" },
};

static void test_broken(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
        struct gc_scenario *s = NULL;
        gpucore_diag_t d = { 0 };
        gpucore_status_t st = gc_scenario_parse(broken[i].json, strlen(broken[i].json),
                                                "t.json", &s, &d);

        if (st >= 0)
            fail_msg("case %zu parsed: %s", i, broken[i].json);
        assert_null(s);
        if (!strstr(d.message, broken[i].message))
            fail_msg("case %zu: message '%s' lacks '%s'", i, d.message, broken[i].message);
    }
}

/* printf_records: each record's id then its words, back to back, as the kernel writes them; a
   buffer exactly filled by its header and records is accepted. */
static void test_printf_records(void **state)
{
    static const char json[] = "{" PDISP(",\"printf_buffer\":36,\"printf_records\":["
                                         "{\"id\":1,\"words\":[1536,\"0xfffffff9\"]},"
                                         "{\"id\":2},{\"id\":\"0x3\",\"words\":[0,7]}]") "}";
    static const uint32_t want[] = { 1, 1536, 0xfffffff9u, 2, 3, 0, 7 };
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    if (gc_scenario_parse(json, strlen(json), "t.json", &s, &d) < 0)
        fail_msg("%s", d.message);
    assert_int_equal(s->dispatches[0].printf_buffer, 36); /* 8 + 7 words: full */
    assert_int_equal(s->dispatches[0].nprintf_words, 7);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(s->dispatches[0].printf_words[i], want[i]);
    gc_scenario_free(s);

    s = load("rdna3-assert.json");
    assert_int_equal(s->dispatches[0].nprintf_words, 9); /* three records of id 1, i, in[i] */
    assert_int_equal(s->dispatches[0].printf_words[0], 1);
    assert_int_equal(s->dispatches[0].printf_words[1], 1536);
    assert_int_equal(s->dispatches[0].printf_words[2], 0x945649d4u);
    gc_scenario_free(s);
}

/* uri_path: the file:// URI names it, the object is still the one loaded */
static void test_uri_path(void **state)
{
    static const char json[] = "{\"name\":\"t\"," AGENT ",\"code_objects\":[{\"name\":\"v\","
                               "\"source\":\"vadd.cl\",\"target\":\"gfx90a\",\"uri\":\"file\","
                               "\"uri_path\":\"/tmp/a fifo\"}]}";
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    if (gc_scenario_parse(json, strlen(json), "t.json", &s, &d) < 0)
        fail_msg("%s", d.message);
    assert_int_equal(s->code_objects[0].uri_file, 1);
    assert_string_equal(s->code_objects[0].uri_path, "/tmp/a fifo");
    assert_string_equal(s->code_objects[0].object, "vadd.gfx90a.co");
    gc_scenario_free(s);
}

static void test_base_parses(void **state)
{
    static const char json[] = "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[3],"
                               "\"registers\":{\"vgpr\":{\"2\":[1,2]},\"fill\":\"zero\"}}]}";
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    if (gc_scenario_parse(json, strlen(json), "t.json", &s, &d) < 0)
        fail_msg("%s", d.message);
    assert_int_equal(s->total_waves, 4);
    assert_int_equal(s->waves[0].noverrides, 2);
    assert_int_equal(s->waves[0].fill_zero, 1);
    gc_scenario_free(s);
}

/* Stop causes: a name or a list, masked exceptions, the halted and stopped states and their
   default causes; every cause of the table parses on a family that has its bits (gfx942,
   gfx1100). */
static void test_stop_causes(void **state)
{
    static const char json[] =
            "{" BASE ",\"waves\":["
            "{\"dispatch\":0,\"workgroup\":[0],\"state\":\"stopped\","
            "\"stop\":[\"watchpoint_2\",\"fp_divide_by_0\",\"breakpoint\"],"
            "\"masked\":[\"fp_inexact\",\"int_divide_by_0\"]},"
            "{\"dispatch\":0,\"workgroup\":[1],\"state\":\"halted\"},"
            "{\"dispatch\":0,\"workgroup\":[2],\"state\":\"halted\",\"stop\":\"ecc_error\"},"
            "{\"dispatch\":0,\"workgroup\":[3],\"masked\":[\"watchpoint_1\"]}]}";
    static const char stopped_json[] = /* found by fuzz_scenario */
            "{" BASE ",\"waves\":[{\"dispatch\":0,\"workgroup\":[0],\"state\":\"stopped\","
            "\"masked\":[\"fp_overflow\"]}]}";
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    if (gc_scenario_parse(json, strlen(json), "t.json", &s, &d) < 0)
        fail_msg("%s", d.message);
    assert_int_equal(s->waves[0].stopped, 1);
    assert_int_equal(s->waves[0].stop, GC_SCEN_STOP_WATCHPOINT_0 + 2);
    assert_int_equal(s->waves[0].stop_causes, (1u << (GC_SCEN_STOP_WATCHPOINT_0 + 2)) |
                                                      (1u << GC_SCEN_STOP_FP_DIVIDE_BY_0) |
                                                      (1u << GC_SCEN_STOP_BREAKPOINT));
    assert_int_equal(s->waves[0].masked,
                     (1u << GC_SCEN_STOP_FP_INEXACT) | (1u << GC_SCEN_STOP_INT_DIVIDE_BY_0));
    assert_int_equal(s->waves[1].stopped, 0);
    assert_int_equal(s->waves[1].halted, 1);
    assert_int_equal(s->waves[1].stop, GC_SCEN_STOP_HALT);
    assert_int_equal(s->waves[2].stop_causes, 1u << GC_SCEN_STOP_ECC_ERROR);
    assert_int_equal(s->waves[3].stopped, 0);
    assert_int_equal(s->waves[3].masked, 1u << (GC_SCEN_STOP_WATCHPOINT_0 + 1));
    gc_scenario_free(s);

    /* "stopped" without "stop" is cause none, as "stop": "none" */
    if (gc_scenario_parse(stopped_json, strlen(stopped_json), "t.json", &s, &d) < 0)
        fail_msg("%s", d.message);
    assert_int_equal(s->waves[0].stopped, 1);
    assert_int_equal(s->waves[0].stop, GC_SCEN_STOP_NONE);
    assert_int_equal(s->waves[0].stop_causes, 1u << GC_SCEN_STOP_NONE);
    assert_int_equal(s->waves[0].masked, 1u << GC_SCEN_STOP_FP_OVERFLOW);
    gc_scenario_free(s);

    for (int fam = 0; fam < 2; fam++) {
        const char *target = fam ? "gfx1100" : "gfx942";
        const char *co = fam ? "gfx1100" : "gfx940";

        for (int c = 0; c < _GC_SCEN_STOP_MAX; c++) {
            const struct gc_scen_cause *k = &gc_scen_causes[c];
            char buf[1024];

            snprintf(buf, sizeof(buf),
                     "{\"name\":\"t\",\"agents\":[{\"target\":\"%s\",\"gpu_id\":1,"
                     "\"simd_count\":416}]," QUEUE ",\"code_objects\":[{\"name\":\"v\","
                     "\"source\":\"vadd.cl\",\"target\":\"%s\"}]," DISP ",\"waves\":[{"
                     "\"dispatch\":0,\"workgroup\":[0],\"state\":\"%s\",\"stop\":\"%s\"}]}",
                     target, co, k->state == GC_SCEN_STATE_HALTED ? "halted" : "stopped",
                     k->name);
            s = NULL;
            if (gc_scenario_parse(buf, strlen(buf), "t.json", &s, &d) < 0) {
                /* gfx11 has every bit; gfx940's status has ECC_ERR too: all must parse */
                fail_msg("%s: %s", target, d.message);
            }
            assert_int_equal(s->waves[0].stop, c);
            gc_scenario_free(s);
        }
    }
}

/* Every new key, accepted and stored. */
static void test_new_keys(void **state)
{
    static const char json[] =
            "{" BASE BUF ",\"on_queue_error\":\"exit\",\"exit_status\":7,"
            "\"kfd\":{\"minor\":14,\"no_hws\":true},"
            "\"exceptions\":[{\"what\":\"memory_violation\",\"queue\":0,"
            "\"address\":\"0x7f39f5000040\",\"fault_flags\":5}]"
            FI("{\"op\":\"suspend\",\"errno\":\"EIO\",\"nth\":2},"
               "{\"op\":\"resume\",\"exit\":9},"
               "{\"op\":\"enable\",\"delay_ms\":25},"
               "{\"op\":\"read_memory\",\"delay_us_per_mib\":300},"
               "{\"op\":\"read_memory\",\"errno\":\"EIO\",\"buffer\":\"a\","
               "\"offset\":4096,\"size\":\"0x2000\"}") "}";
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    if (gc_scenario_parse(json, strlen(json), "t.json", &s, &d) < 0)
        fail_msg("%s", d.message);
    assert_int_equal(s->on_queue_error, GC_SCEN_ON_ERROR_EXIT);
    assert_int_equal(s->exit_status, 7);
    assert_int_equal(s->kfd_minor, 14);
    assert_int_equal(s->no_hws, 1);
    assert_int_equal(s->exceptions[0].address, 0x7f39f5000040ull);
    assert_int_equal(s->exceptions[0].fault_flags, 5);
    assert_int_equal(s->nfaults, 5);
    assert_int_equal(s->faults[0].action, GC_SCEN_FAULT_ERRNO);
    assert_int_equal(s->faults[0].nth, 2);
    assert_int_equal(s->faults[1].action, GC_SCEN_FAULT_EXIT);
    assert_int_equal(s->faults[1].exit_status, 9);
    assert_int_equal(s->faults[1].nth, 1);
    assert_int_equal(s->faults[2].action, GC_SCEN_FAULT_DELAY);
    assert_int_equal(s->faults[2].delay_ms, 25);
    assert_int_equal(s->faults[3].action, GC_SCEN_FAULT_READ_DELAY);
    assert_int_equal(s->faults[3].delay_us_per_mib, 300);
    assert_int_equal(s->faults[4].action, GC_SCEN_FAULT_READ_EIO);
    assert_int_equal(s->faults[4].buffer, 0);
    assert_int_equal(s->faults[4].offset, 4096);
    assert_int_equal(s->faults[4].size, 0x2000);
    assert_int_equal(s->faults[4].err, 5 /* EIO */);
    gc_scenario_free(s);

    /* Defaults. */
    static const char plain[] = "{" BASE "}";
    if (gc_scenario_parse(plain, strlen(plain), "t.json", &s, &d) < 0)
        fail_msg("%s", d.message);
    assert_int_equal(s->on_queue_error, GC_SCEN_ON_ERROR_CONTINUE);
    assert_int_equal(s->kfd_minor, 18);
    assert_int_equal(s->no_hws, 0);
    gc_scenario_free(s);

    /* The shipped files say what the README says. */
    static const struct {
        const char *file;
        enum gc_scen_on_error on;
    } files[] = {
        { "vadd-fault.json", GC_SCEN_ON_ERROR_ABORT },   { "mi300-xcc.json", GC_SCEN_ON_ERROR_ABORT },
        { "rdna2-illegal.json", GC_SCEN_ON_ERROR_ABORT }, { "rdna3-assert.json", GC_SCEN_ON_ERROR_ABORT },
        { "big-memory.json", GC_SCEN_ON_ERROR_ABORT },   { "multi-gpu-hang.json", GC_SCEN_ON_ERROR_CONTINUE },
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        s = load(files[i].file);
        assert_int_equal(s->on_queue_error, files[i].on);
        if (i == 0)
            assert_int_equal(s->exceptions[0].address, 0x7f39f5000040ull);
        gc_scenario_free(s);
    }
}

/* Exception addresses: a number, relative to a buffer (past its base or before it), or in the
   main thread's stack; fault_flags go with each form. */
static void test_relative_addresses(void **state)
{
    static const char json[] =
            "{" BASE ",\"buffers\":[{\"name\":\"a\",\"size\":65536},"
            "{\"name\":\"b\",\"size\":4096}],\"exceptions\":["
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":\"0x7f39f5000040\"},"
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":{\"buffer\":\"b\","
            "\"offset\":\"0x10010\"},\"fault_flags\":1},"
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":{\"buffer\":\"a\"}},"
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":{\"buffer\":\"b\","
            "\"before\":\"0x1000000\"},\"fault_flags\":3},"
            "{\"what\":\"memory_violation\",\"queue\":0,\"address\":{\"host\":\"stack\"},"
            "\"fault_flags\":1},"
            "{\"what\":\"queue_error\",\"queue\":0}]}";
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };
    const struct gc_scen_exception *e;

    (void)state;
    if (gc_scenario_parse(json, strlen(json), "t.json", &s, &d) < 0)
        fail_msg("%s", d.message);
    assert_int_equal(s->nexceptions, 6);
    e = s->exceptions;
    assert_int_equal(e[0].address_kind, GC_SCEN_ADDRESS_ABSOLUTE);
    assert_int_equal(e[0].address, 0x7f39f5000040ull);
    assert_int_equal(e[1].address_kind, GC_SCEN_ADDRESS_BUFFER);
    assert_int_equal(e[1].address, 0);
    assert_int_equal(e[1].address_buffer, 1);
    assert_int_equal(e[1].address_offset, 0x10010);
    assert_int_equal(e[1].address_before, 0);
    assert_int_equal(e[1].fault_flags, 1);
    assert_int_equal(e[2].address_kind, GC_SCEN_ADDRESS_BUFFER);
    assert_int_equal(e[2].address_buffer, 0);
    assert_int_equal(e[2].address_offset, 0);
    assert_int_equal(e[2].address_before, 0);
    assert_int_equal(e[3].address_kind, GC_SCEN_ADDRESS_BUFFER);
    assert_int_equal(e[3].address_buffer, 1);
    assert_int_equal(e[3].address_offset, 0x1000000);
    assert_int_equal(e[3].address_before, 1);
    assert_int_equal(e[3].fault_flags, 3);
    assert_int_equal(e[4].address_kind, GC_SCEN_ADDRESS_HOST);
    assert_int_equal(e[4].address_host, GC_SCEN_HOST_STACK);
    assert_int_equal(e[4].address, 0);
    assert_int_equal(e[5].address_kind, GC_SCEN_ADDRESS_NONE);
    gc_scenario_free(s);
}

/* GPUCORE_SIM_FAULTS: appended with the same rules; errors name the variable and element. */
static void test_env_faults(void **state)
{
    static const char json[] = "{" BASE BUF FI("{\"op\":\"enable\",\"errno\":\"EBUSY\"}") "}";
    static const struct {
        const char *env;
        const char *message;
    } bad[] = {
        { "[{\"op\":\"suspend\",\"errno\":\"EIO\"},{\"op\":\"resume\",\"errno\":\"EXX\"}]",
          "GPUCORE_SIM_FAULTS[1].errno: unknown value 'EXX'" },
        { "[{\"op\":\"nap\",\"errno\":\"EIO\"}]", "GPUCORE_SIM_FAULTS[0].op: unknown value 'nap'" },
        { "[{\"op\":\"suspend\",\"errno\":\"EIO\",\"x\":1}]", "GPUCORE_SIM_FAULTS[0].x: unknown key" },
        { "[{\"op\":\"read_memory\",\"errno\":\"EIO\",\"buffer\":\"q\",\"offset\":0,\"size\":4096}]",
          "GPUCORE_SIM_FAULTS[0].buffer: no buffer named 'q'" },
        { "{\"op\":\"suspend\"}", "GPUCORE_SIM_FAULTS: expected a JSON array" },
        { "[1]", "GPUCORE_SIM_FAULTS[0]: expected an object" },
        { "[", "GPUCORE_SIM_FAULTS:" },
    };
    struct gc_scenario *s = NULL;
    gpucore_diag_t d = { 0 };

    (void)state;
    if (gc_scenario_parse(json, strlen(json), "t.json", &s, &d) < 0)
        fail_msg("%s", d.message);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&d, 0, sizeof(d));
        if (gc_scenario_add_faults(s, bad[i].env, "GPUCORE_SIM_FAULTS", &d) >= 0)
            fail_msg("env case %zu accepted", i);
        if (!strstr(d.message, bad[i].message))
            fail_msg("env case %zu: message '%s' lacks '%s'", i, d.message, bad[i].message);
        assert_int_equal(s->nfaults, 1); /* unchanged */
    }
    assert_int_equal(gc_scenario_add_faults(s, "[{\"op\":\"suspend\",\"exit\":4,\"nth\":3},"
                                               "{\"op\":\"read_memory\",\"delay_us_per_mib\":9}]",
                                            "GPUCORE_SIM_FAULTS", &d), GPUCORE_OK);
    assert_int_equal(s->nfaults, 3);
    assert_int_equal(s->faults[0].err, 16 /* EBUSY */);
    assert_int_equal(s->faults[1].action, GC_SCEN_FAULT_EXIT);
    assert_int_equal(s->faults[1].nth, 3);
    assert_int_equal(s->faults[2].delay_us_per_mib, 9);
    /* The total stays within GC_SCEN_MAX_FAULTS. */
    {
        char big[8192] = "[";
        for (unsigned i = 0; i < GC_SCEN_MAX_FAULTS; i++)
            strcat(big, i ? ",{\"op\":\"enable\",\"delay_ms\":1}" : "{\"op\":\"enable\",\"delay_ms\":1}");
        strcat(big, "]");
        memset(&d, 0, sizeof(d));
        assert_int_equal(gc_scenario_add_faults(s, big, "GPUCORE_SIM_FAULTS", &d), GPUCORE_E_LIMIT);
        assert_non_null(strstr(d.message, "GPUCORE_SIM_FAULTS"));
        assert_int_equal(s->nfaults, 3);
    }
    gc_scenario_free(s);
}

/* The fill function is part of the format (README): pin a few values. */
static void test_fill_pinned(void **state)
{
    (void)state;
    assert_int_equal(gc_scen_fill(0, 0, 0, 0, 0), gc_scen_fill(0, 0, 0, 0, 0));
    assert_int_not_equal(gc_scen_fill(1, GC_SCEN_KIND_VGPR, 0, 0, 0),
                         gc_scen_fill(1, GC_SCEN_KIND_VGPR, 0, 0, 1));
    assert_int_not_equal(gc_scen_fill(1, GC_SCEN_KIND_VGPR, 0, 0, 0),
                         gc_scen_fill(1, GC_SCEN_KIND_SGPR, 0, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files_parse),
        cmocka_unit_test(test_broken),
        cmocka_unit_test(test_uri_path),
        cmocka_unit_test(test_printf_records),
        cmocka_unit_test(test_base_parses),
        cmocka_unit_test(test_fill_pinned),
        cmocka_unit_test(test_new_keys),
        cmocka_unit_test(test_stop_causes),
        cmocka_unit_test(test_env_faults),
        cmocka_unit_test(test_relative_addresses),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
