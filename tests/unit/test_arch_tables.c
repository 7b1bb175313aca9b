/* SPDX-License-Identifier: MIT */
/*
 * test_arch_tables: the arch/ tables (targets, TTMP, hardware-register and register-set rows)
 * and the per-wave functions built on them. This file holds the table invariants (G-ARCH-3)
 * and main(); test_arch_wave.c and test_arch_regs.c hold the behaviour tests.
 *
 * Waves are built by hand (test_arch_wave.c's tw_* helpers): one record buffer laid out in the
 * block order of docs/cwsr-layout.md §7.1, so the tests do not depend on the CWSR encoder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <gpucore/schema.h>

#include "arch.h"
#include "arch_regs.h"
#include "cwsr.h"
#include "gc_le.h"
#include "wave.h"

int test_arch_tables_run(void);
int test_arch_wave_run(void);
int test_arch_regs_run(void);

/* Hand-built waves (test_arch_wave.c). */
struct gc_wave *tw_new(uint32_t lanes, uint32_t vgprs, uint32_t accvgprs, uint32_t shared,
                       uint32_t sgprs, uint32_t lds, int first_wave);
void tw_free(struct gc_wave *w);
uint8_t *tw_rec(const struct gc_wave *w);
void tw_pattern(struct gc_wave *w, uint32_t seed);

#define NROWS (gc_arch_count())

/* ------------------------------------------------------------------------------------------ */
/* Target rows                                                                                 */
/* ------------------------------------------------------------------------------------------ */

static void test_rows_unique(void **state)
{
    (void)state;
    assert_true(NROWS >= 18);
    assert_null(gc_arch_table[NROWS].name); /* the terminator */
    for (size_t i = 0; i < NROWS; i++) {
        const struct gc_arch *a = &gc_arch_table[i];

        assert_non_null(a->name);
        for (size_t j = 0; j < i; j++) {
            const struct gc_arch *b = &gc_arch_table[j];

            assert_string_not_equal(a->name, b->name);
            assert_int_not_equal(a->gfx_target_version, b->gfx_target_version);
            assert_int_not_equal(a->elf_mach, b->elf_mach);
        }
    }
}

static void test_rows_complete(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        const struct gc_arch *a = &gc_arch_table[i];

        print_message("  %s\n", a->name);
        /* Every family pointer is set: nothing downstream tests for NULL rows. */
        assert_non_null(a->cwsr);
        assert_non_null(a->ttmp);
        assert_non_null(a->hwreg);
        assert_non_null(a->regs);
        assert_true(a->family == GC_FAMILY_GFX9 || a->family == GC_FAMILY_GFX10 ||
                    a->family == GC_FAMILY_GFX11 || a->family == GC_FAMILY_GFX12);
        assert_int_equal(a->gfx_target_version / 10000, a->family);
        assert_true(a->wave_sizes != 0 && (a->wave_sizes & ~(GC_WAVE32 | GC_WAVE64)) == 0);
        assert_true((a->default_wave_size == 64 && (a->wave_sizes & GC_WAVE64)) ||
                    (a->default_wave_size == 32 && (a->wave_sizes & GC_WAVE32)));
        assert_true(a->sgprs == 102 || a->sgprs == 106);
        assert_int_equal(a->max_vgprs, 256);
        assert_true(a->max_accvgprs == 0 || a->max_accvgprs == 256);
        assert_true(a->lds_bytes >= 65536);
        assert_true(a->parks_stopped_waves <= 2);
        assert_true(a->architected_flat_scratch <= 1);
        assert_int_equal(a->watchpoints, 4);
        /* A family that parks must have somewhere to keep the parked PC. */
        if (a->parks_stopped_waves) {
            assert_true(gc_bf_present(a->ttmp->parked_pc_lo.bits));
            assert_true(gc_bf_present(a->ttmp->parked_pc_hi.bits));
        }
        /* AccVGPRs exist exactly where the register set presents a[]. */
        assert_int_equal(a->max_accvgprs != 0, a->regs->descs[1].kind == GC_REGK_ACCVGPR);
    }
}

/* The ELF machine values of the rows, spelled out: LLVM's ELF.h (and docs/dbgapi-on-cores.md §8.1
   for the values AMD's library reports). */
