/* SPDX-License-Identifier: MIT */
/*
 * gen_arch_cwsr_seeds: writes the seed corpus of fuzz_arch_cwsr.
 *
 *   gen_arch_cwsr_seeds tests/fuzz/corpus/fuzz_arch_cwsr
 *
 * Seeds are areas made with the encoder for several families (gfx9 with and without
 * AccVGPRs, gfx90a/942, gfx10 wave64 with shared VGPRs, gfx10/11/12 in both wave sizes), in the
 * fuzz target's input form (target index, 40-byte header, used control stack, used wave area),
 * plus malformed variants that stop at each decoder check. The files are committed; rerun this
 * only when the layouts change, and keep any crash reproducers the fuzzer found next to them.
 * Not a test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cwsr.h"
#include "gc_le.h"
#include "gc_util.h"

static const char *out_dir;

/* A fuzz input: target index, header, control stack, wave area. */
struct seed {
    uint8_t *data;
    size_t size;
};

static void write_seed(const char *name, const struct seed *s)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", out_dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(s->data, 1, s->size, f) != s->size || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static uint8_t arch_index(const struct gc_arch *a)
{
    return (uint8_t)(a - gc_arch_table);
}

/*
 * Encode waves for target name and convert the image to the fuzz input form. Register values
 * are small distinct numbers; the arrays are shared by all waves.
 */
static struct seed make(const char *name, const struct gc_wave_spec *w, uint32_t n)
{
    static uint32_t regs[512 * 64];
    static uint8_t lds[65536];
    const struct gc_arch *a = gc_arch_by_name(name);
    struct gc_wave_spec s[16];
    struct gc_cwsr_header h;
    struct seed out;
    uint8_t *img = NULL;
    size_t size = 0;
    gpucore_diag_t diag;

    if (!a || n > 16) {
        fprintf(stderr, "bad seed spec for %s\n", name);
        exit(1);
    }
    for (uint32_t i = 0; i < GC_ARRAY_SIZE(regs); i++)
        regs[i] = 0x10000u + i;
    for (uint32_t i = 0; i < sizeof(lds); i++)
        lds[i] = (uint8_t)(i * 13);
    for (uint32_t i = 0; i < n; i++) {
        s[i] = w[i];
        s[i].vgpr = s[i].accvgpr = s[i].shared_vgpr = s[i].sgpr = regs;
        s[i].lds = lds;
        for (uint32_t r = 0; r < 16; r++) {
            s[i].hwreg[r] = w[i].hwreg[r] | (0x100u * i + r);
            s[i].ttmp[r] = w[i].ttmp[r] | (0x200u * i + r);
        }
    }
    if (gc_cwsr_encode(a, s, n, 0x1000, NULL, &img, &size, &h, &diag) != GPUCORE_OK) {
        fprintf(stderr, "%s: %s\n", name, diag.message);
        exit(1);
    }
    out.size = 1 + GC_CWSR_HEADER_SIZE + h.control_stack_size + h.wave_state_size;
    out.data = malloc(out.size);
    if (!out.data)
        exit(1);
    out.data[0] = arch_index(a);
    memcpy(out.data + 1, img, GC_CWSR_HEADER_SIZE);
    memcpy(out.data + 1 + GC_CWSR_HEADER_SIZE, img + h.control_stack_offset,
           h.control_stack_size + h.wave_state_size);
    gc_free(img);
    return out;
}

static struct gc_wave_spec wave(uint32_t wave32, uint32_t vgprs, uint32_t acc, uint32_t sgprs,
                                uint32_t lds, uint32_t first, uint32_t last)
{
    struct gc_wave_spec s;

    memset(&s, 0, sizeof(s));
    s.wave32 = wave32;
    s.vgprs = vgprs;
    s.accvgprs = acc;
    s.sgprs = sgprs;
    s.lds_size = lds;
    s.first_wave = first;
    s.last_wave = last;
    s.se_id = 1;
    s.scratch_id = 3;
    s.scratch_en = 1;
    return s;
}

/* Header field access on a seed (after the target byte). */
static uint32_t hdr(const struct seed *s, uint32_t off)
{
    return gc_le32_get(s->data + 1 + off);
}

static void set_hdr(struct seed *s, uint32_t off, uint32_t v)
{
    gc_le32_put(s->data + 1 + off, v);
}

/* Control-stack word i of a seed. */
static void set_ctl(struct seed *s, uint32_t i, uint32_t v)
{
    gc_le32_put(s->data + 1 + GC_CWSR_HEADER_SIZE + 4 * i, v);
}

static struct seed copy(const struct seed *s)
{
    struct seed c = { malloc(s->size), s->size };

    if (!c.data)
        exit(1);
    memcpy(c.data, s->data, s->size);
    return c;
}

