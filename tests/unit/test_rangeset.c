/* SPDX-License-Identifier: MIT */
/*
 * Range sets (capture/rangeset.c): add, merge, adjacency, remove, split, subtract, union, clip,
 * contains, overlaps, at both ends of the address space, and a randomized comparison of every
 * operation against a bitmap model (the set must stay sorted, disjoint and merged).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rangeset.h"

/* The set holds exactly these ranges. */
static void expect(const struct gc_rangeset *s, const uint64_t *pairs, uint32_t n)
{
    assert_int_equal(s->count, n);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(s->r[i].start, pairs[2 * i]);
        assert_int_equal(s->r[i].end, pairs[2 * i + 1]);
    }
}

static void test_add_merge(void **state)
{
    struct gc_rangeset s = GC_RANGESET_INIT;

    (void)state;
    assert_int_equal(gc_rangeset_add(&s, 100, 0), GPUCORE_OK);
    assert_int_equal(s.count, 0);
    assert_int_equal(gc_rangeset_add(&s, 100, 10), GPUCORE_OK);
    assert_int_equal(gc_rangeset_add(&s, 200, 10), GPUCORE_OK);
    assert_int_equal(gc_rangeset_add(&s, 50, 10), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 50, 60, 100, 110, 200, 210 }, 3);
    /* adjacent on the left and on the right merge */
    assert_int_equal(gc_rangeset_add(&s, 110, 5), GPUCORE_OK);
    assert_int_equal(gc_rangeset_add(&s, 45, 5), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 45, 60, 100, 115, 200, 210 }, 3);
    /* inside an existing range: no change */
    assert_int_equal(gc_rangeset_add(&s, 101, 2), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 45, 60, 100, 115, 200, 210 }, 3);
    /* bridging two ranges exactly */
    assert_int_equal(gc_rangeset_add(&s, 115, 85), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 45, 60, 100, 210 }, 2);
    /* swallowing everything */
    assert_int_equal(gc_rangeset_add(&s, 0, 1000), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 0, 1000 }, 1);
    assert_int_equal(gc_rangeset_bytes(&s), 1000);
    gc_rangeset_clear(&s);
    assert_int_equal(s.count, 0);
    assert_int_equal(gc_rangeset_bytes(&s), 0);
    gc_rangeset_free(&s);
    assert_null(s.r);
}

/* dst += src within a window: edges inside, touching and outside ranges, size 0, dst == src. */
static void test_add_within(void **state)
{
    struct gc_rangeset src = GC_RANGESET_INIT, dst = GC_RANGESET_INIT;

    (void)state;
    assert_int_equal(gc_rangeset_add(&src, 100, 100), GPUCORE_OK); /* [100, 200) */
    assert_int_equal(gc_rangeset_add(&src, 300, 100), GPUCORE_OK); /* [300, 400) */
    assert_int_equal(gc_rangeset_add(&src, 500, 10), GPUCORE_OK);  /* [500, 510) */
    assert_int_equal(gc_rangeset_add_within(&dst, &src, 150, 200), GPUCORE_OK);
    expect(&dst, (const uint64_t[]){ 150, 200, 300, 350 }, 2);
    /* a window ending where a range starts, or starting where one ends, adds nothing */
    assert_int_equal(gc_rangeset_add_within(&dst, &src, 400, 100), GPUCORE_OK);
    assert_int_equal(gc_rangeset_add_within(&dst, &src, 0, 100), GPUCORE_OK);
    assert_int_equal(gc_rangeset_add_within(&dst, &src, 505, 0), GPUCORE_OK);
    expect(&dst, (const uint64_t[]){ 150, 200, 300, 350 }, 2);
    /* to the top of the address space */
    assert_int_equal(gc_rangeset_add_within(&dst, &src, 505, UINT64_MAX), GPUCORE_OK);
    expect(&dst, (const uint64_t[]){ 150, 200, 300, 350, 505, 510 }, 3);
    assert_int_equal(gc_rangeset_add_within(&src, &src, 0, 10), GPUCORE_E_INVAL);
    gc_rangeset_free(&src);
    gc_rangeset_free(&dst);
}

