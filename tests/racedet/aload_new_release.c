/* aload_new_release.c: an atomic load that skips the object's lock (the
 * thread joined its clock before, racedet/access.c, rd_atomic_load_pre)
 * must still see a release made since.  The writer publishes data1 with
 * flag = 1 (release); the reader spins on flag with acquire loads until it
 * reads 1, reads data1 and acknowledges; from then on its loads of flag
 * find the object at the version it joined and take no lock.  The writer
 * then writes data2 and stores flag = 2 (release): the reader's loads must
 * notice the new version, join the writer's clock, and read data2 without a
 * race.  A runtime that trusted the reader's earlier join for the address
 * (no version) would report the read of data2.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: aload_new_release 3
 */
#include <stdatomic.h>
#include <stddef.h>

static long data1, data2;
static atomic_int flag, ack;

static void *writer(void *arg) {
  (void)arg;
  data1 = 1;
  atomic_store_explicit(&flag, 1, memory_order_release);
  while (!atomic_load_explicit(&ack, memory_order_acquire)) {
  }
  data2 = 2;
  atomic_store_explicit(&flag, 2, memory_order_release);
  return NULL;
}

static void *reader(void *arg) {
  long *sum = arg;
  while (atomic_load_explicit(&flag, memory_order_acquire) != 1) {
  }
  *sum = data1;
  /* lock-free loads of a version already joined (more than one, so that
   * the writer's second release may come while they run) */
  for (int i = 0; i < 1000; i++) (void)atomic_load_explicit(&flag, memory_order_acquire);
  atomic_store_explicit(&ack, 1, memory_order_release);
  while (atomic_load_explicit(&flag, memory_order_acquire) != 2) {
  }
  *sum += data2;
  return NULL;
}

#define RW_NAME "aload_new_release"
#include "reader_writer.h"
