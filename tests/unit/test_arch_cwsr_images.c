/* SPDX-License-Identifier: MIT */
/*
 * CWSR decoder against byte images written here by hand from docs/cwsr-layout.md (§3 header, §5
 * control stack, §6 relaunch words, §7 record blocks) -- never produced by gpucore's encoder --
 * checked field by field; then every decoder error path with its status, diagnostic offset
 * and message.
 *
 * Each image is one XCC area: the 40-byte header at 0, the used control stack ending at
 * ctl_stack_size (0x1000 here), the used wave area from 0x1000 up. Every offset below is
 * written out as a literal, computed by hand from the block order of §7.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch.h"
#include "cwsr.h"

int test_arch_cwsr_images_run(void);

static void put32(uint8_t *img, uint32_t off, uint32_t v)
{
    img[off] = (uint8_t)v;
    img[off + 1] = (uint8_t)(v >> 8);
    img[off + 2] = (uint8_t)(v >> 16);
    img[off + 3] = (uint8_t)(v >> 24);
}

static void header(uint8_t *img, uint32_t ctl_off, uint32_t ctl_size, uint32_t ws_off,
                   uint32_t ws_size)
{
    put32(img, 0, ctl_off);
    put32(img, 4, ctl_size);
    put32(img, 8, ws_off);
    put32(img, 12, ws_size);
    put32(img, 16, 0xab000); /* debug_offset */
    put32(img, 20, 0x2000);  /* debug_size */
    put32(img, 24, 0x5000);  /* err_payload_addr, low */
    put32(img, 28, 0x7f12);  /* err_payload_addr, high */
    put32(img, 32, 9);       /* err_event_id */
    put32(img, 36, 0);
}

/* A register value that encodes where it was written, so misplaced reads are obvious. */
static uint32_t at(uint32_t off)
{
    return 0xc0de0000u ^ off;
}

/* Write at(off) into every dword of [lo, hi). */
static void fill(uint8_t *img, uint32_t lo, uint32_t hi)
{
    for (uint32_t o = lo; o < hi; o += 4)
        put32(img, o, at(o));
}

/*
 * Decode an image as the analyzer would: header at 0, then the two used parts. A header that
 * points outside the image (the error tests make such headers) gets empty buffers, which the
 * decoder must reject by its header checks before looking at them.
 */
static gpucore_status_t decode(const char *name, const uint8_t *img, size_t size,
                               struct gc_cwsr_decoded *d, gpucore_diag_t *diag)
{
    const struct gc_arch *a = gc_arch_by_name(name);
    const uint8_t *ctl = img, *wave = img;
    size_t ctl_len = 0, wave_len = 0;
    struct gc_cwsr_header h;

    assert_non_null(a);
    assert_int_equal(gc_cwsr_header_decode(img, size, &h), GPUCORE_OK);
    if ((uint64_t)h.control_stack_offset + h.control_stack_size <= size) {
        ctl = img + h.control_stack_offset;
        ctl_len = h.control_stack_size;
    }
    if (h.wave_state_size <= h.wave_state_offset && h.wave_state_offset <= size) {
        wave = img + h.wave_state_offset - h.wave_state_size;
        wave_len = h.wave_state_size;
    }
    return gc_cwsr_decode(a, &h, ctl, ctl_len, wave, wave_len, d, diag);
}

static void decode_ok(const char *name, const uint8_t *img, size_t size, struct gc_cwsr_decoded *d)
{
    gpucore_diag_t diag;

    memset(&diag, 0, sizeof(diag));
    if (decode(name, img, size, d, &diag) != GPUCORE_OK)
        fail_msg("%s: %s", name, diag.message);
    assert_int_equal(d->header.debug_offset, 0xab000);
    assert_true(d->header.err_payload_addr == 0x7f1200005000ull);
}

/* ------------------------------------------------------------------------------------------ */
/* gfx90a: one workgroup of two waves (leader with LDS, then a member)                         */
/* ------------------------------------------------------------------------------------------ */

