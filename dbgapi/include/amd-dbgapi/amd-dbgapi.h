/* SPDX-License-Identifier: MIT */
/*
 * amd-dbgapi/amd-dbgapi.h -- the amd-dbgapi 0.77 application binary interface, as implemented by
 * gpucore's libgpucore-dbgapi (installable as librocm-dbgapi.so.0).
 *
 * Written for gpucore from the published facts of the interface (function names, argument
 * order, enumerator values, structure layouts, callback order and symbol-version nodes) as
 * gathered in gpucore's specification "Serving the amd-dbgapi API on cores"
 * (docs/dbgapi-on-cores.md). A client compiled against AMD's amd-dbgapi 0.77 header
 * can use this library without recompiling, and a client compiled against this header can use
 * AMD's 0.77 library.
 *
 * gpucore serves the interface OFFLINE, over core files: a client opens a core by calling
 * amd_dbgapi_process_attach and answering the library's client_process_get_info callback with
 * AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE for the OS pid and with the AMDGPU core-state note for
 * CORE_STATE (see "Core dumps" below). Operations that would change a running process fail
 * cleanly with one of the statuses documented for them.
 *
 * A core is untrusted input, and the library never opens a file a core names: a code object's
 * URI (file:// or memory://) is handed to the client as it is (CODE_OBJECT_INFO_URI_NAME) for
 * the client to load, and the library reads no code-object bytes itself. So there is no
 * setting that allows such lookups (gpucore's `analyze --code-object-path DIR` is the only
 * opt-in, and it is the analyzer's).
 *
 * Conventions used throughout:
 *  - Every function returns an amd_dbgapi_status_t unless stated otherwise; the statuses each
 *    function can return are listed with it. A failure leaves output arguments unchanged unless
 *    the function says otherwise.
 *  - Entities are named by opaque one-field handles { uint64_t handle; }; 0 means "none"; a
 *    handle value is never reused within one library instance.
 *  - *_get_info(id, query, value_size, value): value_size must equal the size of the query's
 *    result type exactly, else AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY.
 *  - Memory returned to the client (lists, strings, blobs) is obtained with the client's
 *    allocate_memory callback and belongs to the client.
 *  - Enumerations have an underlying type of 32-bit int (the ABI requires it of clients).
 *  - The library is not thread safe: one client thread at a time; callbacks must not call back
 *    into the library.
 */

#ifndef AMD_DBGAPI_H
#define AMD_DBGAPI_H 1

/* ---------------------------------------------------------------------------------------------
 * Calling convention, symbol visibility, language glue
 * ------------------------------------------------------------------------------------------- */

/** Calling-convention hook; empty on every platform gpucore supports. */
#if !defined(AMD_DBGAPI_CALL)
#define AMD_DBGAPI_CALL
#endif

/** Attribute that exports a function from the shared library being built. */
#if !defined(AMD_DBGAPI_EXPORT_DECORATOR)
#if defined(_WIN32)
#define AMD_DBGAPI_EXPORT_DECORATOR __declspec(dllexport)
#elif defined(__GNUC__)
#define AMD_DBGAPI_EXPORT_DECORATOR __attribute__((visibility("default")))
#else
#define AMD_DBGAPI_EXPORT_DECORATOR
#endif
#endif

/** Attribute that imports a function from the shared library (clients). */
#if !defined(AMD_DBGAPI_IMPORT_DECORATOR)
#if defined(_WIN32)
#define AMD_DBGAPI_IMPORT_DECORATOR __declspec(dllimport)
#else
#define AMD_DBGAPI_IMPORT_DECORATOR
#endif
#endif

/** 1 when the library is linked statically (gpucore ships it as a shared library only). */
#if !defined(AMD_DBGAPI_STATIC_LIB)
#define AMD_DBGAPI_STATIC_LIB 0
#endif

/**
 * Decoration placed on every interface function. The library's own sources define
 * AMD_DBGAPI_EXPORTS before including this header so the functions get default visibility
 * (the library is compiled with -fvisibility=hidden); clients get the import form.
 */
#if !defined(AMD_DBGAPI)
#if AMD_DBGAPI_STATIC_LIB
#define AMD_DBGAPI AMD_DBGAPI_CALL
#elif defined(AMD_DBGAPI_EXPORTS)
#define AMD_DBGAPI AMD_DBGAPI_EXPORT_DECORATOR AMD_DBGAPI_CALL
#else
#define AMD_DBGAPI AMD_DBGAPI_IMPORT_DECORATOR AMD_DBGAPI_CALL
#endif
#endif

/** The language standard in use under C++ (MSVC reports the real one in _MSVC_LANG). */
#if defined(__cplusplus)
#if defined(_MSVC_LANG)
#define AMD_DBGAPI_CPLUSPLUS _MSVC_LANG
#else
#define AMD_DBGAPI_CPLUSPLUS __cplusplus
#endif
#endif

/**
 * A constant of handle type `type` holding `value`: a braced initialiser in C++11, a compound
 * literal in C99 and later, a plain initialiser list otherwise.
 */
#if defined(__cplusplus) && AMD_DBGAPI_CPLUSPLUS >= 201103L
#define AMD_DBGAPI_HANDLE_LITERAL(type, value) (type{value})
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define AMD_DBGAPI_HANDLE_LITERAL(type, value) ((type){value})
#else
#define AMD_DBGAPI_HANDLE_LITERAL(type, value) {value}
#endif

/** Marks an enumerator kept only for source compatibility (C++17 and later warn on use;
 *  attributes on enumerators are not standard before C++17). */
#if defined(__cplusplus) && AMD_DBGAPI_CPLUSPLUS >= 201703L
#define AMD_DBGAPI_DEPRECATED [[deprecated]]
#else
#define AMD_DBGAPI_DEPRECATED
#endif

#if defined(__linux__)
#include <sys/types.h>
#endif
#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Symbol versions
 *
 * Each function below is tagged with the AMD_DBGAPI_VERSION_0_xx macro naming the ELF symbol
 * version node that exports it ("AMD_DBGAPI_0.xx"; AMD's library is built with the node prefix
 * AMD_DBGAPI and so is ours). A node inherits every older node. The tags expand to nothing; they
 * document which string to pass to dlvsym(). The nodes of 0.77 are exactly those below; the
 * authoritative function-to-node table is dbgapi/abi_table.def.
 * ------------------------------------------------------------------------------------------- */

/** Node "AMD_DBGAPI_0.54": the oldest node still exported. */
#define AMD_DBGAPI_VERSION_0_54
/** Node "AMD_DBGAPI_0.56". */
#define AMD_DBGAPI_VERSION_0_56
/** Node "AMD_DBGAPI_0.58". */
#define AMD_DBGAPI_VERSION_0_58
/** Node "AMD_DBGAPI_0.62". */
#define AMD_DBGAPI_VERSION_0_62
/** Node "AMD_DBGAPI_0.64". */
#define AMD_DBGAPI_VERSION_0_64
/** Node "AMD_DBGAPI_0.67". */
#define AMD_DBGAPI_VERSION_0_67
/** Node "AMD_DBGAPI_0.68". */
#define AMD_DBGAPI_VERSION_0_68
/** Node "AMD_DBGAPI_0.70". */
#define AMD_DBGAPI_VERSION_0_70
/** Node "AMD_DBGAPI_0.76". */
#define AMD_DBGAPI_VERSION_0_76
/** Node "AMD_DBGAPI_0.77": the newest node of this interface version. */
#define AMD_DBGAPI_VERSION_0_77

/** Forward declaration of the client-services table (see the callbacks section). */
typedef struct amd_dbgapi_callbacks_s amd_dbgapi_callbacks_t;

/* ---------------------------------------------------------------------------------------------
 * Basic types
 * ------------------------------------------------------------------------------------------- */

/** An address in the inferior's global (virtual) address space. */
typedef uint64_t amd_dbgapi_global_address_t;

/** A size in the inferior, e.g. of a memory range or an allocation. */
typedef uint64_t amd_dbgapi_size_t;

/** Whether a list changed since the previous call returning it. */
typedef enum
{
  /** Unchanged. */
  AMD_DBGAPI_CHANGED_NO = 0,
  /** Changed (or first call). */
  AMD_DBGAPI_CHANGED_YES = 1
} amd_dbgapi_changed_t;

#if defined(__linux__)
/** The operating system's id of a process (a Linux pid). */
typedef pid_t amd_dbgapi_os_process_id_t;

/**
 * What the client waits on for "events may be pending" (Linux: a file descriptor that becomes
 * readable; spurious wake-ups are possible). On a core it never becomes readable after the
 * attach-time events have been queued.
 */
typedef int amd_dbgapi_notifier_t;
#elif defined(_WIN32)
typedef void *amd_dbgapi_HANDLE;
typedef unsigned long amd_dbgapi_DWORD;
typedef amd_dbgapi_DWORD amd_dbgapi_os_process_id_t;
typedef amd_dbgapi_HANDLE amd_dbgapi_notifier_t;
#endif

/** The GPU driver's id of an agent (KFD gpu_id). */
typedef uint64_t amd_dbgapi_os_agent_id_t;

/** The GPU driver's id of a queue (KFD queue_id). */
typedef uint64_t amd_dbgapi_os_queue_id_t;

/** A packet position in a queue; its meaning depends on the queue type (AQL: dispatch id). */
typedef uint64_t amd_dbgapi_os_queue_packet_id_t;

/** The packet protocol a queue speaks. */
typedef enum
{
  /** Not known. */
  AMD_DBGAPI_OS_QUEUE_TYPE_UNKNOWN = 0,
  /** HSA Architected Queuing Language packets. */
  AMD_DBGAPI_OS_QUEUE_TYPE_HSA_AQL = 1,
  /** AMD PM4 command packets. */
  AMD_DBGAPI_OS_QUEUE_TYPE_AMD_PM4 = 257,
  /** AMD SDMA packets. */
  AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA = 513,
  /** AMD SDMA packets over XGMI. */
  AMD_DBGAPI_OS_QUEUE_TYPE_AMD_SDMA_XGMI = 514
} amd_dbgapi_os_queue_type_t;

/* ---------------------------------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------------------------------- */

/** Result of an operation: 0 success, negative values errors. */
typedef enum
{
  /** The operation succeeded. */
  AMD_DBGAPI_STATUS_SUCCESS = 0,
  /** An unspecified error. */
  AMD_DBGAPI_STATUS_ERROR = -1,
  /**
   * An unrecoverable error. AMD's documentation says the library is then uninitialised and
   * every handle invalid; clients must re-initialise. gpucore never returns it for a bad core.
   */
  AMD_DBGAPI_STATUS_FATAL = -2,
  /** The operation is not implemented (any function may return it). */
  AMD_DBGAPI_STATUS_ERROR_NOT_IMPLEMENTED = -3,
  /** The information asked for does not exist (e.g. the OS pid of a core). */
  AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE = -4,
  /** The operation is not supported (e.g. changing a core). */
  AMD_DBGAPI_STATUS_ERROR_NOT_SUPPORTED = -5,
  /** An argument is invalid. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT = -6,
  /** The arguments are individually valid but do not fit together (e.g. value_size). */
  AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY = -7,
  /** amd_dbgapi_initialize was called twice. */
  AMD_DBGAPI_STATUS_ERROR_ALREADY_INITIALIZED = -8,
  /** The library has not been initialised. */
  AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED = -9,
  /**
   * A restriction prevents the operation: unsupported driver or driver version, too many
   * debuggers, a vfork child sharing an attached address space, or a core dump that would be
   * unreliable.
   */
  AMD_DBGAPI_STATUS_ERROR_RESTRICTION = -10,
  /** The client process is already attached. */
  AMD_DBGAPI_STATUS_ERROR_ALREADY_ATTACHED = -11,
  /** Invalid architecture handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID = -12,
  /** The bytes are not a legal instruction. */
  AMD_DBGAPI_STATUS_ERROR_ILLEGAL_INSTRUCTION = -13,
  /** Invalid code object handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_CODE_OBJECT_ID = -14,
  /** Unknown or unsupported EF_AMDGPU_MACH value. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_ELF_AMDGPU_MACHINE = -15,
  /** Invalid process handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_PROCESS_ID = -16,
  /** The OS process behind a client process has exited. */
  AMD_DBGAPI_STATUS_ERROR_PROCESS_EXITED = -17,
  /** Invalid agent handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_AGENT_ID = -18,
  /** Invalid queue handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_QUEUE_ID = -19,
  /** Invalid dispatch handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_DISPATCH_ID = -20,
  /** Invalid wave handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID = -21,
  /** The wave is not stopped (or its stop event has not been fetched yet). */
  AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED = -22,
  /** The wave is already stopped. */
  AMD_DBGAPI_STATUS_ERROR_WAVE_STOPPED = -23,
  /** A stop request for the wave is still outstanding. */
  AMD_DBGAPI_STATUS_ERROR_WAVE_OUTSTANDING_STOP = -24,
  /** The wave cannot be resumed. */
  AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_RESUMABLE = -25,
  /** Invalid displaced-stepping handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_DISPLACED_STEPPING_ID = -26,
  /** No displaced-stepping buffer fits the wave. */
  AMD_DBGAPI_STATUS_ERROR_DISPLACED_STEPPING_BUFFER_NOT_AVAILABLE = -27,
  /** The wave already uses a displaced-stepping buffer. */
  AMD_DBGAPI_STATUS_ERROR_DISPLACED_STEPPING_ACTIVE = -28,
  /** Displaced stepping forbids resuming the wave in the requested way. */
  AMD_DBGAPI_STATUS_ERROR_RESUME_DISPLACED_STEPPING = -29,
  /** Invalid watchpoint handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_WATCHPOINT_ID = -30,
  /** Every watchpoint is in use. */
  AMD_DBGAPI_STATUS_ERROR_NO_WATCHPOINT_AVAILABLE = -31,
  /** Invalid register class handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_CLASS_ID = -32,
  /** Invalid register handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_ID = -33,
  /** Invalid lane. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_LANE_ID = -34,
  /** Invalid address class handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_CLASS_ID = -35,
  /** Invalid address space handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID = -36,
  /** Inferior memory could not be accessed (on a core: not captured, or a write). */
  AMD_DBGAPI_STATUS_ERROR_MEMORY_ACCESS = -37,
  /** The segment address has no equivalent in the requested address space. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_CONVERSION = -38,
  /** Invalid event handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_EVENT_ID = -39,
  /** Invalid breakpoint handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_BREAKPOINT_ID = -40,
  /** A client callback reported an error (or allocate_memory returned NULL). */
  AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK = -41,
  /** Invalid client process handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_CLIENT_PROCESS_ID = -42,
  /** A symbolizer callback found no symbol for an address. */
  AMD_DBGAPI_STATUS_ERROR_SYMBOL_NOT_FOUND = -43,
  /** The register exists in the architecture but is not allocated to this wave. */
  AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE = -44,
  /** Invalid workgroup handle. */
  AMD_DBGAPI_STATUS_ERROR_INVALID_WORKGROUP_ID = -45,
  /** The process is not in the state the operation needs (e.g. freeze preconditions). */
  AMD_DBGAPI_STATUS_ERROR_INCOMPATIBLE_PROCESS_STATE = -46,
  /** The operation is not allowed on a frozen process. */
  AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN = -47,
  /** The process is already frozen. */
  AMD_DBGAPI_STATUS_ERROR_PROCESS_ALREADY_FROZEN = -48,
  /** The operation needs a frozen process. */
  AMD_DBGAPI_STATUS_ERROR_PROCESS_NOT_FROZEN = -49
} amd_dbgapi_status_t;