static void test_top_of_address_space(void **state)
{
    struct gc_rangeset s = GC_RANGESET_INIT;

    (void)state;
    /* wraps: clipped at UINT64_MAX */
    assert_int_equal(gc_rangeset_add(&s, UINT64_MAX - 10, 100), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ UINT64_MAX - 10, UINT64_MAX }, 1);
    assert_int_equal(gc_rangeset_add(&s, UINT64_MAX, 5), GPUCORE_OK); /* empty after clip */
    assert_int_equal(s.count, 1);
    assert_int_equal(gc_rangeset_add(&s, 0, UINT64_MAX), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 0, UINT64_MAX }, 1);
    assert_int_equal(gc_rangeset_bytes(&s), UINT64_MAX);
    assert_true(gc_rangeset_contains(&s, 0, UINT64_MAX));
    assert_true(gc_rangeset_contains(&s, UINT64_MAX - 1, 1));
    assert_true(gc_rangeset_overlaps(&s, UINT64_MAX - 1, 10));
    /* split the whole space at the top and at 0 */
    assert_int_equal(gc_rangeset_remove(&s, UINT64_MAX - 4, UINT64_MAX), GPUCORE_OK);
    assert_int_equal(gc_rangeset_remove(&s, 0, 4), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 4, UINT64_MAX - 4 }, 1);
    assert_false(gc_rangeset_overlaps(&s, UINT64_MAX - 4, 4));
    assert_false(gc_rangeset_contains(&s, UINT64_MAX - 5, 2));
    assert_int_equal(gc_rangeset_clip(&s, UINT64_MAX - 100, UINT64_MAX), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ UINT64_MAX - 100, UINT64_MAX - 4 }, 1);
    gc_rangeset_free(&s);
}

static void test_remove_split(void **state)
{
    struct gc_rangeset s = GC_RANGESET_INIT;

    (void)state;
    assert_int_equal(gc_rangeset_add(&s, 0, 100), GPUCORE_OK);
    assert_int_equal(gc_rangeset_remove(&s, 40, 20), GPUCORE_OK); /* split */
    expect(&s, (const uint64_t[]){ 0, 40, 60, 100 }, 2);
    assert_int_equal(gc_rangeset_remove(&s, 40, 20), GPUCORE_OK); /* exactly the hole */
    expect(&s, (const uint64_t[]){ 0, 40, 60, 100 }, 2);
    assert_int_equal(gc_rangeset_remove(&s, 35, 30), GPUCORE_OK); /* trims both sides */
    expect(&s, (const uint64_t[]){ 0, 35, 65, 100 }, 2);
    assert_int_equal(gc_rangeset_remove(&s, 0, 1), GPUCORE_OK);  /* left edge */
    assert_int_equal(gc_rangeset_remove(&s, 99, 1), GPUCORE_OK); /* right edge */
    expect(&s, (const uint64_t[]){ 1, 35, 65, 99 }, 2);
    assert_int_equal(gc_rangeset_remove(&s, 65, 34), GPUCORE_OK); /* a whole range */
    expect(&s, (const uint64_t[]){ 1, 35 }, 1);
    assert_int_equal(gc_rangeset_remove(&s, 35, 10), GPUCORE_OK); /* adjacent: no change */
    assert_int_equal(gc_rangeset_remove(&s, 0, 1), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 1, 35 }, 1);
    assert_int_equal(gc_rangeset_remove(&s, 7, 0), GPUCORE_OK); /* size 0 */
    expect(&s, (const uint64_t[]){ 1, 35 }, 1);
    /* across several ranges */
    assert_int_equal(gc_rangeset_add(&s, 40, 10), GPUCORE_OK);
    assert_int_equal(gc_rangeset_add(&s, 60, 10), GPUCORE_OK);
    assert_int_equal(gc_rangeset_add(&s, 80, 10), GPUCORE_OK);
    assert_int_equal(gc_rangeset_remove(&s, 30, 55), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 1, 30, 85, 90 }, 2);
    gc_rangeset_free(&s);
}