/*
 * State word: bit 31 | vgprs n=1 (total (1+1)*8 = 16) | sgprs n=3 ((3+1)*16-16 = 48) << 6 |
 * lds n=1 (512 B) << 9 | accum_offset 1 (arch (1+1)*4 = 8, so 8 AccVGPRs) << 24.
 * Records: leader 64 gap + 512 LDS + 64 TTMP + 64 hwreg + 192 SGPR + 8*256 Acc + 8*256 VGPR =
 * 4992; member 4992 - 512 = 4480. Wave area 0x1000..0x3500 (9472 bytes).
 */
static void build_gfx90a(uint8_t *img)
{
    header(img, 0xfec, 20, 0x3500, 0x2500);
    put32(img, 0xfec, 0xc0001234); /* PM4 dword: skipped unread, even with bits 30/31 set */
    put32(img, 0xff0, 0x80000000); /* PM4 dword */
    put32(img, 0xff4, 0x810002c1); /* state */
    /* wave 0: first_wave 17 | scratch_en 15 | se_id 3 in [11:9] | scratch_id 0x5a */
    put32(img, 0xff8, 0x0002865a);
    /* wave 1: last_wave 16 | se_id 1 | scratch_id 0x1ff */
    put32(img, 0xffc, 0x000103ff);

    /* Leader: gap 0x34c0..0x3500 left zero. */
    for (uint32_t i = 0; i < 512; i++)
        img[0x32c0 + i] = (uint8_t)(i * 7 + 1); /* LDS 0x32c0..0x34c0 */
    fill(img, 0x3280, 0x32c0);                  /* TTMP0-15 */
    fill(img, 0x3240, 0x3280);                  /* hwreg slots 0-15 */
    fill(img, 0x3180, 0x3240);                  /* s0-s47 */
    fill(img, 0x2980, 0x3180);                  /* a0-a7, 64 lanes each */
    fill(img, 0x2180, 0x2980);                  /* v0-v7 */
    /* Member: gap 0x2140..0x2180, no LDS. */
    fill(img, 0x2100, 0x2140); /* TTMPs */
    fill(img, 0x20c0, 0x2100); /* hwregs */
    fill(img, 0x2000, 0x20c0); /* SGPRs */
    fill(img, 0x1800, 0x2000); /* AccVGPRs */
    fill(img, 0x1000, 0x1800); /* VGPRs, v0 at the area's first byte */
}

static void test_image_gfx90a(void **state)
{
    uint8_t *img = calloc(1, 0x3500);
    struct gc_cwsr_decoded d;
    const struct gc_wave *w;

    (void)state;
    assert_non_null(img);
    build_gfx90a(img);
    decode_ok("gfx90a", img, 0x3500, &d);
    assert_int_equal(d.wave_count, 2);
    assert_int_equal(d.group_count, 1);

    w = &d.waves[0];
    assert_int_equal(w->state[0], 0x810002c1);
    assert_int_equal(w->wave_word, 0x0002865a);
    assert_int_equal(w->lanes, 64);
    assert_int_equal(w->vgprs, 8);
    assert_int_equal(w->accvgprs, 8);
    assert_int_equal(w->shared_vgprs, 0);
    assert_int_equal(w->sgprs, 48);
    assert_int_equal(w->lds_size, 512);
    assert_int_equal(w->first_wave, 1);
    assert_int_equal(w->last_wave, 0);
    assert_int_equal(w->scratch_en, 1);
    assert_int_equal(w->se_id, 3);
    assert_int_equal(w->scratch_id, 0x5a);
    assert_int_equal(w->group_leader, 0);
    assert_true(w->record_offset == 0x2180);
    assert_true(w->record_size == 4992 - 64);
    assert_int_equal(gc_wave_vgpr(w, 0, 0), at(0x2180));
    assert_int_equal(gc_wave_vgpr(w, 3, 5), at(0x2180 + 3 * 256 + 5 * 4));
    assert_int_equal(gc_wave_vgpr(w, 7, 63), at(0x2980 - 4));
    assert_int_equal(gc_wave_accvgpr(w, 0, 0), at(0x2980));
    assert_int_equal(gc_wave_accvgpr(w, 2, 63), at(0x2980 + 2 * 256 + 63 * 4));
    assert_int_equal(gc_wave_sgpr(w, 0), at(0x3180));
    assert_int_equal(gc_wave_sgpr(w, 47), at(0x3180 + 47 * 4));
    assert_int_equal(gc_wave_hwreg(w, 1), at(0x3244)); /* pc_lo */
    assert_int_equal(gc_wave_hwreg(w, 5), at(0x3254)); /* status */
    assert_int_equal(gc_wave_ttmp(w, 6), at(0x3298));
    assert_int_equal(gc_wave_ttmp(w, 15), at(0x32bc));
    assert_non_null(w->lds);
    assert_int_equal(w->lds[0], 1);
    assert_int_equal(w->lds[511], (uint8_t)(511 * 7 + 1));
    assert_ptr_equal(w->lds, img + 0x32c0);

    w = &d.waves[1];
    assert_int_equal(w->first_wave, 0);
    assert_int_equal(w->last_wave, 1);
    assert_int_equal(w->scratch_en, 0);
    assert_int_equal(w->se_id, 1);
    assert_int_equal(w->scratch_id, 0x1ff);
    assert_int_equal(w->group, 0);
    assert_int_equal(w->group_leader, 0);
    assert_int_equal(w->lds_size, 512); /* the workgroup's, held by the leader */
    assert_null(w->lds);
    assert_true(w->record_offset == 0x1000);
    assert_true(w->record_size == 4480 - 64);
    assert_int_equal(gc_wave_vgpr(w, 0, 0), at(0x1000));
    assert_int_equal(gc_wave_accvgpr(w, 7, 63), at(0x2000 - 4));
    assert_int_equal(gc_wave_sgpr(w, 46), at(0x2000 + 46 * 4)); /* vcc_lo per §9 */
    assert_int_equal(gc_wave_hwreg(w, 0), at(0x20c0));
    assert_int_equal(gc_wave_ttmp(w, 0), at(0x2100));
    gc_cwsr_decoded_done(&d);
    free(img);
}

