/* SPDX-License-Identifier: MIT */
/*
 * Scenario model of the simulated GPU process (tests/scenarios/README.md is the format
 * reference): what agents, queues, dispatches, waves and memory the inferior lays out, and when
 * the fault happens. The parser is strict: unknown keys, wrong types, out-of-range values and
 * dangling references are errors whose message names the file and the JSON path.
 *
 * Everything is bounded (GC_SCEN_MAX_*) so a hostile file cannot make the parser or the layout
 * allocate absurd amounts: counts are capped before anything is sized from them.
 *
 * Internal to the simulated driver and its tests. No printing.
 */
#ifndef GC_SIM_SCENARIO_H
#define GC_SIM_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include <gpucore/status.h>

#define GC_SCEN_MAX_AGENTS       16u
#define GC_SCEN_MAX_QUEUES       64u
#define GC_SCEN_MAX_DISPATCHES   256u
#define GC_SCEN_MAX_WAVE_ENTRIES 4096u
#define GC_SCEN_MAX_WAVES        (1u << 20) /* total waves, after expansion */
#define GC_SCEN_MAX_BUFFERS      256u
#define GC_SCEN_MAX_CODE_OBJECTS 64u
#define GC_SCEN_MAX_KERNARGS     64u
#define GC_SCEN_MAX_KERNARG_RAW  4096u
/* printf_records: a test writes a few messages by hand; these bound what one dispatch may list
   (a record is its id and its argument words, README "dispatches[]"). */
#define GC_SCEN_MAX_PRINTF_RECORDS 64u
#define GC_SCEN_MAX_PRINTF_WORDS   64u /* argument words of one record */
#define GC_SCEN_MAX_REG_OVERRIDES 256u
#define GC_SCEN_MAX_EXCEPTIONS   64u
#define GC_SCEN_MAX_FAULTS       64u
#define GC_SCEN_MAX_HOST_THREADS 64u
#define GC_SCEN_MAX_RANGES       64u
#define GC_SCEN_MAX_BUFFER_SIZE  (64ull << 30)  /* virtual; sparse buffers only reserve */
#define GC_SCEN_MAX_DENSE_SIZE   (256ull << 20) /* bytes a scenario may make resident */
#define GC_SCEN_MAX_SCRATCH      (1ull << 30)
#define GC_SCEN_NAME_MAX         64u
#define GC_SCEN_MAX_SECRET_HEAP  (16u << 20) /* bytes of the secret's host heap buffer */
/* How far a buffer-relative exception address may lie from its buffer's base ("offset" past
   it, "before" it): far enough for any overrun a test wants, small enough never to wrap. */
#define GC_SCEN_MAX_ADDRESS_DISTANCE (1ull << 40)

/* Memory fill patterns (README "Patterns"). */
enum gc_scen_pattern {
    GC_SCEN_PAT_ZERO = 0,     /* nothing written */
    GC_SCEN_PAT_SEQUENCE = 1, /* little-endian u32 k at byte 4k of the range's buffer */
    GC_SCEN_PAT_RANDOM = 2,   /* gc_scen_fill(seed, GC_SCEN_KIND_MEM, k, 0) at byte 4k */
    GC_SCEN_PAT_SECRET = 3,   /* the scenario's 16-byte secret marker at every 16th byte of
                                 the range (buffers only; gc_sim_layout_mem gives 0) */
};

/* The kinds of value the fill function distinguishes (its `kind` argument). */
enum gc_scen_kind {
    GC_SCEN_KIND_SGPR = 1,
    GC_SCEN_KIND_VGPR = 2,
    GC_SCEN_KIND_ACCVGPR = 3,
    GC_SCEN_KIND_LDS = 4,
    GC_SCEN_KIND_MEM = 5,
    GC_SCEN_KIND_SCRATCH = 6,
};

/*
 * The deterministic fill function (README "Fill function"): the value of register @p reg, lane
 * @p lane, of kind @p kind, for the wave whose scenario-wide number is @p wave (or the memory
 * word index for memory kinds), under @p seed. Tests recompute ground truth with it.
 */
