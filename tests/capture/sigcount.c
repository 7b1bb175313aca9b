/* SPDX-License-Identifier: MIT */
/*
 * sigcount SECONDS: a command for `gpucore run` tests that counts the SIGINTs it receives.
 * Prints "sigcount: pid N ready", then sleeps SECONDS (at least one SIGINT or not) and exits
 * with the number of SIGINTs it was delivered (each runs the handler once: a second SIGINT
 * that arrives while the first is handled is delivered after it, not merged). Exit 64: usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t count;

static void on_int(int sig)
{
    (void)sig;
    count++;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    struct timespec ts;
    long secs;

    if (argc != 2 || (secs = strtol(argv[1], NULL, 10)) < 1 || secs > 600) {
        fprintf(stderr, "usage: sigcount SECONDS\n");
        return 64;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_int;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    printf("sigcount: pid %ld ready\n", (long)getpid());
    fflush(stdout);
    ts.tv_sec = secs;
    ts.tv_nsec = 0;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    return count > 100 ? 100 : (int)count;
}