/* ------------------------------------------------------------------------------------------ */
/* gfx1030: one wave32 wave, with an event word in the control stack                           */
/* ------------------------------------------------------------------------------------------ */

/*
 * state0: bit 31 | wave32 bit 24 | lds n=1 << 10 | vgprs n=0 ((0+1)*8 = 8). state1
 * (COMPUTE_RELAUNCH2): arbitrary, carried but not decoded. Record 8*32*4 + 512 + 64 + 64 + 512
 * = 2176 bytes, no gap: VGPRs 0x1000..0x1400, SGPRs ..0x1600, hwregs ..0x1640, TTMPs ..0x1680,
 * LDS ..0x1880.
 */
static void build_gfx1030(uint8_t *img)
{
    header(img, 0xfe8, 24, 0x1880, 0x880);
    put32(img, 0xfe8, 0);
    put32(img, 0xfec, 0);
    put32(img, 0xff0, 0x81000400); /* state0 */
    put32(img, 0xff4, 0xdeadbeef); /* state1: even with bit 31 set it is not a new state */
    put32(img, 0xff8, 0xc0000123); /* an event (bit 30), also with bit 31 set: skipped */
    /* wave: last 29 | se_id 2 in [25:24] | first 12 | scratch_en 11 | scratch_id 0x3ff */
    put32(img, 0xffc, 0x22001bff);
    fill(img, 0x1000, 0x1680);
    for (uint32_t i = 0; i < 512; i++)
        img[0x1680 + i] = (uint8_t)(0xff - i);
}