static void test_rows_elf_mach(void **state)
{
    static const struct {
        const char *name;
        uint32_t mach;
        uint32_t version;
    } expect[] = {
        { "gfx900", 0x2c, 90000 },   { "gfx906", 0x2f, 90006 },   { "gfx908", 0x30, 90008 },
        { "gfx90a", 0x3f, 90010 },   { "gfx940", 0x40, 90400 },   { "gfx941", 0x4b, 90401 },
        { "gfx942", 0x4c, 90402 },   { "gfx1010", 0x33, 100100 }, { "gfx1011", 0x34, 100101 },
        { "gfx1012", 0x35, 100102 }, { "gfx1030", 0x36, 100300 }, { "gfx1031", 0x37, 100301 },
        { "gfx1032", 0x38, 100302 }, { "gfx1100", 0x41, 110000 }, { "gfx1101", 0x46, 110001 },
        { "gfx1102", 0x47, 110002 }, { "gfx1200", 0x48, 120000 }, { "gfx1201", 0x4e, 120001 },
    };

    (void)state;
    assert_int_equal(NROWS, sizeof(expect) / sizeof(expect[0]));
    for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
        const struct gc_arch *a = gc_arch_by_name(expect[i].name);

        assert_non_null(a);
        assert_int_equal(a->elf_mach, expect[i].mach);
        assert_int_equal(a->gfx_target_version, expect[i].version);
    }
}

/* CPU names `llc -march=amdgcn -mcpu=help` of LLVM 16 lists for the families gpucore knows. */
static const char *const llvm16_cpus[] = {
    "gfx900",  "gfx902",  "gfx904",  "gfx906",  "gfx908",  "gfx909",  "gfx90a",  "gfx90c",
    "gfx940",  "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032",
    "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103",
};

static void test_rows_llvm_cpu(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        const struct gc_arch *a = &gc_arch_table[i];
        int known = 0;

        if (a->family == GC_FAMILY_GFX12) {
            assert_null(a->llvm_cpu); /* LLVM 16 has no gfx12 processor */
            continue;
        }
        assert_non_null(a->llvm_cpu);
        for (size_t j = 0; j < sizeof(llvm16_cpus) / sizeof(llvm16_cpus[0]); j++)
            known |= strcmp(a->llvm_cpu, llvm16_cpus[j]) == 0;
        assert_true(known);
        /* Each target disassembles as itself, except the gfx940 line (one ISA, one name). */
        if (strcmp(a->name, "gfx941") == 0 || strcmp(a->name, "gfx942") == 0)
            assert_string_equal(a->llvm_cpu, "gfx940");
        else
            assert_string_equal(a->llvm_cpu, a->name);
    }
}

/* The schema's name formatting and the table agree on every target. */
static void test_rows_target_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        char name[32];

        assert_int_equal(
                gpucore_gfx_target_name(gc_arch_table[i].gfx_target_version, name, sizeof(name)),
                GPUCORE_OK);
        assert_string_equal(name, gc_arch_table[i].name);
    }
}

static void test_lookups(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        const struct gc_arch *a = &gc_arch_table[i];

        /* Interleave the keys so the one-entry cache is both hit and missed. */
        assert_ptr_equal(gc_arch_by_name(a->name), a);
        assert_ptr_equal(gc_arch_by_gfx_version(a->gfx_target_version), a);
        assert_ptr_equal(gc_arch_by_elf_mach(a->elf_mach), a);
        assert_ptr_equal(gc_arch_by_name(a->name), a);
        assert_ptr_equal(gc_arch_by_elf_mach(gc_arch_table[(i + 1) % NROWS].elf_mach),
                         &gc_arch_table[(i + 1) % NROWS]);
    }
    assert_null(gc_arch_by_name(NULL));
    assert_null(gc_arch_by_name("gfx1250"));
    assert_null(gc_arch_by_name(""));
    assert_null(gc_arch_by_gfx_version(0));
    assert_null(gc_arch_by_gfx_version(90005));
    assert_null(gc_arch_by_elf_mach(0));
    assert_null(gc_arch_by_elf_mach(0x4f)); /* gfx950: not in 0.77 */
}

/* ------------------------------------------------------------------------------------------ */
/* TTMP and hardware-register rows                                                             */
/* ------------------------------------------------------------------------------------------ */

static void check_field(struct gc_ttmp_field f, int required)
{
    if (!gc_bf_present(f.bits)) {
        assert_false(required);
        /* An absent field is spelled GC_BF_NONE, not some other lo > hi. */
        assert_int_equal(f.bits.lo, 1);
        assert_int_equal(f.bits.hi, 0);
        return;
    }
    assert_true(f.ttmp < 16);
    assert_true(f.bits.lo <= f.bits.hi && f.bits.hi < 32);
}

