/* SPDX-License-Identifier: MIT */
/*
 * Regression driver for fuzz targets (G-FUZZ-4): runs LLVMFuzzerTestOneInput once per file
 * given on the command line, recursing into directories, so every corpus runs as an ordinary
 * test in every build (and under the sanitizers in the sanitizer build). A target signals a
 * broken invariant by aborting; this driver fails if a corpus is empty or unreadable.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path, unsigned *count)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long size;

    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "%s: cannot size file\n", path);
        fclose(f);
        return -1;
    }
    buf = malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read file\n", path);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)size);
    free(buf);
    (*count)++;
    return 0;
}

static int run_path(const char *path, unsigned *count)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    int rc = 0;

    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return run_file(path, count);
    d = opendir(path);
    if (!d) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        char child[4096];

        if (e->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(child, sizeof(child), "%s/%s", path, e->d_name) >= sizeof(child)) {
            rc = -1;
            continue;
        }
        if (run_path(child, count) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned count = 0;
    int rc = 0;

    for (int i = 1; i < argc; i++)
        if (run_path(argv[i], &count) != 0)
            rc = 1;
    if (count == 0) {
        fprintf(stderr, "no corpus inputs found\n");
        return 1;
    }
    printf("fuzz corpus: %u inputs processed\n", count);
    return rc;
}