static void test_image_gfx1030(void **state)
{
    uint8_t *img = calloc(1, 0x1880);
    struct gc_cwsr_decoded d;
    const struct gc_wave *w;

    (void)state;
    assert_non_null(img);
    build_gfx1030(img);
    decode_ok("gfx1030", img, 0x1880, &d);
    assert_int_equal(d.wave_count, 1);
    w = &d.waves[0];
    assert_int_equal(w->state[0], 0x81000400);
    assert_int_equal(w->state[1], 0xdeadbeef);
    assert_int_equal(w->lanes, 32);
    assert_int_equal(w->vgprs, 8);
    assert_int_equal(w->accvgprs, 0);
    assert_int_equal(w->shared_vgprs, 0);
    assert_int_equal(w->sgprs, 128);
    assert_int_equal(w->lds_size, 512);
    assert_int_equal(w->first_wave, 1);
    assert_int_equal(w->last_wave, 1);
    assert_int_equal(w->se_id, 2);
    assert_int_equal(w->scratch_en, 1);
    assert_int_equal(w->scratch_id, 0x3ff);
    assert_true(w->record_offset == 0x1000);
    assert_true(w->record_size == 2176);
    assert_int_equal(gc_wave_vgpr(w, 0, 31), at(0x1000 + 31 * 4));
    assert_int_equal(gc_wave_vgpr(w, 7, 0), at(0x1000 + 7 * 128));
    assert_int_equal(gc_wave_vgpr(w, 0, 32), 0); /* wave32: no lane 32 */
    assert_int_equal(gc_wave_sgpr(w, 0), at(0x1400));
    assert_int_equal(gc_wave_sgpr(w, 127), at(0x15fc));
    assert_int_equal(gc_wave_hwreg(w, 3), at(0x160c)); /* exec_lo */
    assert_int_equal(gc_wave_hwreg(w, 9), at(0x1624)); /* flat_scratch_lo */
    assert_int_equal(gc_wave_ttmp(w, 0), at(0x1640));
    assert_int_equal(gc_wave_ttmp(w, 11), at(0x166c));
    assert_ptr_equal(w->lds, img + 0x1680);
    assert_int_equal(w->lds[0], 0xff);
    gc_cwsr_decoded_done(&d);
    free(img);
}

/* ------------------------------------------------------------------------------------------ */
/* gfx1100: one wave64 wave, status bit 24 (no_vgprs) set                                      */
/* ------------------------------------------------------------------------------------------ */

/*
 * state0: bit 31 | lds n=1 << 10 | vgprs n=1 (wave64: (1+1)*4 = 8). Record 8*64*4 + 512 + 128 +
 * 512 = 3200: VGPRs 0x1000..0x1800, SGPRs ..0x1a00, hwregs ..0x1a40, TTMPs ..0x1a80, LDS ..0x1c80.
 */
static void test_image_gfx1100(void **state)
{
    uint8_t *img = calloc(1, 0x1c80);
    struct gc_cwsr_decoded d;
    const struct gc_wave *w;

    (void)state;
    assert_non_null(img);
    header(img, 0xfec, 20, 0x1c80, 0xc80);
    put32(img, 0xff4, 0x80000401); /* state0 */
    put32(img, 0xff8, 0);          /* state1 */
    /* wave: last 29 | se_id 5 in [26:24] | first 12 | scratch_id 7 */
    put32(img, 0xffc, 0x25001007);
    fill(img, 0x1000, 0x1c80);
    put32(img, 0x1a14, 1u << 24); /* hwreg slot 5 (status): no_vgprs, just data here */

    decode_ok("gfx1100", img, 0x1c80, &d);
    assert_int_equal(d.wave_count, 1);
    w = &d.waves[0];
    assert_int_equal(w->lanes, 64);
    assert_int_equal(w->vgprs, 8);
    assert_int_equal(w->sgprs, 128);
    assert_int_equal(w->lds_size, 512);
    assert_int_equal(w->se_id, 5);
    assert_int_equal(w->scratch_id, 7);
    assert_int_equal(w->scratch_en, 0);
    assert_true(w->record_size == 3200);
    assert_int_equal(gc_wave_vgpr(w, 1, 0), at(0x1100));
    assert_int_equal(gc_wave_vgpr(w, 7, 63), at(0x17fc));
    assert_int_equal(gc_wave_sgpr(w, 106), at(0x1800 + 106 * 4)); /* vcc_lo per §9 */
    assert_int_equal(gc_wave_hwreg(w, 5), 1u << 24);
    assert_int_equal(gc_wave_ttmp(w, 15), at(0x1a7c));
    assert_ptr_equal(w->lds, img + 0x1a80);
    assert_int_equal(w->lds[4], (uint8_t)at(0x1a84));
    gc_cwsr_decoded_done(&d);
    free(img);
}

/* ------------------------------------------------------------------------------------------ */
/* gfx1201: a wave32 workgroup of two waves (no gap between records)                           */
/* ------------------------------------------------------------------------------------------ */