uint32_t gc_scen_fill(uint32_t seed, uint32_t kind, uint32_t wave, uint32_t reg, uint32_t lane);

/*
 * Why a wave stopped (waves[].stop, README "Stop causes"): each is what the hardware and the
 * trap handler leave in the saved state for that event (struct gc_scen_cause). The values index
 * gc_scen_causes[] and are bit numbers of gc_scen_waves::stop_causes.
 */
enum gc_scen_stop {
    GC_SCEN_STOP_NONE = 0,
    GC_SCEN_STOP_MEMORY_VIOLATION = 1,
    GC_SCEN_STOP_ILLEGAL_INSTRUCTION = 2,
    GC_SCEN_STOP_ASSERT_TRAP = 3,
    GC_SCEN_STOP_BREAKPOINT = 4,
    GC_SCEN_STOP_WATCHPOINT_0 = 5, /* + k for address watch k */
    GC_SCEN_STOP_WATCHPOINT_3 = 8,
    GC_SCEN_STOP_SINGLE_STEP = 9,
    GC_SCEN_STOP_FP_INVALID_OPERATION = 10, /* the ALU exceptions, in gc_hwev EXCP order */
    GC_SCEN_STOP_FP_INPUT_DENORMAL = 11,
    GC_SCEN_STOP_FP_DIVIDE_BY_0 = 12,
    GC_SCEN_STOP_FP_OVERFLOW = 13,
    GC_SCEN_STOP_FP_UNDERFLOW = 14,
    GC_SCEN_STOP_FP_INEXACT = 15,
    GC_SCEN_STOP_INT_DIVIDE_BY_0 = 16,
    GC_SCEN_STOP_XNACK_ERROR = 17,
    GC_SCEN_STOP_ADDRESS_ERROR = 18,
    GC_SCEN_STOP_DEBUG_TRAP = 19,
    GC_SCEN_STOP_TRAP = 20,
    GC_SCEN_STOP_TRAP_AFTER_INSTRUCTION = 21,
    GC_SCEN_STOP_HOST_TRAP = 22,
    GC_SCEN_STOP_DEBUGGER = 23,
    GC_SCEN_STOP_HALT = 24, /* the causes of "state": "halted" from here on */
    GC_SCEN_STOP_FATAL_HALT = 25,
    GC_SCEN_STOP_ECC_ERROR = 26,
    _GC_SCEN_STOP_MAX
};

/* waves[].state */
enum gc_scen_state {
    GC_SCEN_STATE_RUNNING = 0,
    GC_SCEN_STATE_STOPPED = 1, /* the trap handler (or a debugger) stopped it: ttmp6[30] */
    GC_SCEN_STATE_HALTED = 2,  /* status.halt without the trap handler (s_sethalt, errors) */
};

/* Trap id the scenario's generic `trap` cause saves (`s_trap 7`; 4-15 all mean TRAP). */
#define GC_SCEN_TRAP_ID_GENERIC 7u

/*
 * What one stop cause leaves in a wave's saved state. The bits are named hardware state
 * (arch/wave.h enum gc_hwev) that the layout resolves per family: `need` must exist on the
 * wave's family (else the parser refuses the cause there), `opt` is set where it exists.
 * `gate` (an index into need, or -1) is the enable a masked cause leaves clear.
 */
struct gc_scen_cause {
    const char *name;  /* the JSON name, e.g. "fp_divide_by_0" */
    uint32_t state;    /* enum gc_scen_state a wave needs for this cause */
    uint32_t trap_id;  /* saved trap id (s_trap N); 0: none */
    uint32_t nneed, nopt;
    int32_t gate;
    int32_t need[3];   /* enum gc_hwev */
    int32_t opt[2];
};

/* The cause table, indexed by enum gc_scen_stop (_GC_SCEN_STOP_MAX rows). */
extern const struct gc_scen_cause gc_scen_causes[_GC_SCEN_STOP_MAX];

