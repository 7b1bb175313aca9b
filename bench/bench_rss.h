/* SPDX-License-Identifier: MIT */
/* The benchmark programs' view of their own memory. */
#ifndef GPUCORE_BENCH_RSS_H
#define GPUCORE_BENCH_RSS_H

#include <stdio.h>

/*
 * RssAnon (the heap, decoded frames: memory of the process's own) and RssFile (pages of mapped
 * files it touched: cores, libraries) of this process, in kB; -1 each if /proc does not say.
 */
static inline void bench_rss_now(long *ret_anon_kb, long *ret_file_kb)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];

    *ret_anon_kb = *ret_file_kb = -1;
    while (f && fgets(line, sizeof(line), f)) {
        if (sscanf(line, "RssAnon: %ld kB", ret_anon_kb) == 1)
            continue;
        sscanf(line, "RssFile: %ld kB", ret_file_kb);
    }
    if (f)
        fclose(f);
}

#endif
