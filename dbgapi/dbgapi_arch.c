/* SPDX-License-Identifier: MIT */
/*
 * libgpucore-dbgapi: architectures, instructions, registers, address classes and address
 * spaces. The facts are arch/'s tables (arch.h, arch_regs.h, wave.h, disasm.h); this file
 * gives them handles and the interface's conventions.
 */
#include "dbgapi_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "disasm.h"
#include "wave.h"

/* ---- handles of an architecture's parts ------------------------------------------------------ */

/* AMD's numbering (dbgapi_internal.h): register classes, address classes from 1, address spaces
   from 2 (1 is the global space), each kind counted over the architectures in order. */
const uint64_t gc_dbg_part_first[GC_DBG_PART_COUNT] = { 1, 2, 1 };
const uint32_t gc_dbg_part_count[GC_DBG_PART_COUNT] = { GC_REGCLASS_COUNT, _GC_ASPACE_MAX - 1,
                                                        5 };
const enum gc_aspace gc_dbg_space_order[_GC_ASPACE_MAX - 1] = {
    GC_ASPACE_LOCAL, GC_ASPACE_PRIVATE_LANE, GC_ASPACE_PRIVATE_WAVE, GC_ASPACE_GENERIC,
};

int gc_dbg_space_find(uint64_t id, struct gc_dbg_arch **ret_arch, enum gc_aspace *ret_space)
{
    uint32_t i;

    if (id == AMD_DBGAPI_ADDRESS_SPACE_GLOBAL.handle) {
        *ret_arch = NULL; /* the same handle for every architecture */
        *ret_space = GC_ASPACE_GLOBAL;
        return 1;
    }
    *ret_arch = gc_dbg_part_find(id, GC_DBG_PART_ADDRESS_SPACE, &i);
    if (!*ret_arch)
        return 0;
    *ret_space = gc_dbg_space_order[i];
    return 1;
}

uint64_t gc_dbg_space_id(const struct gc_dbg_arch *a, enum gc_aspace space)
{
    for (uint32_t i = 0; i < GC_ARRAY_SIZE(gc_dbg_space_order); i++)
        if (gc_dbg_space_order[i] == space)
            return gc_dbg_part_id(a, GC_DBG_PART_ADDRESS_SPACE, i);
    return AMD_DBGAPI_ADDRESS_SPACE_GLOBAL.handle;
}

/*
 * A client array of the @p n parts of @p kind of @p a, newest first: AMD's library keeps them
 * in a hash map whose iteration (libstdc++) gives the last created first, and that is the
 * order its lists have (measured for the register classes).
 */
static amd_dbgapi_status_t give_parts(const struct gc_dbg_arch *a, enum gc_dbg_part kind,
                                      size_t *ret_count, void **ret_items)
{
    uint32_t n = gc_dbg_part_count[kind];
    uint64_t *items = gc_dbg_alloc(n * sizeof(uint64_t));

    if (!items)
        return AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK;
    for (uint32_t i = 0; i < n; i++)
        items[i] = gc_dbg_part_id(a, kind, n - 1 - i);
    *ret_items = items;
    *ret_count = n;
    return AMD_DBGAPI_STATUS_SUCCESS;
}

/* ---- architectures --------------------------------------------------------------------------- */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_get_architecture(
        uint32_t elf_amdgpu_machine, amd_dbgapi_architecture_id_t *architecture_id)
{
    const struct gc_arch *arch;
    struct gc_dbg_arch *a;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_get_architecture, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!architecture_id)
        DBG_RETURN(amd_dbgapi_get_architecture, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    arch = gc_arch_by_elf_mach(elf_amdgpu_machine);
    if (!arch || !arch->regs)
        DBG_RETURN(amd_dbgapi_get_architecture,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ELF_AMDGPU_MACHINE);
    a = gc_dbg_arch_get(arch);
    if (!a)
        DBG_RETURN(amd_dbgapi_get_architecture, AMD_DBGAPI_STATUS_FATAL);
    architecture_id->handle = a->id;
    DBG_RETURN(amd_dbgapi_get_architecture, AMD_DBGAPI_STATUS_SUCCESS);
}

