/* taken_back_last.c: only the thread's last release is taken back.
 *
 * A writes y under mutex m and releases it (epoch e1), then takes and
 * drops mutex other (epoch e2, its last release), which B then takes: B
 * sees A's accesses up to e2 as ordered before it.  A takes m again, which
 * nobody else took, and writes y again; B then reads y, ordered with that
 * second write by nothing but a relaxed flag: a race with it
 * (second_write.h).  The release into m is not A's last (other's came after
 * it and was seen), so it stays:
 * taken back, it would make A's cells since e1 cover again (the first
 * write's among them), the second write would not be stored, and B, whose
 * clock covers e2, would find nothing (checked by letting take_back ignore
 * the count of releases).
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: b_read
 * EXPECT-PREVIOUS: a_second
 */
#include <pthread.h>

static pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;
#define AFTER_FIRST() (pthread_mutex_lock(&other), pthread_mutex_unlock(&other))
#define OBSERVE() (pthread_mutex_lock(&other), pthread_mutex_unlock(&other))
#include "second_write.h"