static void test_subtract_union_clip(void **state)
{
    struct gc_rangeset a = GC_RANGESET_INIT, b = GC_RANGESET_INIT;

    (void)state;
    for (uint64_t i = 0; i < 10; i++)
        assert_int_equal(gc_rangeset_add(&a, i * 100, 50), GPUCORE_OK);
    assert_int_equal(gc_rangeset_add(&b, 25, 100), GPUCORE_OK);  /* 25..125 */
    assert_int_equal(gc_rangeset_add(&b, 300, 250), GPUCORE_OK); /* 300..550 */
    assert_int_equal(gc_rangeset_subtract(&a, &b), GPUCORE_OK);
    expect(&a,
           (const uint64_t[]){ 0, 25, 125, 150, 200, 250, 600, 650, 700, 750, 800, 850, 900, 950 },
           7);
    assert_false(gc_rangeset_overlaps(&a, 25, 100));
    assert_int_equal(gc_rangeset_union(&a, &b), GPUCORE_OK);
    expect(&a,
           (const uint64_t[]){ 0, 150, 200, 250, 300, 550, 600, 650, 700, 750, 800, 850, 900, 950 },
           7);
    /* aliasing: s += s is a no-op, s -= s empties */
    assert_int_equal(gc_rangeset_union(&a, &a), GPUCORE_OK);
    assert_int_equal(a.count, 7);
    assert_int_equal(gc_rangeset_subtract(&a, &a), GPUCORE_OK);
    assert_int_equal(a.count, 0);
    /* clip */
    assert_int_equal(gc_rangeset_add(&a, 0, 1000), GPUCORE_OK);
    assert_int_equal(gc_rangeset_subtract(&a, &b), GPUCORE_OK);
    assert_int_equal(gc_rangeset_clip(&a, 100, 400), GPUCORE_OK);
    expect(&a, (const uint64_t[]){ 125, 300 }, 1);
    assert_int_equal(gc_rangeset_clip(&a, 0, 0), GPUCORE_OK);
    assert_int_equal(a.count, 0);
    /* subtracting from an empty set and an empty set */
    assert_int_equal(gc_rangeset_subtract(&a, &b), GPUCORE_OK);
    gc_rangeset_clear(&b);
    assert_int_equal(gc_rangeset_add(&a, 5, 5), GPUCORE_OK);
    assert_int_equal(gc_rangeset_subtract(&a, &b), GPUCORE_OK);
    expect(&a, (const uint64_t[]){ 5, 10 }, 1);
    gc_rangeset_free(&a);
    gc_rangeset_free(&b);
}

static void test_contains_overlaps(void **state)
{
    struct gc_rangeset s = GC_RANGESET_INIT;

    (void)state;
    assert_true(gc_rangeset_contains(&s, 5, 0));
    assert_false(gc_rangeset_contains(&s, 5, 1));
    assert_false(gc_rangeset_overlaps(&s, 0, UINT64_MAX));
    assert_int_equal(gc_rangeset_add(&s, 10, 10), GPUCORE_OK);
    assert_int_equal(gc_rangeset_add(&s, 30, 10), GPUCORE_OK);
    assert_true(gc_rangeset_contains(&s, 10, 10));
    assert_true(gc_rangeset_contains(&s, 19, 1));
    assert_false(gc_rangeset_contains(&s, 19, 2));
    assert_false(gc_rangeset_contains(&s, 9, 2));
    assert_false(gc_rangeset_contains(&s, 10, 30)); /* spans the hole */
    assert_false(gc_rangeset_contains(&s, 20, 1));  /* adjacent */
    assert_false(gc_rangeset_overlaps(&s, 20, 10)); /* exactly the hole */
    assert_true(gc_rangeset_overlaps(&s, 20, 11));
    assert_true(gc_rangeset_overlaps(&s, 19, 1));
    assert_false(gc_rangeset_overlaps(&s, 0, 10));
    assert_false(gc_rangeset_overlaps(&s, 40, UINT64_MAX)); /* clipped, past the end */
    assert_true(gc_rangeset_overlaps(&s, 0, UINT64_MAX));
    assert_false(gc_rangeset_overlaps(&s, 15, 0));
    gc_rangeset_free(&s);
}