/* The index of the register named @p name in the architecture's list (UINT32_MAX if none). */
static uint32_t register_named(const struct gc_dbg_arch *a, const char *name)
{
    for (uint32_t i = 0; i < a->regs.count; i++)
        if (strcmp(a->regs.regs[i].name, name) == 0)
            return i;
    return UINT32_MAX;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_get_info(
        amd_dbgapi_architecture_id_t architecture_id, amd_dbgapi_architecture_info_t query,
        size_t value_size, void *value)
{
    struct gc_dbg_arch *a;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_architecture_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    a = gc_dbg_arch_find(architecture_id.handle);
    if (!a)
        DBG_RETURN(amd_dbgapi_architecture_get_info,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID);
    switch (query) {
    case AMD_DBGAPI_ARCHITECTURE_INFO_NAME:
        st = gc_dbg_give_string(a->arch->name, value_size, value);
        break;
    case AMD_DBGAPI_ARCHITECTURE_INFO_ELF_AMDGPU_MACHINE: {
        uint32_t v = a->arch->elf_mach;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_ARCHITECTURE_INFO_LARGEST_INSTRUCTION_SIZE: {
        amd_dbgapi_size_t v = gc_disasm_largest_insn(a->arch);

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_ARCHITECTURE_INFO_MINIMUM_INSTRUCTION_ALIGNMENT:
    case AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_SIZE:
    case AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION_PC_ADJUST: {
        /* instructions are dword-aligned; the breakpoint is one dword, and a wave stopped
           by it has its PC past it (docs/dbgapi-on-cores.md §8.1) */
        amd_dbgapi_size_t v = 4;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_ARCHITECTURE_INFO_BREAKPOINT_INSTRUCTION: {
        uint8_t bytes[4];
        void *copy;

        if (!value) {
            st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        } else if (value_size != sizeof(void *)) {
            st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
        } else if (gc_disasm_breakpoint(a->arch, bytes) != GPUCORE_OK) {
            st = AMD_DBGAPI_STATUS_FATAL;
        } else if (!(copy = gc_dbg_alloc(sizeof(bytes)))) {
            st = AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK;
        } else {
            memcpy(copy, bytes, sizeof(bytes));
            memcpy(value, &copy, sizeof(copy));
            st = AMD_DBGAPI_STATUS_SUCCESS;
        }
        break;
    }
    case AMD_DBGAPI_ARCHITECTURE_INFO_PC_REGISTER: {
        uint32_t pc = register_named(a, "pc");
        amd_dbgapi_register_id_t v = { pc < a->regs.count ? gc_dbg_register_id(a, pc) : 0 };

        st = GIVE(v);
        break;
    }
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_architecture_get_info, st);
}

/* ---- instructions ---------------------------------------------------------------------------- */

/* Checks shared by disassemble and classify. */
static amd_dbgapi_status_t insn_args(amd_dbgapi_architecture_id_t architecture_id,
                                     amd_dbgapi_global_address_t address,
                                     const amd_dbgapi_size_t *size, const void *memory,
                                     struct gc_dbg_arch **ret)
{
    if (!gc_dbg.initialized)
        return AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED;
    *ret = gc_dbg_arch_find(architecture_id.handle);
    if (!*ret)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID;
    if (!size || !memory || *size == 0 || address % 4)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    return AMD_DBGAPI_STATUS_SUCCESS;
}

/* The disassembler module could not be loaded and the client was told why (once a process:
   the module is tried once a process too, disasm_module.h). */
static int disasm_missing_logged;

/*
 * arch/'s failure as the interface's. Without the disassembler module (gpucore-disasm.so,
 * arch/disasm_module.h: missing, refused or of another gpucore) the instruction functions
 * answer ERROR, the status AMD's library gives when its own disassembler fails, and the reason
 * is logged at WARNING the first time only; everything else of the library works without it.
 */
static amd_dbgapi_status_t insn_failure(const struct gc_dbg_arch *a, gpucore_status_t st,
                                        const gpucore_diag_t *d)
{
    gpucore_diag_t why = { 0 };

    if (st == GPUCORE_E_CORRUPT)
        return AMD_DBGAPI_STATUS_ERROR_ILLEGAL_INSTRUCTION;
    /* gc_disasm_load() only repeats a remembered failure: it never retries the module */
    if (st == GPUCORE_E_NOTSUP && gc_disasm_load(&why) != GPUCORE_OK) {
        if (!disasm_missing_logged)
            gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING,
                       "no instruction can be disassembled in this process: %s", why.message);
        disasm_missing_logged = 1;
        return AMD_DBGAPI_STATUS_ERROR;
    }
    gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING, "%s: %s", a->arch->name,
               d->message[0] ? d->message : gpucore_strerror(st));
    return AMD_DBGAPI_STATUS_ERROR;
}

/*
 * The branch-target comment AMD's library appends to an instruction's text: "  # " and, for the
 * address operand (gc_disasm_branch_target), the symbolizer's text when it knows the address,
 * else the address as "%#" PRIx64 (so "0" for address 0). Into *ret (gc_dbg_alloc'ed, with the
 * instruction's text before it).
 */
static amd_dbgapi_status_t with_branch_comment(
        const char *text, uint64_t target, amd_dbgapi_symbolizer_id_t symbolizer_id,
        amd_dbgapi_status_t (*symbolizer)(amd_dbgapi_symbolizer_id_t, amd_dbgapi_global_address_t,
                                          char **),
        char **ret)
{
    char addr[24], *sym = NULL, *copy;
    const char *operand = addr;
    size_t tl = strlen(text), ol;

    snprintf(addr, sizeof(addr), "%#" PRIx64, target);
    if (symbolizer) {
        amd_dbgapi_status_t st = symbolizer(symbolizer_id, target, &sym);

        if (st == AMD_DBGAPI_STATUS_SUCCESS) {
            if (!sym)
                return AMD_DBGAPI_STATUS_ERROR;
            if (!sym[0]) {
                gc_dbg.cb->deallocate_memory(sym);
                return AMD_DBGAPI_STATUS_ERROR;
            }
            operand = sym;
        } else if (st != AMD_DBGAPI_STATUS_ERROR_SYMBOL_NOT_FOUND) {
            return AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK;
        }
    }
    ol = strlen(operand);
    copy = gc_dbg_alloc(tl + 4 + ol + 1);
    if (copy) {
        memcpy(copy, text, tl);
        memcpy(copy + tl, "  # ", 4);
        memcpy(copy + tl + 4, operand, ol + 1);
    }
    if (sym)
        gc_dbg.cb->deallocate_memory(sym);
    if (!copy)
        return AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK;
    *ret = copy;
    return AMD_DBGAPI_STATUS_SUCCESS;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_disassemble_instruction(
        amd_dbgapi_architecture_id_t architecture_id, amd_dbgapi_global_address_t address,
        amd_dbgapi_size_t *size, const void *memory, char **instruction_text,
        amd_dbgapi_symbolizer_id_t symbolizer_id,
        amd_dbgapi_status_t (*symbolizer)(amd_dbgapi_symbolizer_id_t symbolizer_id,
                                          amd_dbgapi_global_address_t address,
                                          char **symbol_text))
{
    struct gc_dbg_arch *a = NULL;
    char text[GC_DISASM_TEXT_MAX];
    uint32_t insn_size = 0;
    uint64_t target;
    gpucore_diag_t d = { 0 };
    amd_dbgapi_status_t st;
    gpucore_status_t gst;

    st = insn_args(architecture_id, address, size, memory, &a);
    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        DBG_RETURN(amd_dbgapi_disassemble_instruction, st);
    gst = gc_disasm_insn(a->arch, memory, *size, address, NULL, text, sizeof(text), &insn_size,
                         &d);
    if (gst != GPUCORE_OK)
        DBG_RETURN(amd_dbgapi_disassemble_instruction, insn_failure(a, gst, &d));
    if (instruction_text) {
        char *copy = NULL;

        if (gc_disasm_branch_target(a->arch, memory, *size, address, &target)) {
            st = with_branch_comment(text, target, symbolizer_id, symbolizer, &copy);
            if (st != AMD_DBGAPI_STATUS_SUCCESS)
                DBG_RETURN(amd_dbgapi_disassemble_instruction, st);
        } else {
            size_t len = strlen(text) + 1;

            copy = gc_dbg_alloc(len);
            if (!copy)
                DBG_RETURN(amd_dbgapi_disassemble_instruction,
                           AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK);
            memcpy(copy, text, len);
        }
        *instruction_text = copy;
    }
    *size = insn_size;
    DBG_RETURN(amd_dbgapi_disassemble_instruction, AMD_DBGAPI_STATUS_SUCCESS);
}

/*
 * A scalar operand code of a classified instruction (disasm.h: 0..105 s<n>, 108..123
 * ttmp<n>) as a register of the architecture's list; UINT32_MAX when the list has none by that
 * name (vcc_lo, exec_hi: amd-dbgapi lists only the whole registers).
 */
static uint32_t operand_register(const struct gc_dbg_arch *a, uint32_t code)
{
    char name[16];

    if (code < a->arch->sgprs)
        snprintf(name, sizeof(name), "s%u", code);
    else if (code >= 108 && code <= 123)
        snprintf(name, sizeof(name), "ttmp%u", code - 108);
    else
        return UINT32_MAX;
    /* the first register of that name: the architectural SGPR, not its shadow */
    return register_named(a, name);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_classify_instruction(
        amd_dbgapi_architecture_id_t architecture_id, amd_dbgapi_global_address_t address,
        amd_dbgapi_size_t *size, const void *memory, amd_dbgapi_instruction_kind_t *instruction_kind,
        amd_dbgapi_instruction_properties_t *instruction_properties, void **instruction_information)
{
    struct gc_dbg_arch *a = NULL;
    struct gc_disasm_class cls;
    gpucore_diag_t d = { 0 };
    uint64_t info[4];
    size_t info_size = 0;
    amd_dbgapi_status_t st;
    gpucore_status_t gst;

    st = insn_args(architecture_id, address, size, memory, &a);
    if (st == AMD_DBGAPI_STATUS_SUCCESS && !instruction_kind)
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    if (st != AMD_DBGAPI_STATUS_SUCCESS)
        DBG_RETURN(amd_dbgapi_classify_instruction, st);
    gst = gc_disasm_classify(a->arch, memory, *size, address, &cls, &d);
    if (gst != GPUCORE_OK)
        DBG_RETURN(amd_dbgapi_classify_instruction, insn_failure(a, gst, &d));
    /* The information of each kind (amd-dbgapi.h, amd_dbgapi_instruction_kind_t): a target
       or trap code, then the register pairs a call or indirect branch uses. */
    switch (cls.kind) {
    case GC_INSN_DIRECT_BRANCH:
    case GC_INSN_DIRECT_BRANCH_CONDITIONAL:
    case GC_INSN_DIRECT_CALL_REGISTER_PAIR:
        info[0] = cls.target;
        info_size = 8;
        break;
    case GC_INSN_TRAP:
        info[0] = cls.trap_code;
        info_size = 8;
        break;
    default:
        break;
    }
    if (cls.kind == GC_INSN_DIRECT_CALL_REGISTER_PAIR ||
        cls.kind == GC_INSN_INDIRECT_BRANCH_REGISTER_PAIR ||
        cls.kind == GC_INSN_INDIRECT_BRANCH_CONDITIONAL_REGISTER_PAIR ||
        cls.kind == GC_INSN_INDIRECT_CALL_REGISTER_PAIRS) {
        for (uint32_t i = 0; i < cls.nregs; i++) {
            uint32_t r = operand_register(a, cls.regs[i]);

            if (info_size / 8 >= GC_ARRAY_SIZE(info))
                DBG_RETURN(amd_dbgapi_classify_instruction, AMD_DBGAPI_STATUS_ERROR);
            if (r == UINT32_MAX) {
                gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_WARNING,
                           "%s: the instruction at 0x%" PRIx64 " uses scalar operand %u, which "
                           "is not a register of the architecture's list",
                           a->arch->name, address, cls.regs[i]);
                DBG_RETURN(amd_dbgapi_classify_instruction, AMD_DBGAPI_STATUS_ERROR);
            }
            info[info_size / 8] = gc_dbg_register_id(a, r);
            info_size += 8;
        }
    }
    if (instruction_information) {
        void *copy = NULL;

        if (info_size) {
            copy = gc_dbg_alloc(info_size);
            if (!copy)
                DBG_RETURN(amd_dbgapi_classify_instruction,
                           AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK);
            memcpy(copy, info, info_size);
        }
        *instruction_information = copy;
    }
    if (instruction_properties)
        *instruction_properties = AMD_DBGAPI_INSTRUCTION_PROPERTY_NONE;
    *instruction_kind = (amd_dbgapi_instruction_kind_t)cls.kind;
    *size = cls.size;
    DBG_RETURN(amd_dbgapi_classify_instruction, AMD_DBGAPI_STATUS_SUCCESS);
}

/* ---- register classes ------------------------------------------------------------------------ */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_register_class_get_info(
        amd_dbgapi_register_class_id_t register_class_id, amd_dbgapi_register_class_info_t query,
        size_t value_size, void *value)
{
    struct gc_dbg_arch *a;
    uint32_t i;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_architecture_register_class_get_info,
                   AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    a = gc_dbg_part_find(register_class_id.handle, GC_DBG_PART_REGISTER_CLASS, &i);
    if (!a)
        DBG_RETURN(amd_dbgapi_architecture_register_class_get_info,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_CLASS_ID);
    switch (query) {
    case AMD_DBGAPI_REGISTER_CLASS_INFO_ARCHITECTURE: {
        amd_dbgapi_architecture_id_t v = { a->id };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_REGISTER_CLASS_INFO_NAME:
        st = gc_dbg_give_string(gc_reg_class_name(1u << i), value_size, value);
        break;
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_architecture_register_class_get_info, st);
}

/* The architecture of a list call, or the failure to return. */
static amd_dbgapi_status_t list_arch(amd_dbgapi_architecture_id_t id, const void *count,
                                     const void *items, struct gc_dbg_arch **ret)
{
    if (!gc_dbg.initialized)
        return AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED;
    *ret = gc_dbg_arch_find(id.handle);
    if (!*ret)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID;
    if (!count || !items)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    return AMD_DBGAPI_STATUS_SUCCESS;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_register_class_list(
        amd_dbgapi_architecture_id_t architecture_id, size_t *register_class_count,
        amd_dbgapi_register_class_id_t **register_classes)
{
    struct gc_dbg_arch *a = NULL;
    amd_dbgapi_status_t st = list_arch(architecture_id, register_class_count, register_classes,
                                       &a);

    if (st == AMD_DBGAPI_STATUS_SUCCESS)
        st = give_parts(a, GC_DBG_PART_REGISTER_CLASS, register_class_count,
                        (void **)register_classes);
    DBG_RETURN(amd_dbgapi_architecture_register_class_list, st);
}

/* ---- registers ------------------------------------------------------------------------------- */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_register_list(
        amd_dbgapi_architecture_id_t architecture_id, size_t *register_count,
        amd_dbgapi_register_id_t **registers)
{
    struct gc_dbg_arch *a = NULL;
    amd_dbgapi_status_t st = list_arch(architecture_id, register_count, registers, &a);

    if (st == AMD_DBGAPI_STATUS_SUCCESS) {
        uint64_t *items = gc_dbg_alloc(a->regs.count * sizeof(uint64_t));

        if (a->regs.count && !items) {
            st = AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK;
        } else {
            for (uint32_t i = 0; i < a->regs.count; i++)
                items[i] = gc_dbg_register_id(a, i);
            *registers = (amd_dbgapi_register_id_t *)items;
            *register_count = a->regs.count;
        }
    }
    DBG_RETURN(amd_dbgapi_architecture_register_list, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_register_get_info(amd_dbgapi_register_id_t register_id,
                                                            amd_dbgapi_register_info_t query,
                                                            size_t value_size, void *value)
{
    struct gc_dbg_arch *a;
    const struct gc_reg *r;
    uint32_t i;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_register_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    a = gc_dbg_register_find(register_id.handle, &i);
    if (!a)
        DBG_RETURN(amd_dbgapi_register_get_info, AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_ID);
    r = &a->regs.regs[i];
    switch (query) {
    case AMD_DBGAPI_REGISTER_INFO_ARCHITECTURE: {
        amd_dbgapi_architecture_id_t v = { a->id };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_REGISTER_INFO_NAME:
        st = gc_dbg_give_string(r->name, value_size, value);
        break;
    case AMD_DBGAPI_REGISTER_INFO_SIZE: {
        amd_dbgapi_size_t v = r->size;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_REGISTER_INFO_TYPE: {
        char type[2048];

        if (gc_reg_type(r, type, sizeof(type)) >= sizeof(type))
            st = AMD_DBGAPI_STATUS_FATAL; /* a table bug: the test of every type rules it out */
        else
            st = gc_dbg_give_string(type, value_size, value);
        break;
    }
    case AMD_DBGAPI_REGISTER_INFO_DWARF:
        if (r->dwarf < 0) {
            st = value ? AMD_DBGAPI_STATUS_ERROR_NOT_AVAILABLE
                       : AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        } else {
            uint64_t v = (uint64_t)r->dwarf;

            st = GIVE(v);
        }
        break;
    case AMD_DBGAPI_REGISTER_INFO_PROPERTIES: {
        uint32_t v = gc_reg_properties(r);

        st = GIVE(v);
        break;
    }
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_register_get_info, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_dwarf_register_to_register(
        amd_dbgapi_architecture_id_t architecture_id, uint64_t dwarf_register,
        amd_dbgapi_register_id_t *register_id)
{
    struct gc_dbg_arch *a;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_dwarf_register_to_register, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    a = gc_dbg_arch_find(architecture_id.handle);
    if (!a)
        DBG_RETURN(amd_dbgapi_dwarf_register_to_register,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID);
    if (!register_id)
        DBG_RETURN(amd_dbgapi_dwarf_register_to_register, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    for (uint32_t i = 0; dwarf_register <= INT32_MAX && i < a->regs.count; i++) {
        if (a->regs.regs[i].dwarf == (int32_t)dwarf_register) {
            register_id->handle = gc_dbg_register_id(a, i);
            DBG_RETURN(amd_dbgapi_dwarf_register_to_register, AMD_DBGAPI_STATUS_SUCCESS);
        }
    }
    DBG_RETURN(amd_dbgapi_dwarf_register_to_register,
               AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_register_is_in_register_class(
        amd_dbgapi_register_class_id_t register_class_id, amd_dbgapi_register_id_t register_id,
        amd_dbgapi_register_class_state_t *register_class_state)
{
    struct gc_dbg_arch *ra, *ca;
    uint32_t r, c;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_register_is_in_register_class,
                   AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    ra = gc_dbg_register_find(register_id.handle, &r);
    if (!ra)
        DBG_RETURN(amd_dbgapi_register_is_in_register_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_ID);
    ca = gc_dbg_part_find(register_class_id.handle, GC_DBG_PART_REGISTER_CLASS, &c);
    if (!ca)
        DBG_RETURN(amd_dbgapi_register_is_in_register_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_CLASS_ID);
    if (!register_class_state)
        DBG_RETURN(amd_dbgapi_register_is_in_register_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    if (ra != ca)
        DBG_RETURN(amd_dbgapi_register_is_in_register_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY);
    *register_class_state = (ra->regs.regs[r].classes & (1u << c))
                                    ? AMD_DBGAPI_REGISTER_CLASS_STATE_MEMBER
                                    : AMD_DBGAPI_REGISTER_CLASS_STATE_NOT_MEMBER;
    DBG_RETURN(amd_dbgapi_register_is_in_register_class, AMD_DBGAPI_STATUS_SUCCESS);
}

/* ---- a wave's registers ---------------------------------------------------------------------- */

/* What the register functions of a wave share: the wave, the register, and whether the wave
   has it. */
struct wave_reg {
    struct gc_dbg_process *p;
    uint32_t slot;
    struct gc_dbg_arch *a;
    const struct gc_reg *arch_reg; /* in the architecture's list */
    const struct gc_reg *reg;      /* in the wave's list, NULL if the wave does not have it */
};

/*
 * Resolve a (wave, register) pair. Returns SUCCESS, NOT_INITIALIZED, INVALID_WAVE_ID,
 * INVALID_REGISTER_ID, WAVE_NOT_STOPPED (with @p need_stop), INVALID_ARGUMENT_COMPATIBILITY
 * (another architecture's register) or FATAL (no memory for the wave's list).
 */
static amd_dbgapi_status_t wave_reg(amd_dbgapi_wave_id_t wave_id,
                                    amd_dbgapi_register_id_t register_id, int need_stop,
                                    struct wave_reg *ret)
{
    const struct gc_dbg_shape *list;
    uint32_t r;

    if (!gc_dbg.initialized)
        return AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED;
    ret->p = GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &ret->slot);
    if (!ret->p)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID;
    ret->a = gc_dbg_register_find(register_id.handle, &r);
    if (!ret->a)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_REGISTER_ID;
    if (need_stop && !ret->p->waves[ret->slot].visible_stop)
        return AMD_DBGAPI_STATUS_ERROR_WAVE_NOT_STOPPED;
    if (ret->a->arch != gc_dbg_wave_agent(ret->p, ret->slot)->arch)
        return AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    ret->arch_reg = &ret->a->regs.regs[r];
    list = gc_dbg_wave_regs(ret->p, ret->slot);
    if (!list)
        return AMD_DBGAPI_STATUS_FATAL;
    /* the shape's map from the architecture's list to the wave's: no search */
    ret->reg = list->at[r] == UINT32_MAX ? NULL : &list->regs.regs[list->at[r]];
    return AMD_DBGAPI_STATUS_SUCCESS;
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_register_exists(
        amd_dbgapi_wave_id_t wave_id, amd_dbgapi_register_id_t register_id,
        amd_dbgapi_register_exists_t *exists)
{
    struct wave_reg wr;
    amd_dbgapi_status_t st = wave_reg(wave_id, register_id, 0, &wr);

    if (st == AMD_DBGAPI_STATUS_SUCCESS && !exists)
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    if (st == AMD_DBGAPI_STATUS_SUCCESS)
        *exists = wr.reg ? AMD_DBGAPI_REGISTER_PRESENT : AMD_DBGAPI_REGISTER_ABSENT;
    DBG_RETURN(amd_dbgapi_wave_register_exists, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_wave_register_list(amd_dbgapi_wave_id_t wave_id,
                                                             size_t *register_count,
                                                             amd_dbgapi_register_id_t **registers)
{
    struct gc_dbg_process *p;
    const struct gc_dbg_shape *list;
    uint64_t *items;
    uint32_t slot, at;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_wave_register_list, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    p = GC_DBG_FIND(wave_id.handle, wave_base, nwaves, &slot);
    if (!p)
        DBG_RETURN(amd_dbgapi_wave_register_list, AMD_DBGAPI_STATUS_ERROR_INVALID_WAVE_ID);
    if (!register_count || !registers)
        DBG_RETURN(amd_dbgapi_wave_register_list, AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    list = gc_dbg_wave_regs(p, slot);
    if (!list)
        DBG_RETURN(amd_dbgapi_wave_register_list, AMD_DBGAPI_STATUS_FATAL);
    items = gc_dbg_alloc(list->regs.count * sizeof(uint64_t));
    if (list->regs.count && !items)
        DBG_RETURN(amd_dbgapi_wave_register_list, AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK);
    /* the shape's map gives each of the wave's registers its place in the architecture's */
    at = 0;
    for (size_t k = 0; k < list->regs.count && at < list->arch->regs.count; at++)
        if (list->at[at] != UINT32_MAX)
            items[k++] = gc_dbg_register_id(list->arch, at);
    *registers = (amd_dbgapi_register_id_t *)items;
    *register_count = list->regs.count;
    DBG_RETURN(amd_dbgapi_wave_register_list, AMD_DBGAPI_STATUS_SUCCESS);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_read_register(amd_dbgapi_wave_id_t wave_id,
                                                        amd_dbgapi_register_id_t register_id,
                                                        amd_dbgapi_size_t offset,
                                                        amd_dbgapi_size_t value_size, void *value)
{
    struct wave_reg wr;
    amd_dbgapi_status_t st = wave_reg(wave_id, register_id, 1, &wr);

    if (st == AMD_DBGAPI_STATUS_SUCCESS && (!value || value_size == 0))
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    if (st == AMD_DBGAPI_STATUS_SUCCESS && !wr.reg)
        st = AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE;
    if (st == AMD_DBGAPI_STATUS_SUCCESS &&
        (offset > wr.reg->size || value_size > wr.reg->size - offset))
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    if (st == AMD_DBGAPI_STATUS_SUCCESS) {
        const struct gc_wave *w = gc_dbg_wave_served(wr.p, wr.slot);

        if (!w)
            st = AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE; /* the client's memory no
                                                                    longer gives the saved
                                                                    registers (logged) */
        else if (gc_reg_read(gc_dbg_wave_agent(wr.p, wr.slot)->arch, w,
                             gc_image_r_version(wr.p->img), wr.reg, offset, value,
                             (size_t)value_size) != GPUCORE_OK)
            st = AMD_DBGAPI_STATUS_FATAL; /* the list said the wave has it: a library bug */
    }
    DBG_RETURN(amd_dbgapi_read_register, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_write_register(amd_dbgapi_wave_id_t wave_id,
                                                         amd_dbgapi_register_id_t register_id,
                                                         amd_dbgapi_size_t offset,
                                                         amd_dbgapi_size_t value_size,
                                                         const void *value)
{
    struct wave_reg wr;
    amd_dbgapi_status_t st = wave_reg(wave_id, register_id, 1, &wr);

    if (st == AMD_DBGAPI_STATUS_SUCCESS && (!value || value_size == 0))
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
    if (st == AMD_DBGAPI_STATUS_SUCCESS && !wr.reg)
        st = AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE;
    if (st == AMD_DBGAPI_STATUS_SUCCESS &&
        (offset > wr.reg->size || value_size > wr.reg->size - offset))
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY;
    if (st == AMD_DBGAPI_STATUS_SUCCESS) {
        /* A core is a snapshot: nothing in it changes, and nothing is written anywhere. */
        gc_dbg_log(AMD_DBGAPI_LOG_LEVEL_INFO, "the registers of a core cannot be written");
        st = AMD_DBGAPI_STATUS_ERROR_PROCESS_FROZEN;
    }
    DBG_RETURN(amd_dbgapi_write_register, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_prefetch_register(amd_dbgapi_wave_id_t wave_id,
                                                            amd_dbgapi_register_id_t register_id,
                                                            amd_dbgapi_size_t register_count)
{
    struct wave_reg wr;
    amd_dbgapi_status_t st = wave_reg(wave_id, register_id, 1, &wr);

    (void)register_count; /* the whole wave was decoded at attach: nothing to fetch */
    if (st == AMD_DBGAPI_STATUS_SUCCESS && !wr.reg)
        st = AMD_DBGAPI_STATUS_ERROR_REGISTER_NOT_AVAILABLE;
    DBG_RETURN(amd_dbgapi_prefetch_register, st);
}

/* ---- address classes ------------------------------------------------------------------------- */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_address_class_get_info(
        amd_dbgapi_address_class_id_t address_class_id, amd_dbgapi_address_class_info_t query,
        size_t value_size, void *value)
{
    const struct gc_address_class *classes;
    struct gc_dbg_arch *a;
    size_t n = 0;
    uint32_t i;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_address_class_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    a = gc_dbg_part_find(address_class_id.handle, GC_DBG_PART_ADDRESS_CLASS, &i);
    if (!a)
        DBG_RETURN(amd_dbgapi_address_class_get_info,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_CLASS_ID);
    classes = gc_address_classes(&n);
    if (i >= n)
        DBG_RETURN(amd_dbgapi_address_class_get_info,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_CLASS_ID);
    switch (query) {
    case AMD_DBGAPI_ADDRESS_CLASS_INFO_NAME:
        st = gc_dbg_give_string(classes[i].name, value_size, value);
        break;
    case AMD_DBGAPI_ADDRESS_CLASS_INFO_ADDRESS_SPACE: {
        amd_dbgapi_address_space_id_t v = { gc_dbg_space_id(a, classes[i].space) };

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_ADDRESS_CLASS_INFO_DWARF: {
        uint64_t v = classes[i].dwarf;

        st = GIVE(v);
        break;
    }
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_address_class_get_info, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_address_class_list(
        amd_dbgapi_architecture_id_t architecture_id, size_t *address_class_count,
        amd_dbgapi_address_class_id_t **address_classes)
{
    struct gc_dbg_arch *a = NULL;
    amd_dbgapi_status_t st = list_arch(architecture_id, address_class_count, address_classes,
                                       &a);

    if (st == AMD_DBGAPI_STATUS_SUCCESS)
        st = give_parts(a, GC_DBG_PART_ADDRESS_CLASS, address_class_count,
                        (void **)address_classes);
    DBG_RETURN(amd_dbgapi_architecture_address_class_list, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_dwarf_address_class_to_address_class(
        amd_dbgapi_architecture_id_t architecture_id, uint64_t dwarf_address_class,
        amd_dbgapi_address_class_id_t *address_class_id)
{
    const struct gc_address_class *classes;
    struct gc_dbg_arch *a;
    size_t n = 0;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_dwarf_address_class_to_address_class,
                   AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    a = gc_dbg_arch_find(architecture_id.handle);
    if (!a)
        DBG_RETURN(amd_dbgapi_dwarf_address_class_to_address_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID);
    if (!address_class_id)
        DBG_RETURN(amd_dbgapi_dwarf_address_class_to_address_class,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    classes = gc_address_classes(&n);
    for (size_t i = 0; i < n; i++) {
        if (classes[i].dwarf == dwarf_address_class) {
            address_class_id->handle = gc_dbg_part_id(a, GC_DBG_PART_ADDRESS_CLASS, (uint32_t)i);
            DBG_RETURN(amd_dbgapi_dwarf_address_class_to_address_class,
                       AMD_DBGAPI_STATUS_SUCCESS);
        }
    }
    DBG_RETURN(amd_dbgapi_dwarf_address_class_to_address_class,
               AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY);
}

/* ---- address spaces -------------------------------------------------------------------------- */

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_address_space_get_info(
        amd_dbgapi_address_space_id_t address_space_id, amd_dbgapi_address_space_info_t query,
        size_t value_size, void *value)
{
    const struct gc_address_space *spaces;
    struct gc_dbg_arch *a;
    enum gc_aspace s;
    size_t n = 0;
    amd_dbgapi_status_t st;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_address_space_get_info, AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    if (!gc_dbg_space_find(address_space_id.handle, &a, &s))
        DBG_RETURN(amd_dbgapi_address_space_get_info,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ADDRESS_SPACE_ID);
    spaces = gc_address_spaces(&n);
    switch (query) {
    case AMD_DBGAPI_ADDRESS_SPACE_INFO_NAME:
        st = gc_dbg_give_string(spaces[s].name, value_size, value);
        break;
    case AMD_DBGAPI_ADDRESS_SPACE_INFO_ADDRESS_SIZE: {
        amd_dbgapi_size_t v = spaces[s].address_bits; /* bits, as AMD's 0.77 answers */

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_ADDRESS_SPACE_INFO_NULL_ADDRESS: {
        amd_dbgapi_segment_address_t v = spaces[s].null_address;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_ADDRESS_SPACE_INFO_ACCESS: {
        uint32_t v = AMD_DBGAPI_ADDRESS_SPACE_ACCESS_ALL;

        st = GIVE(v);
        break;
    }
    case AMD_DBGAPI_ADDRESS_SPACE_INFO_DWARF: {
        uint64_t v = spaces[s].dwarf;

        st = GIVE(v);
        break;
    }
    default:
        st = AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT;
        break;
    }
    DBG_RETURN(amd_dbgapi_address_space_get_info, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_architecture_address_space_list(
        amd_dbgapi_architecture_id_t architecture_id, size_t *address_space_count,
        amd_dbgapi_address_space_id_t **address_spaces)
{
    struct gc_dbg_arch *a = NULL;
    amd_dbgapi_status_t st = list_arch(architecture_id, address_space_count, address_spaces,
                                       &a);

    if (st == AMD_DBGAPI_STATUS_SUCCESS) {
        uint64_t *items = gc_dbg_alloc(_GC_ASPACE_MAX * sizeof(uint64_t));

        if (!items) {
            st = AMD_DBGAPI_STATUS_ERROR_CLIENT_CALLBACK;
        } else {
            /* the global space first, then the architecture's, newest first (give_parts) */
            items[0] = AMD_DBGAPI_ADDRESS_SPACE_GLOBAL.handle;
            for (uint32_t i = 1; i < _GC_ASPACE_MAX; i++)
                items[i] = gc_dbg_part_id(a, GC_DBG_PART_ADDRESS_SPACE, _GC_ASPACE_MAX - 1 - i);
            *address_spaces = (amd_dbgapi_address_space_id_t *)items;
            *address_space_count = _GC_ASPACE_MAX;
        }
    }
    DBG_RETURN(amd_dbgapi_architecture_address_space_list, st);
}

amd_dbgapi_status_t AMD_DBGAPI amd_dbgapi_dwarf_address_space_to_address_space(
        amd_dbgapi_architecture_id_t architecture_id, uint64_t dwarf_address_space,
        amd_dbgapi_address_space_id_t *address_space_id)
{
    const struct gc_address_space *s;
    struct gc_dbg_arch *a;

    if (!gc_dbg.initialized)
        DBG_RETURN(amd_dbgapi_dwarf_address_space_to_address_space,
                   AMD_DBGAPI_STATUS_ERROR_NOT_INITIALIZED);
    a = gc_dbg_arch_find(architecture_id.handle);
    if (!a)
        DBG_RETURN(amd_dbgapi_dwarf_address_space_to_address_space,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARCHITECTURE_ID);
    if (!address_space_id)
        DBG_RETURN(amd_dbgapi_dwarf_address_space_to_address_space,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT);
    s = dwarf_address_space <= UINT32_MAX ? gc_address_space_by_dwarf((uint32_t)dwarf_address_space)
                                          : NULL;
    if (!s)
        DBG_RETURN(amd_dbgapi_dwarf_address_space_to_address_space,
                   AMD_DBGAPI_STATUS_ERROR_INVALID_ARGUMENT_COMPATIBILITY);
    address_space_id->handle = gc_dbg_space_id(a, s->id);
    DBG_RETURN(amd_dbgapi_dwarf_address_space_to_address_space, AMD_DBGAPI_STATUS_SUCCESS);
}