int main(int argc, char **argv)
{
    struct gc_wave_spec w[4];
    struct seed s, m;

    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    out_dir = argv[1];

    /* Valid areas, one per family variant. */
    w[0] = wave(0, 4, 0, 16, 512, 1, 0);
    w[1] = wave(0, 4, 0, 16, 512, 0, 1);
    w[2] = wave(0, 8, 0, 0, 0, 1, 1);
    s = make("gfx900", w, 3);
    write_seed("valid-gfx900-2-groups", &s);
    free(s.data);

    w[0] = wave(0, 4, 4, 32, 0, 1, 1);
    s = make("gfx908", w, 1);
    write_seed("valid-gfx908", &s);
    free(s.data);

    w[0] = wave(0, 8, 8, 48, 512, 1, 0);
    w[1] = wave(0, 8, 8, 48, 512, 0, 1);
    s = make("gfx90a", w, 2);
    write_seed("valid-gfx90a-group-of-2", &s);

    /* Malformed variants of the gfx90a area, one per decoder check. */
    m = copy(&s);
    m.size -= 4;
    write_seed("bad-gfx90a-truncated-wave-area", &m);
    m.size = 1 + GC_CWSR_HEADER_SIZE + 8;
    write_seed("bad-gfx90a-truncated-control-stack", &m);
    free(m.data);
    m = copy(&s);
    set_hdr(&m, 0, hdr(&m, 0) + 4);
    write_seed("bad-gfx90a-ctl-end-not-wave-begin", &m);
    set_hdr(&m, 0, hdr(&m, 0) - 4);
    set_hdr(&m, 4, hdr(&m, 4) - 2);
    write_seed("bad-gfx90a-ctl-size-not-multiple-of-4", &m);
    free(m.data);
    m = copy(&s);
    set_ctl(&m, 2, 0x40000000); /* the state word becomes an event */
    write_seed("bad-gfx90a-wave-before-state", &m);
    set_ctl(&m, 2, 0x830002c1); /* accum_offset 3: 16 arch VGPRs of 16, 0 Acc: same record size,
                                   still valid */
    write_seed("valid-gfx90a-accum-offset-16-of-16", &m);
    set_ctl(&m, 2, 0x820002c0); /* accum_offset 2: 12 arch VGPRs of 8 total */
    write_seed("bad-gfx90a-accum-beyond-total", &m);
    free(m.data);
    m = copy(&s);
    set_ctl(&m, 3, 0x00000000); /* the leader loses first_wave */
    write_seed("bad-gfx90a-no-group-leader", &m);
    free(m.data);
    m = copy(&s);
    set_hdr(&m, 8, hdr(&m, 8) - 64); /* wave area one gap short */
    set_hdr(&m, 12, hdr(&m, 12) - 64);
    write_seed("bad-gfx90a-wave-area-mismatch", &m);
    free(m.data);
    m = copy(&s);
    set_hdr(&m, 4, 0); /* empty control stack: no waves, the wave area is ignored */
    set_hdr(&m, 0, hdr(&m, 8) - hdr(&m, 12));
    write_seed("valid-gfx90a-empty-control-stack", &m);
    free(m.data);
    free(s.data);

    w[0] = wave(0, 4, 12, 0, 65536, 1, 1);
    s = make("gfx942", w, 1);
    write_seed("valid-gfx942-max-lds", &s);
    free(s.data);

    w[0] = wave(0, 8, 0, 0, 0, 1, 0);
    w[0].shared_vgprs = 8;
    w[1] = w[0];
    w[1].first_wave = 0;
    w[1].last_wave = 1;
    s = make("gfx1010", w, 2);
    write_seed("valid-gfx1010-shared-vgprs", &s);
    free(s.data);

    w[0] = wave(1, 8, 0, 0, 512, 1, 1);
    w[1] = wave(0, 4, 0, 0, 0, 1, 1);
    s = make("gfx1030", w, 2);
    write_seed("valid-gfx1030-wave32-and-wave64", &s);
    m = copy(&s);
    /* The last word is a wave; make it a state word that lacks its RELAUNCH2 word. */
    set_ctl(&m, hdr(&m, 4) / 4 - 1, 0x81000400);
    write_seed("bad-gfx1030-state-without-relaunch2", &m);
    free(m.data);
    free(s.data);

    w[0] = wave(0, 8, 0, 128, 512, 1, 0);
    w[0].hwreg[5] = 1u << 24;
    w[1] = wave(0, 8, 0, 128, 512, 0, 1);
    s = make("gfx1100", w, 2);
    write_seed("valid-gfx1100-wave64", &s);
    free(s.data);

    w[0] = wave(1, 8, 0, 0, 512, 1, 1);
    s = make("gfx1201", w, 1);
    write_seed("valid-gfx1201-wave32", &s);
    free(s.data);

    s = make("gfx1102", w, 0);
    write_seed("valid-gfx1102-no-waves", &s);
    free(s.data);
    return 0;
}
