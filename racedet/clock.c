/* clock.c: vector clocks, indexed by thread slot, grown on demand. */
#include <string.h>

#include "racedet.h"

void rd_vc_ensure(rd_vc *v, uint32_t n) {
  if (n <= v->cap) {
    if (n > v->n) v->n = n;
    return;
  }
  uint32_t cap = v->cap ? v->cap : 8;
  while (cap < n) cap *= 2;
  uint32_t *c = dc_alloc((size_t)cap * 4);
  for (uint32_t i = 0; i < v->n; i++) c[i] = v->c[i];
  dc_free(v->c, (size_t)v->cap * 4);
  v->c = c;
  v->cap = cap;
  v->n = n;
}

void rd_vc_reserve_all(rd_vc *v) {
  const uint32_t n = v->n;
  rd_vc_ensure(v, SH_MAX_TID + 1);
  v->n = n;
}

/* d[i] = max(d[i], s[i]), vectorised (four entries an SSE2 step): a
 * program that has used many thread slots joins long clocks at every
 * acquire and release (racedet/rd_thread.c), and the loop that stored only
 * larger entries stayed scalar, a compare and branch per entry. */
__attribute__((optimize("tree-vectorize"))) static void vc_max(uint32_t *restrict d,
                                                               const uint32_t *restrict s,
                                                               uint32_t n) {
  for (uint32_t i = 0; i < n; i++) d[i] = d[i] > s[i] ? d[i] : s[i];
}

void rd_vc_join(rd_vc *dst, const rd_vc *src) {
  if (src->n > dst->n) rd_vc_ensure(dst, src->n);
  if (dst != src) vc_max(dst->c, src->c, src->n);
}

void rd_vc_copy(rd_vc *dst, const rd_vc *src) {
  rd_vc_ensure(dst, src->n);
  for (uint32_t i = 0; i < src->n; i++) dst->c[i] = src->c[i];
  for (uint32_t i = src->n; i < dst->n; i++) dst->c[i] = 0;
}

void rd_vc_free(rd_vc *v) {
  dc_free(v->c, (size_t)v->cap * 4);
  v->c = 0;
  v->n = v->cap = 0;
}
