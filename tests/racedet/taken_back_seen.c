/* taken_back_seen.c: a release that another thread saw is not taken back.
 *
 * A writes y, releases a mutex (epoch e) and lets B go.  B acquires what
 * the mutex released by annotation (__tsan_acquire: a clock read, not a
 * lock), so B sees A's accesses up to e as ordered before it, and lets A
 * go.  A takes the mutex again and writes y again; B then reads y, ordered
 * with that second write by nothing but a relaxed flag: a race with it.
 * Had A taken its release back when it took the mutex again (racedet/
 * sync.c, take_back; checked by making seen_by do nothing), its cell of
 * the first write (epoch e or before) would cover the second, which would
 * not be stored, and B, whose clock covers e, would find nothing.
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: b_read
 * EXPECT-PREVIOUS: a_second
 */
void __tsan_acquire(void *addr);

#define AFTER_FIRST() (void)0
#define OBSERVE() __tsan_acquire(&m)
#include "second_write.h"