/*
 * Leader 2176 bytes (0x1680..0x1f00: VGPRs ..0x1a80, SGPRs ..0x1c80, hwregs ..0x1cc0, TTMPs
 * ..0x1d00, LDS ..0x1f00), member 1664 bytes (0x1000..0x1680: VGPRs ..0x1400, SGPRs ..0x1600,
 * hwregs ..0x1640, TTMPs ..0x1680).
 */
static void test_image_gfx1201(void **state)
{
    uint8_t *img = calloc(1, 0x1f00);
    struct gc_cwsr_decoded d;
    const struct gc_wave *w;

    (void)state;
    assert_non_null(img);
    header(img, 0xfe8, 24, 0x1f00, 0xf00);
    put32(img, 0xff0, 0x81000400); /* state0: wave32, LDS 512, 8 VGPRs */
    put32(img, 0xff4, 0);          /* state1 */
    put32(img, 0xff8, 0x06001000); /* first, se_id 6 */
    put32(img, 0xffc, 0x26000001); /* last, se_id 6, scratch_id 1 */
    fill(img, 0x1000, 0x1f00);

    decode_ok("gfx1201", img, 0x1f00, &d);
    assert_int_equal(d.wave_count, 2);
    assert_int_equal(d.group_count, 1);
    w = &d.waves[0];
    assert_int_equal(w->se_id, 6);
    assert_true(w->record_offset == 0x1680 && w->record_size == 2176);
    assert_int_equal(gc_wave_vgpr(w, 0, 0), at(0x1680));
    assert_int_equal(gc_wave_sgpr(w, 0), at(0x1a80));
    assert_int_equal(gc_wave_hwreg(w, 13), at(0x1c80 + 13 * 4)); /* gfx12 status slot */
    assert_int_equal(gc_wave_ttmp(w, 8), at(0x1cc0 + 8 * 4));
    assert_ptr_equal(w->lds, img + 0x1d00);
    w = &d.waves[1];
    assert_int_equal(w->last_wave, 1);
    assert_int_equal(w->scratch_id, 1);
    assert_int_equal(w->group_leader, 0);
    assert_true(w->record_offset == 0x1000 && w->record_size == 1664);
    assert_int_equal(gc_wave_vgpr(w, 7, 31), at(0x13fc));
    assert_int_equal(gc_wave_sgpr(w, 127), at(0x15fc));
    assert_int_equal(gc_wave_ttmp(w, 15), at(0x167c));
    assert_null(w->lds);
    gc_cwsr_decoded_done(&d);
    free(img);
}

/* gfx1010 wave64 with shared VGPRs: numbered after the private ones, 32 lanes, above them. */
static void test_image_gfx1010_shared(void **state)
{
    /* vgprs n=1 (8 wave64 VGPRs = 0x800), shared n=2 (16 * 128 = 0x800), no LDS. */
    uint8_t *img = calloc(1, 0x1000 + 0x800 + 0x800 + 0x200 + 0x80);
    struct gc_cwsr_decoded d;
    const struct gc_wave *w;

    (void)state;
    assert_non_null(img);
    header(img, 0xfec, 20, 0x2280, 0x1280);
    put32(img, 0xff4, 0x88000001); /* state0: shared_vgprs 2 << 26, vgprs 1 */
    put32(img, 0xffc, 0x20001000); /* first | last */
    fill(img, 0x1000, 0x2280);
    decode_ok("gfx1010", img, 0x2280, &d);
    w = &d.waves[0];
    assert_int_equal(w->vgprs, 8);
    assert_int_equal(w->shared_vgprs, 16);
    assert_int_equal(gc_wave_shared_vgpr(w, 0, 0), at(0x1800));
    assert_int_equal(gc_wave_shared_vgpr(w, 15, 31), at(0x1ffc));
    assert_int_equal(gc_wave_shared_vgpr(w, 0, 32), 0);
    assert_int_equal(gc_wave_sgpr(w, 0), at(0x2000));
    gc_cwsr_decoded_done(&d);
    free(img);
}

/* ------------------------------------------------------------------------------------------ */
/* Accepted oddities (AMD's reader accepts them too)                                           */
/* ------------------------------------------------------------------------------------------ */

