/* heap_small.c: the runtime's own allocator for blocks of up to
 * RD_SMALL_MAX (256) bytes, in front of glibc's (intercept_heap.c).
 *
 * Why: glibc gives each block an 8-byte header and a chunk of at least 32
 * bytes, so a 16-byte block takes 32, and the shadow of the headers is
 * shadow too (16 bytes per 8-byte granule): two threads that made 4
 * million 16-byte blocks each held 1.26 GB under dacce-race against clang
 * TSan's 0.82 GB, whose allocator has no headers.  Here a block is exactly
 * its size class, a multiple of 16, and blocks of a class lie side by side.
 *
 * Layout: one mapping of RD_SMALL_CLASSES sub-regions of 4 GiB
 * (MAP_NORESERVE: pages are committed as blocks are first handed out), one
 * per class, so a block's class is its sub-region, and whether a pointer
 * is ours is one range test.  A sub-region is cut into runs of 64 KiB, and
 * each thread cuts new blocks from a run of its own per class, so that two
 * threads' new blocks share no page (nor its shadow).  A class whose sub-region is used up leaves
 * its next blocks to glibc.  Memory is never given back to the kernel (as
 * clang TSan's allocator keeps it): freed blocks are reused, newest first.
 *
 * Caches: each thread keeps, per class, a list of free blocks (cur) and a
 * full batch beside it (spare), linked through each block's first word.
 * An allocation pops cur; a free pushes onto it; when cur holds a batch
 * (batch_n, 64 blocks, fewer for the larger classes) it becomes the spare,
 * and a spare already there goes to the class's global stack of batches
 * (under the class's lock), which refills a thread whose cur and spare are
 * both empty, before new blocks are cut from its run.  So a thread that
 * only frees what others made (a consumer) hands them back a batch at a
 * time, and the lock is taken once per batch.  A batch on the stack keeps
 * the next batch and its count in its first block's second word.  A
 * thread's end gives its lists, and the rest of its runs, back
 * (rd_small_thread_end); a thread without a state of its own (not yet
 * made, or past its end) allocates from glibc and frees onto the stack.
 *
 * A free block's second word holds `small_key` (a random value of the
 * process) unless it heads a batch on the stack; an allocation clears it.
 * A free that finds the key there is a double free (glibc's tcache makes
 * the same test): the runtime says so and stops the program (exit status
 * 70, dc_die), as glibc aborts it, where pushing the block again would
 * hand it out twice.
 *
 * The thread's lists are changed inside dc_enter/dc_leave: a signal
 * handler's malloc waits until the change is done. */
#include <sys/mman.h>

#include "racedet.h"

#define SUB_BITS 32u /* each class's sub-region: 4 GiB */
#define RUN ((uintptr_t)64 << 10)
#define BATCH_MAX 64u
#define COUNT_SHIFT 48u

typedef struct __attribute__((aligned(64))) small_class {
  _Atomic int lock;
  uintptr_t batches;  /* first block of the top batch, 0: none */
  uintptr_t runs;     /* runs given back, each [first, its second word) */
  char *bump, *end;   /* runs not yet handed out: [bump, end) */
} small_class;
_Static_assert(sizeof(small_class) == 64, "a class per cache line");

static small_class cls[RD_SMALL_CLASSES];
uintptr_t rd_small_base, rd_small_size_all; /* the mapping, [base, base + size) */
static uintptr_t small_key;
static uint8_t batch_n[RD_SMALL_CLASSES];

static inline unsigned class_of(const void *p) {
  return (unsigned)(((uintptr_t)p - rd_small_base) >> SUB_BITS);
}
static inline size_t class_size(unsigned i) { return (size_t)(i + 1) * RD_SMALL_ALIGN; }

size_t rd_small_usable(const void *p) { return class_size(class_of(p)); }

/* The batch from first (count blocks, linked through their first words)
 * onto class i's stack. */
static void push_batch(unsigned i, void *first, uint32_t count) {
  small_class *g = &cls[i];
  dc_lock(&g->lock);
  ((uintptr_t *)first)[1] = g->batches | (uintptr_t)count << COUNT_SHIFT;
  g->batches = (uintptr_t)first;
  dc_unlock(&g->lock);
}

/* A new run for thread cache k of class i (the class's lock held): one a
 * thread gave back, else the sub-region's next; 0 when it is used up. */
static int new_run(small_class *g, rd_small *k) {
  if (g->runs) {
    uintptr_t *r = (uintptr_t *)g->runs;
    g->runs = r[0];
    k->bump = (char *)r;
    k->bend = (char *)r[1];
    return 1;
  }
  if ((uintptr_t)(g->end - g->bump) < RUN) return 0;
  k->bump = g->bump;
  k->bend = g->bump + RUN;
  g->bump += RUN;
  return 1;
}

/* A block for thread cache k of class i whose lists are both empty: a
 * batch from the stack, else new blocks from the thread's run; 0 when the
 * sub-region is used up. */
