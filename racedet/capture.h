/* capture.h: the context-capture ablations (option capture=stackwalk|cct),
 * which replace DACCE to measure what the encoding buys.  See capture.c. */
#ifndef DACCE_CAPTURE_H
#define DACCE_CAPTURE_H
#include <stdint.h>

#include "../encoder/internal.h"

void rd_capture_init(void); /* from rd_init, in the ablation modes only */
const char *rd_capture_name(void); /* "dacce", "stackwalk" or "cct" */

/* rd_ctx_handle in the ablation modes: the handle of the calling thread's
 * context, a stack-table id (stackwalk) or a tree node (cct), with the held
 * mutexes, interned like DACCE snapshots.  Sets t->node to the node the
 * access's pc is numbered under (rd_site_of reads it next, site.c). */
uint32_t rd_capture_handle(dc_thread *t);
/* rd_thread.c: intern {c, the thread's held set} through the thread's cache */
uint32_t rd_ctx_intern(dc_thread *t, const dacce_ctx *c);

/* capture=cct: the child of parent through (call site, callee pc), created
 * if new; *gnode = the graph node of callee.  Node 0 is the root. */
uint32_t rd_cct_child(uint32_t parent, uintptr_t cs, uintptr_t callee, uint32_t *gnode);
uintptr_t rd_cct_cs(uint32_t node); /* the call site it was entered from */

/* Report frames of an ablation context id (a context record's id, or for
 * cct a thread's creation context's cc), innermost first as report.c lays
 * out DACCE stacks: the pc (when known), then the call sites, each inside
 * its call instruction.  Returns the count; *truncated when max was hit. */
int rd_capture_frames(uint64_t id, uintptr_t pc, uintptr_t *out, int max, int *truncated);

#endif
