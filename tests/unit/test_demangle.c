/* SPDX-License-Identifier: MIT */
/*
 * C++ names demangled within bounds (analyze/demangle.h): real names (HIP kernels, templates,
 * lambdas, the standard library, a clone suffix), symbols with an offset, names that are not
 * mangled or not valid, and the bounds: a name too long, one with too many back-references
 * (the doubling form whose output grows exponentially), a text longer than the buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "demangle.h"

struct real_name {
    const char *mangled, *demangled;
};

/* Names from hip_vadd and hip_oob (tests/kfdemu/programs) and from g++ on a template, a
   lambda and its caller; the texts as c++filt prints them. */
static const struct real_name real_names[] = {
    { "_Z4vaddPKjS0_Pjj",
      "vadd(unsigned int const*, unsigned int const*, unsigned int*, unsigned int)" },
    { "_Z9write_farPjy", "write_far(unsigned int*, unsigned long long)" },
    { "_Z4vaddPKjS0_Pjj.kd",
      "vadd(unsigned int const*, unsigned int const*, unsigned int*, unsigned int) [clone .kd]" },
    { "_Z4kernIfLi256EEvPT_i", "void kern<float, 256>(float*, int)" },
    { "_ZZ2govENKUlvE_clEv", "go()::{lambda()#1}::operator()() const" },
    { "_ZN2rt1Q6launchIZ2govEUlvE_EEvT_",
      "void rt::Q::launch<go()::{lambda()#1}>(go()::{lambda()#1})" },
    { "_ZNSt6vectorIiSaIiEE9push_backERKi",
      "std::vector<int, std::allocator<int> >::push_back(int const&)" },
};

static void test_real_names(void **state)
{
    char buf[GC_DEMANGLE_TEXT_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(real_names) / sizeof(real_names[0]); i++) {
        assert_int_equal(gc_demangle(real_names[i].mangled, buf, sizeof(buf)), 1);
        assert_string_equal(buf, real_names[i].demangled);
    }
}

static void test_symbol_offset(void **state)
{
    char buf[GC_DEMANGLE_TEXT_MAX];

    (void)state;
    assert_int_equal(gc_demangle_symbol("_Z4vaddPKjS0_Pjj+0x1c", buf, sizeof(buf)), 1);
    assert_string_equal(buf, "vadd(unsigned int const*, unsigned int const*, unsigned int*, "
                             "unsigned int)+0x1c");
    assert_int_equal(gc_demangle_symbol("_Z9write_farPjy", buf, sizeof(buf)), 1);
    assert_string_equal(buf, "write_far(unsigned int*, unsigned long long)");
    /* Not an offset: the whole is the name, which is not valid. */
    assert_int_equal(gc_demangle_symbol("_Z9write_farPjy+0xzz", buf, sizeof(buf)), 0);
    assert_string_equal(buf, "");
    assert_int_equal(gc_demangle_symbol("vadd+0x10", buf, sizeof(buf)), 0);
    assert_int_equal(gc_demangle_symbol(NULL, buf, sizeof(buf)), 0);
}

/* C names, empty, invalid mangling, NULL: 0 and "", the caller shows the name itself. */
static void test_not_mangled(void **state)
{
    static const char *const names[] = { "vadd", "", "_Z", "_Z4vaddX", "_Z4vaddPKjS9_Pjj",
                                          "_Zx", "__Z4vaddv", "main", "_ZN" };
    char buf[64];

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        memset(buf, 'x', sizeof(buf));
        assert_int_equal(gc_demangle(names[i], buf, sizeof(buf)), 0);
        assert_string_equal(buf, "");
    }
    assert_int_equal(gc_demangle(NULL, buf, sizeof(buf)), 0);
    assert_int_equal(gc_demangle("_Z2gov", buf, 0), 0);
}

/* The text does not fit the caller's buffer: 0, not a cut name. */
static void test_text_too_long(void **state)
{
    char buf[8];

    (void)state;
    assert_int_equal(gc_demangle("_Z9write_farPjy", buf, sizeof(buf)), 0);
    assert_string_equal(buf, "");
    assert_int_equal(gc_demangle("_Z2gov", buf, sizeof(buf)), 1);
    assert_string_equal(buf, "go()");
    assert_int_equal(gc_demangle_symbol("_Z2gov+0x1234", buf, sizeof(buf)), 0);
    assert_string_equal(buf, "");
}

/* "_Z1fPFvvE" then @p levels of "PFvS<n>_S<n>_E", each referring twice to the previous level:
   the output doubles per level (2 back-references). */
static char *doubling_name(unsigned levels)
{
    char *s = malloc(16 + (size_t)levels * 16);
    size_t len;

    assert_non_null(s);
    strcpy(s, "_Z1fPFvvE");
    len = strlen(s);
    for (unsigned i = 1; i <= levels; i++) {
        unsigned v = 2 * i - 2; /* substitution 2i-1 is written S<base 36 of 2i-2>_ */
        char id[8], rev[8];
        int n = 0, k = 0;

        do {
            unsigned d = v % 36;
            rev[n++] = (char)(d < 10 ? '0' + d : 'A' + d - 10);
            v /= 36;
        } while (v);
        while (n)
            id[k++] = rev[--n];
        id[k] = '\0';
        len += (size_t)sprintf(s + len, "PFvS%s_S%s_E", id, id);
    }
    return s;
}

static void test_backref_bound(void **state)
{
    char *buf = malloc(GC_DEMANGLE_TEXT_MAX);
    char *ok = doubling_name(3), *hostile = doubling_name(22);

    (void)state;
    assert_non_null(buf);
    /* 6 references: demangled (271 bytes). */
    assert_int_equal(gc_demangle(ok, buf, GC_DEMANGLE_TEXT_MAX), 1);
    assert_true(strncmp(buf, "f(void (*)(), void (*)(void (*)(), void (*)())", 46) == 0);
    /* 44 references: 184 MB and 11 s unbounded; refused before the demangler runs. */
    assert_int_equal(gc_demangle(hostile, buf, GC_DEMANGLE_TEXT_MAX), 0);
    assert_string_equal(buf, "");
    free(ok);
    free(hostile);
    free(buf);
}

/* "_Z<n>aaa...": a valid name of @p len bytes (1000 to 9999), whose text is its identifier. */
static char *long_name(size_t len)
{
    char *name = malloc(len + 1);
    int head;

    assert_non_null(name);
    head = snprintf(name, len + 1, "_Z%zu", len - 6); /* "_Z" and 4 digits */
    assert_int_equal(head, 6);
    memset(name + head, 'a', len - (size_t)head);
    name[len] = '\0';
    return name;
}

static void test_length_bound(void **state)
{
    char *at = long_name(GC_DEMANGLE_NAME_MAX), *past = long_name(GC_DEMANGLE_NAME_MAX + 1);
    char *buf = malloc(GC_DEMANGLE_TEXT_MAX);

    (void)state;
    assert_non_null(buf);
    assert_int_equal(gc_demangle(at, buf, GC_DEMANGLE_TEXT_MAX), 1);
    assert_int_equal(strlen(buf), GC_DEMANGLE_NAME_MAX - 6);
    assert_int_equal(gc_demangle(past, buf, GC_DEMANGLE_TEXT_MAX), 0);
    assert_string_equal(buf, "");
    free(at);
    free(past);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_names),    cmocka_unit_test(test_symbol_offset),
        cmocka_unit_test(test_not_mangled),   cmocka_unit_test(test_text_too_long),
        cmocka_unit_test(test_backref_bound), cmocka_unit_test(test_length_bound),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