static DC_NOINLINE void *refill(rd_small *k, unsigned i) {
  const size_t size = class_size(i);
  if (k->spare) {
    k->cur = k->spare;
    k->ncur = k->nspare;
    k->spare = 0;
    k->nspare = 0;
  } else {
    small_class *g = &cls[i];
    dc_lock(&g->lock);
    const uintptr_t b = g->batches;
    if (b) {
      const uintptr_t w = ((uintptr_t *)b)[1];
      g->batches = w & (((uintptr_t)1 << COUNT_SHIFT) - 1);
      dc_unlock(&g->lock);
      k->cur = (void *)b;
      k->ncur = (uint32_t)(w >> COUNT_SHIFT);
    } else {
      if ((size_t)(k->bend - k->bump) < size && !new_run(g, k)) {
        dc_unlock(&g->lock);
        return 0;
      }
      dc_unlock(&g->lock);
      char *from = k->bump;
      size_t n = (size_t)(k->bend - from) / size;
      if (n > batch_n[i]) n = batch_n[i];
      k->bump = from + n * size;
      /* (a block's second word is cleared when it is handed out) */
      for (size_t j = 0; j + 1 < n; j++) *(void **)(from + j * size) = from + (j + 1) * size;
      *(void **)(from + (n - 1) * size) = 0;
      k->cur = from;
      k->ncur = (uint32_t)n;
    }
  }
  void *p = k->cur;
  k->cur = *(void **)p;
  k->ncur--;
  return p;
}

void *rd_small_alloc(size_t n) {
  if (n > RD_SMALL_MAX || !rd_small_base) return 0;
  dc_thread *t = dc_guard_owner();
  if (!t) return 0;
  const unsigned i = n ? (unsigned)((n - 1) / RD_SMALL_ALIGN) : 0;
  rd_small *k = &t->small[i];
  dc_enter(t);
  void *p = k->cur;
  if (dc_likely(p)) {
    k->cur = *(void **)p;
    k->ncur--;
  } else {
    p = refill(k, i);
  }
  if (p) ((uintptr_t *)p)[1] = 0; /* (the free key; the stack's link) */
  dc_leave(t);
  return p;
}

static DC_NOINLINE __attribute__((noreturn)) void double_free(void *p) {
  dc_die("dacce: free(): double free of %p (a %zu-byte block)\n", p, rd_small_usable(p));
}

static DC_NOINLINE __attribute__((noreturn)) void bad_free(void *p) {
  dc_die("dacce: free(): invalid pointer %p (inside a %zu-byte block)\n", p, rd_small_usable(p));
}

void rd_small_free(void *p) {
  const unsigned i = class_of(p);
  uintptr_t *w = p;
  if (dc_unlikely((uintptr_t)p % RD_SMALL_ALIGN)) bad_free(p);
  if (dc_unlikely(w[1] == small_key)) double_free(p);
  dc_thread *t = dc_guard_owner();
  if (!t) {
    w[0] = 0;
    push_batch(i, p, 1);
    return;
  }
  rd_small *k = &t->small[i];
  dc_enter(t);
  w[0] = (uintptr_t)k->cur;
  w[1] = small_key;
  k->cur = p;
  if (dc_unlikely(++k->ncur >= batch_n[i])) {
    if (k->spare) push_batch(i, k->spare, k->nspare);
    k->spare = k->cur;
    k->nspare = k->ncur;
    k->cur = 0;
    k->ncur = 0;
  }
  dc_leave(t);
}

void rd_small_thread_end(rd_thread *r) {
  for (unsigned i = 0; i < RD_SMALL_CLASSES; i++) {
    rd_small *k = &rd_owner(r)->small[i];
    if (k->cur) push_batch(i, k->cur, k->ncur);
    if (k->spare) push_batch(i, k->spare, k->nspare);
    if ((size_t)(k->bend - k->bump) >= class_size(i)) {
      small_class *g = &cls[i];
      uintptr_t *run = (uintptr_t *)k->bump;
      dc_lock(&g->lock);
      run[0] = g->runs;
      run[1] = (uintptr_t)k->bend;
      g->runs = (uintptr_t)run;
      dc_unlock(&g->lock);
    }
    *k = (rd_small){0};
  }
}

/* The mapping, at the runtime's start (before any thread but the first);
 * without it (option small_heap=0, or no address space for it) every
 * block is glibc's. */
__attribute__((constructor)) static void small_init(void) {
  dc_init(); /* (the options) */
  for (unsigned i = 0; i < RD_SMALL_CLASSES; i++) {
    const size_t b = 8192 / class_size(i);
    batch_n[i] = (uint8_t)(b < BATCH_MAX ? b : BATCH_MAX);
  }
  dc_atfork_register(DC_RANK_SMALL, &cls[0].lock, RD_SMALL_CLASSES, sizeof(small_class));
  if (!dc_opt.small_heap || rd_small_base) return;
  const size_t size = (size_t)RD_SMALL_CLASSES << SUB_BITS;
  void *m = dc_sys_mmap(0, size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return;
  for (unsigned i = 0; i < RD_SMALL_CLASSES; i++) {
    cls[i].bump = (char *)m + ((size_t)i << SUB_BITS);
    cls[i].end = cls[i].bump + ((size_t)1 << SUB_BITS);
  }
  small_key = dc_hash_word(__builtin_ia32_rdtsc() ^ (uintptr_t)m) | 1;
  rd_small_size_all = size;
  rd_small_base = (uintptr_t)m;
}
