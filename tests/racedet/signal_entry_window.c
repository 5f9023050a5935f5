/* signal_entry_window.c: signals that land inside the call and return
 * hooks' fast paths before their one store that publishes
 * (hooks_x86_64.S).  The entry writes the new frame into the slot above
 * the top first; a handler that arrives then makes calls of its own, whose
 * frames go into that same slot.  The return checks that its frame was
 * never encoded and then pops it; a handler that arrives in between and
 * takes a context encodes it.  Without the restart (dc_hook_restart: the
 * interrupted hook starts again when the handler returns) the entry went on
 * writing its remaining fields over the handler's, so that `leaf`'s frame
 * named the handler's call site or its callee, and the return popped an
 * encoded `quiet` without putting back the state before it, so that the
 * next contexts had `quiet` in them.
 *
 * The main thread calls `leaf` and `quiet` in a loop; `leaf` writes a
 * variable that a second thread writes too, so every one of its writes
 * races and takes its context, and `quiet` takes none.  A third thread
 * sends the main thread SIGUSR1 as fast as it can; the handler calls
 * `in_handler`, which stores into memory never touched before and so takes
 * a context each time.  Every context of `leaf`'s write is main -> driver
 * -> leaf: one report, with no frame of the handler's and no `quiet`.  (The
 * handlers also land inside the detector's work on `leaf`'s write: until
 * they left the thread's cache of contexts alone, one run in fifteen made
 * a second report, of a context that could not be decoded; rd_thread.c,
 * handle_of.)
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: leaf|other_write driver|other
 * EXPECT-PREVIOUS: leaf|other_write driver|other
 * EXPECT-ABSENT: in_handler quiet on_signal
 * EXPECT-STDOUT: done
 */
#include <stdio.h>

#include "signal_storm.h"

static _Atomic int stop;
long shared; /* (not static: a store to a static nobody reads is no store) */
static volatile long sink;
static _Atomic long delivered;

__attribute__((noinline)) void in_handler(int n) { sink += n; }

static void on_signal(int sig) {
  in_handler(sig);
  delivered++;
}

__attribute__((noinline)) void leaf(long i) { shared = i; }

/* no access, no hooks: a call that makes `quiet` have hooks */
__attribute__((noinline)) void nothing(void) { __asm__ volatile(""); }
__attribute__((noinline)) void quiet(void) { nothing(); }

__attribute__((noinline)) void driver(long n) {
  for (long i = 0; i < n; i++) {
    leaf(i);
    quiet();
  }
}

__attribute__((noinline)) void other_write(long i) { shared = -i; }

static void *other(void *arg) {
  (void)arg;
  for (long i = 0; !stop; i++) other_write(i);
  return 0;
}

int main(void) {
  pthread_t o;
  pthread_create(&o, 0, other, 0);
  storm_begin(on_signal, 0);
  const double end = storm_now() + 2.0;
  while (storm_now() < end) driver(1000);
  storm_end();
  stop = 1;
  pthread_join(o, 0);
  printf("done (%ld signals)\n", (long)delivered);
  return 0;
}