/* Default device capability: what a debuggable Instinct/Radeon GPU reports (HSA_CAP_*:
 * WATCH_POINTS_SUPPORTED, 4 watchpoints, TRAP_DEBUG_SUPPORT, TRAP_DEBUG_FIRMWARE_SUPPORTED).
 * Without the two TRAP_DEBUG bits AMD's debugger library ignores the agent's queues. */
#define GC_SCEN_DEFAULT_CAPABILITY 0x20008280u

struct gc_scen_agent {
    char target[16]; /* "gfx90a" (gc_arch_by_name) */
    uint32_t gpu_id;
    uint32_t simd_count, max_waves_per_simd, array_count, simd_arrays_per_engine, num_xcc;
    uint32_t capability, debug_prop;
    uint32_t vendor_id, device_id, location_id, domain, revision_id;
    uint32_t ttmp_setup; /* 0/1: the SPI sets up the dispatch TTMPs */
};

struct gc_scen_queue {
    uint32_t agent;      /* index */
    uint32_t queue_id;
    uint32_t ring_packets; /* power of two */
    uint32_t backlog;      /* copies of the last dispatch packet queued after it */
    uint32_t scratch_per_wave; /* bytes per wave slot (multiple of 1024) */
    uint32_t scratch_waves;    /* wave slots of the scratch backing memory */
    enum gc_scen_pattern scratch_pattern;
    uint32_t scratch_seed;
};

struct gc_scen_kernarg {
    enum { GC_SCEN_KA_U32, GC_SCEN_KA_U64, GC_SCEN_KA_F32, GC_SCEN_KA_BUFFER,
           GC_SCEN_KA_SECRET /* the 16-byte secret marker, 8-aligned */ } type;
    uint64_t value; /* bits (f32: IEEE bits); BUFFER: buffer index (+ offset in value2) */
    uint64_t value2;
};

struct gc_scen_dispatch {
    uint32_t queue;
    uint32_t code_object;
    char kernel[GC_SCEN_NAME_MAX];
    uint32_t grid[3], workgroup[3];
    uint64_t packet_id; /* monotonic AQL packet id; slot = id % ring_packets */
    uint32_t private_segment_size, group_segment_size;
    uint32_t wave32;    /* 0/1 */
    uint32_t vgprs, accvgprs, sgprs; /* saved register counts; 0 = target default */
    struct gc_scen_kernarg *kernargs;
    uint32_t nkernargs;
    uint8_t *raw_kernargs; /* when given instead of the list */
    uint32_t nraw;
    uint32_t printf_buffer; /* bytes of printf buffer the runtime gives a v5 kernel; 0 = none */
    /* printf_records, as the kernel writes them after the buffer's 8-byte header: each record's
       id then its argument words, back to back (nprintf_words words in all, owned) */
    uint32_t *printf_words;
    uint32_t nprintf_words;
};

struct gc_scen_reg_override {
    uint32_t kind; /* GC_SCEN_KIND_SGPR or _VGPR */
    uint32_t reg;
    int32_t lane; /* -1: every lane */
    uint32_t value;
};

/* One waves[] entry: `workgroup_count` whole workgroups with the same state. */
struct gc_scen_waves {
    uint32_t dispatch;
    uint32_t xcc;
    uint32_t workgroup[3];     /* id of the first; the others follow in x */
    uint32_t workgroup_count;
    uint32_t waves_per_group;  /* 0 = from the dispatch's workgroup size */
    uint32_t stopped;          /* 0 running, 1 stopped by the trap handler */
    uint32_t halted;           /* 1: "state": "halted" (status.halt, trap handler not entered) */
    enum gc_scen_stop stop;    /* the first stop cause given (NONE if none) */
    uint32_t stop_causes;      /* bit c: cause c (enum gc_scen_stop) */
    uint32_t masked;           /* bit c: exception c's flag is set but its enable is clear */
    int pc_is_kernel;          /* 1: pc = kernel entry + pc_offset; 0: pc_address */
    uint64_t pc_offset, pc_address;
    uint64_t exec;
    uint32_t fill_seed;
    int fill_zero;             /* registers all zero except overrides */
    struct gc_scen_reg_override *overrides;
    uint32_t noverrides;
    enum gc_scen_pattern lds_pattern;
    uint32_t lds_seed;
    /* filled by gc_scenario_parse: first scenario-wide wave number of this entry */
    uint32_t first_wave;
    uint32_t total_waves;
};

