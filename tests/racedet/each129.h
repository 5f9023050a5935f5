/* each129.h: for the tests that make 129 accesses, each in a function of
 * its own so that EXPECT-EVERY tells the 129 reports apart
 * (free_mark_every.c, free_check_every.c: the 128 granules of a KiB and
 * one more).  EACH129(M) expands M(0) M(1) ... M(128); TABLE129(p) is the
 * initialiser {p##0, p##1, ..., p##128}. */
#ifndef EACH129_H
#define EACH129_H

#define EACH10_(M, t) \
  M(t##0) M(t##1) M(t##2) M(t##3) M(t##4) M(t##5) M(t##6) M(t##7) M(t##8) M(t##9)
#define EACH129(M)                                                                        \
  M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) EACH10_(M, 1) EACH10_(M, 2)           \
  EACH10_(M, 3) EACH10_(M, 4) EACH10_(M, 5) EACH10_(M, 6) EACH10_(M, 7) EACH10_(M, 8)     \
  EACH10_(M, 9) EACH10_(M, 10) EACH10_(M, 11) M(120) M(121) M(122) M(123) M(124) M(125)   \
  M(126) M(127) M(128)
#define TABLE10_(p, t) \
  p##t##0, p##t##1, p##t##2, p##t##3, p##t##4, p##t##5, p##t##6, p##t##7, p##t##8, p##t##9
#define TABLE129(p)                                                                       \
  {p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9, TABLE10_(p, 1),            \
   TABLE10_(p, 2), TABLE10_(p, 3), TABLE10_(p, 4), TABLE10_(p, 5), TABLE10_(p, 6),        \
   TABLE10_(p, 7), TABLE10_(p, 8), TABLE10_(p, 9), TABLE10_(p, 10), TABLE10_(p, 11),      \
   p##120, p##121, p##122, p##123, p##124, p##125, p##126, p##127, p##128}

#endif