static void test_image_accepted(void **state)
{
    uint8_t *img = calloc(1, 0x4000);
    struct gc_cwsr_decoded d;

    (void)state;
    assert_non_null(img);

    /* An empty control stack means no waves; the wave area is then not examined. */
    header(img, 0x1000, 0, 0x2000, 0x1000);
    decode_ok("gfx90a", img, 0x4000, &d);
    assert_int_equal(d.wave_count, 0);
    gc_cwsr_decoded_done(&d);

    /* A workgroup left open at the end; and first_wave while a group is open starts another. */
    memset(img, 0, 0x4000);
    header(img, 0xff0, 16, 0x2000, 0x1000);
    put32(img, 0xff8, 0x80000001); /* gfx900 state: 8 VGPRs, 0 SGPRs, no LDS */
    put32(img, 0xffc, 0x00020000); /* first_wave, no last_wave */
    /* record: 8*256 + 128 = 2176, gap 64: 2240 bytes; area needs exactly that */
    header(img, 0xff0, 16, 0x1000 + 2240, 2240);
    decode_ok("gfx900", img, 0x4000, &d);
    assert_int_equal(d.wave_count, 1);
    assert_int_equal(d.group_count, 1);
    assert_int_equal(d.waves[0].last_wave, 0);
    gc_cwsr_decoded_done(&d);

    header(img, 0xfec, 20, 0x1000 + 2 * 2240, 2 * 2240);
    put32(img, 0xfec, 0);
    put32(img, 0xff0, 0);
    put32(img, 0xff4, 0x80000001);
    put32(img, 0xff8, 0x00020000); /* first */
    put32(img, 0xffc, 0x00020000); /* first again: a new group, as in AMD's update_waves */
    decode_ok("gfx900", img, 0x4000, &d);
    assert_int_equal(d.wave_count, 2);
    assert_int_equal(d.group_count, 2);
    assert_int_equal(d.waves[1].group, 1);
    assert_int_equal(d.waves[1].group_leader, 1);
    gc_cwsr_decoded_done(&d);

    /* A state word with no wave after it, and a second state word mid-group. */
    header(img, 0xfe8, 24, 0x1000 + 2 * 2240, 2 * 2240);
    put32(img, 0xfe8, 0);
    put32(img, 0xfec, 0);
    put32(img, 0xff0, 0x80000001);
    put32(img, 0xff4, 0x00020000); /* first */
    put32(img, 0xff8, 0x80000001); /* the same state again */
    put32(img, 0xffc, 0x00010000); /* last */
    decode_ok("gfx900", img, 0x4000, &d);
    assert_int_equal(d.wave_count, 2);
    assert_int_equal(d.group_count, 1);
    gc_cwsr_decoded_done(&d);
    free(img);
}

/* ------------------------------------------------------------------------------------------ */
/* Decoder error paths                                                                         */
/* ------------------------------------------------------------------------------------------ */

static void expect_fail(const char *name, const uint8_t *img, size_t size, gpucore_status_t st,
                        uint64_t offset, const char *want)
{
    struct gc_cwsr_decoded d, before;
    gpucore_diag_t diag;

    memset(&d, 0x5a, sizeof(d));
    before = d;
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(decode(name, img, size, &d, &diag), st);
    assert_int_equal(diag.status, st);
    assert_true(diag.flags & GPUCORE_DIAG_HAS_OFFSET);
    if (diag.offset != offset)
        fail_msg("%s: offset 0x%llx, expected 0x%llx (%s)", name, (unsigned long long)diag.offset,
                 (unsigned long long)offset, diag.message);
    if (!strstr(diag.message, want))
        fail_msg("%s: \"%s\" does not mention \"%s\"", name, diag.message, want);
    assert_memory_equal(&d, &before, sizeof(d)); /* untouched on failure */
}

