/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for a core's journal entry (store/journal.h): the input stands for the values a
 * hostile core gives its row. gc_journal_escape() of the raw bytes into a buffer of a size the
 * input picks must stay inside it, NUL-terminated, and return the length written; the entry
 * gc_journal_build() makes of a row whose every string is the input must have only fields
 * "NAME=value" with no control byte, valid UTF-8, and a value of at most GC_JOURNAL_VALUE_MAX
 * bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @p s (@p n bytes) is valid UTF-8 without C0 controls or DEL (what the escaping promises;
   C1 controls are two-byte sequences it escapes as text). */
static int clean_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                              : (c & 0xf8) == 0xf0   ? 4
                                                     : 0;

        if (k == 0 || i + k > n || (k == 1 && (c < 0x20 || c == 0x7f)))
            return 0;
        for (size_t j = 1; j < k; j++)
            if ((s[i + j] & 0xc0) != 0x80)
                return 0;
        i += k;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gc_store_row row = { 0 };
    struct gc_journal_entry e;
    gpucore_diag_t d = { 0 };
    size_t out_size = size ? (size_t)data[0] * 64 + 1 : 1, got;
    char *out = malloc(out_size + 1), *text = malloc(size + 1);

    if (!out || !text)
        goto done;
    out[out_size] = 'Z'; /* a guard just past what the escape may use */
    got = gc_journal_escape((const char *)data, size, out, out_size);
    if (out[out_size] != 'Z' || got >= out_size || out[got] != '\0' || strlen(out) != got ||
        got > GC_JOURNAL_VALUE_MAX || !clean_utf8((const unsigned char *)out, got))
        abort();

    memcpy(text, data, size);
    text[size] = '\0';
    row.host = row.exe = row.job = row.targets = row.trigger = row.sig_text = row.sig_hash =
            row.file = row.error = text;
    row.time_ns = row.pid = row.uid = row.rank = row.waves = row.faulting_waves = row.size =
            size ? (int64_t)data[0] - 1 : -1;
    row.id = size;
    if (gc_journal_build(&e, &row, text[0] ? text : "core", GC_JOURNAL_BY_INGEST, &d) ==
        GPUCORE_OK) {
        for (size_t i = 0; i < e.n; i++) {
            const unsigned char *f = e.iov[i].iov_base;
            const unsigned char *eq = memchr(f, '=', e.iov[i].iov_len);
            size_t vlen;

            if (!eq || eq == f || (size_t)(eq - f) > GC_JOURNAL_NAME_MAX)
                abort();
            vlen = e.iov[i].iov_len - (size_t)(eq + 1 - f);
            if (vlen > GC_JOURNAL_VALUE_MAX || !clean_utf8(eq + 1, vlen))
                abort();
        }
    }
    gc_journal_entry_done(&e);
done:
    free(out);
    free(text);
    return 0;
}
