/* rounds64.h: for the tests that make 64 rounds of accesses at the same
 * moment (lockstep_collide.c, lockstep_refresh.c, displaced_store.c), each
 * round in functions of its own so that EXPECT-EVERY tells the 64 races
 * apart.  EACH64(M) expands M(0) M(1) ... M(63); TABLE64(p) is the
 * initialiser {p##0, p##1, ..., p##63}; meet(i) is round i's spin barrier
 * of relaxed atomics, which MEETING threads leave at the same moment
 * (relaxed atomics order nothing: the detector sees no synchronisation). */
#ifndef ROUNDS64_H
#define ROUNDS64_H
#include <sched.h>

#define ROUNDS 64
#define EACH10_(M, t) \
  M(t##0) M(t##1) M(t##2) M(t##3) M(t##4) M(t##5) M(t##6) M(t##7) M(t##8) M(t##9)
#define EACH64(M)                                                                             \
  M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) EACH10_(M, 1) EACH10_(M, 2) EACH10_(M, 3) \
  EACH10_(M, 4) EACH10_(M, 5) M(60) M(61) M(62) M(63)
#define TABLE64(p)                                                                             \
  {p##0,  p##1,  p##2,  p##3,  p##4,  p##5,  p##6,  p##7,  p##8,  p##9,  p##10, p##11, p##12, \
   p##13, p##14, p##15, p##16, p##17, p##18, p##19, p##20, p##21, p##22, p##23, p##24, p##25, \
   p##26, p##27, p##28, p##29, p##30, p##31, p##32, p##33, p##34, p##35, p##36, p##37, p##38, \
   p##39, p##40, p##41, p##42, p##43, p##44, p##45, p##46, p##47, p##48, p##49, p##50, p##51, \
   p##52, p##53, p##54, p##55, p##56, p##57, p##58, p##59, p##60, p##61, p##62, p##63}

#ifndef MEETING
#define MEETING 2
#endif
static int arrived[ROUNDS];
static void meet(int i) {
  __atomic_fetch_add(&arrived[i], 1, __ATOMIC_RELAXED);
  for (long spins = 0; __atomic_load_n(&arrived[i], __ATOMIC_RELAXED) < MEETING; spins++)
    if (spins > 100000) sched_yield(); /* another one is not running: let it */
}
#endif