static void test_errors_header(void **state)
{
    const struct gc_arch *a = gc_arch_by_name("gfx90a");
    uint8_t *img = calloc(1, 0x3500);
    struct gc_cwsr_header h;
    struct gc_cwsr_decoded d;
    gpucore_diag_t diag;

    (void)state;
    assert_non_null(img);
    build_gfx90a(img);

    header(img, 0xfec, 18, 0x3500, 0x2500);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 4, "not a multiple of 4");
    header(img, 0xfec, 20, 0x3500, 0x2502);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 12, "not a multiple of 4");
    header(img, 0xfec, 20, 0x2000, 0x2500);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 12, "exceeds wave_state_offset");
    /* ctl_end != wave_area_begin, in both directions and with values that wrap in 32 bits */
    header(img, 0xfe8, 20, 0x3500, 0x2500);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0, "ends at 0xffc");
    header(img, 0xfec, 20, 0x3504, 0x2500);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0, "wave area begins (0x1004)");
    header(img, 0xfffffff0u, 0x1010, 0x3500, 0x2500);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0, "0x100001000");
    header(img, 0xfec, 20, 0x3500, 0x2500);

    /* Buffers shorter than the header says. */
    assert_int_equal(gc_cwsr_header_decode(img, 0x3500, &h), GPUCORE_OK);
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(gc_cwsr_decode(a, &h, img + 0xfec, 16, img + 0x1000, 0x2500, &d, &diag),
                     GPUCORE_E_TRUNCATED);
    assert_true(diag.offset == 0xffc && strstr(diag.message, "control stack at 0xfec"));
    assert_int_equal(gc_cwsr_decode(a, &h, img + 0xfec, 20, img + 0x1000, 0x24fc, &d, &diag),
                     GPUCORE_E_TRUNCATED);
    assert_true(diag.offset == 0x34fc && strstr(diag.message, "wave area at 0x1000"));
    /* Longer buffers are fine: only the header's sizes are used. */
    assert_int_equal(gc_cwsr_decode(a, &h, img + 0xfec, 24, img + 0x1000, 0x2500, &d, NULL),
                     GPUCORE_OK);
    gc_cwsr_decoded_done(&d);

    /* Caller bugs. */
    assert_int_equal(gc_cwsr_decode(NULL, &h, img, 20, img, 0x2500, &d, &diag), GPUCORE_E_INVAL);
    assert_int_equal(diag.flags & GPUCORE_DIAG_HAS_OFFSET, 0);
    assert_int_equal(gc_cwsr_decode(a, NULL, img, 20, img, 0x2500, &d, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_decode(a, &h, img, 20, img, 0x2500, NULL, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_decode(a, &h, NULL, 20, img, 0x2500, &d, NULL), GPUCORE_E_INVAL);
    assert_int_equal(gc_cwsr_decode(a, &h, img, 20, NULL, 0x2500, &d, NULL), GPUCORE_E_INVAL);
    free(img);
}

static void test_errors_control_stack(void **state)
{
    uint8_t *img = calloc(1, 0x4000);

    (void)state;
    assert_non_null(img);

    /* gfx90a: a wave before any state word (the state word made an event). */
    build_gfx90a(img);
    put32(img, 0xff4, 0x410002c1);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0xff8,
                "control stack word 3 at 0xff8: wave before any state word");
    /* ... or turned into a wave itself. */
    put32(img, 0xff4, 0x010002c1);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0xff4,
                "word 2 at 0xff4: wave before any state word");

    /* gfx90a: accum_offset places more arch VGPRs than allocated (a=2: 12 > 8 total). */
    build_gfx90a(img);
    put32(img, 0xff4, 0x820002c0);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0xff4, "accum_offset");

    /* gfx90a: the first wave is not a first_wave. */
    build_gfx90a(img);
    put32(img, 0xff8, 0x0000865a);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0xff8,
                "wave 0 is not a first_wave but no workgroup is open");
    /* ... a wave after a last_wave that is not a first_wave. */
    build_gfx90a(img);
    put32(img, 0xff8, 0x0003865a); /* first and last: the group closes */
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0xffc,
                "wave 1 is not a first_wave but no workgroup is open");

    /* gfx90a: records do not fill the wave area (one wave described, two saved). */
    build_gfx90a(img);
    header(img, 0xff0, 16, 0x3500, 0x2500);
    put32(img, 0xff0, 0);
    put32(img, 0xff4, 0);
    put32(img, 0xff8, 0x810002c1); /* state */
    put32(img, 0xffc, 0x0003865a); /* one wave, first and last */
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0x1000,
                "4480 bytes below the last record (at 0x2180) belong to no wave; the control "
                "stack describes 4992 of 9472 bytes");
    /* ... or need more than it: the wave area ends 4 bytes early. */
    build_gfx90a(img);
    header(img, 0xfec, 20, 0x34fc, 0x24fc);
    expect_fail("gfx90a", img, 0x3500, GPUCORE_E_CORRUPT, 0xffc,
                "wave 1 needs 4416 record bytes (+64 gap) below 0x217c, but the wave area "
                "begins at 0x1000");
    /* ... counting the gap: a gfx9 record without its 64 bytes above it does not fit. */
    memset(img, 0, 0x4000);
    header(img, 0xff0, 16, 0x1000 + 2176, 2176);
    put32(img, 0xff8, 0x80000001); /* gfx900: 8 VGPRs, 0 SGPRs: 2176-byte record */
    put32(img, 0xffc, 0x00030000); /* first and last */
    expect_fail("gfx900", img, 0x4000, GPUCORE_E_CORRUPT, 0xffc,
                "wave 0 needs 2176 record bytes (+64 gap) below 0x1880");
    header(img, 0xff0, 16, 0x1000 + 2240, 2240);
    {
        struct gc_cwsr_decoded d;

        decode_ok("gfx900", img, 0x4000, &d);
        assert_int_equal(d.wave_count, 1);
        gc_cwsr_decoded_done(&d);
    }

    /* gfx1030: a state word at the very end without its COMPUTE_RELAUNCH2 word. */
    memset(img, 0, 0x4000);
    build_gfx1030(img);
    header(img, 0xff4, 12, 0x1000, 0);
    put32(img, 0xffc, 0x81000400);
    expect_fail("gfx1030", img, 0x1880, GPUCORE_E_CORRUPT, 0xffc,
                "state word 0x81000400 without its COMPUTE_RELAUNCH2 word");
    /* gfx1030: the RELAUNCH2 word is consumed even when it looks like a wave. */
    memset(img, 0, 0x4000);
    build_gfx1030(img);
    put32(img, 0xff4, 0x00001000); /* state1 with first_wave's bit: still not a wave */
    {
        struct gc_cwsr_decoded d;

        decode_ok("gfx1030", img, 0x1880, &d);
        assert_int_equal(d.wave_count, 1);
        assert_int_equal(d.waves[0].state[1], 0x1000);
        gc_cwsr_decoded_done(&d);
    }
    /* gfx1030: only the PM4 dwords, but a non-empty wave area. */
    header(img, 0xff8, 8, 0x1880, 0x880);
    expect_fail("gfx1030", img, 0x1880, GPUCORE_E_CORRUPT, 0x1000, "describes 0 of 2176");
    free(img);
}

