/* decode_prog.c: logs contexts for run_decode_test.sh to decode.
 *
 * Contexts (tag: path), logged once under the first dictionary and once
 * (tag suffix "-re") after a forced re-encoding:
 *   nested:    main -> outer -> middle -> [inl_helper inlined] -> leaf
 *   recursion: main -> rec_start -> rec -> rec_fp (= rec) x3 -> rec
 *   thread:    T0 main -> spawn -> T1 thread_a -> a_helper -> T2 thread_b -> b_work
 * Every context ends in log_here (frame #0).  "@call:A->B" marks the line of
 * A's call to B, which the test expects as A's frame line; "@fn:F" marks the
 * line where F is defined, expected for frames whose position is unknown
 * (frame #0, a creator's frame); "@create:F" the pthread_create call in F,
 * expected for a creator's frame when the dump records where threads were
 * created.  Keep each marker on its line. */
#include <dacce.h>
#include <pthread.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink; /* work after each call, so that no call is a tail call */
static const char *suffix = "";

NOINLINE static void log_here(const char *what) { /* @fn:log_here */
  char tag[64];
  dacce_ctx c;
  dacce_capture(&c);
  snprintf(tag, sizeof tag, "%s%s", what, suffix);
  dacce_log(&c, tag);
}

NOINLINE static void leaf(void) {
  log_here("nested"); /* @call:leaf->log_here */
  sink++;
}

static inline __attribute__((always_inline)) void inl_helper(void) {
  leaf(); /* @call:inl_helper->leaf */
  sink++;
}

NOINLINE static void middle(void) {
  inl_helper(); /* @call:middle->inl_helper */
  sink++;
}

NOINLINE static void outer(void) {
  middle(); /* @call:outer->middle */
  sink++;
}

static void (*volatile rec_fp)(int);

NOINLINE static void rec(int n) {
  if (n == 0) {
    log_here("recursion"); /* @call:rec->log_here */
  } else {
    rec_fp(n - 1); /* @call:rec->rec */
  }
  sink++;
}

NOINLINE static void rec_start(void) {
  rec_fp = rec;
  rec(3); /* @call:rec_start->rec */
  sink++;
}

NOINLINE static void b_work(void) {
  log_here("thread"); /* @call:b_work->log_here */
  sink++;
}

static void *thread_b(void *arg) {
  b_work(); /* @call:thread_b->b_work */
  sink++;
  return arg;
}

NOINLINE static void a_helper(void) { /* @fn:a_helper */
  pthread_t t;
  if (pthread_create(&t, 0, thread_b, 0)) return; /* @create:a_helper */
  pthread_join(t, 0);
  sink++;
}

static void *thread_a(void *arg) {
  a_helper(); /* @call:thread_a->a_helper */
  sink++;
  return arg;
}

NOINLINE static void spawn(void) { /* @fn:spawn */
  pthread_t t;
  if (pthread_create(&t, 0, thread_a, 0)) return; /* @create:spawn */
  pthread_join(t, 0);
  sink++;
}

NOINLINE static void run_all(void) {
  outer(); /* @call:run_all->outer */
  rec_start(); /* @call:run_all->rec_start */
  spawn(); /* @call:run_all->spawn */
  sink++;
}

int main(void) {
  run_all(); /* @call:main->run_all */
  dacce_reencode();
  suffix = "-re";
  run_all(); /* @call:main->run_all-re */
  return sink == 0;
}
