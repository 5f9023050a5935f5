/* hooks_x86_64.S: the call and return hooks' fast paths, and the entry
 * points that need the caller's stack pointer.
 *
 * The compiler calls __tsan_func_entry(caller_pc) from the prologue of every
 * instrumented function and __tsan_func_exit() before it returns.  The
 * fast entry pushes a raw frame on the thread's frame stack: the call site,
 * a pc inside the callee (the hook's return address, a fixed pc that
 * identifies the function), the caller's stack pointer, and DC_EDGE_RAW.
 * The call is encoded only when a context is captured (encoder.c,
 * dc_materialize): most calls never are, and their hooks then cost about
 * what ThreadSanitizer's do.  The fast exit pops a raw frame.  Everything
 * else goes to C, with the caller's stack pointer added:
 *
 *   __tsan_func_entry(cs)          -> dc_func_entry(cs, callee_pc, sp)
 *   __tsan_func_exit()             -> dc_func_exit(ra, sp)
 *   __cyg_profile_func_enter(f,cs) -> dc_cyg_func_entry(cs, f, sp)
 *   __cyg_profile_func_exit(f,cs)  -> as __tsan_func_exit
 *   __cxa_begin_catch(exc)         -> dc_cxa_begin_catch(exc, sp)
 *
 * The offsets are hooks_offsets.h's, which internal.h checks.
 */
#include "hooks_offsets.h"

        .text

#define COMMA ,
#define STUB(name) \
        .globl name; .type name,@function; .p2align 4; name:

/* The fast entry, for a thread with nothing pending (the slow word), whose
 * top frame is alive at this stack pointer (encoder.c, dead_at_entry) and
 * whose frame stack has room.  Up to the store of the new top (the
 * ..._publish label) nothing that the program or a signal handler can see
 * has changed but ctx_handle, and the inputs (rdi, rsi, the return
 * address) are untouched: a signal that arrives in between makes the hook
 * start again from its first instruction when the handler returns
 * (dc_hook_restart, from the signal trampoline), so that the handler's own
 * calls may reuse the slot being written.  cs and callee: the registers
 * holding them once PREP has run; DEAD: the jump taken when the top frame
 * is dead (its E <= sp for __tsan_func_entry, E < sp for
 * -finstrument-functions, whose hooks also run for inlined callees);
 * SLOWARGS: puts (cs, callee) in (rdi, rsi) for the C slow path. */
#define FAST_ENTRY(name, start, publish, PREP, CS, CALLEE, DEAD, SLOWARGS, slow) \
STUB(name)                                                \
        .globl start; .hidden start; start:               \
        .cfi_startproc;                                   \
        movq    dc_tls@gottpoff(%rip), %rax;              \
        movq    %fs:(%rax), %rax;                         \
        movq    DC_T_TOP(%rax), %rdx;                     \
        leaq    8(%rsp), %rcx;                            \
        cmpq    $0, DC_T_SLOW(%rax);                      \
        jne     1f;                                       \
        cmpq    DC_F_SP-DC_F_SIZE(%rdx), %rcx;            \
        DEAD    1f;                                       \
        cmpq    DC_T_LIMIT(%rax), %rdx;                   \
        jae     1f;                                       \
        PREP;                                             \
        movq    CS, DC_F_CS(%rdx);                        \
        movq    CALLEE, DC_F_CALLEE(%rdx);                \
        movq    %rcx, DC_F_SP(%rdx);                      \
        movl    $DC_EDGE_RAW_ASM, DC_F_EDGE(%rdx);        \
        movl    $0, DC_T_CTX(%rax);                       \
        addq    $DC_F_SIZE, %rdx;                         \
        .globl publish; .hidden publish; publish:         \
        movq    %rdx, DC_T_TOP(%rax);                     \
        addq    $1, DC_T_CALLS(%rax);                     \
        ret;                                              \
1:      SLOWARGS;                                         \
        leaq    8(%rsp), %rdx;                            \
        jmp     slow;                                     \
        .cfi_endproc;                                     \
        .size name, .-name

FAST_ENTRY(__tsan_func_entry, dc_hook_entry_start, dc_hook_entry_publish, movq (%rsp) COMMA %rsi, %rdi, %rsi, jae,
           movq (%rsp) COMMA %rsi, dc_func_entry)
FAST_ENTRY(__cyg_profile_func_enter, dc_hook_cyg_start, dc_hook_cyg_publish, , %rsi, %rdi, ja,
           xchgq %rdi COMMA %rsi, dc_cyg_func_entry)

/* The fast exit pops a raw top frame (the call was never encoded: nothing
 * to restore, and ctx_handle is 0 since the entry, as no context was taken
 * above it), with one store.  The top frame looks dead (E < sp) when the
 * function jumped to the hook after popping its own frame (gcc and clang
 * emit `jmp __tsan_func_exit`): it is the exiting one if the frame under it
 * is alive and it was entered from the hook's return address.  Anything
 * else, and an encoded top frame, goes to dc_func_exit (encoder.c).  A
 * signal handler that arrives before the store may encode the frame (a
 * capture in the handler encodes every raw frame), after which popping it
 * without its saved state would leave the thread's state that of the
 * popped call: the hook starts again from its first instruction then too
 * (dc_hook_restart), and finds an encoded frame.  So everything from the
 * first instruction to the store (dc_hook_exit_publish) comes before it in
 * the code, and nothing after it. */
STUB(__tsan_func_exit)
        .globl __cyg_profile_func_exit
        .type __cyg_profile_func_exit,@function
__cyg_profile_func_exit:
        .globl dc_hook_exit_start; .hidden dc_hook_exit_start
dc_hook_exit_start:
        .cfi_startproc
        movq    dc_tls@gottpoff(%rip), %rax
        movq    %fs:(%rax), %rax
        movq    DC_T_TOP(%rax), %rdx
        leaq    8(%rsp), %rcx
        cmpq    $0, DC_T_SLOW(%rax)
        jne     2f
        cmpl    $DC_EDGE_RAW_ASM, DC_F_EDGE-DC_F_SIZE(%rdx)
        jne     2f
        cmpq    DC_F_SP-DC_F_SIZE(%rdx), %rcx
        jbe     1f
        cmpq    DC_F_SP-2*DC_F_SIZE(%rdx), %rcx
        ja      2f
        movq    (%rsp), %rsi
        cmpq    %rsi, DC_F_CS-DC_F_SIZE(%rdx)
        jne     2f
1:      subq    $DC_F_SIZE, %rdx
        .globl dc_hook_exit_publish; .hidden dc_hook_exit_publish
dc_hook_exit_publish:
        movq    %rdx, DC_T_TOP(%rax)
        ret
2:      movq    (%rsp), %rdi
        leaq    8(%rsp), %rsi
        jmp     dc_func_exit
        .cfi_endproc
        .size __tsan_func_exit, .-__tsan_func_exit
        .size __cyg_profile_func_exit, .-__cyg_profile_func_exit

STUB(__cxa_begin_catch)
        .cfi_startproc
        leaq    8(%rsp), %rsi
        jmp     dc_cxa_begin_catch
        .cfi_endproc
        .size __cxa_begin_catch, .-__cxa_begin_catch

        .section .note.GNU-stack,"",@progbits