/**
 * Get a constant, NUL-terminated English description of `status`. Usable before
 * initialisation.
 *
 * Returns: SUCCESS (*status_string set; the string belongs to the library);
 * ERROR_INVALID_ARGUMENT (unknown status or status_string NULL).
 */
amd_dbgapi_status_t AMD_DBGAPI
amd_dbgapi_get_status_string(amd_dbgapi_status_t status,
                             const char **status_string) AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Versioning
 *
 * The interface follows semantic versioning: a client built against MAJOR.MINOR works with an
 * installed library of the same MAJOR and a MINOR at least as large.
 * ------------------------------------------------------------------------------------------- */

/** Interface major version. */
#define AMD_DBGAPI_VERSION_MAJOR 0
/** Interface minor version. */
#define AMD_DBGAPI_VERSION_MINOR 77
/** Interface patch version. */
#define AMD_DBGAPI_VERSION_PATCH 0

/**
 * Report the version of the installed library; each pointer may be NULL. Usable before
 * initialisation. No status.
 */
void AMD_DBGAPI amd_dbgapi_get_version(uint32_t *major, uint32_t *minor,
                                       uint32_t *patch) AMD_DBGAPI_VERSION_0_54;

/**
 * A constant string naming the library build (gpucore reports its own name and version).
 * Usable before initialisation.
 */
const char AMD_DBGAPI *amd_dbgapi_get_build_name(void) AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Initialisation and finalisation
 *
 * The library starts uninitialised with logging at AMD_DBGAPI_LOG_LEVEL_NONE. Only the status,
 * version and logging functions work before amd_dbgapi_initialize.
 * ------------------------------------------------------------------------------------------- */

/**
 * Initialise the library with the client's service table (copied by pointer: it must stay valid
 * until amd_dbgapi_finalize). The logging level is unchanged.
 *
 * Returns: SUCCESS; FATAL; ERROR_ALREADY_INITIALIZED (callbacks unchanged);
 * ERROR_INVALID_ARGUMENT (callbacks NULL or a member NULL); ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI
amd_dbgapi_initialize(amd_dbgapi_callbacks_t *callbacks) AMD_DBGAPI_VERSION_0_76;

/**
 * Detach every process and invalidate every handle; the library becomes uninitialised and may
 * be initialised again. The logging level is unchanged.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_finalize(void) AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Architectures
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a GPU architecture known to the library. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_architecture_id_t;

/** The null architecture handle. */
#define AMD_DBGAPI_ARCHITECTURE_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_architecture_id_t, 0)

/** Queries of amd_dbgapi_architecture_get_info; the comment gives the result type. */
typedef enum
{
  /** char *, e.g. "gfx90a" (client-owned). */
  AMD_DBGAPI_ARCHITECTURE_INFO_NAME = 1,
  /** uint32_t: the ELF EF_AMDGPU_MACH value. */
  AMD_DBGAPI_ARCHITECTURE_INFO_ELF_AMDGPU_MACHINE = 2,
  /** amd_dbgapi_size_t: size of the longest instruction. */
  AMD_DBGAPI_ARCHITECTURE_INFO_LARGEST_INSTRUCTION_SIZE = 3,
  /** amd_dbgapi_size_t: instruction alignment (a power of two). */
  AMD_DBGAPI_ARCHITECTURE_INFO_MINIMUM_INSTRUCTION_ALIGNMENT = 4,
  /** amd_dbgapi_size_t: size of the breakpoint instruction. */
  AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_SIZE = 5,
  /** void *: the breakpoint instruction bytes (client-owned). */
  AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION = 6,
  /** amd_dbgapi_size_t: bytes to subtract from a PC stopped at a breakpoint. */
  AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_PC_ADJUST = 7,
  /** amd_dbgapi_register_id_t: the program counter register. */
  AMD_DBGAPI_ARCHITECTURE_INFO_PC_REGISTER = 8
} amd_dbgapi_architecture_info_t;

/**
 * Query an architecture.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT (value NULL or unknown query); ERROR_INVALID_ARGUMENT_COMPATIBILITY
 * (value_size wrong); ERROR_CLIENT_CALLBACK (allocation failed).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_get_info(
    amd_dbgapi_architecture_id_t architecture_id, amd_dbgapi_architecture_info_t query,
    size_t value_size, void *value) AMD_DBGAPI_VERSION_0_54;

/**
 * Find the architecture of an ELF EF_AMDGPU_MACH value.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ELF_AMDGPU_MACHINE (unknown or
 * unsupported value); ERROR_INVALID_ARGUMENT (architecture_id NULL).
 */
amd_dbgapi_status_t AMD_DBGAPI
amd_dbgapi_get_architecture(uint32_t elf_amdgpu_machine,
                            amd_dbgapi_architecture_id_t *architecture_id) AMD_DBGAPI_VERSION_0_54;

/** Opaque client pointer handed back to a disassembly symbolizer callback. */
typedef struct amd_dbgapi_symbolizer_id_s *amd_dbgapi_symbolizer_id_t;

/**
 * Disassemble the instruction at `address` whose bytes are memory[0 .. *size). On success *size
 * becomes the instruction's length and, if instruction_text is not NULL, *instruction_text a
 * client-owned string. For each operand that is an address, `symbolizer` (if not NULL) is
 * called with symbolizer_id; it either stores a non-empty string allocated compatibly with
 * deallocate_memory (freed by the library before returning) and returns SUCCESS, or returns
 * ERROR_SYMBOL_NOT_FOUND.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT (size or memory NULL, *size 0, address misaligned); ERROR (decoding
 * failed, or a symbolizer returned an empty/NULL string with SUCCESS);
 * ERROR_ILLEGAL_INSTRUCTION; ERROR_CLIENT_CALLBACK (allocation failed or a symbolizer returned
 * another error).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_disassemble_instruction(
    amd_dbgapi_architecture_id_t architecture_id, amd_dbgapi_global_address_t address,
    amd_dbgapi_size_t *size, const void *memory, char **instruction_text,
    amd_dbgapi_symbolizer_id_t symbolizer_id,
    amd_dbgapi_status_t (*symbolizer)(amd_dbgapi_symbolizer_id_t symbolizer_id,
                                      amd_dbgapi_global_address_t address,
                                      char **symbol_text)) AMD_DBGAPI_VERSION_0_54;

/** Control-flow class of an instruction; the comment gives the type of its information. */
typedef enum
{
  /** Not known; no information. */
  AMD_DBGAPI_INSTRUCTION_KIND_UNKNOWN = 0,
  /** Falls through to the next instruction; no information. */
  AMD_DBGAPI_INSTRUCTION_KIND_SEQUENTIAL = 1,
  /** Unconditional jump to a constant target; amd_dbgapi_global_address_t target. */
  AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_BRANCH = 2,
  /** Conditional jump to a constant target; amd_dbgapi_global_address_t target if taken. */
  AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_BRANCH_CONDITIONAL = 3,
  /** Jump to the address in a register pair; amd_dbgapi_register_id_t[2] (low, high). */
  AMD_DBGAPI_INSTRUCTION_KIND_INDIRECT_BRANCH_REGISTER_PAIR = 4,
  /** Conditional jump to a register pair; amd_dbgapi_register_id_t[2] (low, high). */
  AMD_DBGAPI_INSTRUCTION_KIND_INDIRECT_BRANCH_CONDITIONAL_REGISTER_PAIR = 5,
  /** Call to a constant target saving the return address in a register pair;
   *  amd_dbgapi_direct_call_register_pair_information_t. */
  AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_CALL_REGISTER_PAIR = 6,
  /** Call through a register pair saving the return address in another pair;
   *  amd_dbgapi_register_id_t[4]: source low, source high, destination low, destination high. */
  AMD_DBGAPI_INSTRUCTION_KIND_INDIRECT_CALL_REGISTER_PAIRS = 7,
  /** Ends the wave; no information. */
  AMD_DBGAPI_INSTRUCTION_KIND_TERMINATE = 8,
  /** Enters the trap handler; uint64_t trap code. Single-stepping it stops after it. */
  AMD_DBGAPI_INSTRUCTION_KIND_TRAP = 9,
  /** Halts the wave; no information. */
  AMD_DBGAPI_INSTRUCTION_KIND_HALT = 10,
  /** A barrier, wave synchronisation or semaphore that may wait for other waves. */
  AMD_DBGAPI_INSTRUCTION_KIND_BARRIER = 11,
  /** Sleeps for a while, then continues; no information. */
  AMD_DBGAPI_INSTRUCTION_KIND_SLEEP = 12,
  /** Other special behaviour; not safe to treat as sequential; no information. */
  AMD_DBGAPI_INSTRUCTION_KIND_SPECIAL = 13
} amd_dbgapi_instruction_kind_t;

/** Bit set of instruction properties (none are defined). */
typedef enum
{
  /** No property. */
  AMD_DBGAPI_INSTRUCTION_PROPERTY_NONE = 0
} amd_dbgapi_instruction_properties_t;

/**
 * Classify the instruction at `address` (bytes memory[0 .. *size)): sets *size to its length,
 * *instruction_kind, and, when the pointers are not NULL, *instruction_properties and
 * *instruction_information (client-owned, NULL when the kind carries none).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT (size, memory or instruction_kind NULL, *size 0, address misaligned);
 * ERROR (decoding failed); ERROR_ILLEGAL_INSTRUCTION; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_classify_instruction(
    amd_dbgapi_architecture_id_t architecture_id, amd_dbgapi_global_address_t address,
    amd_dbgapi_size_t *size, const void *memory, amd_dbgapi_instruction_kind_t *instruction_kind,
    amd_dbgapi_instruction_properties_t *instruction_properties,
    void **instruction_information) AMD_DBGAPI_VERSION_0_58;

/* ---------------------------------------------------------------------------------------------
 * Processes
 * ------------------------------------------------------------------------------------------- */

/** Opaque client pointer identifying a process in callbacks; unique per process. */
typedef struct amd_dbgapi_client_process_s *amd_dbgapi_client_process_id_t;

/** Opaque handle of an attached process. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_process_id_t;

/** The null process handle (for list functions: "all processes"). */
#define AMD_DBGAPI_PROCESS_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_process_id_t, 0)

