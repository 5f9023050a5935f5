/* aload_handoffs.c: many releases landing while the reader's atomic loads
 * run without locks (racedet/access.c, rd_atomic_load_pre).  The writer
 * hands the reader 20,000 values one at a time: it writes a slot, stores
 * the round's number in flag (release), and waits for the reader's
 * acknowledgement.  The reader spins on flag with acquire loads; between
 * two rounds it has joined the flag's clock, so its loads take no lock
 * until the writer's store moves the object's version.  Often that store
 * lands between a load's first look at the version and the load itself:
 * then the load, which read the new round, must be done again under the
 * lock and join the writer's clock, or the reader's read of the slot is
 * reported as racing with the writer's write.  (Without the second look,
 * after the load, it reported that race in each of 10 runs.)
 *
 * EXPECT: clean
 * EXPECT-STDOUT: aload_handoffs 200010000
 */
#include <stdatomic.h>
#include <stddef.h>

#define ROUNDS 20000
static long slot[8];
static atomic_long flag, ack;

static void *writer(void *arg) {
  (void)arg;
  for (long i = 1; i <= ROUNDS; i++) {
    slot[i % 8] = i;
    atomic_store_explicit(&flag, i, memory_order_release);
    while (atomic_load_explicit(&ack, memory_order_acquire) != i) {
    }
  }
  return NULL;
}

static void *reader(void *arg) {
  long *sum = arg;
  for (long i = 1; i <= ROUNDS; i++) {
    while (atomic_load_explicit(&flag, memory_order_acquire) != i) {
    }
    *sum += slot[i % 8];
    atomic_store_explicit(&ack, i, memory_order_release);
  }
  return NULL;
}

#define RW_NAME "aload_handoffs"
#include "reader_writer.h"
