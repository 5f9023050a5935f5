/* signal_return_window.c: signals that land inside the call and return
 * hooks.  The main thread recurses (every call of `down` into itself is a
 * ccStack push, made lazily) while a second thread sends it SIGUSR1 as
 * fast as it can; the handler allocates, and each allocation takes the
 * thread's context (a capture, which makes the lazy pushes).  A return
 * hook that gave up its frame before it had put back the state let a
 * handler push its own frame over one the ccStack still named: the push
 * then named itself, and the capture followed the cycle into a crash
 * (encoder.c, restore_from).  The program must finish.  Its only reports
 * are the handler's allocation and free, signal-unsafe calls, each once
 * (a pointer kept in a global, so clang does not elide the pair), their
 * stacks down to main through whatever the signal interrupted.
 *
 * EXPECT: signal-unsafe-call
 * EXPECT-COUNT: 2
 * EXPECT-SIGNAL: SIGUSR1
 * EXPECT-CALLED: malloc|free
 * EXPECT-CURRENT: on_signal main
 * EXPECT-STDOUT: done
 */
#include <stdio.h>
#include <stdlib.h>

#include "signal_storm.h"

static volatile long sink;
static _Atomic long delivered;
static char *volatile kept;

__attribute__((noinline)) long down(int n) { return n ? down(n - 1) + n : 1; }

static void on_signal(int sig) {
  (void)sig;
  char *p = kept = malloc(16 + (size_t)(delivered & 63));
  if (p) {
    p[0] = 1;
    sink += p[0] + down(3);
    free(kept);
  }
  delivered++;
}

int main(void) {
  storm_begin(on_signal, 300);
  long sum = 0;
  const double end = storm_now() + 3.0;
  while (storm_now() < end)
    for (int i = 0; i < 1000; i++) sum += down(i % 24);
  storm_end();
  printf("done (%ld signals)\n", (long)delivered);
  return sum ? 0 : 1;
}