/** Byte order of a core-state blob. */
typedef enum
{
  /** Big endian. */
  AMD_DBGAPI_ENDIAN_BIG = 0,
  /** Little endian. */
  AMD_DBGAPI_ENDIAN_LITTLE = 1
} amd_dbgapi_endianness_t;

/**
 * The AMDGPU core-state note of a core, as handed to the library by the client's
 * client_process_get_info(AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE) callback, and as returned
 * by amd_dbgapi_process_get_info(AMD_DBGAPI_PROCESS_INFO_CORE_STATE).
 *
 * LP64 layout: endianness at 0 (4 bytes + 4 padding), size at 8, data at 16; 24 bytes.
 * `data` points at the note's descriptor bytes (not the ELF note header) and `size` is the
 * descriptor size. When the client hands the blob over, the library frees `data` with the
 * client's deallocate_memory callback once it has parsed it, so it must come from a compatible
 * allocator. The note format is LLVM AMDGPUUsage "Core file notes" (gpucore: docs/core-format.md).
 */
typedef struct
{
  /** Byte order of the blob. */
  amd_dbgapi_endianness_t endianness;
  /** Number of bytes at `data`. */
  size_t size;
  /** The blob. */
  const void *data;
} amd_dbgapi_core_state_data_t;

/** Queries of amd_dbgapi_process_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_notifier_t: what to wait on for pending events. */
  AMD_DBGAPI_PROCESS_INFO_NOTIFIER = 1,
  /** size_t: number of data watchpoints (0: none). */
  AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_COUNT = 2,
  /** uint32_t, an amd_dbgapi_watchpoint_share_kind_t. */
  AMD_DBGAPI_PROCESS_INFO_WATCHPOINT_SHARE = 3,
  /** uint32_t, an amd_dbgapi_memory_precision_t: whether every agent supports precise memory. */
  AMD_DBGAPI_PROCESS_INFO_PRECISE_MEMORY_SUPPORTED = 4,
  /** uint32_t, an amd_dbgapi_alu_exceptions_precision_t (new in 0.77, moving the next two). */
  AMD_DBGAPI_PROCESS_INFO_PRECISE_ALU_EXCEPTIONS_SUPPORTED = 5,
  /** amd_dbgapi_os_process_id_t. ERROR_NOT_AVAILABLE for a core or an already-exited process.
   *  (Value 5 before 0.77.) */
  AMD_DBGAPI_PROCESS_INFO_OS_ID = 6,
  /** amd_dbgapi_core_state_data_t whose data the client owns: the note to store in a core
   *  dump. Needs a frozen live process; ERROR_NOT_AVAILABLE on a core. (Value 6 before 0.77.) */
  AMD_DBGAPI_PROCESS_INFO_CORE_STATE = 7
} amd_dbgapi_process_info_t;

/**
 * Query a process.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT (value NULL or unknown query); ERROR_INVALID_ARGUMENT_COMPATIBILITY;
 * ERROR_NOT_AVAILABLE (see the queries); ERROR_CLIENT_CALLBACK; ERROR_PROCESS_NOT_FROZEN
 * (CORE_STATE of a live process that is not frozen); ERROR_RESTRICTION (CORE_STATE when the
 * process configuration cannot give a reliable dump).
 *
 * Exported in node 0.77 because 0.77 renumbered OS_ID and CORE_STATE.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_get_info(amd_dbgapi_process_id_t process_id,
                                                           amd_dbgapi_process_info_t query,
                                                           size_t value_size,
                                                           void *value) AMD_DBGAPI_VERSION_0_77;

/**
 * Attach to the process the client names `client_process_id`. Progress starts NORMAL and every
 * agent starts with memory and ALU-exception precision NONE.
 *
 * The library first asks client_process_get_info for AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID. A
 * live process answers SUCCESS. A core answers ERROR_NOT_AVAILABLE; the library then asks for
 * AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE and rebuilds the GPU state from the note (if that
 * query fails or the note is invalid the attach still succeeds, with no agents). After
 * attaching to a core the client must drain amd_dbgapi_process_next_pending_event: a RUNTIME
 * event, then one WAVE_STOP event per wave; a wave reads as running until its event is fetched.
 * If the OS process has already exited, the attach succeeds and every list is empty.
 *
 * This library serves cores only: a live process (OS_PID answered SUCCESS) is refused with
 * ERROR_RESTRICTION and a warning saying so. Of a core it refuses a note whose KFD version is
 * outside 1.13 <= v < 2.0 (ERROR_RESTRICTION, as AMD's); a runtime state other than enabled
 * gives a RUNTIME event LOADED_ERROR_RESTRICTION (disabled: no event) and no agents; an ROCr
 * r_debug version outside 8..12 (AMD's 0.77: 8..10) gives LOADED_ERROR_RESTRICTION with the
 * agents only. Whatever it finds missing from the core is logged as a warning.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_ALREADY_ATTACHED; ERROR_RESTRICTION
 * (see above and the status); ERROR_INVALID_ARGUMENT (client_process_id or process_id NULL);
 * ERROR (other failure).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_attach(
    amd_dbgapi_client_process_id_t client_process_id,
    amd_dbgapi_process_id_t *process_id) AMD_DBGAPI_VERSION_0_56;

/**
 * Detach from a process: its handle and every handle of its entities become invalid, pending
 * events are discarded; on a live process waves are resumed, watchpoints removed, precision and
 * wave creation restored and a frozen process unfrozen. On a core nothing is written anywhere.
 * Breakpoints inserted by the client are the client's to remove first.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID.
 */
amd_dbgapi_status_t AMD_DBGAPI
amd_dbgapi_process_detach(amd_dbgapi_process_id_t process_id) AMD_DBGAPI_VERSION_0_54;

/** How much forward progress waves must make between library operations. */
typedef enum
{
  /** After each operation every wave that is not stopped runs again. */
  AMD_DBGAPI_PROGRESS_NORMAL = 0,
  /** Waves may stay paused between operations (faster batches of commands). */
  AMD_DBGAPI_PROGRESS_NO_FORWARD = 1
} amd_dbgapi_progress_t;

/**
 * Set the progress mode of one process, or of every attached process with
 * AMD_DBGAPI_PROCESS_NONE. On a core the mode is recorded and changes nothing: no wave runs
 * in either mode.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT (unknown progress); ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_set_progress(
    amd_dbgapi_process_id_t process_id, amd_dbgapi_progress_t progress) AMD_DBGAPI_VERSION_0_76;

/** Whether the hardware may create new waves for the process's dispatches. */
typedef enum
{
  /** New waves are created normally. */
  AMD_DBGAPI_WAVE_CREATION_NORMAL = 0,
  /** No new waves are created. */
  AMD_DBGAPI_WAVE_CREATION_STOP = 1
} amd_dbgapi_wave_creation_t;

/**
 * Set the wave-creation mode of every agent of a process. On a core the mode stays NORMAL,
 * the mode it was captured in: NORMAL succeeds, STOP answers ERROR_PROCESS_FROZEN.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT (unknown mode); ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_set_wave_creation(
    amd_dbgapi_process_id_t process_id,
    amd_dbgapi_wave_creation_t creation) AMD_DBGAPI_VERSION_0_76;

/* ---------------------------------------------------------------------------------------------
 * Core dumps (group "coredump_support")
 *
 * Producing a core of a live process:
 *   1. stop every host thread;
 *   2. set progress NO_FORWARD and wave creation STOP;
 *   3. amd_dbgapi_process_freeze;
 *   4. query AMD_DBGAPI_PROCESS_INFO_CORE_STATE and store the blob as an ELF note, owner
 *      "AMDGPU", type 33 (NT_AMDGPU_KFD_CORE_STATE);
 *   5. dump the host process including the GPU memory mappings;
 *   6. amd_dbgapi_process_unfreeze;
 *   7. optionally restore NORMAL progress and resume the threads.
 * Opening a core: see amd_dbgapi_process_attach and amd_dbgapi_core_state_data_t.
 * ------------------------------------------------------------------------------------------- */

/**
 * Freeze a live process: every queue suspended, every wave saved where another library
 * instance can find it, cached register and memory writes flushed. Needs progress NO_FORWARD
 * and wave creation STOP; displaced stepping should be finished and host threads stopped.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INCOMPATIBLE_PROCESS_STATE (progress or wave creation wrong; always the case on a
 * core); ERROR_PROCESS_ALREADY_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI
amd_dbgapi_process_freeze(amd_dbgapi_process_id_t process_id) AMD_DBGAPI_VERSION_0_76;

/**
 * Unfreeze a frozen process (writes may again be cached).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_PROCESS_NOT_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI
amd_dbgapi_process_unfreeze(amd_dbgapi_process_id_t process_id) AMD_DBGAPI_VERSION_0_76;

/* ---------------------------------------------------------------------------------------------
 * Code objects
 *
 * GPU code objects are ELF shared objects loaded by the GPU runtime, found through the
 * runtime's r_debug link map. The library never opens them: the client reads the bytes named
 * by the URI.
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a loaded code object. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_code_object_id_t;

/** The null code object handle. */
#define AMD_DBGAPI_CODE_OBJECT_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_code_object_id_t, 0)

/** Queries of amd_dbgapi_code_object_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_CODE_OBJECT_INFO_PROCESS = 1,
  /**
   * char * (client-owned): where the ELF came from, either
   * "file://" URI-encoded-path [ ("#"|"?") "offset=" N "&size=" N ] or
   * "memory://" pid ("#"|"?") "offset=" N "&size=" N, with N a C decimal, hex (0x) or octal (0)
   * literal; in a path every character outside [a-zA-Z0-9/_.~-] is written %XX.
   */
  AMD_DBGAPI_CODE_OBJECT_INFO_URI_NAME = 2,
  /** ptrdiff_t: load address minus the ELF's own addresses. */
  AMD_DBGAPI_CODE_OBJECT_INFO_LOAD_ADDRESS = 3
} amd_dbgapi_code_object_info_t;

/**
 * Query a code object.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_CODE_OBJECT_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_code_object_get_info(
    amd_dbgapi_code_object_id_t code_object_id, amd_dbgapi_code_object_info_t query,
    size_t value_size, void *value) AMD_DBGAPI_VERSION_0_54;

/**
 * List the loaded code objects of one process (or all, with AMD_DBGAPI_PROCESS_NONE), in no
 * particular order. The list functions below all behave alike: if `changed` is not NULL and
 * nothing changed since the previous call, *changed is CHANGED_NO and the array pointer is set
 * to NULL; otherwise *changed (if not NULL) is CHANGED_YES and the array is client-owned.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT (count or array pointer NULL, or *changed invalid);
 * ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_code_object_list(
    amd_dbgapi_process_id_t process_id, size_t *code_object_count,
    amd_dbgapi_code_object_id_t **code_objects,
    amd_dbgapi_changed_t *changed) AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Agents (GPU devices a process can use)
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of an agent. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_agent_id_t;

/** The null agent handle. */
#define AMD_DBGAPI_AGENT_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_agent_id_t, 0)

/** Queries of amd_dbgapi_agent_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_AGENT_INFO_PROCESS = 1,
  /** char * (client-owned): marketing name, from the PCI ID database (pci.ids) by
   *  vendor:device as AMD's 0.77 names agents; "Device vvvv:dddd" when it is not installed
   *  or does not know the device. */
  AMD_DBGAPI_AGENT_INFO_NAME = 2,
  /** amd_dbgapi_architecture_id_t; ERROR_NOT_AVAILABLE for an unsupported architecture. */
  AMD_DBGAPI_AGENT_INFO_ARCHITECTURE = 3,
  /** uint32_t, an amd_dbgapi_agent_state_t. */
  AMD_DBGAPI_AGENT_INFO_STATE = 4,
  /** uint16_t: PCI domain (0 on a core: the note does not record it). */
  AMD_DBGAPI_AGENT_INFO_PCI_DOMAIN = 5,
  /** uint16_t: PCI bus/device/function ("BDF") of the agent. */
  AMD_DBGAPI_AGENT_INFO_PCI_SLOT = 6,
  /** uint32_t: PCI vendor id. */
  AMD_DBGAPI_AGENT_INFO_PCI_VENDOR_ID = 7,
  /** uint32_t: PCI device id. */
  AMD_DBGAPI_AGENT_INFO_PCI_DEVICE_ID = 8,
  /** size_t: number of execution units (SIMDs). */
  AMD_DBGAPI_AGENT_INFO_EXECUTION_UNIT_COUNT = 9,
  /** size_t: maximum waves per execution unit. */
  AMD_DBGAPI_AGENT_INFO_MAX_WAVES_PER_EXECUTION_UNIT = 10,
  /** amd_dbgapi_os_agent_id_t. */
  AMD_DBGAPI_AGENT_INFO_OS_ID = 11
} amd_dbgapi_agent_info_t;

