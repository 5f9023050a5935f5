/* verify.c: the verification mode (option verify=N).  Every Nth event the
 * current context is captured, decoded and compared frame by frame with the
 * frame stack the hooks maintain.  A mismatch prints both and, by default,
 * aborts: a wrong context is never silently accepted. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

static const char *sym(uintptr_t pc) {
  Dl_info info;
  if (pc && dladdr((void *)pc, &info) && info.dli_sname) return info.dli_sname;
  return "?";
}

static void print_frames(const char *title, const dacce_frame *f, int n) {
  dc_printf("==dacce==   %s (%d frames, innermost first):\n", title, n);
  for (int i = 0; i < n && i < 64; i++)
    dc_printf("==dacce==     #%d fn %#lx %s  from %#lx\n", i, (unsigned long)f[i].function,
              sym(f[i].function), (unsigned long)f[i].callsite);
  if (n > 64) dc_printf("==dacce==     ... %d more\n", n - 64);
}

void dc_verify(dc_thread *t) {
  /* the capture first: it encodes the raw frames, whose edges the truth
   * below is read from (the calls' sites and callees as the hooks saw
   * them, whatever the encoding made of them) */
  dacce_ctx c;
  dc_capture(t, &c);
  uint32_t depth = dc_depth(t);
  size_t bytes = ((size_t)depth + 1) * 2 * sizeof(dacce_frame);
  /* one buffer per thread, grown as needed: verification runs at every event */
  static DC_TLS dacce_frame *tbuf;
  static DC_TLS size_t tbytes;
  if (bytes > tbytes) {
    if (tbuf) dc_munmap(tbuf, tbytes);
    tbytes = bytes * 2;
    tbuf = dc_mmap(tbytes);
  }
  dacce_frame *buf = tbuf;
  dacce_frame *truth = buf, *got = buf + depth + 1;
  for (uint32_t i = 0; i < depth; i++) {
    const dc_frame *f = &t->frames[depth - 1 - i];
    const dc_edge *e = dc_edge_at(f->edge);
    truth[i].function = dc_node_at(e->callee)->pc;
    truth[i].callsite = e->cs;
  }
  int n = dc_decode_thread(&c, got, (int)depth + 1);
  int bad = n != (int)depth;
  for (int i = 0; !bad && i < n; i++)
    bad = got[i].function != truth[i].function || got[i].callsite != truth[i].callsite;
  atomic_fetch_add_explicit(&dc_verified, 1, memory_order_relaxed);
  if (bad) {
    atomic_fetch_add(&dc_mismatches, 1);
    dc_printf("==dacce== VERIFY MISMATCH in thread %u: ts %u node %u id %llu cc %u "
              "(decoder returned %d)\n",
              t->serial, c.ts, c.node, (unsigned long long)c.id, c.cc, n);
    print_frames("frame stack", truth, (int)depth);
    if (n > 0) print_frames("decoded", got, n);
    if (dc_opt.verify_abort) {
      dc_printf("==dacce== verification FAILED (verify_abort=1)\n");
      abort();
    }
  }
}