static void test_ttmp_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        const struct gc_ttmp_layout *t = gc_arch_table[i].ttmp;
        const struct gc_ttmp_field all[] = {
            t->wave_id_lo,         t->wave_id_hi,   t->wave_id_valid, t->dispatch_index,
            t->group_id[0],        t->group_id[1],  t->group_id[2],   t->group_yz_valid,
            t->wave_in_group,      t->stopped,      t->saved_halt,    t->saved_trap_id,
            t->spi_setup_disabled, t->parked_pc_lo, t->parked_pc_hi,
        };

        check_field(t->wave_id_lo, 1);
        check_field(t->wave_id_hi, 1);
        check_field(t->wave_id_valid, 0);
        check_field(t->dispatch_index, 1);
        for (int k = 0; k < 3; k++)
            check_field(t->group_id[k], 1);
        check_field(t->group_yz_valid, 0);
        check_field(t->wave_in_group, 1);
        check_field(t->stopped, 1);
        check_field(t->saved_halt, 1);
        check_field(t->saved_trap_id, 1);
        check_field(t->spi_setup_disabled, 1);
        check_field(t->parked_pc_lo, 0);
        check_field(t->parked_pc_hi, 0);
        /* The PC copy is 48 bits: 32 + 16. */
        if (gc_bf_present(t->parked_pc_lo.bits)) {
            assert_int_equal(t->parked_pc_lo.bits.hi - t->parked_pc_lo.bits.lo, 31);
            assert_int_equal(t->parked_pc_hi.bits.hi - t->parked_pc_hi.bits.lo, 15);
        }
        /* The trap handler's fields never share bits of one TTMP. */
        for (size_t a = 0; a < sizeof(all) / sizeof(all[0]); a++) {
            for (size_t b = 0; b < a; b++) {
                if (all[a].ttmp == all[b].ttmp && gc_bf_present(all[a].bits) &&
                    gc_bf_present(all[b].bits))
                    assert_int_equal(gc_bf_mask(all[a].bits) & gc_bf_mask(all[b].bits), 0);
            }
        }
        assert_true(t->ntrap_ids > 0);
        for (uint32_t k = 0; k < t->ntrap_ids; k++) {
            assert_true(t->trap_ids[k].trap_id != 0 && t->trap_ids[k].trap_id < 16);
            assert_int_equal(t->trap_ids[k].reason & (t->trap_ids[k].reason - 1), 0);
        }
        assert_int_equal(t->trap_id_other, GC_STOP_TRAP);
    }
}

static void check_hwbit(struct gc_hwreg_bit b, const struct gc_hwreg_layout *h, int required)
{
    if (b.slot == GC_HWREG_NO_SLOT) {
        assert_false(required);
        return;
    }
    assert_true(b.slot < GC_HWREG_SLOTS && b.bit < 32);
    assert_non_null(h->slot_names[b.slot]); /* rules name saved registers only */
}

static void test_hwreg_rows(void **state)
{
    /* Names the code asks for on every family. */
    static const char *const needed[] = { "m0",      "pc_lo",  "pc_hi", "exec_lo",
                                          "exec_hi", "status", "mode" };
    const uint32_t defined_reasons = (GC_STOP_FATAL_HALT << 1) - 1;

    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        const struct gc_hwreg_layout *h = gc_arch_table[i].hwreg;

        for (uint32_t s = 0; s < GC_HWREG_SLOTS; s++) {
            if (!h->slot_names[s])
                continue;
            assert_int_equal(gc_hwreg_slot(h, h->slot_names[s]), (int)s);
        }
        for (size_t k = 0; k < sizeof(needed) / sizeof(needed[0]); k++)
            assert_true(gc_hwreg_slot(h, needed[k]) >= 0);
        assert_int_equal(gc_hwreg_slot(h, "pc_hi"), gc_hwreg_slot(h, "pc_lo") + 1);
        assert_int_equal(gc_hwreg_slot(h, "exec_hi"), gc_hwreg_slot(h, "exec_lo") + 1);
        assert_true(h->nstop_rules > 0);
        for (uint32_t k = 0; k < h->nstop_rules; k++) {
            const struct gc_stop_rule *r = &h->stop_rules[k];

            check_hwbit(r->when, h, 1);
            check_hwbit(r->gate, h, 0);
            check_hwbit(r->unless, h, 0);
            /* One reason per rule, and never one the saved state cannot tell. */
            assert_true(r->reason != 0 && (r->reason & (r->reason - 1)) == 0);
            assert_int_equal(r->reason & ~defined_reasons, 0);
            assert_int_equal(r->reason & (GC_STOP_ECC_ERROR | GC_STOP_FATAL_HALT), 0);
        }
        check_hwbit(h->no_vgprs, h, 0);
        assert_true(gc_bf_present(h->scratch.waves) && h->scratch.waves.hi < 32);
        assert_true(gc_bf_present(h->scratch.wavesize) && h->scratch.wavesize.hi < 32);
        assert_true(h->scratch.wavesize_unit == 256 || h->scratch.wavesize_unit == 1024);
        assert_true(h->scratch.waves_per_se <= 1);
    }
    assert_int_equal(gc_hwreg_slot(NULL, "m0"), -1);
    assert_int_equal(gc_hwreg_slot(&gc_hwreg_gfx9, NULL), -1);
}

