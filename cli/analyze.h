/* SPDX-License-Identifier: MIT */
/*
 * `gpucore analyze` as text: one renderer per view, over the view's JSON document as
 * analyze/triage.h builds it (cli/analyze_render.c). A renderer reads nothing but the
 * document, so the text and `--json` never disagree. The document is borrowed; nothing is
 * returned: a write error shows when the caller flushes @p out.
 */
#ifndef GPUCORE_CLI_ANALYZE_H
#define GPUCORE_CLI_ANALYZE_H

#include <stdio.h>

#include <jansson.h>

void analyze_render_report(FILE *out, const json_t *doc); /* gc_triage_report() */
/* `waves`, a wave at a time (triage.h): the head (gc_triage_waves_head()), then each wave
   (gc_triage_waves_item()). */
void analyze_render_waves_head(FILE *out, const json_t *head);
void analyze_render_wave(FILE *out, const json_t *wave);
void analyze_render_regs(FILE *out, const json_t *doc);   /* gc_triage_regs() */
void analyze_render_disasm(FILE *out, const json_t *doc); /* gc_triage_disasm() */
void analyze_render_mem(FILE *out, const json_t *doc);    /* gc_triage_mem() */

#endif /* GPUCORE_CLI_ANALYZE_H */