/** Whether an agent can be debugged. */
typedef enum
{
  /** Debugging is supported. */
  AMD_DBGAPI_AGENT_STATE_SUPPORTED = 1,
  /**
   * Not supported (unknown architecture, firmware or driver without debug support). Such an
   * agent has no queues, dispatches or waves, and process-wide capabilities are treated
   * conservatively (no precision control, no watchpoints).
   */
  AMD_DBGAPI_AGENT_STATE_NOT_SUPPORTED = 2
} amd_dbgapi_agent_state_t;

/**
 * Query an agent.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_AGENT_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_NOT_AVAILABLE (see the
 * queries); ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_agent_get_info(amd_dbgapi_agent_id_t agent_id,
                                                         amd_dbgapi_agent_info_t query,
                                                         size_t value_size,
                                                         void *value) AMD_DBGAPI_VERSION_0_67;

/**
 * List the agents of a process (or of all processes), including unsupported ones. Behaves as
 * amd_dbgapi_process_code_object_list.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_agent_list(
    amd_dbgapi_process_id_t process_id, size_t *agent_count, amd_dbgapi_agent_id_t **agents,
    amd_dbgapi_changed_t *changed) AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Queues (user-mode packet queues feeding an agent)
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a queue. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_queue_id_t;

/** The null queue handle. */
#define AMD_DBGAPI_QUEUE_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_queue_id_t, 0)

/** Queries of amd_dbgapi_queue_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_agent_id_t. */
  AMD_DBGAPI_QUEUE_INFO_AGENT = 1,
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_QUEUE_INFO_PROCESS = 2,
  /** amd_dbgapi_architecture_id_t. */
  AMD_DBGAPI_QUEUE_INFO_ARCHITECTURE = 3,
  /** uint32_t, an amd_dbgapi_os_queue_type_t. */
  AMD_DBGAPI_QUEUE_INFO_TYPE = 4,
  /** uint32_t, an amd_dbgapi_queue_state_t (not implemented by AMD's 0.77; this library
   *  answers ERROR when the note records a queue exception, else VALID). */
  AMD_DBGAPI_QUEUE_INFO_STATE = 5,
  /** uint32_t, an amd_dbgapi_exceptions_t bit set; EXCEPTION_NONE unless in error (not
   *  implemented by AMD's 0.77; this library answers the queue exceptions the note records). */
  AMD_DBGAPI_QUEUE_INFO_ERROR_REASON = 6,
  /** amd_dbgapi_global_address_t: base of the packet ring. */
  AMD_DBGAPI_QUEUE_INFO_ADDRESS = 7,
  /** amd_dbgapi_size_t: size of the packet ring in bytes. */
  AMD_DBGAPI_QUEUE_INFO_SIZE = 8,
  /** amd_dbgapi_os_queue_id_t. */
  AMD_DBGAPI_QUEUE_INFO_OS_ID = 9
} amd_dbgapi_queue_info_t;

/**
 * Query a queue.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_QUEUE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK;
 * ERROR_NOT_IMPLEMENTED (STATE and ERROR_REASON).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_queue_get_info(amd_dbgapi_queue_id_t queue_id,
                                                         amd_dbgapi_queue_info_t query,
                                                         size_t value_size,
                                                         void *value) AMD_DBGAPI_VERSION_0_68;

/** State of a queue. */
typedef enum
{
  /** Valid. */
  AMD_DBGAPI_QUEUE_STATE_VALID = 1,
  /** In the error state: no new waves start and existing waves execute no further. */
  AMD_DBGAPI_QUEUE_STATE_ERROR = 2
} amd_dbgapi_queue_state_t;

/** Bit set of the exceptions that can put a queue into the error state. */
typedef enum
{
  /** No exception: the queue is not in error. */
  AMD_DBGAPI_EXCEPTION_NONE = 0,
  /** A wave executed the abort trap. */
  AMD_DBGAPI_EXCEPTION_WAVE_ABORT = (1 << 0),
  /** A wave trapped (other trap, fatal halt, ECC error, unhandled watchpoint). */
  AMD_DBGAPI_EXCEPTION_WAVE_TRAP = (1 << 1),
  /** A wave raised an enabled floating-point or integer arithmetic exception. */
  AMD_DBGAPI_EXCEPTION_WAVE_MATH_ERROR = (1 << 2),
  /** A wave executed an illegal instruction. */
  AMD_DBGAPI_EXCEPTION_WAVE_ILLEGAL_INSTRUCTION = (1 << 3),
  /** A wave accessed an unmapped page or one without the needed permission. */
  AMD_DBGAPI_EXCEPTION_WAVE_MEMORY_VIOLATION = (1 << 4),
  /** A wave used an invalid address (misaligned atomic, outside an aperture). */
  AMD_DBGAPI_EXCEPTION_WAVE_ADDRESS_ERROR = (1 << 5),
  /** Former name of AMD_DBGAPI_EXCEPTION_WAVE_ADDRESS_ERROR. */
  AMD_DBGAPI_EXCEPTION_WAVE_APERTURE_VIOLATION AMD_DBGAPI_DEPRECATED =
      AMD_DBGAPI_EXCEPTION_WAVE_ADDRESS_ERROR,
  /** A dispatch packet has an invalid dimension. */
  AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_DIM_INVALID = (1 << 16),
  /** A dispatch packet has an invalid group segment size. */
  AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID = (1 << 17),
  /** A dispatch packet has a null code address. */
  AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_CODE_INVALID = (1 << 18),
  /** A packet has an unsupported type. */
  AMD_DBGAPI_EXCEPTION_PACKET_UNSUPPORTED = (1 << 20),
  /** A dispatch packet has an invalid workgroup size. */
  AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_WORKGROUP_SIZE_INVALID = (1 << 21),
  /** A dispatch needs more registers than available. */
  AMD_DBGAPI_EXCEPTION_PACKET_DISPATCH_REGISTER_COUNT_TOO_LARGE = (1 << 22),
  /** A vendor-specific packet has an unsupported vendor code. */
  AMD_DBGAPI_EXCEPTION_PACKET_VENDOR_UNSUPPORTED = (1 << 23),
  /** Preempting the queue failed (its waves may have been killed). */
  AMD_DBGAPI_EXCEPTION_QUEUE_PREEMPTION_ERROR = (int)(1u << 31)
} amd_dbgapi_exceptions_t;

/**
 * List the queues of a process (or all) whose agent supports debugging. Behaves as
 * amd_dbgapi_process_code_object_list.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_queue_list(
    amd_dbgapi_process_id_t process_id, size_t *queue_count, amd_dbgapi_queue_id_t **queues,
    amd_dbgapi_changed_t *changed) AMD_DBGAPI_VERSION_0_54;

/**
 * Snapshot the packets of a queue: the bytes of the packets in [*read_packet_id,
 * *write_packet_id) are returned in *packets_bytes (client-owned; skipped when packets_bytes is
 * NULL) and their count in *packets_byte_size. With no packets both ids name the next packet.
 * The client decodes the bytes according to the queue type.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_QUEUE_ID;
 * ERROR_INVALID_ARGUMENT (an id or size pointer NULL); ERROR_NOT_SUPPORTED (queue type);
 * ERROR (the queue could not be read, e.g. corrupt); ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_queue_packet_list(
    amd_dbgapi_queue_id_t queue_id, amd_dbgapi_os_queue_packet_id_t *read_packet_id,
    amd_dbgapi_os_queue_packet_id_t *write_packet_id, size_t *packets_byte_size,
    void **packets_bytes) AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Dispatches (kernel launches started by a queue's dispatch packets)
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a dispatch. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_dispatch_id_t;

/** The null dispatch handle. */
#define AMD_DBGAPI_DISPATCH_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_dispatch_id_t, 0)

/** Queries of amd_dbgapi_dispatch_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_queue_id_t. */
  AMD_DBGAPI_DISPATCH_INFO_QUEUE = 1,
  /** amd_dbgapi_agent_id_t. */
  AMD_DBGAPI_DISPATCH_INFO_AGENT = 2,
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_DISPATCH_INFO_PROCESS = 3,
  /** amd_dbgapi_architecture_id_t. */
  AMD_DBGAPI_DISPATCH_INFO_ARCHITECTURE = 4,
  /** amd_dbgapi_os_queue_packet_id_t of the dispatch packet. */
  AMD_DBGAPI_DISPATCH_INFO_OS_QUEUE_PACKET_ID = 5,
  /** uint32_t, an amd_dbgapi_dispatch_barrier_t. */
  AMD_DBGAPI_DISPATCH_INFO_BARRIER = 6,
  /** uint32_t, an amd_dbgapi_dispatch_fence_scope_t. */
  AMD_DBGAPI_DISPATCH_INFO_ACQUIRE_FENCE = 7,
  /** uint32_t, an amd_dbgapi_dispatch_fence_scope_t. */
  AMD_DBGAPI_DISPATCH_INFO_RELEASE_FENCE = 8,
  /** uint32_t: 1, 2 or 3. */
  AMD_DBGAPI_DISPATCH_INFO_GRID_DIMENSIONS = 9,
  /** uint16_t[3]: work-items per workgroup in X, Y, Z. */
  AMD_DBGAPI_DISPATCH_INFO_WORKGROUP_SIZES = 10,
  /** uint32_t[3]: work-items of the grid in X, Y, Z. */
  AMD_DBGAPI_DISPATCH_INFO_GRID_SIZES = 11,
  /** amd_dbgapi_size_t: private (scratch) bytes per work-item. */
  AMD_DBGAPI_DISPATCH_INFO_PRIVATE_SEGMENT_SIZE = 12,
  /** amd_dbgapi_size_t: group (LDS) bytes per workgroup. */
  AMD_DBGAPI_DISPATCH_INFO_GROUP_SEGMENT_SIZE = 13,
  /** amd_dbgapi_global_address_t: kernel argument block. */
  AMD_DBGAPI_DISPATCH_INFO_KERNEL_ARGUMENT_SEGMENT_ADDRESS = 14,
  /** amd_dbgapi_global_address_t: kernel descriptor. */
  AMD_DBGAPI_DISPATCH_INFO_KERNEL_DESCRIPTOR_ADDRESS = 15,
  /** amd_dbgapi_global_address_t: first instruction of the kernel. */
  AMD_DBGAPI_DISPATCH_INFO_KERNEL_CODE_ENTRY_ADDRESS = 16,
  /** amd_dbgapi_global_address_t: completion signal; ERROR_NOT_SUPPORTED if there is none. */
  AMD_DBGAPI_DISPATCH_INFO_KERNEL_COMPLETION_ADDRESS = 17
} amd_dbgapi_dispatch_info_t;

/**
 * Query a dispatch.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_DISPATCH_ID;
 * ERROR_NOT_SUPPORTED (query not applicable to this dispatch); ERROR_INVALID_ARGUMENT;
 * ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_dispatch_get_info(amd_dbgapi_dispatch_id_t dispatch_id,
                                                            amd_dbgapi_dispatch_info_t query,
                                                            size_t value_size,
                                                            void *value) AMD_DBGAPI_VERSION_0_54;

/** Whether a dispatch waits for the packets before it to complete. */
typedef enum
{
  /** No barrier. */
  AMD_DBGAPI_DISPATCH_BARRIER_NONE = 0,
  /** Barrier: starts only after every earlier packet completed. */
  AMD_DBGAPI_DISPATCH_BARRIER_PRESENT = 1
} amd_dbgapi_dispatch_barrier_t;

/** Memory scope of a dispatch's acquire or release fence. */
typedef enum
{
  /** No fence. */
  AMD_DBGAPI_DISPATCH_FENCE_SCOPE_NONE = 0,
  /** Agent scope. */
  AMD_DBGAPI_DISPATCH_FENCE_SCOPE_AGENT = 1,
  /** System scope. */
  AMD_DBGAPI_DISPATCH_FENCE_SCOPE_SYSTEM = 2
} amd_dbgapi_dispatch_fence_scope_t;

/**
 * List the dispatches of a process (or all). Behaves as amd_dbgapi_process_code_object_list.
 * As with AMD's library, the dispatches listed are those some wave belongs to.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_dispatch_list(
    amd_dbgapi_process_id_t process_id, size_t *dispatch_count,
    amd_dbgapi_dispatch_id_t **dispatches, amd_dbgapi_changed_t *changed) AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Workgroups
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a workgroup (the waves sharing one LDS allocation). */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_workgroup_id_t;

/** The null workgroup handle. */
#define AMD_DBGAPI_WORKGROUP_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_workgroup_id_t, 0)

