/* leak_reencoded.c: leaked threads created at one place are one report,
 * also when the encoding changed between the creations.  Calls over edges
 * the dictionary does not know yet (churn) make the encoder re-encode
 * between the first leaked thread and the other two (and dacce_reencode
 * makes sure), so the same creation stack is encoded under two
 * dictionaries.  leveldb's db_bench, whose benchmarks each start threads
 * from one place, had its leaks split into four reports so.
 *
 * EXPECT: thread-leak
 * EXPECT-COUNT: 1
 * EXPECT-SIMILAR: 2
 * EXPECT-CREATION: spawn_leaky
 * EXPECT-STDOUT: re-encoded
 */
#include <pthread.h>
#include <stdio.h>

#include "live_tasks.h"

#include "../../encoder/include/dacce.h"

static void *quick(void *arg) { return arg; }

__attribute__((noinline)) void spawn_leaky(pthread_t *t) { pthread_create(t, 0, quick, 0); }

static volatile int sink;
__attribute__((noinline)) static void churn_leaf(int i) { sink += i; }
__attribute__((noinline)) static void churn_mid(int i) { churn_leaf(i); }
__attribute__((noinline)) static void churn(void) {
  for (int i = 0; i < 4096; i++) churn_mid(i);
}

static dacce_stats before, after;
/* after the first creation only: churn and re-encode */
__attribute__((noinline)) static void between(int i) {
  if (i) return;
  dacce_get_stats(&before);
  churn();
  dacce_reencode();
  dacce_get_stats(&after);
}

int main(void) {
  pthread_t leaky[3];
  volatile int nleaky = 3; /* one call site: a loop the compiler keeps */
  for (int i = 0; i < nleaky; i++) {
    spawn_leaky(&leaky[i]);
    between(i);
  }
  wait_tasks(1);
  printf("%s\n", after.reencodings > before.reencodings ? "re-encoded" : "not re-encoded");
  return 0;
}
