/* aload_first_store.c: an atomic load that found no sync object for its
 * location must not miss the object that the store it reads makes.  The
 * writer hands the reader 40,000 values, each through a flag of its own that
 * nobody stored to before: it writes a slot and stores 1 to the round's
 * flag (release), which makes the flag's object; the reader is already
 * spinning on that flag with acquire loads, which found no object.  Often
 * the store lands between a load's lookup and the load itself: then the
 * load, which read 1, must be done again with the new object locked
 * (racedet/sync.c, rd_sync_find and rd_sync_none_since), or the reader's
 * read of the slot is reported as racing with the writer's write.  The
 * flags are 8 bytes, 8 to a 64-byte line: the first of a line finds the
 * line's count of objects at 0, the others find it raised and look in the
 * table.  (With the check of the line cut out, this reported that race in
 * 5 of 10 runs, with the check of the table cut out in 8 of 10; the runtime
 * before both, in 1 of 40 runs of aload_handoffs.c, whose first round is
 * such a handoff.)
 *
 * EXPECT: clean
 * EXPECT-STDOUT: aload_first_store 800020000
 */
#include <stdatomic.h>
#include <stddef.h>

#define ROUNDS 40000
static long slot[8];
static _Alignas(64) atomic_long flags[ROUNDS + 1];
static atomic_long ack;

static void *writer(void *arg) {
  (void)arg;
  for (long i = 1; i <= ROUNDS; i++) {
    slot[i % 8] = i;
    atomic_store_explicit(&flags[i], 1, memory_order_release);
    while (atomic_load_explicit(&ack, memory_order_acquire) != i) {
    }
  }
  return NULL;
}

static void *reader(void *arg) {
  long *sum = arg;
  for (long i = 1; i <= ROUNDS; i++) {
    while (!atomic_load_explicit(&flags[i], memory_order_acquire)) {
    }
    *sum += slot[i % 8];
    atomic_store_explicit(&ack, i, memory_order_release);
  }
  return NULL;
}

#define RW_NAME "aload_first_store"
#include "reader_writer.h"
