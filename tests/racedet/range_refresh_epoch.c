/* range_refresh_epoch.c: a copy over the thread's own earlier copy is
 * recorded in the thread's new epoch.  The writer copies into a buffer,
 * unlocks a mutex (a release: a new epoch), and copies into the buffer
 * again (each whole granule then holds the writer's own cell of the
 * earlier epoch: racedet/access.c, range_quick refreshes it).  The reader
 * locks the mutex after the writer's unlock, which orders the first copy
 * before it but not the second, and reads the buffer: a race with the
 * second copy.  A refresh that kept the earlier epoch would make the
 * second copy look ordered too, and report nothing.
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_buf reader_work reader
 * EXPECT-PREVIOUS: copy_again writer_work writer
 * EXPECT-LOCATION: global buf
 * EXPECT-COUNT: 1
 */
#include <pthread.h>
#include <string.h>

char buf[64];
static char src[64] = "the quick brown fox jumps over the lazy dog";
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

/* the size through a volatile, so that the compiler calls memcpy (gcc
 * expands a constant-size copy into stores it does not instrument) */
static volatile size_t buf_size = sizeof buf;
__attribute__((noinline)) void copy_first(void) { memcpy(buf, src, buf_size); }
__attribute__((noinline)) void copy_again(void) { memcpy(buf, src, buf_size); }
__attribute__((noinline)) int read_buf(void) { return buf[40]; }

__attribute__((noinline)) void writer_work(void) {
  pthread_mutex_lock(&m);
  copy_first();
  pthread_mutex_unlock(&m);
  copy_again();
}

__attribute__((noinline)) int reader_work(void) {
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  return read_buf();
}

#include "relaxed_handoff.h"