struct gc_scen_range {
    uint64_t offset, size;
};

struct gc_scen_buffer {
    char name[GC_SCEN_NAME_MAX];
    uint32_t agent;
    uint64_t address; /* 0 = auto */
    uint64_t size;
    int sparse;
    enum gc_scen_pattern pattern;
    uint32_t seed;
    struct gc_scen_range ranges[GC_SCEN_MAX_RANGES]; /* where the pattern is written */
    uint32_t nranges; /* 0 = the whole buffer (not allowed for sparse buffers) */
};

struct gc_scen_code_object {
    char name[GC_SCEN_NAME_MAX];  /* how dispatches refer to it */
    char object[128];             /* file in the objects directory: "vadd.gfx90a.co" */
    char target[16];              /* what it was built for ("gfx940" on a gfx942 agent) */
    int uri_file;                 /* 1: file:// URI, 0: memory:// */
    char uri_path[256];           /* "" or the path the file:// URI names instead of the
                                     object's (the object is still what is loaded) */
};

/* What an exception's "address" is given as (README "exceptions[]"). */
enum gc_scen_address_kind {
    GC_SCEN_ADDRESS_NONE = 0,     /* no address */
    GC_SCEN_ADDRESS_ABSOLUTE = 1, /* a number: the VA itself (in `address`) */
    GC_SCEN_ADDRESS_BUFFER = 2,   /* { "buffer", "offset" | "before" }: relative to a buffer */
    GC_SCEN_ADDRESS_HOST = 3,     /* { "host": ... }: in host memory the inferior has mapped */
};

/* The host memory a { "host": NAME } address lies in (one value per name, README). */
enum gc_scen_host_memory {
    GC_SCEN_HOST_STACK = 0, /* "stack": the main thread's stack (main's frame) */
};

struct gc_scen_exception {
    char what[32]; /* "queue_error", "memory_violation", ... (README) */
    uint32_t queue; /* index, UINT32_MAX = none */
    uint32_t at_ms;
    uint64_t address;     /* ABSOLUTE: the fault VA; 0 otherwise (resolve with
                             gc_sim_layout_exception_address) */
    uint32_t fault_flags; /* bit0 NotPresent, bit1 ReadOnly, bit2 NoExecute, bit3 imprecise */
    enum gc_scen_address_kind address_kind;
    uint32_t address_buffer;  /* BUFFER: buffer index */
    uint64_t address_offset;  /* BUFFER: distance from the buffer's base, <=
                                 GC_SCEN_MAX_ADDRESS_DISTANCE */
    int address_before;       /* BUFFER: 1 = address_offset bytes before the base (>= 1) */
    enum gc_scen_host_memory address_host; /* HOST */
};

/* What a fault_injection entry does (exactly one per entry). */
enum gc_scen_fault_action {
    GC_SCEN_FAULT_ERRNO = 0,      /* the op fails with err */
    GC_SCEN_FAULT_EXIT = 1,       /* the process _exit(exit_status)s while serving the op */
    GC_SCEN_FAULT_DELAY = 2,      /* every call of the op is answered delay_ms late */
    GC_SCEN_FAULT_READ_DELAY = 3, /* read_memory: delay_us_per_mib */
    GC_SCEN_FAULT_READ_EIO = 4,   /* read_memory: buffer range [offset, offset+size) unreadable */
};

struct gc_scen_fault {
    char op[32];        /* as written: "suspend", "read_memory", ... */
    int driver_op;      /* what it names: a KFD_IOC_DBG_TRAP_* operation, GC_SIM_OP_GET_VERSION,
                           or -1 for read_memory (the target's memory, not the driver) */
    enum gc_scen_fault_action action;
    int err;      /* errno value (ERRNO, READ_EIO) */
    uint32_t nth; /* 1-based: the nth call fails (ERRNO, EXIT); 0 = every call */
    int exit_status;
    uint32_t delay_ms;
    uint32_t delay_us_per_mib;
    uint32_t buffer;       /* READ_EIO: buffer index */
    uint64_t offset, size; /* READ_EIO: page-aligned range of the buffer */
};