/* ------------------------------------------------------------------------------------------ */
/* Register-set rows and per-wave lists                                                        */
/* ------------------------------------------------------------------------------------------ */

static void test_regset_rows(void **state)
{
    const uint32_t all_classes = (1u << GC_REGCLASS_COUNT) - 1;

    (void)state;
    for (uint32_t i = 0; i < GC_REGCLASS_COUNT; i++)
        assert_non_null(gc_reg_class_name(1u << i));
    assert_null(gc_reg_class_name(0));
    assert_null(gc_reg_class_name(3));
    assert_string_equal(gc_reg_class_name(GC_REGCLASS_GENERAL), "general");
    for (size_t i = 0; i < NROWS; i++) {
        const struct gc_arch *a = &gc_arch_table[i];
        const struct gc_regset *rs = a->regs;

        for (uint32_t k = 0; k < rs->ndescs; k++) {
            const struct gc_reg_desc *d = &rs->descs[k];

            assert_non_null(d->name);
            assert_true(d->count >= 1);
            assert_true(d->classes != 0 && (d->classes & ~all_classes) == 0);
            assert_true(d->lanes == 0 || d->lanes == 32 || d->lanes == 64);
            assert_true(d->type != NULL || d->flags != NULL);
            /* The longest name the descriptor produces fits. */
            {
                char name[64];

                if (d->count > 1 || d->kind == GC_REGK_TTMP)
                    snprintf(name, sizeof(name), "%s%u", d->name, d->first + d->count - 1u);
                else
                    snprintf(name, sizeof(name), "%s", d->name);
                assert_true(strlen(name) < GC_REG_NAME_MAX);
            }
            if (d->slot)
                assert_true(gc_hwreg_slot(a->hwreg, d->slot) >= 0);
            if (d->kind == GC_REGK_VGPR || d->kind == GC_REGK_ACCVGPR)
                assert_true(d->lanes != 0 && d->first + d->count <= 256);
            if (d->flags) {
                for (uint32_t f = 0; f < d->flags->nfields; f++) {
                    assert_true(d->flags->fields[f].lo <= d->flags->fields[f].hi);
                    assert_true(d->flags->fields[f].hi < 32);
                    if (f)
                        assert_true(d->flags->fields[f].lo > d->flags->fields[f - 1].hi);
                }
            }
        }
        for (int k = 0; k < 2; k++) {
            if (rs->shadow_remap[k].from_end)
                assert_true(gc_hwreg_slot(a->hwreg, rs->shadow_remap[k].slot) >= 0);
        }
        assert_true(rs->sgpr_alias_count == 2 || rs->sgpr_alias_count == 6);
    }
}

/* Every configuration worth covering for one target. */
struct wave_shape {
    uint32_t lanes, vgprs, acc, shared, sgprs, lds;
};

static size_t shapes_for(const struct gc_arch *a, struct wave_shape *out)
{
    size_t n = 0;
    uint32_t sgprs = a->cwsr->sgpr_fixed ? a->cwsr->sgpr_fixed : 48;
    uint32_t sgprs_max = a->cwsr->sgpr_fixed ? a->cwsr->sgpr_fixed : 112;

    for (uint32_t lanes = 32; lanes <= 64; lanes *= 2) {
        if (!(a->wave_sizes & (lanes == 32 ? GC_WAVE32 : GC_WAVE64)))
            continue;
        out[n++] = (struct wave_shape){ lanes, 8, a->max_accvgprs ? 8 : 0, 0, sgprs, 512 };
        out[n++] = (struct wave_shape){ lanes, 256, a->max_accvgprs, 0, sgprs_max, 0 };
        out[n++] = (struct wave_shape){ lanes, 4, 0, 0, a->cwsr->sgpr_fixed ? 128 : 0, 0 };
        if (a->cwsr->shared_vgpr_granule && lanes == 64)
            out[n++] = (struct wave_shape){ lanes, 16, 0, 16, sgprs, 0 };
    }
    return n;
}

