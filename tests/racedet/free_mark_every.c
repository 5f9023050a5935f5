/* free_mark_every.c: every granule of a free's mark is there.  A 1,500-byte
 * block is freed by one thread; main, ordered after the free by nothing (a
 * relaxed flag), then reads each of the 128 granules of its first 1 KiB
 * (the mark's extent, RD_FREE_MARK), each from a function of its own, and
 * the last granule, in part, of a 1,001-byte block freed with it.  Each
 * read is a use after free of its own.  Half of the first block's
 * granules hold another thread's writes, ordered before the free by a
 * join, so that the mark goes both ways: plain stores where the cells are
 * empty or the freeing thread's own (racedet/access.c, mark_freed), and
 * range_flags' way where they are not.  A granule that the mark skipped,
 * or a mark in the wrong cell, loses a report.
 *
 * EXPECT: heap-use-after-free
 * EXPECT-EVERY: 129 leaf
 * EXPECT-COUNT: 129
 * EXPECT-PREVIOUS: release_blocks freer
 * EXPECT-LOCATION: heap
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

static char *a, *b;
static atomic_int freed;

__attribute__((noinline)) void release_blocks(void) {
  free(a);
  free(b);
}
static void *freer(void *x) {
  release_blocks();
  atomic_store_explicit(&freed, 1, memory_order_relaxed);
  return x;
}
static void *writer(void *x) {
  for (int i = 0; i < 1024; i += 16) a[i] = (char)i; /* every other granule */
  return x;
}

/* leaf_k reads granule k of a; leaf_128 the last byte of b */
#define LEAF(k)                                                              \
  __attribute__((noinline)) int leaf_##k(void) {                             \
    return ((volatile char *)((k) < 128 ? a + 8 * (k) : b + 1000))[0];       \
  }
LEAF(0) LEAF(1) LEAF(2) LEAF(3) LEAF(4) LEAF(5) LEAF(6) LEAF(7) LEAF(8) LEAF(9)
LEAF(10) LEAF(11) LEAF(12) LEAF(13) LEAF(14) LEAF(15) LEAF(16) LEAF(17) LEAF(18) LEAF(19)
LEAF(20) LEAF(21) LEAF(22) LEAF(23) LEAF(24) LEAF(25) LEAF(26) LEAF(27) LEAF(28) LEAF(29)
LEAF(30) LEAF(31) LEAF(32) LEAF(33) LEAF(34) LEAF(35) LEAF(36) LEAF(37) LEAF(38) LEAF(39)
LEAF(40) LEAF(41) LEAF(42) LEAF(43) LEAF(44) LEAF(45) LEAF(46) LEAF(47) LEAF(48) LEAF(49)
LEAF(50) LEAF(51) LEAF(52) LEAF(53) LEAF(54) LEAF(55) LEAF(56) LEAF(57) LEAF(58) LEAF(59)
LEAF(60) LEAF(61) LEAF(62) LEAF(63) LEAF(64) LEAF(65) LEAF(66) LEAF(67) LEAF(68) LEAF(69)
LEAF(70) LEAF(71) LEAF(72) LEAF(73) LEAF(74) LEAF(75) LEAF(76) LEAF(77) LEAF(78) LEAF(79)
LEAF(80) LEAF(81) LEAF(82) LEAF(83) LEAF(84) LEAF(85) LEAF(86) LEAF(87) LEAF(88) LEAF(89)
LEAF(90) LEAF(91) LEAF(92) LEAF(93) LEAF(94) LEAF(95) LEAF(96) LEAF(97) LEAF(98) LEAF(99)
LEAF(100) LEAF(101) LEAF(102) LEAF(103) LEAF(104) LEAF(105) LEAF(106) LEAF(107) LEAF(108) LEAF(109)
LEAF(110) LEAF(111) LEAF(112) LEAF(113) LEAF(114) LEAF(115) LEAF(116) LEAF(117) LEAF(118) LEAF(119)
LEAF(120) LEAF(121) LEAF(122) LEAF(123) LEAF(124) LEAF(125) LEAF(126) LEAF(127) LEAF(128)
static int (*const leaves[])(void) = {
    leaf_0, leaf_1, leaf_2, leaf_3, leaf_4, leaf_5, leaf_6, leaf_7, leaf_8, leaf_9, leaf_10,
    leaf_11, leaf_12, leaf_13, leaf_14, leaf_15, leaf_16, leaf_17, leaf_18, leaf_19, leaf_20,
    leaf_21, leaf_22, leaf_23, leaf_24, leaf_25, leaf_26, leaf_27, leaf_28, leaf_29, leaf_30,
    leaf_31, leaf_32, leaf_33, leaf_34, leaf_35, leaf_36, leaf_37, leaf_38, leaf_39, leaf_40,
    leaf_41, leaf_42, leaf_43, leaf_44, leaf_45, leaf_46, leaf_47, leaf_48, leaf_49, leaf_50,
    leaf_51, leaf_52, leaf_53, leaf_54, leaf_55, leaf_56, leaf_57, leaf_58, leaf_59, leaf_60,
    leaf_61, leaf_62, leaf_63, leaf_64, leaf_65, leaf_66, leaf_67, leaf_68, leaf_69, leaf_70,
    leaf_71, leaf_72, leaf_73, leaf_74, leaf_75, leaf_76, leaf_77, leaf_78, leaf_79, leaf_80,
    leaf_81, leaf_82, leaf_83, leaf_84, leaf_85, leaf_86, leaf_87, leaf_88, leaf_89, leaf_90,
    leaf_91, leaf_92, leaf_93, leaf_94, leaf_95, leaf_96, leaf_97, leaf_98, leaf_99, leaf_100,
    leaf_101, leaf_102, leaf_103, leaf_104, leaf_105, leaf_106, leaf_107, leaf_108, leaf_109,
    leaf_110, leaf_111, leaf_112, leaf_113, leaf_114, leaf_115, leaf_116, leaf_117, leaf_118,
    leaf_119, leaf_120, leaf_121, leaf_122, leaf_123, leaf_124, leaf_125, leaf_126, leaf_127,
    leaf_128};

int main(void) {
  a = malloc(1500);
  b = malloc(1001);
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  pthread_join(t, 0);
  pthread_create(&t, 0, freer, 0);
  while (!atomic_load_explicit(&freed, memory_order_relaxed)) sched_yield();
  int s = 0;
  for (unsigned k = 0; k < sizeof leaves / sizeof *leaves; k++) s += leaves[k]();
  pthread_join(t, 0);
  return s == 12345; /* (s is read) */
}