/* What the runtime does when it learns of a queue or device error (README "on_queue_error"). */
enum gc_scen_on_error {
    GC_SCEN_ON_ERROR_CONTINUE = 0,
    GC_SCEN_ON_ERROR_ABORT = 1,
    GC_SCEN_ON_ERROR_EXIT = 2,
};

struct gc_scenario {
    char *path; /* for messages */
    char *name;
    uint32_t r_version;
    uint32_t ttmp_setup;
    struct gc_scen_agent *agents;
    uint32_t nagents;
    struct gc_scen_queue *queues;
    uint32_t nqueues;
    struct gc_scen_dispatch *dispatches;
    uint32_t ndispatches;
    struct gc_scen_waves *waves;
    uint32_t nwaves;     /* entries */
    uint32_t total_waves;
    struct gc_scen_buffer *buffers;
    uint32_t nbuffers;
    struct gc_scen_code_object *code_objects;
    uint32_t ncode_objects;
    struct gc_scen_exception *exceptions;
    uint32_t nexceptions;
    struct gc_scen_fault *faults;
    uint32_t nfaults;
    uint32_t host_threads;
    int host_threads_block; /* 1: blocked in gc_inferior_blocked_thread, 0: spinning */
    enum gc_scen_on_error on_queue_error;
    uint32_t exit_status;   /* for GC_SCEN_ON_ERROR_EXIT */
    uint32_t kfd_minor;     /* GET_VERSION minor (13..18) */
    int no_hws;             /* every DBG_TRAP op fails EINVAL */
    /* "exception_clock": 0 "debugger" (at_ms counts from ENABLE; nothing is raised without a
       debugger), 1 "runtime" (at_ms counts from the inferior's start, debugger or not: the
       runtime learns of the error first, a debugger can only come later) */
    int runtime_clock;
    /* "secret": a recognizable marker for the privacy tests (README "secret"): buffers with
       pattern "secret" and kernargs of type "secret" hold it, and the inferior fills a heap
       buffer of secret_heap bytes with it. Only ever copied from here to where it goes. */
    int has_secret;
    uint8_t secret[16];
    uint32_t secret_heap;
};

/*
 * Parse a scenario from JSON text. @p path is used only in messages ("<path>: waves[3].pc: ...").
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (bad JSON or a field error; the diag says which),
 *         GPUCORE_E_LIMIT (a count or size beyond the caps), GPUCORE_E_NOMEM.
 *         On success free *ret with gc_scenario_free().
 */
gpucore_status_t gc_scenario_parse(const char *text, size_t len, const char *path,
                                   struct gc_scenario **ret, gpucore_diag_t *reterr_diag);

/* Read and parse a file (E_IO when it cannot be read). */
gpucore_status_t gc_scenario_load(const char *path, struct gc_scenario **ret,
                                  gpucore_diag_t *reterr_diag);

void gc_scenario_free(struct gc_scenario *s);

/*
 * Append the fault_injection entries of the JSON array @p text (the GPUCORE_SIM_FAULTS
 * environment variable) to @p s, with the scenario file's rules. Messages name @p source and the
 * element ("GPUCORE_SIM_FAULTS[1].errno: unknown value 'EXX'").
 * @retval GPUCORE_OK, GPUCORE_E_INVAL (bad JSON or entry), GPUCORE_E_LIMIT (more than
 *         GC_SCEN_MAX_FAULTS in all), GPUCORE_E_NOMEM. On failure @p s is unchanged.
 */
gpucore_status_t gc_scenario_add_faults(struct gc_scenario *s, const char *text,
                                        const char *source, gpucore_diag_t *reterr_diag);

/* Waves per workgroup of an entry (its own value, else from the dispatch's workgroup size). */
uint32_t gc_scen_waves_per_group(const struct gc_scenario *s, const struct gc_scen_waves *w);

#endif /* GC_SIM_SCENARIO_H */