/** Queries of amd_dbgapi_workgroup_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_dispatch_id_t; ERROR_NOT_AVAILABLE when the dispatch cannot be known. */
  AMD_DBGAPI_WORKGROUP_INFO_DISPATCH = 1,
  /** amd_dbgapi_queue_id_t. */
  AMD_DBGAPI_WORKGROUP_INFO_QUEUE = 2,
  /** amd_dbgapi_agent_id_t. */
  AMD_DBGAPI_WORKGROUP_INFO_AGENT = 3,
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_WORKGROUP_INFO_PROCESS = 4,
  /** amd_dbgapi_architecture_id_t. */
  AMD_DBGAPI_WORKGROUP_INFO_ARCHITECTURE = 5,
  /** uint32_t[3]: X, Y, Z position in the grid; ERROR_NOT_AVAILABLE as for DISPATCH. */
  AMD_DBGAPI_WORKGROUP_INFO_WORKGROUP_COORD = 6
} amd_dbgapi_workgroup_info_t;

/**
 * Query a workgroup.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WORKGROUP_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_NOT_AVAILABLE (see the
 * queries); ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_workgroup_get_info(
    amd_dbgapi_workgroup_id_t workgroup_id, amd_dbgapi_workgroup_info_t query, size_t value_size,
    void *value) AMD_DBGAPI_VERSION_0_64;

/**
 * List the workgroups of a process (or all). Behaves as amd_dbgapi_process_code_object_list.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_workgroup_list(
    amd_dbgapi_process_id_t process_id, size_t *workgroup_count,
    amd_dbgapi_workgroup_id_t **workgroups, amd_dbgapi_changed_t *changed) AMD_DBGAPI_VERSION_0_64;

/* ---------------------------------------------------------------------------------------------
 * Waves
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a wave (wavefront). */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_wave_id_t;

/** The null wave handle. */
#define AMD_DBGAPI_WAVE_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_wave_id_t, 0)

/** Queries of amd_dbgapi_wave_get_info; the comment gives the result type. "Stopped" queries
 *  fail with ERROR_WAVE_NOT_STOPPED until the wave's stop event has been fetched. */
typedef enum
{
  /** uint32_t, an amd_dbgapi_wave_state_t. */
  AMD_DBGAPI_WAVE_INFO_STATE = 1,
  /** uint32_t, an amd_dbgapi_wave_stop_reasons_t bit set (stopped only). */
  AMD_DBGAPI_WAVE_INFO_STOP_REASON = 2,
  /** amd_dbgapi_watchpoint_list_t of the triggered watchpoints; the array is client-owned
   *  (stopped only). */
  AMD_DBGAPI_WAVE_INFO_WATCHPOINTS = 3,
  /** amd_dbgapi_workgroup_id_t; ERROR_NOT_AVAILABLE when unknown. */
  AMD_DBGAPI_WAVE_INFO_WORKGROUP = 4,
  /** amd_dbgapi_dispatch_id_t; ERROR_NOT_AVAILABLE when unknown. */
  AMD_DBGAPI_WAVE_INFO_DISPATCH = 5,
  /** amd_dbgapi_queue_id_t. */
  AMD_DBGAPI_WAVE_INFO_QUEUE = 6,
  /** amd_dbgapi_agent_id_t. */
  AMD_DBGAPI_WAVE_INFO_AGENT = 7,
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_WAVE_INFO_PROCESS = 8,
  /** amd_dbgapi_architecture_id_t. */
  AMD_DBGAPI_WAVE_INFO_ARCHITECTURE = 9,
  /** amd_dbgapi_global_address_t: program counter (stopped only). */
  AMD_DBGAPI_WAVE_INFO_PC = 10,
  /** uint64_t: execution mask, bit n = lane n (stopped only). */
  AMD_DBGAPI_WAVE_INFO_EXEC_MASK = 11,
  /** uint32_t[3]: X, Y, Z of the wave's workgroup in the grid; ERROR_NOT_AVAILABLE when
   *  unknown. */
  AMD_DBGAPI_WAVE_INFO_WORKGROUP_COORD = 12,
  /** uint32_t: index of the wave in its workgroup (work-items map to lanes in flat order);
   *  ERROR_NOT_AVAILABLE when unknown. */
  AMD_DBGAPI_WAVE_INFO_WAVE_NUMBER_IN_WORKGROUP = 13,
  /** size_t: lanes in the wave (32 or 64). */
  AMD_DBGAPI_WAVE_INFO_LANE_COUNT = 14
} amd_dbgapi_wave_info_t;

/**
 * Query a wave.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_NOT_AVAILABLE (see the
 * queries); ERROR_WAVE_NOT_STOPPED (query needs a stopped wave); ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_get_info(amd_dbgapi_wave_id_t wave_id,
                                                        amd_dbgapi_wave_info_t query,
                                                        size_t value_size,
                                                        void *value) AMD_DBGAPI_VERSION_0_64;

/** Execution state of a wave as the client sees it. */
typedef enum
{
  /** Running (also: stopped, but the stop event not yet fetched). */
  AMD_DBGAPI_WAVE_STATE_RUN = 1,
  /** Executing one instruction, then stopping. */
  AMD_DBGAPI_WAVE_STATE_SINGLE_STEP = 2,
  /** Stopped, and its AMD_DBGAPI_EVENT_KIND_WAVE_STOP event fetched. */
  AMD_DBGAPI_WAVE_STATE_STOP = 3
} amd_dbgapi_wave_state_t;

/** Bit set of the reasons a wave stopped. Exception reasons would normally make the runtime
 *  put the queue in error; the exception named in brackets is the one reported then. */
typedef enum
{
  /** No reason bit: stopped by amd_dbgapi_wave_stop (on a core: a wave only context-saved). */
  AMD_DBGAPI_WAVE_STOP_REASON_NONE = 0,
  /** Executed a breakpoint instruction (see ..._BREAKPOINT_INSTRUCTION_PC_ADJUST). */
  AMD_DBGAPI_WAVE_STOP_REASON_BREAKPOINT = (1 << 0),
  /** Triggered data watchpoint(s) (see AMD_DBGAPI_WAVE_INFO_WATCHPOINTS); the PC may be past
   *  the access. */
  AMD_DBGAPI_WAVE_STOP_REASON_WATCHPOINT = (1 << 1),
  /** Completed a single step. */
  AMD_DBGAPI_WAVE_STOP_REASON_SINGLE_STEP = (1 << 2),
  /** Enabled FP input-denormal exception [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_FP_INPUT_DENORMAL = (1 << 3),
  /** Enabled FP divide-by-zero exception [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_FP_DIVIDE_BY_0 = (1 << 4),
  /** Enabled FP overflow exception [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_FP_OVERFLOW = (1 << 5),
  /** Enabled FP underflow exception [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_FP_UNDERFLOW = (1 << 6),
  /** Enabled FP inexact exception [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_FP_INEXACT = (1 << 7),
  /** Enabled FP invalid-operation exception [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_FP_INVALID_OPERATION = (1 << 8),
  /** Enabled integer divide-by-zero exception [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_INT_DIVIDE_BY_0 = (1 << 9),
  /** Executed the debug trap (llvm.debugtrap); PC after the trap; resumable. */
  AMD_DBGAPI_WAVE_STOP_REASON_DEBUG_TRAP = (1 << 10),
  /** Executed the assert trap (llvm.trap); PC at the trap [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_ASSERT_TRAP = (1 << 11),
  /** Executed another trap instruction; PC at the trap [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_TRAP = (1 << 12),
  /** Accessed an unmapped page or one without permission; PC may be past the access
   *  [WAVE_MEMORY_VIOLATION]. */
  AMD_DBGAPI_WAVE_STOP_REASON_MEMORY_VIOLATION = (1 << 13),
  /** Used an address outside the valid ranges [WAVE_ADDRESS_ERROR]. */
  AMD_DBGAPI_WAVE_STOP_REASON_ADDRESS_ERROR = (1 << 14),
  /** Former name of AMD_DBGAPI_WAVE_STOP_REASON_ADDRESS_ERROR. */
  AMD_DBGAPI_WAVE_STOP_REASON_APERTURE_VIOLATION AMD_DBGAPI_DEPRECATED =
      AMD_DBGAPI_WAVE_STOP_REASON_ADDRESS_ERROR,
  /** Executed an illegal instruction; PC at it [WAVE_ILLEGAL_INSTRUCTION]. */
  AMD_DBGAPI_WAVE_STOP_REASON_ILLEGAL_INSTRUCTION = (1 << 15),
  /** Detected an uncorrectable ECC error [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_ECC_ERROR = (1 << 16),
  /** Caused a hardware fatal halt [WAVE_TRAP]. */
  AMD_DBGAPI_WAVE_STOP_REASON_FATAL_HALT = (1 << 17)
} amd_dbgapi_wave_stop_reasons_t;

/**
 * List the waves of a process (or all). Behaves as amd_dbgapi_process_code_object_list.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_wave_list(
    amd_dbgapi_process_id_t process_id, size_t *wave_count, amd_dbgapi_wave_id_t **waves,
    amd_dbgapi_changed_t *changed) AMD_DBGAPI_VERSION_0_54;

/**
 * Ask a running wave to stop; a WAVE_STOP event (or WAVE_COMMAND_TERMINATED if it ends first)
 * follows. Allowed on a wave whose stop event has not been fetched yet (no effect).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID; ERROR_WAVE_STOPPED;
 * ERROR_WAVE_OUTSTANDING_STOP; ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_stop(amd_dbgapi_wave_id_t wave_id)
    AMD_DBGAPI_VERSION_0_76;

/** How to resume a wave. */
typedef enum
{
  /** Run normally. */
  AMD_DBGAPI_RESUME_MODE_NORMAL = 0,
  /** Execute one instruction, then stop (reason SINGLE_STEP) or report termination. */
  AMD_DBGAPI_RESUME_MODE_SINGLE_STEP = 1
} amd_dbgapi_resume_mode_t;

/**
 * Resume a stopped wave whose stop event has been processed. `exceptions` other than
 * AMD_DBGAPI_EXCEPTION_NONE (wave exceptions only) halt the wave and deliver them to the
 * runtime, which puts the queue in error. On a core every resume fails with
 * ERROR_PROCESS_FROZEN: nothing can run.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_INVALID_ARGUMENT (bad mode or non-wave exceptions); ERROR_WAVE_NOT_STOPPED;
 * ERROR_WAVE_NOT_RESUMABLE (stop event not processed); ERROR_RESUME_DISPLACED_STEPPING;
 * ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_resume(
    amd_dbgapi_wave_id_t wave_id, amd_dbgapi_resume_mode_t resume_mode,
    amd_dbgapi_exceptions_t exceptions) AMD_DBGAPI_VERSION_0_76;

/* ---------------------------------------------------------------------------------------------
 * Displaced stepping
 *
 * Stepping over a breakpoint without removing it: the original instruction is copied to a
 * buffer (amd_dbgapi_displaced_stepping_start), the wave single-steps it there
 * (amd_dbgapi_wave_resume, SINGLE_STEP), then the buffer is released and the wave state
 * fixed up (amd_dbgapi_displaced_stepping_complete). There is at least one buffer; buffers may
 * be shared by waves at the same breakpoint. Not available on a core: starting answers
 * ERROR_PROCESS_FROZEN.
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a displaced-stepping buffer. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_displaced_stepping_id_t;

/** The null displaced-stepping handle. */
#define AMD_DBGAPI_DISPLACED_STEPPING_NONE                                                         \
  AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_displaced_stepping_id_t, 0)

/** Queries of amd_dbgapi_displaced_stepping_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_DISPLACED_STEPPING_INFO_PROCESS = 1
} amd_dbgapi_displaced_stepping_info_t;

/**
 * Query a displaced-stepping buffer.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_DISPLACED_STEPPING_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_displaced_stepping_get_info(
    amd_dbgapi_displaced_stepping_id_t displaced_stepping_id,
    amd_dbgapi_displaced_stepping_info_t query, size_t value_size,
    void *value) AMD_DBGAPI_VERSION_0_54;

/**
 * Give a stopped wave, sitting on a breakpoint, a displaced-stepping buffer.
 * saved_instruction_bytes are the BREAKPOINT_INSTRUCTION_SIZE original bytes the breakpoint
 * replaced. Registers may be read and written: flush cached register writes first.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_WAVE_NOT_STOPPED; ERROR_DISPLACED_STEPPING_ACTIVE;
 * ERROR_DISPLACED_STEPPING_BUFFER_NOT_AVAILABLE; ERROR_INVALID_ARGUMENT (a pointer NULL);
 * ERROR_MEMORY_ACCESS (the PC could not be read); ERROR_ILLEGAL_INSTRUCTION;
 * ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_displaced_stepping_start(
    amd_dbgapi_wave_id_t wave_id, const void *saved_instruction_bytes,
    amd_dbgapi_displaced_stepping_id_t *displaced_stepping) AMD_DBGAPI_VERSION_0_76;

/**
 * Release a wave's displaced-stepping buffer: the wave is left stopped, after the instruction
 * if the step completed, else back at the breakpoint. Invalidate cached registers afterwards.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_INVALID_DISPLACED_STEPPING_ID; ERROR_WAVE_NOT_STOPPED;
 * ERROR_INVALID_ARGUMENT_COMPATIBILITY (buffer not in use by the wave); ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_displaced_stepping_complete(
    amd_dbgapi_wave_id_t wave_id,
    amd_dbgapi_displaced_stepping_id_t displaced_stepping) AMD_DBGAPI_VERSION_0_76;

/* ---------------------------------------------------------------------------------------------
 * Watchpoints (hardware data watchpoints; count and granularity are the common denominator of
 * a process's agents; none on a core)
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a data watchpoint. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_watchpoint_id_t;

/** The null watchpoint handle. */
#define AMD_DBGAPI_WATCHPOINT_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_watchpoint_id_t, 0)