static uint64_t record_size(const struct gc_wave *w)
{
    return (uint64_t)w->vgprs * w->lanes * 4 + (uint64_t)w->shared_vgprs * 128 +
           (uint64_t)w->accvgprs * 256 + (uint64_t)w->sgprs * 4 + 128 +
           (w->first_wave ? w->lds_size : 0);
}

static void check_list(const struct gc_arch *a, struct gc_wave *w)
{
    struct gc_reglist list;
    char type[1024];

    assert_int_equal(gc_wave_register_list(a, w, &list), GPUCORE_OK);
    assert_true(list.count > 0);
    for (size_t i = 0; i < list.count; i++) {
        const struct gc_reg *r = &list.regs[i];
        uint8_t val[256];
        size_t tl;

        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(r->name, list.regs[j].name);
            if (r->dwarf >= 0)
                assert_int_not_equal(r->dwarf, list.regs[j].dwarf);
            assert_int_not_equal(r->id, list.regs[j].id);
        }
        assert_ptr_equal(gc_reglist_find(&list, r->name), r);
        if (r->dwarf >= 0)
            assert_ptr_equal(gc_reglist_find_dwarf(&list, r->dwarf), r);
        /* The saved bytes lie inside the record. */
        assert_true(r->size > 0 && r->size <= sizeof(val));
        assert_true(r->save_offset + r->size <= record_size(w));
        assert_true(r->save_offset + r->size <= w->record_size);
        /* The type string renders and agrees with the size. */
        tl = gc_reg_type(r, type, sizeof(type));
        assert_true(tl > 0 && tl < sizeof(type));
        assert_int_equal(strlen(type), tl);
        if (strncmp(type, "int32_t[", 8) == 0) {
            char expect[32];

            snprintf(expect, sizeof(expect), "int32_t[%u]", r->size / 4);
            assert_string_equal(type, expect);
        } else if (strncmp(type, "flags32_t", 9) == 0 || strcmp(type, "uint32_t") == 0 ||
                   strcmp(type, "int32_t") == 0) {
            assert_int_equal(r->size, 4);
        } else {
            assert_int_equal(r->size, 8); /* uint64_t, void (*)() */
        }
        /* What is read is the saved bytes, unless the register is computed. */
        assert_int_equal(gc_reg_read(a, w, 10, r, 0, val, r->size), GPUCORE_OK);
        if (!r->derived)
            assert_memory_equal(val, tw_rec(w) + r->save_offset, r->size);
    }
    gc_reglist_done(&list);
    assert_null(list.regs);
}

static void test_wave_lists(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        const struct gc_arch *a = &gc_arch_table[i];
        struct wave_shape shapes[8];
        size_t n = shapes_for(a, shapes);

        print_message("  %s: %zu shapes\n", a->name, n);
        for (size_t k = 0; k < n; k++) {
            struct gc_wave *w =
                    tw_new(shapes[k].lanes, shapes[k].vgprs, shapes[k].acc, shapes[k].shared,
                           shapes[k].sgprs, shapes[k].lds, shapes[k].lds != 0);

            tw_pattern(w, (uint32_t)(i * 16 + k));
            check_list(a, w);
            tw_free(w);
        }
    }
}

int test_arch_tables_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_unique),       cmocka_unit_test(test_rows_complete),
        cmocka_unit_test(test_rows_elf_mach),     cmocka_unit_test(test_rows_llvm_cpu),
        cmocka_unit_test(test_rows_target_names), cmocka_unit_test(test_lookups),
        cmocka_unit_test(test_ttmp_rows),         cmocka_unit_test(test_hwreg_rows),
        cmocka_unit_test(test_regset_rows),       cmocka_unit_test(test_wave_lists),
    };

    return cmocka_run_group_tests_name("arch: tables", tests, NULL, NULL);
}

int main(void)
{
    int failed = 0;

    failed += test_arch_tables_run();
    failed += test_arch_wave_run();
    failed += test_arch_regs_run();
    if (failed)
        fprintf(stderr, "test_arch_tables: %d test(s) failed\n", failed);
    return failed ? 1 : 0;
}
