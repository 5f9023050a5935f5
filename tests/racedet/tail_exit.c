/* tail_exit.c: a function that leaves by jumping to __tsan_func_exit after
 * popping its own frame (gcc -O2 compiles void functions so, and clang
 * some; jump_out below is such code written out, the same under both
 * compilers at any level), so that the exit hook sees its caller's stack
 * pointer and the top frame looks dead.  The return hook's fast path pops
 * exactly that frame when the frame under it is alive and the top one was
 * entered from the hook's return address (encoder.c, dc_func_exit).  The
 * writer's racing store comes right after such a return, with no call in
 * between (a call's entry hook would drop a frame left dead): had the
 * return hook popped nothing, the store's stack would still hold jump_out
 * (under writer_work, the store's pc); had it popped two, writer_work's
 * frame would be missing.  Before it, the same returns from two and three
 * levels down.  The reader reads after it (relaxed_handoff.h).
 *
 * EXPECT: race
 * EXPECT-CURRENT: reader_work reader
 * EXPECT-PREVIOUS: writer_work writer
 * EXPECT-ABSENT: jump_out
 * EXPECT-COUNT: 1
 */
long mark[64], shared;

/* void jump_out(void): enters, then leaves as gcc -O2 compiles a void
 * function: its frame popped, then a jump to the exit hook */
__asm__(".text\n.globl jump_out\n.type jump_out, @function\njump_out:\n"
        "  push %rbx\n"
        "  mov 8(%rsp), %rdi\n" /* the caller's pc: our return address */
        "  call __tsan_func_entry\n"
        "  pop %rbx\n"
        "  jmp __tsan_func_exit\n"
        ".size jump_out, .-jump_out\n");
void jump_out(void);

__attribute__((noinline)) void set_mark(int i) {
  jump_out();
  mark[i] = i;
}
__attribute__((noinline)) void step_in(int i) {
  set_mark(i);
  jump_out();
  mark[i] += 1;
}

__attribute__((noinline)) static void writer_work(void) {
  for (int i = 0; i < 64; i++) step_in(i);
  jump_out();
  shared = 1;
}

__attribute__((noinline)) static long reader_work(void) { return shared; }

#include "relaxed_handoff.h"