/** Queries of amd_dbgapi_watchpoint_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_WATCHPOINT_INFO_PROCESS = 1,
  /** amd_dbgapi_global_address_t: base of the range actually watched. */
  AMD_DBGAPI_WATCHPOINT_INFO_ADDRESS = 2,
  /** amd_dbgapi_size_t: size of the range actually watched. */
  AMD_DBGAPI_WATCHPOINT_INFO_SIZE = 3
} amd_dbgapi_watchpoint_info_t;

/**
 * Query a watchpoint.
 *
 * Exported in node 0.62 (AMD's header tags it 0.54, but AMD's export map puts it in 0.62 and
 * the export map is what binaries bind to).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WATCHPOINT_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_watchpoint_get_info(
    amd_dbgapi_watchpoint_id_t watchpoint_id, amd_dbgapi_watchpoint_info_t query,
    size_t value_size, void *value) AMD_DBGAPI_VERSION_0_62;

/** How watchpoints are shared between processes. */
typedef enum
{
  /** No watchpoints. */
  AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSUPPORTED = 0,
  /** Every process has all of them. */
  AMD_DBGAPI_WATCHPOINT_SHARE_KIND_UNSHARED = 1,
  /** Processes share one pool. */
  AMD_DBGAPI_WATCHPOINT_SHARE_KIND_SHARED = 2
} amd_dbgapi_watchpoint_share_kind_t;

/** Accesses that trigger a watchpoint. */
typedef enum
{
  /** Loads. */
  AMD_DBGAPI_WATCHPOINT_KIND_LOAD = 1,
  /** Stores and atomics. */
  AMD_DBGAPI_WATCHPOINT_KIND_STORE_AND_RMW = 2,
  /** Atomics only. */
  AMD_DBGAPI_WATCHPOINT_KIND_RMW = 3,
  /** Any access. */
  AMD_DBGAPI_WATCHPOINT_KIND_ALL = 4
} amd_dbgapi_watchpoint_kind_t;

/** A counted array of watchpoints (result of AMD_DBGAPI_WAVE_INFO_WATCHPOINTS).
 *  LP64 layout: count at 0, watchpoint_ids at 8; 16 bytes. */
typedef struct
{
  /** Number of elements. */
  size_t count;
  /** The elements (client-owned). */
  amd_dbgapi_watchpoint_id_t *watchpoint_ids;
} amd_dbgapi_watchpoint_list_t;

/**
 * Watch [address, address + size) for accesses of `kind`. The range actually watched is the
 * smallest supported one covering the request (or as much of it as possible, starting at
 * address); query it to see what is covered.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_NO_WATCHPOINT_AVAILABLE; ERROR_NOT_SUPPORTED (no watchpoints, e.g. a core);
 * ERROR_INVALID_ARGUMENT (bad kind, size 0, watchpoint_id NULL); ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_set_watchpoint(
    amd_dbgapi_process_id_t process_id, amd_dbgapi_global_address_t address,
    amd_dbgapi_size_t size, amd_dbgapi_watchpoint_kind_t kind,
    amd_dbgapi_watchpoint_id_t *watchpoint_id) AMD_DBGAPI_VERSION_0_76;

/**
 * Remove a watchpoint set by amd_dbgapi_set_watchpoint.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WATCHPOINT_ID;
 * ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI
amd_dbgapi_remove_watchpoint(amd_dbgapi_watchpoint_id_t watchpoint_id) AMD_DBGAPI_VERSION_0_76;

/* ---------------------------------------------------------------------------------------------
 * Registers
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a register class (a named group such as "general" or "vector"). */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_register_class_id_t;

/** The null register class handle. */
#define AMD_DBGAPI_REGISTER_CLASS_NONE                                                             \
  AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_register_class_id_t, 0)

/** Queries of amd_dbgapi_architecture_register_class_get_info; the comment gives the type. */
typedef enum
{
  /** amd_dbgapi_architecture_id_t. */
  AMD_DBGAPI_REGISTER_CLASS_INFO_ARCHITECTURE = 1,
  /** char * (client-owned). */
  AMD_DBGAPI_REGISTER_CLASS_INFO_NAME = 2
} amd_dbgapi_register_class_info_t;

/**
 * Query a register class.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_REGISTER_CLASS_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_register_class_get_info(
    amd_dbgapi_register_class_id_t register_class_id, amd_dbgapi_register_class_info_t query,
    size_t value_size, void *value) AMD_DBGAPI_VERSION_0_54;

/**
 * List the register classes of an architecture (stable order; client-owned array).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_register_class_list(
    amd_dbgapi_architecture_id_t architecture_id, size_t *register_class_count,
    amd_dbgapi_register_class_id_t **register_classes) AMD_DBGAPI_VERSION_0_54;

/** Opaque handle of a register of an architecture. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_register_id_t;

/** The null register handle. */
#define AMD_DBGAPI_REGISTER_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_register_id_t, 0)

/** Bit set of register properties. */
typedef enum
{
  /** None. */
  AMD_DBGAPI_REGISTER_PROPERTY_NONE = 0,
  /** Some bits ignore writes: read back after writing. */
  AMD_DBGAPI_REGISTER_PROPERTY_READONLY_BITS = (1 << 0),
  /** May change when an INVALIDATE_VOLATILE register of the wave is written: do not cache. */
  AMD_DBGAPI_REGISTER_PROPERTY_VOLATILE = (1 << 1),
  /** Writing it may change the wave's VOLATILE registers. */
  AMD_DBGAPI_REGISTER_PROPERTY_INVALIDATE_VOLATILE = (1 << 2)
} amd_dbgapi_register_properties_t;

/** Queries of amd_dbgapi_register_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_architecture_id_t. */
  AMD_DBGAPI_REGISTER_INFO_ARCHITECTURE = 1,
  /** char * (client-owned), e.g. "s0", "v0", "pc". */
  AMD_DBGAPI_REGISTER_INFO_NAME = 2,
  /** amd_dbgapi_size_t: size in bytes. */
  AMD_DBGAPI_REGISTER_INFO_SIZE = 3,
  /**
   * char * (client-owned): a C-like type for displaying the value, one of
   * "uint32_t", "uint64_t", "float", "double", "void(void)" (a code address), a flags type
   * "flags32_t NAME { FIELDS }" / "flags64_t NAME { FIELDS }" whose fields are
   * "bool NAME @BIT;" or "TYPE NAME @LO-HI;" (TYPE an integer type or "enum NAME { A = n, ... }"),
   * or any of these followed by "[COUNT]" (one element per lane for vector registers).
   */
  AMD_DBGAPI_REGISTER_INFO_TYPE = 4,
  /** uint64_t: DWARF register number; ERROR_NOT_AVAILABLE if there is none. */
  AMD_DBGAPI_REGISTER_INFO_DWARF = 5,
  /** uint32_t, an amd_dbgapi_register_properties_t bit set. */
  AMD_DBGAPI_REGISTER_INFO_PROPERTIES = 6
} amd_dbgapi_register_info_t;

/**
 * Query a register.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_REGISTER_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_NOT_AVAILABLE (see the
 * queries); ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_register_get_info(amd_dbgapi_register_id_t register_id,
                                                            amd_dbgapi_register_info_t query,
                                                            size_t value_size,
                                                            void *value) AMD_DBGAPI_VERSION_0_70;

/** Whether a wave has a register. */
typedef enum
{
  /** Not allocated to the wave. */
  AMD_DBGAPI_REGISTER_ABSENT = 0,
  /** Allocated to the wave. */
  AMD_DBGAPI_REGISTER_PRESENT = 1
} amd_dbgapi_register_exists_t;

/**
 * Tell whether `wave_id` has register `register_id` (same architecture required).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_INVALID_REGISTER_ID; ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY
 * (architectures differ).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_register_exists(
    amd_dbgapi_wave_id_t wave_id, amd_dbgapi_register_id_t register_id,
    amd_dbgapi_register_exists_t *exists) AMD_DBGAPI_VERSION_0_54;

/**
 * List every register the architecture can have (stable order; each class contiguous in
 * hardware order; client-owned array).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_register_list(
    amd_dbgapi_architecture_id_t architecture_id, size_t *register_count,
    amd_dbgapi_register_id_t **registers) AMD_DBGAPI_VERSION_0_54;

/**
 * List the registers allocated to a wave: a subsequence of the architecture list.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_register_list(
    amd_dbgapi_wave_id_t wave_id, size_t *register_count,
    amd_dbgapi_register_id_t **registers) AMD_DBGAPI_VERSION_0_54;

/**
 * Map an AMDGPU DWARF register number to a register of the architecture.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT (register_id NULL); ERROR_INVALID_ARGUMENT_COMPATIBILITY (number not
 * valid for the architecture).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_dwarf_register_to_register(
    amd_dbgapi_architecture_id_t architecture_id, uint64_t dwarf_register,
    amd_dbgapi_register_id_t *register_id) AMD_DBGAPI_VERSION_0_54;

/** Whether a register belongs to a register class. */
typedef enum
{
  /** Not a member. */
  AMD_DBGAPI_REGISTER_CLASS_STATE_NOT_MEMBER = 0,
  /** A member. */
  AMD_DBGAPI_REGISTER_CLASS_STATE_MEMBER = 1
} amd_dbgapi_register_class_state_t;

/**
 * Tell whether a register is in a register class (same architecture required).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_REGISTER_ID;
 * ERROR_INVALID_REGISTER_CLASS_ID; ERROR_INVALID_ARGUMENT;
 * ERROR_INVALID_ARGUMENT_COMPATIBILITY (architectures differ).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_register_is_in_register_class(
    amd_dbgapi_register_class_id_t register_class_id, amd_dbgapi_register_id_t register_id,
    amd_dbgapi_register_class_state_t *register_class_state) AMD_DBGAPI_VERSION_0_54;

/**
 * Read value_size bytes of a stopped wave's register, starting `offset` bytes from its least
 * significant byte.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_INVALID_REGISTER_ID; ERROR_WAVE_NOT_STOPPED; ERROR_INVALID_ARGUMENT (value NULL or
 * value_size 0); ERROR_INVALID_ARGUMENT_COMPATIBILITY (range past the register, or
 * architectures differ); ERROR_REGISTER_NOT_AVAILABLE (not allocated to the wave).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_read_register(
    amd_dbgapi_wave_id_t wave_id, amd_dbgapi_register_id_t register_id, amd_dbgapi_size_t offset,
    amd_dbgapi_size_t value_size, void *value) AMD_DBGAPI_VERSION_0_62;

/**
 * Write value_size bytes of a stopped wave's register at `offset`. On a core this always fails
 * and nothing changes.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_INVALID_REGISTER_ID; ERROR_WAVE_NOT_STOPPED; ERROR_DISPLACED_STEPPING_ACTIVE;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_REGISTER_NOT_AVAILABLE;
 * ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_write_register(
    amd_dbgapi_wave_id_t wave_id, amd_dbgapi_register_id_t register_id, amd_dbgapi_size_t offset,
    amd_dbgapi_size_t value_size, const void *value) AMD_DBGAPI_VERSION_0_76;

/**
 * Hint that `register_count` registers of the wave, starting at `register_id` in the order of
 * amd_dbgapi_wave_register_list, will be read soon (the count is clipped to the list end).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_INVALID_REGISTER_ID; ERROR_WAVE_NOT_STOPPED; ERROR_INVALID_ARGUMENT_COMPATIBILITY;
 * ERROR_REGISTER_NOT_AVAILABLE.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_prefetch_register(
    amd_dbgapi_wave_id_t wave_id, amd_dbgapi_register_id_t register_id,
    amd_dbgapi_size_t register_count) AMD_DBGAPI_VERSION_0_62;

/**
 * Information of an AMD_DBGAPI_INSTRUCTION_KIND_DIRECT_CALL_REGISTER_PAIR instruction.
 * LP64 layout: target_address at 0, saved_return_address_register at 8 (low half) and 16
 * (high half); 24 bytes.
 */
typedef struct
{
  /** Call target. */
  amd_dbgapi_global_address_t target_address;
  /** Registers receiving the return address: [0] low 32 bits, [1] high 32 bits. */
  amd_dbgapi_register_id_t saved_return_address_register[2];
} amd_dbgapi_direct_call_register_pair_information_t;

