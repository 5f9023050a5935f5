/* umap.c: a small hash map from nonzero addresses to two words, for the
 * runtime's side tables (thread leaks, mutex creation sites).  Open
 * addressing with tombstones; memory from dc_alloc (never malloc, which the
 * detector intercepts).  Not synchronised: each user holds its own lock. */
#include "racedet.h"

#define TOMB ((uintptr_t)1)

static uint32_t slot_of(const rd_umap *m, uintptr_t key) {
  return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
}

static void grow(rd_umap *m) {
  rd_umap_ent *old = m->e;
  uint32_t ocap = m->cap, live = 0;
  for (uint32_t i = 0; i < ocap; i++) live += old[i].key > TOMB;
  m->cap = 64;
  while (m->cap < 4 * (live + 1)) m->cap *= 2;
  m->e = dc_alloc(m->cap * sizeof *m->e);
  m->used = 0;
  for (uint32_t i = 0; i < ocap; i++)
    if (old[i].key > TOMB) *rd_umap_find(m, old[i].key, 1) = old[i];
  if (old) dc_free(old, ocap * sizeof *old);
}

rd_umap_ent *rd_umap_find(rd_umap *m, uintptr_t key, int insert) {
  if (insert && (m->used + 1) * 2 > m->cap) grow(m);
  if (!m->cap) return NULL;
  rd_umap_ent *free_slot = NULL;
  for (uint32_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
    rd_umap_ent *e = &m->e[i];
    if (e->key == key) return e;
    if (e->key == TOMB && !free_slot) free_slot = e;
    if (!e->key) {
      if (!insert) return NULL;
      if (!free_slot) {
        free_slot = e;
        m->used++;
      }
      *free_slot = (rd_umap_ent){key, 0, 0};
      return free_slot;
    }
  }
}

void rd_umap_del(rd_umap *m, rd_umap_ent *e) {
  (void)m; /* the key stays a tombstone: probes go on past it */
  e->key = TOMB;
}

int rd_umap_live(const rd_umap_ent *e) { return e->key > TOMB; }

void rd_umap_clear(rd_umap *m) {
  if (m->e) dc_free(m->e, m->cap * sizeof *m->e);
  *m = (rd_umap){0};
}
