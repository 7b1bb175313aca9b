/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the bounded C++ demangler (analyze/demangle.h): a hostile symbol name, as a
 * code object or a host library of a core may hold, must neither crash, hang nor take
 * unbounded memory (libstdc++'s demangler prints exponentially long text for some short
 * names: the bounds refuse them first).
 *
 * Input: u8 size selector, then the name (bytes up to the end; a NUL ends it early).
 * The buffer is GC_DEMANGLE_TEXT_MAX bytes when the selector is odd, else selector / 2 + 1.
 *
 * Invariants (abort() on violation): each call returns 0 or 1; on 0 the buffer is ""; on 1
 * the text is non-empty, shorter than the buffer and GC_DEMANGLE_TEXT_MAX, and the name started
 * with "_Z"; gc_demangle_symbol of a name without "+0x" agrees with gc_demangle.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs longer than this are cut: past GC_DEMANGLE_NAME_MAX plus an offset, so the length
   bound itself is exercised, but no longer (the fuzzer's time goes to the names). */
#define FUZZ_NAME_MAX (GC_DEMANGLE_NAME_MAX + 64u)

static void check_result(int rc, const char *name, const char *buf, size_t bufsize)
{
    CHECK(rc == 0 || rc == 1);
    if (rc == 0) {
        CHECK(buf[0] == '\0');
        return;
    }
    CHECK(strncmp(name, "_Z", 2) == 0);
    CHECK(buf[0] != '\0');
    CHECK(strlen(buf) < bufsize);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t bufsize, len;
    char *name, *buf, *buf2;
    int rc, rc2;

    if (size < 1)
        return 0;
    bufsize = data[0] & 1u ? GC_DEMANGLE_TEXT_MAX + 32u : (size_t)data[0] / 2u + 1u;
    len = size - 1 < FUZZ_NAME_MAX ? size - 1 : FUZZ_NAME_MAX;
    name = malloc(len + 1);
    buf = malloc(bufsize);
    buf2 = malloc(bufsize);
    CHECK(name && buf && buf2);
    memcpy(name, data + 1, len);
    name[len] = '\0';

    rc = gc_demangle(name, buf, bufsize);
    check_result(rc, name, buf, bufsize);
    CHECK(rc == 0 || strlen(buf) < GC_DEMANGLE_TEXT_MAX);
    rc2 = gc_demangle_symbol(name, buf2, bufsize);
    check_result(rc2, name, buf2, bufsize);
    if (!strstr(name, "+0x")) {
        CHECK(rc2 == rc);
        CHECK(strcmp(buf, buf2) == 0);
    }
    free(name);
    free(buf);
    free(buf2);
    return 0;
}