/* ---- randomized comparison against a bitmap ---------------------------------------------- */

#define UNIVERSE 512u

struct model {
    uint64_t base;
    uint8_t bit[UNIVERSE];
};

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33) % n;
}

/* [start, end) of an operation in model offsets, clipped like the set clips at UINT64_MAX. */
static void span(const struct model *m, uint64_t start, uint64_t size, uint32_t *lo, uint32_t *hi)
{
    uint64_t end = size > UINT64_MAX - start ? UINT64_MAX : start + size;
    uint64_t l = start - m->base, h = end - m->base;

    *lo = (uint32_t)(l > UNIVERSE ? UNIVERSE : l);
    *hi = (uint32_t)(h > UNIVERSE ? UNIVERSE : h);
}

/* A random operation range: inside the universe, or (top universe) running off 2^64. */
static void pick(const struct model *m, uint64_t *start, uint64_t *size)
{
    uint32_t a = rnd(UNIVERSE);
    uint32_t n = rnd(8) == 0 ? 0 : 1 + rnd(rnd(4) == 0 ? UNIVERSE : 24);

    *start = m->base + a;
    if (m->base == 0 && a + n > UNIVERSE)
        n = UNIVERSE - a;
    if (m->base != 0 && rnd(6) == 0)
        n = (uint32_t)-1; /* way past 2^64: clipped */
    *size = n == (uint32_t)-1 ? UINT64_MAX : n;
}

static void check_model(const struct gc_rangeset *s, const struct model *m)
{
    uint8_t seen[UNIVERSE];

    memset(seen, 0, sizeof(seen));
    for (uint32_t i = 0; i < s->count; i++) {
        assert_true(s->r[i].start < s->r[i].end);
        if (i)
            assert_true(s->r[i - 1].end < s->r[i].start); /* disjoint and not adjacent */
        assert_true(s->r[i].start >= m->base);
        assert_true(s->r[i].end - m->base <= UNIVERSE);
        for (uint64_t a = s->r[i].start; a < s->r[i].end; a++)
            seen[a - m->base] = 1;
    }
    assert_memory_equal(seen, m->bit, UNIVERSE);
    uint64_t n = 0;
    for (uint32_t i = 0; i < UNIVERSE; i++)
        n += m->bit[i];
    assert_int_equal(gc_rangeset_bytes(s), n);
}

static void model_set(struct model *m, uint64_t start, uint64_t size, uint8_t v)
{
    uint32_t lo, hi;

    if (!size)
        return;
    span(m, start, size, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++)
        m->bit[i] = v;
}

static void random_set(struct gc_rangeset *s, struct model *m)
{
    gc_rangeset_clear(s);
    memset(m->bit, 0, sizeof(m->bit));
    for (uint32_t k = rnd(6); k; k--) {
        uint64_t a, n;

        pick(m, &a, &n);
        assert_int_equal(gc_rangeset_add(s, a, n), GPUCORE_OK);
        model_set(m, a, n, 1);
    }
}