/* ---------------------------------------------------------------------------------------------
 * Memory: lanes, address classes, address spaces, access
 * ------------------------------------------------------------------------------------------- */

/** A lane of a wave, 0 .. AMD_DBGAPI_WAVE_INFO_LANE_COUNT - 1 (unique only within a wave). */
typedef uint32_t amd_dbgapi_lane_id_t;

/** "No lane". */
#define AMD_DBGAPI_LANE_NONE ((amd_dbgapi_lane_id_t)(-1))

/** Opaque handle of a source-language address class (DWARF address class). */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_address_class_id_t;

/** The null address class handle. */
#define AMD_DBGAPI_ADDRESS_CLASS_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_address_class_id_t, 0)

/** Queries of amd_dbgapi_address_class_get_info; the comment gives the result type. */
typedef enum
{
  /** char * (client-owned). */
  AMD_DBGAPI_ADDRESS_CLASS_INFO_NAME = 1,
  /** amd_dbgapi_address_space_id_t implementing pointers of the class. (AMD's text names
   *  the address class type here; the value is an address space handle.) */
  AMD_DBGAPI_ADDRESS_CLASS_INFO_ADDRESS_SPACE = 2,
  /** uint64_t: DWARF address class number. */
  AMD_DBGAPI_ADDRESS_CLASS_INFO_DWARF = 3
} amd_dbgapi_address_class_info_t;

/**
 * Query an address class.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ADDRESS_CLASS_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_address_class_get_info(
    amd_dbgapi_address_class_id_t address_class_id, amd_dbgapi_address_class_info_t query,
    size_t value_size, void *value) AMD_DBGAPI_VERSION_0_62;

/**
 * List the address classes of an architecture (stable order; client-owned array).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_address_class_list(
    amd_dbgapi_architecture_id_t architecture_id, size_t *address_class_count,
    amd_dbgapi_address_class_id_t **address_classes) AMD_DBGAPI_VERSION_0_54;

/**
 * Map a DWARF address class number to an address class of the architecture.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY (number not valid).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_dwarf_address_class_to_address_class(
    amd_dbgapi_architecture_id_t architecture_id, uint64_t dwarf_address_class,
    amd_dbgapi_address_class_id_t *address_class_id) AMD_DBGAPI_VERSION_0_54;

/** Opaque handle of an address space of an architecture. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_address_space_id_t;

/** The null address space handle. */
#define AMD_DBGAPI_ADDRESS_SPACE_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_address_space_id_t, 0)

/** The global address space: the same handle (1) for every architecture. */
#define AMD_DBGAPI_ADDRESS_SPACE_GLOBAL                                                            \
  AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_address_space_id_t, 1)

/** How an address space may be accessed. */
typedef enum
{
  /** Read and write; values may change. */
  AMD_DBGAPI_ADDRESS_SPACE_ACCESS_ALL = 1,
  /** Read-only, constant for the whole program. */
  AMD_DBGAPI_ADDRESS_SPACE_ACCESS_PROGRAM_CONSTANT = 2,
  /** Read-only, constant for the lifetime of a dispatch. */
  AMD_DBGAPI_ADDRESS_SPACE_ACCESS_DISPATCH_CONSTANT = 3
} amd_dbgapi_address_space_access_t;

/** Queries of amd_dbgapi_address_space_get_info; the comment gives the result type. */
typedef enum
{
  /** char * (client-owned). */
  AMD_DBGAPI_ADDRESS_SPACE_INFO_NAME = 1,
  /** amd_dbgapi_size_t: address size. AMD's 0.77 answers in bits (64 or 32) although its
   *  documentation says bytes; a compatible implementation answers in bits too. */
  AMD_DBGAPI_ADDRESS_SPACE_INFO_ADDRESS_SIZE = 2,
  /** amd_dbgapi_segment_address_t: the null address of the space. */
  AMD_DBGAPI_ADDRESS_SPACE_INFO_NULL_ADDRESS = 3,
  /** uint32_t, an amd_dbgapi_address_space_access_t. */
  AMD_DBGAPI_ADDRESS_SPACE_INFO_ACCESS = 4,
  /** uint64_t: DWARF address space number. */
  AMD_DBGAPI_ADDRESS_SPACE_INFO_DWARF = 5
} amd_dbgapi_address_space_info_t;

/**
 * Query an address space.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ADDRESS_SPACE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_address_space_get_info(
    amd_dbgapi_address_space_id_t address_space_id, amd_dbgapi_address_space_info_t query,
    size_t value_size, void *value) AMD_DBGAPI_VERSION_0_62;

/**
 * List the address spaces of an architecture (stable order; client-owned array).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_address_space_list(
    amd_dbgapi_architecture_id_t architecture_id, size_t *address_space_count,
    amd_dbgapi_address_space_id_t **address_spaces) AMD_DBGAPI_VERSION_0_54;

/**
 * Map a DWARF address space number (AMDGPU: 0 global, 1 generic, 3 local, 5 private_lane,
 * 6 private_wave) to an address space of the architecture.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ARCHITECTURE_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY (number not valid).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_dwarf_address_space_to_address_space(
    amd_dbgapi_architecture_id_t architecture_id, uint64_t dwarf_address_space,
    amd_dbgapi_address_space_id_t *address_space_id) AMD_DBGAPI_VERSION_0_54;

/** An address within one address space (its meaning may depend on the wave or lane). */
typedef uint64_t amd_dbgapi_segment_address_t;

/**
 * Convert an address from one address space to another as seen by a wave and lane (wave and
 * lane may be NONE when neither space depends on them). A null address converts to the
 * destination's null address. *destination_contiguous_bytes receives how many bytes from the
 * result keep corresponding to the source (e.g. up to the next lane's dword for swizzled
 * private memory).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID (invalid, or NONE but
 * needed); ERROR_INVALID_LANE_ID; ERROR_INVALID_ADDRESS_SPACE_ID;
 * ERROR_INVALID_ADDRESS_SPACE_CONVERSION (no equivalent address); ERROR_INVALID_ARGUMENT
 * (an output pointer NULL); ERROR_INVALID_ARGUMENT_COMPATIBILITY (space not of the wave's
 * architecture).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_convert_address_space(
    amd_dbgapi_wave_id_t wave_id, amd_dbgapi_lane_id_t lane_id,
    amd_dbgapi_address_space_id_t source_address_space_id,
    amd_dbgapi_segment_address_t source_segment_address,
    amd_dbgapi_address_space_id_t destination_address_space_id,
    amd_dbgapi_segment_address_t *destination_segment_address,
    amd_dbgapi_size_t *destination_contiguous_bytes) AMD_DBGAPI_VERSION_0_62;

/** What reading or writing an address of an address space depends on. */
typedef enum
{
  /** Not known. */
  AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_NONE = 0,
  /** The lane. */
  AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_LANE = 1,
  /** The wave. */
  AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_WAVE = 2,
  /** The workgroup. */
  AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_WORKGROUP = 3,
  /** The agent. */
  AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_AGENT = 4,
  /** The process. */
  AMD_DBGAPI_SEGMENT_ADDRESS_DEPENDENCE_PROCESS = 5
} amd_dbgapi_segment_address_dependency_t;

/**
 * Tell which arguments amd_dbgapi_read_memory needs for an address of an address space: the
 * result is never SEGMENT_ADDRESS_DEPENDENCE_NONE. (0.77 form: no process or wave argument;
 * 0.79 added them and moved the symbol to a new node.)
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_ADDRESS_SPACE_ID;
 * ERROR_INVALID_ARGUMENT (output NULL).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_address_dependency(
    amd_dbgapi_address_space_id_t address_space_id, amd_dbgapi_segment_address_t segment_address,
    amd_dbgapi_segment_address_dependency_t *segment_address_dependency) AMD_DBGAPI_VERSION_0_64;

/** Whether an address is in a source-language address class. */
typedef enum
{
  /** Not a member. */
  AMD_DBGAPI_ADDRESS_CLASS_STATE_NOT_MEMBER = 0,
  /** A member. */
  AMD_DBGAPI_ADDRESS_CLASS_STATE_MEMBER = 1
} amd_dbgapi_address_class_state_t;

/**
 * Tell whether an address of an address space, as seen by a wave and lane, belongs to an
 * address class (space, class and wave of one architecture).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_WAVE_ID;
 * ERROR_INVALID_LANE_ID; ERROR_INVALID_ADDRESS_SPACE_ID; ERROR_INVALID_ADDRESS_CLASS_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_address_is_in_address_class(
    amd_dbgapi_wave_id_t wave_id, amd_dbgapi_lane_id_t lane_id,
    amd_dbgapi_address_space_id_t address_space_id, amd_dbgapi_segment_address_t segment_address,
    amd_dbgapi_address_class_id_t address_class_id,
    amd_dbgapi_address_class_state_t *address_class_state) AMD_DBGAPI_VERSION_0_54;

/**
 * Read up to *value_size bytes at segment_address of an address space, as seen by a stopped
 * wave and lane (wave NONE and lane NONE for the global space of process_id). Stops at the
 * first inaccessible byte; *value_size receives the count read. On a core, global memory
 * comes from the core's PT_LOAD segments through the client's xfer_global_memory, private
 * memory from the wave's scratch, local memory from the workgroup's saved LDS.
 *
 * Returns: SUCCESS (input size 0, or at least one byte read); FATAL; ERROR_NOT_INITIALIZED;
 * ERROR_INVALID_PROCESS_ID; ERROR_INVALID_WAVE_ID; ERROR_INVALID_LANE_ID;
 * ERROR_INVALID_ADDRESS_SPACE_ID; ERROR_WAVE_NOT_STOPPED; ERROR_INVALID_ARGUMENT (a pointer
 * NULL); ERROR_INVALID_ARGUMENT_COMPATIBILITY (wave not of the process or architecture);
 * ERROR_MEMORY_ACCESS (nothing could be read; *value_size set to 0).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_read_memory(
    amd_dbgapi_process_id_t process_id, amd_dbgapi_wave_id_t wave_id, amd_dbgapi_lane_id_t lane_id,
    amd_dbgapi_address_space_id_t address_space_id, amd_dbgapi_segment_address_t segment_address,
    amd_dbgapi_size_t *value_size, void *value) AMD_DBGAPI_VERSION_0_54;

/**
 * Write up to *value_size bytes; arguments as for amd_dbgapi_read_memory. On a core nothing
 * is ever written: once the arguments are checked the answer is ERROR_PROCESS_FROZEN, and the
 * client's xfer_global_memory is never asked to write.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_WAVE_ID; ERROR_INVALID_LANE_ID; ERROR_INVALID_ADDRESS_SPACE_ID;
 * ERROR_WAVE_NOT_STOPPED; ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY;
 * ERROR_MEMORY_ACCESS (nothing written); ERROR_PROCESS_FROZEN.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_write_memory(
    amd_dbgapi_process_id_t process_id, amd_dbgapi_wave_id_t wave_id, amd_dbgapi_lane_id_t lane_id,
    amd_dbgapi_address_space_id_t address_space_id, amd_dbgapi_segment_address_t segment_address,
    amd_dbgapi_size_t *value_size, const void *value) AMD_DBGAPI_VERSION_0_76;

/** Whether waves wait for each memory access to complete (exact stop PCs, slower). */
typedef enum
{
  /** Accesses overlap later instructions. */
  AMD_DBGAPI_MEMORY_PRECISION_NONE = 0,
  /** Each access completes before the next instruction. */
  AMD_DBGAPI_MEMORY_PRECISION_PRECISE = 1
} amd_dbgapi_memory_precision_t;

/**
 * Set the memory precision of every agent of a process.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT (bad value); ERROR_NOT_SUPPORTED (some agent cannot; always for
 * PRECISE on a core unless the note advertises it).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_set_memory_precision(
    amd_dbgapi_process_id_t process_id,
    amd_dbgapi_memory_precision_t memory_precision) AMD_DBGAPI_VERSION_0_54;

/** Whether waves wait for ALU instructions so exceptions stop right after the culprit. */
typedef enum
{
  /** ALU exceptions may be reported late. */
  AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_NONE = 0,
  /** The PC is just after the excepting instruction (slower). */
  AMD_DBGAPI_ALU_EXCEPTIONS_PRECISION_PRECISE = 1
} amd_dbgapi_alu_exceptions_precision_t;

/**
 * Set the ALU-exception precision of every agent of a process (new in 0.77).
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_NOT_SUPPORTED.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_set_alu_exceptions_precision(
    amd_dbgapi_process_id_t process_id,
    amd_dbgapi_alu_exceptions_precision_t alu_exceptions_precision) AMD_DBGAPI_VERSION_0_77;

/* ---------------------------------------------------------------------------------------------
 * Events
 *
 * The library keeps a per-process list of pending events. The notifier
 * (AMD_DBGAPI_PROCESS_INFO_NOTIFIER) says "there may be events"; the client resets it, then
 * fetches events with amd_dbgapi_process_next_pending_event until it returns
 * AMD_DBGAPI_EVENT_KIND_NONE, and reports each one with amd_dbgapi_event_processed.
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of an event. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_event_id_t;

/** The null event handle. */
#define AMD_DBGAPI_EVENT_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_event_id_t, 0)