/* More than 1M waves: E_LIMIT before anything is allocated for them. */
static void test_errors_limit(void **state)
{
    const struct gc_arch *a = gc_arch_by_name("gfx900");
    uint32_t words = 2 + 1 + (1u << 20) + 1;
    uint8_t *ctl = calloc(words, 4);
    struct gc_cwsr_header h = { 0 };
    struct gc_cwsr_decoded d;
    gpucore_diag_t diag;

    (void)state;
    assert_non_null(ctl);
    put32(ctl, 8, 0x80000001);  /* state, then 2^20 + 1 zero words: all waves */
    put32(ctl, 12, 0x00020000); /* the first is a first_wave */
    h.control_stack_offset = 40;
    h.control_stack_size = words * 4;
    h.wave_state_offset = 40 + words * 4;
    h.wave_state_size = 0;
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(gc_cwsr_decode(a, &h, ctl, (size_t)words * 4, NULL, 0, &d, &diag),
                     GPUCORE_E_LIMIT);
    assert_true(diag.offset == 40 + 4ull * (words - 1));
    assert_non_null(strstr(diag.message, "more than 1048576 waves"));
    free(ctl);
}

int test_arch_cwsr_images_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_gfx90a),         cmocka_unit_test(test_image_gfx1030),
        cmocka_unit_test(test_image_gfx1100),        cmocka_unit_test(test_image_gfx1201),
        cmocka_unit_test(test_image_gfx1010_shared), cmocka_unit_test(test_image_accepted),
        cmocka_unit_test(test_errors_header),        cmocka_unit_test(test_errors_control_stack),
        cmocka_unit_test(test_errors_limit),
    };

    return cmocka_run_group_tests_name("arch: CWSR byte images and decode errors", tests, NULL,
                                       NULL);
}