static void run_random(uint64_t base, uint64_t seed)
{
    struct gc_rangeset s = GC_RANGESET_INIT, o = GC_RANGESET_INIT;
    struct model m = { .base = base }, mo = { .base = base };

    rng_state = seed;
    for (uint32_t step = 0; step < 20000; step++) {
        uint64_t a, n;
        uint32_t lo, hi, op = rnd(10);

        pick(&m, &a, &n);
        switch (op) {
        case 0:
        case 1:
        case 2:
        case 3:
            assert_int_equal(gc_rangeset_add(&s, a, n), GPUCORE_OK);
            model_set(&m, a, n, 1);
            break;
        case 4:
        case 5:
            assert_int_equal(gc_rangeset_remove(&s, a, n), GPUCORE_OK);
            model_set(&m, a, n, 0);
            break;
        case 6:
            random_set(&o, &mo);
            assert_int_equal(gc_rangeset_subtract(&s, &o), GPUCORE_OK);
            for (uint32_t i = 0; i < UNIVERSE; i++)
                m.bit[i] &= (uint8_t)!mo.bit[i];
            break;
        case 7:
            random_set(&o, &mo);
            assert_int_equal(gc_rangeset_union(&s, &o), GPUCORE_OK);
            for (uint32_t i = 0; i < UNIVERSE; i++)
                m.bit[i] |= mo.bit[i];
            break;
        case 8:
            if (rnd(4)) /* clip rarely empties the set: keep it growing */
                break;
            assert_int_equal(gc_rangeset_clip(&s, a, n), GPUCORE_OK);
            span(&m, a, n, &lo, &hi);
            for (uint32_t i = 0; i < UNIVERSE; i++)
                if (i < lo || i >= hi || !n)
                    m.bit[i] = 0;
            break;
        default: {
            int want_c = 1, want_o = 0;

            span(&m, a, n, &lo, &hi);
            for (uint32_t i = lo; n && i < hi; i++) {
                want_c &= m.bit[i];
                want_o |= m.bit[i];
            }
            /* a query that runs past the universe (and is not clipped to it) is not contained */
            if (n && base == 0 && a + n > base + UNIVERSE)
                want_c = 0;
            assert_int_equal(!!gc_rangeset_contains(&s, a, n), want_c);
            assert_int_equal(!!gc_rangeset_overlaps(&s, a, n), want_o);
            break;
        }
        }
        check_model(&s, &m);
    }
    gc_rangeset_free(&s);
    gc_rangeset_free(&o);
}

static void test_random_low(void **state)
{
    (void)state;
    run_random(0, 1);
    run_random(0, 0x9e3779b97f4a7c15ull);
}

static void test_random_top(void **state)
{
    (void)state;
    /* offsets 0..511 are UINT64_MAX - 512 .. UINT64_MAX - 1: the last representable byte */
    run_random(UINT64_MAX - UNIVERSE, 2);
    run_random(UINT64_MAX - UNIVERSE, 0xdeadbeefull);
}

static void test_many_ranges(void **state)
{
    struct gc_rangeset s = GC_RANGESET_INIT;

    (void)state;
    /* growth beyond the first allocation, inserted in descending order (memmove paths) */
    for (uint64_t i = 5000; i > 0; i--)
        assert_int_equal(gc_rangeset_add(&s, i * 4, 2), GPUCORE_OK);
    assert_int_equal(s.count, 5000);
    assert_int_equal(gc_rangeset_bytes(&s), 10000);
    /* fill every hole: one range */
    for (uint64_t i = 1; i < 5000; i++)
        assert_int_equal(gc_rangeset_add(&s, i * 4 + 2, 2), GPUCORE_OK);
    expect(&s, (const uint64_t[]){ 4, 20002 }, 1);
    gc_rangeset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_merge),         cmocka_unit_test(test_top_of_address_space),
        cmocka_unit_test(test_remove_split),      cmocka_unit_test(test_subtract_union_clip),
        cmocka_unit_test(test_contains_overlaps), cmocka_unit_test(test_random_low),
        cmocka_unit_test(test_random_top),        cmocka_unit_test(test_many_ranges),
        cmocka_unit_test(test_add_within),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