/** Kinds of event. */
typedef enum
{
  /** No event (nothing pending). */
  AMD_DBGAPI_EVENT_KIND_NONE = 0,
  /** A wave stopped (AMD_DBGAPI_EVENT_INFO_WAVE). */
  AMD_DBGAPI_EVENT_KIND_WAVE_STOP = 1,
  /** A stop or single-step request could not complete because the wave ended
   *  (AMD_DBGAPI_EVENT_INFO_WAVE names the now-invalid wave). */
  AMD_DBGAPI_EVENT_KIND_WAVE_COMMAND_TERMINATED = 2,
  /** The code object list changed while a thread was loading or unloading (not reported at
   *  attach: fetch the list then). The thread stays stopped until the event is processed, so
   *  the client can insert breakpoints first. */
  AMD_DBGAPI_EVENT_KIND_CODE_OBJECT_LIST_UPDATED = 3,
  /** A host thread stopped at a library breakpoint may now be resumed
   *  (AMD_DBGAPI_EVENT_INFO_BREAKPOINT and _CLIENT_THREAD). */
  AMD_DBGAPI_EVENT_KIND_BREAKPOINT_RESUME = 4,
  /** The inferior's GPU runtime was enabled or disabled (AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE).
   *  Unless LOADED_SUCCESS, no code objects, queues or waves exist. */
  AMD_DBGAPI_EVENT_KIND_RUNTIME = 5,
  /** The runtime put a queue into the error state (AMD_DBGAPI_EVENT_INFO_QUEUE); the
   *  application is told only once the event is processed. */
  AMD_DBGAPI_EVENT_KIND_QUEUE_ERROR = 6
} amd_dbgapi_event_kind_t;

/**
 * Fetch the next pending event of one process (or of any, with AMD_DBGAPI_PROCESS_NONE), in no
 * particular order; each event is returned once. With nothing pending, *event_id is
 * AMD_DBGAPI_EVENT_NONE and *kind AMD_DBGAPI_EVENT_KIND_NONE.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_PROCESS_ID;
 * ERROR_INVALID_ARGUMENT (a pointer NULL).
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_process_next_pending_event(
    amd_dbgapi_process_id_t process_id, amd_dbgapi_event_id_t *event_id,
    amd_dbgapi_event_kind_t *kind) AMD_DBGAPI_VERSION_0_54;

/** State of the inferior's GPU runtime, reported by AMD_DBGAPI_EVENT_KIND_RUNTIME. */
typedef enum
{
  /** Loaded and debuggable. */
  AMD_DBGAPI_RUNTIME_STATE_LOADED_SUCCESS = 1,
  /** Unloaded. */
  AMD_DBGAPI_RUNTIME_STATE_UNLOADED = 2,
  /** Loaded, but a restriction prevents debugging (see AMD_DBGAPI_STATUS_ERROR_RESTRICTION). */
  AMD_DBGAPI_RUNTIME_STATE_LOADED_ERROR_RESTRICTION = 3
} amd_dbgapi_runtime_state_t;

/** Queries of amd_dbgapi_event_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_EVENT_INFO_PROCESS = 1,
  /** amd_dbgapi_event_kind_t. */
  AMD_DBGAPI_EVENT_INFO_KIND = 2,
  /** amd_dbgapi_wave_id_t (WAVE_STOP, WAVE_COMMAND_TERMINATED). */
  AMD_DBGAPI_EVENT_INFO_WAVE = 3,
  /** amd_dbgapi_breakpoint_id_t (BREAKPOINT_RESUME). */
  AMD_DBGAPI_EVENT_INFO_BREAKPOINT = 4,
  /** amd_dbgapi_client_thread_id_t (BREAKPOINT_RESUME). */
  AMD_DBGAPI_EVENT_INFO_CLIENT_THREAD = 5,
  /** uint32_t, an amd_dbgapi_runtime_state_t (RUNTIME). */
  AMD_DBGAPI_EVENT_INFO_RUNTIME_STATE = 6,
  /** amd_dbgapi_queue_id_t (QUEUE_ERROR). */
  AMD_DBGAPI_EVENT_INFO_QUEUE = 7
} amd_dbgapi_event_info_t;

/**
 * Query an event.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_EVENT_ID (invalid or the null
 * event); ERROR_INVALID_ARGUMENT (value NULL, or query not meaningful for the event's kind);
 * ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_event_get_info(amd_dbgapi_event_id_t event_id,
                                                         amd_dbgapi_event_info_t query,
                                                         size_t value_size,
                                                         void *value) AMD_DBGAPI_VERSION_0_54;

/**
 * Report that an event has been handled (exactly once per event, in any order); the handle
 * becomes invalid.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_EVENT_ID;
 * ERROR_INVALID_ARGUMENT.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_event_processed(amd_dbgapi_event_id_t event_id)
    AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Logging (delivered through the log_message callback; level starts at NONE and survives
 * initialise/finalise)
 * ------------------------------------------------------------------------------------------- */

/** Logging levels; each includes the ones before it. */
typedef enum
{
  /** Nothing. */
  AMD_DBGAPI_LOG_LEVEL_NONE = 0,
  /** Fatal errors (every FATAL return logs one). */
  AMD_DBGAPI_LOG_LEVEL_FATAL_ERROR = 1,
  /** Warnings. */
  AMD_DBGAPI_LOG_LEVEL_WARNING = 2,
  /** Information. */
  AMD_DBGAPI_LOG_LEVEL_INFO = 3,
  /** Call tracing. */
  AMD_DBGAPI_LOG_LEVEL_TRACE = 4,
  /** Everything. */
  AMD_DBGAPI_LOG_LEVEL_VERBOSE = 5
} amd_dbgapi_log_level_t;

/**
 * Set the logging level; usable before initialisation (messages flow once callbacks exist).
 * No status: an invalid level is ignored.
 */
void AMD_DBGAPI amd_dbgapi_set_log_level(amd_dbgapi_log_level_t level) AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Breakpoints the library asks the client to insert in the host process (the runtime's r_brk
 * hook). Never requested on a core.
 * ------------------------------------------------------------------------------------------- */

/** Opaque handle of a library breakpoint. */
typedef struct
{
  uint64_t handle;
} amd_dbgapi_breakpoint_id_t;

/** The null breakpoint handle. */
#define AMD_DBGAPI_BREAKPOINT_NONE AMD_DBGAPI_HANDLE_LITERAL(amd_dbgapi_breakpoint_id_t, 0)

/** Queries of amd_dbgapi_breakpoint_get_info; the comment gives the result type. */
typedef enum
{
  /** amd_dbgapi_process_id_t. */
  AMD_DBGAPI_BREAKPOINT_INFO_PROCESS = 1
} amd_dbgapi_breakpoint_info_t;

/**
 * Query a library breakpoint.
 *
 * Returns: SUCCESS; FATAL; ERROR_NOT_INITIALIZED; ERROR_INVALID_BREAKPOINT_ID;
 * ERROR_INVALID_ARGUMENT; ERROR_INVALID_ARGUMENT_COMPATIBILITY; ERROR_CLIENT_CALLBACK.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_breakpoint_get_info(
    amd_dbgapi_breakpoint_id_t breakpoint_id, amd_dbgapi_breakpoint_info_t query,
    size_t value_size, void *value) AMD_DBGAPI_VERSION_0_54;

/** What the client does with the host thread after reporting a breakpoint hit. */
typedef enum
{
  /** Resume it now. */
  AMD_DBGAPI_BREAKPOINT_ACTION_RESUME = 1,
  /** Keep it halted until a BREAKPOINT_RESUME event names it. */
  AMD_DBGAPI_BREAKPOINT_ACTION_HALT = 2
} amd_dbgapi_breakpoint_action_t;

/** Opaque client pointer naming a host thread. */
typedef struct amd_dbgapi_client_thread_s *amd_dbgapi_client_thread_id_t;

/**
 * Report that a host thread hit a library breakpoint (the thread stays halted meanwhile).
 *
 * Returns: SUCCESS (*breakpoint_action set); FATAL; ERROR_NOT_INITIALIZED;
 * ERROR_INVALID_BREAKPOINT_ID (on a core: always, there are none); ERROR_INVALID_ARGUMENT.
 */
amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_report_breakpoint_hit(
    amd_dbgapi_breakpoint_id_t breakpoint_id, amd_dbgapi_client_thread_id_t client_thread_id,
    amd_dbgapi_breakpoint_action_t *breakpoint_action) AMD_DBGAPI_VERSION_0_54;

/* ---------------------------------------------------------------------------------------------
 * Callbacks (services the client provides; a callback must not call the library)
 * ------------------------------------------------------------------------------------------- */

/** Queries the library makes through client_process_get_info; the comment gives the type. */
typedef enum
{
  /** amd_dbgapi_os_process_id_t, constant for the process's life (Linux: a ptrace-attached
   *  pid). A core answers AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE. */
  AMD_DBGAPI_CLIENT_PROCESS_INFO_OS_PID = 1,
  /** amd_dbgapi_core_state_data_t: the AMDGPU core-state note of a process rebuilt from a
   *  core; ERROR_NOT_AVAILABLE if not a core or the note is absent. */
  AMD_DBGAPI_CLIENT_PROCESS_INFO_CORE_STATE = 2
} amd_dbgapi_client_process_info_t;

/**
 * The client's services, passed to amd_dbgapi_initialize. Member order is part of the ABI
 * (positional initialisers are common); every member must be non-NULL.
 */
struct amd_dbgapi_callbacks_s
{
  /** 1. Return byte_size bytes aligned for any type, or NULL for 0 bytes or on failure. The
   *  client frees what the library hands it (malloc fits). */
  void *(*allocate_memory)(size_t byte_size);

  /** 2. Free memory from allocate_memory that the library keeps (NULL: do nothing). Also frees
   *  amd_dbgapi_core_state_data_t::data handed over for a core (free fits). */
  void (*deallocate_memory)(void *data);

  /**
   * 3. Answer a query about a client process into value[0 .. value_size). Returns SUCCESS;
   * ERROR_INVALID_CLIENT_PROCESS_ID; ERROR_PROCESS_EXITED; ERROR_INVALID_ARGUMENT (value NULL);
   * ERROR_NOT_AVAILABLE; ERROR_INVALID_ARGUMENT_COMPATIBILITY (value_size wrong); ERROR.
   * (Replaced get_os_pid in this slot in 0.74.)
   */
  amd_dbgapi_status_t (*client_process_get_info)(amd_dbgapi_client_process_id_t client_process_id,
                                                 amd_dbgapi_client_process_info_t query,
                                                 size_t value_size, void *value);

  /**
   * 4. Insert breakpoint `breakpoint_id` at `address` in a loaded host library. Returns SUCCESS;
   * ERROR_INVALID_CLIENT_PROCESS_ID; ERROR_INVALID_BREAKPOINT_ID (id already used); ERROR.
   */
  amd_dbgapi_status_t (*insert_breakpoint)(amd_dbgapi_client_process_id_t client_process_id,
                                           amd_dbgapi_global_address_t address,
                                           amd_dbgapi_breakpoint_id_t breakpoint_id);

  /**
   * 5. Remove a breakpoint inserted by insert_breakpoint (the id becomes invalid). Returns
   * SUCCESS; ERROR_INVALID_CLIENT_PROCESS_ID; ERROR_INVALID_BREAKPOINT_ID; ERROR.
   */
  amd_dbgapi_status_t (*remove_breakpoint)(amd_dbgapi_client_process_id_t client_process_id,
                                           amd_dbgapi_breakpoint_id_t breakpoint_id);

  /**
   * 6. Read (read_buffer non-NULL) or write (write_buffer non-NULL) *value_size bytes of host
   * process memory at global_address, uncached; *value_size receives the count transferred.
   * Returns SUCCESS; ERROR_INVALID_CLIENT_PROCESS_ID; ERROR_INVALID_ARGUMENT_COMPATIBILITY (not
   * exactly one buffer); ERROR_PROCESS_EXITED; ERROR_MEMORY_ACCESS (nothing transferred,
   * *value_size set to 0). On a core: reads come from the PT_LOAD segments; gpucore never
   * asks for a write.
   */
  amd_dbgapi_status_t (*xfer_global_memory)(amd_dbgapi_client_process_id_t client_process_id,
                                            amd_dbgapi_global_address_t global_address,
                                            amd_dbgapi_size_t *value_size, void *read_buffer,
                                            const void *write_buffer);

  /** 7. Print a library log message (valid only during the call). */
  void (*log_message)(amd_dbgapi_log_level_t level, const char *message);
};

#if defined(__cplusplus)
} /* extern "C" */
#endif

#endif /* AMD_DBGAPI_H */
